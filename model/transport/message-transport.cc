/*
 * This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License version 2 as
 * published by the Free Software Foundation;
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program; if not, write to the Free Software
 * Foundation, Inc., 59 Temple Place, Suite 330, Boston, MA  02111-1307  USA
 */

#include "message-transport.h"

#include "ns3/crux-compat.h"
#include "ns3/fatal-error.h"
#include "ns3/simulator.h"
#include "ns3/wire-time.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MessageTransport);

TypeId
MessageTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MessageTransport").SetParent<Object>().SetGroupName("Crux");
    return tid;
}

MessageTransport::~MessageTransport() = default;

void
MessageTransport::DoDispose()
{
    m_describers.clear();
    Object::DoDispose();
}

void
MessageTransport::SetMessageDescriber(uint32_t jobId, DescribeCallback describe)
{
    if (describe.IsNull())
    {
        m_describers.erase(jobId);
        return;
    }
    m_describers[jobId] = describe;
}

std::string
MessageTransport::DescribeMessage(uint32_t jobId, uint32_t tag)
{
    auto it = m_describers.find(jobId);
    if (it == m_describers.end() || tag == MessageRequest().tag)
    {
        return std::string();
    }
    return it->second(tag);
}

void
MessageTransport::CheckRequest(const MessageRequest& req,
                               const std::string& transport,
                               const std::vector<uint32_t>& gpusPerHost)
{
    if (req.bytes == 0)
    {
        NS_FATAL_ERROR(transport << "::Send: req.bytes must be > 0 (job " << req.jobId << ", flow "
                                 << req.flowId << ")");
    }
    if (req.dscp > 63)
    {
        NS_FATAL_ERROR(transport << "::Send: req.dscp = " << unsigned(req.dscp)
                                 << " out of range 0..63");
    }
    CheckGpu(req.src, "req.src", transport, gpusPerHost);
    CheckGpu(req.dst, "req.dst", transport, gpusPerHost);
}

void
MessageTransport::CheckGpu(const GpuId& gpu,
                           const char* field,
                           const std::string& transport,
                           const std::vector<uint32_t>& gpusPerHost)
{
    if (gpu.host >= gpusPerHost.size())
    {
        NS_FATAL_ERROR(transport << ": " << field << ".host = " << gpu.host << " but only "
                                 << gpusPerHost.size() << " hosts exist");
    }
    if (gpu.localGpu >= gpusPerHost[gpu.host])
    {
        NS_FATAL_ERROR(transport << ": " << field << ".localGpu = " << gpu.localGpu << " but host "
                                 << gpu.host << " has " << gpusPerHost[gpu.host] << " GPUs");
    }
}

void
MessageTransport::CheckNewHost(uint32_t host,
                               uint32_t gpus,
                               const std::string& transport,
                               const std::vector<uint32_t>& gpusPerHost)
{
    if (host != gpusPerHost.size())
    {
        NS_FATAL_ERROR(transport << "::AddHost: host " << host << " added out of order (expected "
                                 << gpusPerHost.size() << ")");
    }
    if (gpus == 0)
    {
        NS_FATAL_ERROR(transport << "::AddHost: host " << host << " has 0 GPUs");
    }
}

void
MessageTransport::SendOverNvlink(const MessageRequest& req,
                                 CompletionCallback done,
                                 std::vector<std::vector<Time>>& busy,
                                 DataRate rate,
                                 Time latency)
{
    const Time now = Simulator::Now();
    Time& egress = busy[req.src.host][req.src.localGpu];
    const Time start = std::max(now, egress);
    // messages can exceed DataRate::CalculateBytesTxTime's 32-bit range (crux::BytesTxTime)
    egress = start + crux::BytesTxTime(rate, req.bytes);
    if (!done.IsNull())
    {
        crux::Schedule(egress + latency - now, done);
    }
}

} // namespace ns3
