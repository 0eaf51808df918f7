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

#include "ring-allreduce.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRingAllReduce");

NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);

TypeId
RingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAllReduce")
                            .SetParent<Object>()
                            .SetGroupName("Crux")
                            .AddConstructor<RingAllReduce>();
    return tid;
}

RingAllReduce::RingAllReduce()
{
    NS_LOG_FUNCTION(this);
}

RingAllReduce::~RingAllReduce() = default;

void
RingAllReduce::DoDispose()
{
    NS_LOG_FUNCTION(this);
    Abort();
    m_transport = nullptr;
    Object::DoDispose();
}

uint32_t
RingAllReduce::NumSteps(uint32_t n)
{
    return n <= 1 ? 0 : 2 * (n - 1);
}

uint64_t
RingAllReduce::ChunkBytes(uint64_t total, uint32_t n, uint32_t chunk)
{
    if (n == 0)
    {
        throw std::invalid_argument("RingAllReduce::ChunkBytes: n must be >= 1");
    }
    return total / n + (chunk < total % n ? 1 : 0);
}

uint32_t
RingAllReduce::ChunkOfStep(uint32_t s, uint32_t r, uint32_t n)
{
    if (s < n - 1)
    {
        // reduce-scatter: rank r forwards the partial sum of chunk r - s
        return (r + n - s) % n;
    }
    // all-gather: rank r forwards the finished chunk r + 1 - s'
    const uint32_t sp = s - (n - 1);
    return (r + 1 + n - sp) % n;
}

uint64_t
RingAllReduce::BytesSentByRank(uint64_t total, uint32_t n, uint32_t rank)
{
    uint64_t sum = 0;
    for (uint32_t s = 0; s < NumSteps(n); ++s)
    {
        sum += ChunkBytes(total, n, ChunkOfStep(s, rank, n));
    }
    return sum;
}

void
RingAllReduce::Setup(Ptr<MessageTransport> transport,
                     uint32_t jobId,
                     const std::vector<GpuId>& ranks,
                     const std::vector<uint32_t>& flowIds,
                     const std::vector<uint16_t>& udpSrcPorts,
                     uint8_t dscp)
{
    NS_LOG_FUNCTION(this << jobId << ranks.size());
    if (!transport)
    {
        throw std::invalid_argument("RingAllReduce::Setup: transport is null");
    }
    if (ranks.empty())
    {
        throw std::invalid_argument("RingAllReduce::Setup: ranks is empty");
    }
    if (flowIds.size() != ranks.size())
    {
        throw std::invalid_argument("RingAllReduce::Setup: flowIds has " +
                                    std::to_string(flowIds.size()) + " entries, ranks " +
                                    std::to_string(ranks.size()));
    }
    if (!udpSrcPorts.empty() && udpSrcPorts.size() != ranks.size())
    {
        throw std::invalid_argument("RingAllReduce::Setup: udpSrcPorts has " +
                                    std::to_string(udpSrcPorts.size()) + " entries, ranks " +
                                    std::to_string(ranks.size()));
    }
    if (dscp > 63)
    {
        throw std::invalid_argument("RingAllReduce::Setup: dscp " + std::to_string(dscp) + " > 63");
    }
    Abort();
    m_transport = transport;
    m_jobId = jobId;
    m_ranks = ranks;
    m_flowIds = flowIds;
    m_ports = udpSrcPorts.empty() ? std::vector<uint16_t>(ranks.size(), 0) : udpSrcPorts;
    m_dscp = dscp;
}

void
RingAllReduce::Start(uint64_t bytes, DoneCallback done)
{
    NS_LOG_FUNCTION(this << bytes);
    if (!m_transport)
    {
        NS_FATAL_ERROR("RingAllReduce::Start before Setup (job " << m_jobId << ")");
    }
    ++m_generation;
    const uint32_t n = m_ranks.size();
    const uint32_t steps = NumSteps(n);
    m_bytes = bytes;
    m_done = done;
    m_running = true;
    m_complete = false;
    m_start = Simulator::Now();
    m_finish = Time(0);
    m_delivered = 0;
    m_messagesSent = 0;
    m_bytesSent = 0;
    m_expected = static_cast<uint64_t>(n) * steps;
    m_nextStep.assign(n, 0);
    m_received.assign(n, std::vector<uint8_t>(steps, 0));
    if (m_expected == 0 || bytes == 0)
    {
        Simulator::ScheduleNow(&RingAllReduce::Complete, Ptr<RingAllReduce>(this), m_generation);
        return;
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        Advance(r);
    }
}

void
RingAllReduce::Advance(uint32_t r)
{
    const uint32_t n = m_ranks.size();
    const uint32_t steps = NumSteps(n);
    while (m_running && m_nextStep[r] < steps &&
           (m_nextStep[r] == 0 || m_received[r][m_nextStep[r] - 1]))
    {
        const uint32_t s = m_nextStep[r]++;
        const uint64_t chunk = ChunkBytes(m_bytes, n, ChunkOfStep(s, r, n));
        if (chunk == 0)
        {
            Simulator::ScheduleNow(&RingAllReduce::Delivered,
                                   Ptr<RingAllReduce>(this),
                                   r,
                                   s,
                                   m_generation);
            continue;
        }
        MessageRequest req;
        req.jobId = m_jobId;
        req.flowId = m_flowIds[r];
        req.src = m_ranks[r];
        req.dst = m_ranks[(r + 1) % n];
        req.bytes = chunk;
        req.dscp = m_dscp;
        req.udpSrcPort = m_ports[r];
        ++m_messagesSent;
        m_bytesSent += chunk;
        NS_LOG_LOGIC("job " << m_jobId << " rank " << r << " step " << s << " sends " << chunk
                            << " B");
        m_transport->Send(
            req,
            MakeCallback(&RingAllReduce::Delivered, Ptr<RingAllReduce>(this), r, s, m_generation));
    }
}

void
RingAllReduce::Delivered(uint32_t r, uint32_t s, uint64_t gen)
{
    if (gen != m_generation || !m_running)
    {
        return; // a message of an abandoned run
    }
    const uint32_t n = m_ranks.size();
    const uint32_t q = (r + 1) % n;
    if (m_received[q][s])
    {
        NS_FATAL_ERROR("RingAllReduce (job " << m_jobId << "): step " << s << " of rank " << r
                                             << " delivered twice");
    }
    m_received[q][s] = 1;
    ++m_delivered;
    if (m_delivered == m_expected)
    {
        Complete(gen);
        return;
    }
    Advance(q);
}

void
RingAllReduce::Complete(uint64_t gen)
{
    if (gen != m_generation || !m_running)
    {
        return;
    }
    NS_LOG_FUNCTION(this << m_jobId);
    m_running = false;
    m_complete = true;
    m_finish = Simulator::Now();
    DoneCallback done = m_done;
    m_done = DoneCallback();
    if (!done.IsNull())
    {
        done();
    }
}

void
RingAllReduce::Abort()
{
    if (m_running)
    {
        NS_LOG_FUNCTION(this << m_jobId);
    }
    ++m_generation;
    m_running = false;
    m_done = DoneCallback();
}

bool
RingAllReduce::IsComplete() const
{
    return m_complete;
}

Time
RingAllReduce::GetStartTime() const
{
    return m_start;
}

Time
RingAllReduce::GetFinishTime() const
{
    return m_finish;
}

uint64_t
RingAllReduce::GetMessagesSent() const
{
    return m_messagesSent;
}

uint64_t
RingAllReduce::GetBytesSent() const
{
    return m_bytesSent;
}

} // namespace ns3
