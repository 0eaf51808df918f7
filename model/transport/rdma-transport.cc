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

#include "rdma-transport.h"

#include "roce-header.h"

#include "ns3/data-rate.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/roce-constants.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRdmaTransport");

NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

namespace
{
/// \return "GPU h.g (host.GPU) -> GPU h.g" for the watchdog \param key a connection
std::string
GpuPairLabel(const RdmaQpKey& key)
{
    return "GPU " + std::to_string(key.src.host) + "." + std::to_string(key.src.localGpu) +
           " (host.GPU) -> GPU " + std::to_string(key.dst.host) + "." +
           std::to_string(key.dst.localGpu);
}
} // namespace

RdmaQpKey
RdmaQpKey::FromRequest(const MessageRequest& req)
{
    RdmaQpKey k;
    k.jobId = req.jobId;
    k.flowId = req.flowId;
    k.src = req.src;
    k.dst = req.dst;
    return k;
}

bool
RdmaQpKey::operator<(const RdmaQpKey& o) const
{
    return std::tie(jobId, flowId, src.host, src.localGpu, dst.host, dst.localGpu) <
           std::tie(o.jobId, o.flowId, o.src.host, o.src.localGpu, o.dst.host, o.dst.localGpu);
}

bool
RdmaQpKey::operator==(const RdmaQpKey& o) const
{
    return jobId == o.jobId && flowId == o.flowId && src.host == o.src.host &&
           src.localGpu == o.src.localGpu && dst.host == o.dst.host &&
           dst.localGpu == o.dst.localGpu;
}

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaTransport")
            .SetParent<MessageTransport>()
            .SetGroupName("Crux")
            .AddConstructor<RdmaTransport>()
            .AddAttribute("IntraHostRate",
                          "Bandwidth of a GPU's intra-host (NVLink) egress for messages between "
                          "GPUs of the same host. Default 300 GB/s per direction (A100 NVLink 3: "
                          "12 links x 25 GB/s).",
                          DataRateValue(DataRate("2400Gb/s")),
                          MakeDataRateAccessor(&RdmaTransport::m_intraRate),
                          MakeDataRateChecker())
            .AddAttribute("IntraHostLatency",
                          "Fixed latency added to every intra-host message (alpha of the "
                          "alpha-beta model).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RdmaTransport::m_intraLatency),
                          MakeTimeChecker(Seconds(0)));
    return tid;
}

RdmaTransport::RdmaTransport()
    : m_intraRate(DataRate("2400Gb/s")),
      m_intraLatency(MicroSeconds(1))
{
}

RdmaTransport::~RdmaTransport() = default;

void
RdmaTransport::DoDispose()
{
    m_qps.clear();
    m_nics.clear();
    MessageTransport::DoDispose();
}

void
RdmaTransport::AddHost(uint32_t host, uint32_t gpus)
{
    CheckNewHost(host, gpus, "RdmaTransport", m_gpus);
    m_gpus.push_back(gpus);
    m_nics.emplace_back();
    m_nvlinkBusy.emplace_back(gpus, Time(0));
}

void
RdmaTransport::AddNic(uint32_t host, uint32_t nic, Ptr<RdmaNic> rdmaNic)
{
    if (host >= m_nics.size())
    {
        NS_FATAL_ERROR("RdmaTransport::AddNic: host " << host << " not registered");
    }
    if (nic != m_nics[host].size())
    {
        NS_FATAL_ERROR("RdmaTransport::AddNic: NIC " << nic << " of host " << host
                                                     << " added out of order (expected "
                                                     << m_nics[host].size() << ")");
    }
    if (!rdmaNic || !rdmaNic->GetDevice())
    {
        NS_FATAL_ERROR("RdmaTransport::AddNic: NIC " << nic << " of host " << host
                                                     << " is null or not attached");
    }
    m_nics[host].push_back(rdmaNic);
}

uint32_t
RdmaTransport::GetNHosts() const
{
    return static_cast<uint32_t>(m_gpus.size());
}

uint32_t
RdmaTransport::GetNNics(uint32_t host) const
{
    if (host >= m_nics.size())
    {
        NS_FATAL_ERROR("RdmaTransport::GetNNics: host " << host << " not registered");
    }
    return static_cast<uint32_t>(m_nics[host].size());
}

Ptr<RdmaNic>
RdmaTransport::GetNic(uint32_t host, uint32_t nic) const
{
    if (host >= m_nics.size() || nic >= m_nics[host].size())
    {
        NS_FATAL_ERROR("RdmaTransport::GetNic: no NIC " << nic << " on host " << host);
    }
    return m_nics[host][nic];
}

Ptr<RdmaNic>
RdmaTransport::GpuToNic(const GpuId& gpu) const
{
    CheckGpu(gpu, "gpu", "RdmaTransport", m_gpus);
    const auto& nics = m_nics[gpu.host];
    if (nics.empty())
    {
        NS_FATAL_ERROR("RdmaTransport: host " << gpu.host << " has no NIC");
    }
    const uint64_t n = static_cast<uint64_t>(gpu.localGpu) * nics.size() / m_gpus[gpu.host];
    return nics[n];
}

uint16_t
RdmaTransport::DefaultSourcePort(const RdmaQpKey& key)
{
    // splitmix64 finalizer over the packed fields: a fixed, platform-independent mix
    auto mix = [](uint64_t z) {
        z += 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    };
    uint64_t h = mix((static_cast<uint64_t>(key.jobId) << 32) | key.flowId);
    h = mix(h ^ ((static_cast<uint64_t>(key.src.host) << 32) | key.src.localGpu));
    h = mix(h ^ ((static_cast<uint64_t>(key.dst.host) << 32) | key.dst.localGpu));
    return static_cast<uint16_t>(crux::MIN_DYNAMIC_UDP_PORT + h % crux::NUM_DYNAMIC_UDP_PORTS);
}

Ptr<RdmaQueuePair>
RdmaTransport::GetQueuePair(const RdmaQpKey& key) const
{
    auto it = m_qps.find(key);
    return it == m_qps.end() ? nullptr : it->second;
}

Ptr<RdmaQueuePair>
RdmaTransport::GetOrCreateQueuePair(const RdmaQpKey& key, uint16_t initialPort)
{
    auto it = m_qps.find(key);
    if (it != m_qps.end())
    {
        return it->second;
    }
    CheckGpu(key.src, "src", "RdmaTransport", m_gpus);
    CheckGpu(key.dst, "dst", "RdmaTransport", m_gpus);
    if (key.src.host == key.dst.host)
    {
        NS_FATAL_ERROR("RdmaTransport: no queue pair between GPUs of the same host "
                       << key.src.host << " (intra-host messages use NVLink)");
    }
    Ptr<RdmaNic> a = GpuToNic(key.src);
    Ptr<RdmaNic> b = GpuToNic(key.dst);
    uint16_t port = initialPort != 0 ? initialPort : DefaultSourcePort(key);
    auto ov = m_portOverride.find(key);
    if (ov != m_portOverride.end())
    {
        port = ov->second;
    }
    Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
    RdmaNic::Connect(qa, qb, port);
    auto label = m_jobLabels.find(key.jobId);
    qa->SetLabels(label != m_jobLabels.end() ? label->second : std::string(),
                  GpuPairLabel(key),
                  Describer());
    m_qps.emplace(key, qa);
    NS_LOG_INFO("job " << key.jobId << " flow " << key.flowId << ": queue pair " << qa->GetQpn()
                       << " " << a->GetAddress() << ":" << port << " -> " << b->GetAddress());
    return qa;
}

Callback<std::string, uint32_t, uint32_t>
RdmaTransport::Describer()
{
    return MakeCallback(&MessageTransport::DescribeMessage, static_cast<MessageTransport*>(this));
}

void
RdmaTransport::SetJobLabel(uint32_t jobId, const std::string& label)
{
    m_jobLabels[jobId] = label;
    for (auto& [key, qp] : m_qps)
    {
        if (key.jobId == jobId)
        {
            qp->SetLabels(label, GpuPairLabel(key), Describer());
        }
    }
}

void
RdmaTransport::SetQpSourcePort(const RdmaQpKey& key, uint16_t port)
{
    if (port == 0)
    {
        NS_FATAL_ERROR("RdmaTransport::SetQpSourcePort: port must be non-zero");
    }
    if (key.src.host == key.dst.host)
    {
        NS_FATAL_ERROR("RdmaTransport::SetQpSourcePort: GPUs of the same host "
                       << key.src.host << " have no queue pair");
    }
    m_portOverride[key] = port;
    auto it = m_qps.find(key);
    if (it != m_qps.end())
    {
        it->second->SetSourcePort(port);
    }
}

uint16_t
RdmaTransport::GetQpSourcePort(const RdmaQpKey& key) const
{
    auto it = m_qps.find(key);
    if (it != m_qps.end())
    {
        return it->second->GetSourcePort();
    }
    auto ov = m_portOverride.find(key);
    return ov != m_portOverride.end() ? ov->second : DefaultSourcePort(key);
}

FiveTuple
RdmaTransport::GetFiveTuple(const RdmaQpKey& key) const
{
    if (key.src.host == key.dst.host)
    {
        NS_FATAL_ERROR("RdmaTransport::GetFiveTuple: GPUs of the same host "
                       << key.src.host << " do not use the network");
    }
    FiveTuple t;
    t.srcIp = GpuToNic(key.src)->GetAddress();
    t.dstIp = GpuToNic(key.dst)->GetAddress();
    t.protocol = 17;
    t.srcPort = GetQpSourcePort(key);
    t.dstPort = roce::UDP_PORT;
    return t;
}

std::vector<RdmaFlowInfo>
RdmaTransport::GetFlows() const
{
    std::vector<RdmaFlowInfo> out;
    out.reserve(m_qps.size());
    for (const auto& [key, qp] : m_qps)
    {
        RdmaFlowInfo f;
        f.key = key;
        f.tuple = qp->GetFiveTuple();
        f.qp = qp;
        out.push_back(f);
    }
    return out;
}

void
RdmaTransport::Send(const MessageRequest& req, CompletionCallback done)
{
    CheckRequest(req, "RdmaTransport", m_gpus);
    if (req.src.host == req.dst.host)
    {
        // NVLink: serialize on the source GPU's egress, then the fixed latency
        SendOverNvlink(req, done, m_nvlinkBusy, m_intraRate, m_intraLatency);
        ++m_intraMessages;
        return;
    }
    const RdmaQpKey key = RdmaQpKey::FromRequest(req);
    Ptr<RdmaQueuePair> qp = GetOrCreateQueuePair(key, req.udpSrcPort);
    if (req.udpSrcPort != 0)
    {
        qp->SetSourcePort(req.udpSrcPort);
    }
    qp->GetNic()->PostSend(qp, req.bytes, req.dscp, req.jobId, req.flowId, done, req.tag);
}

RdmaQpStats
RdmaTransport::GetStats() const
{
    RdmaQpStats s;
    for (const auto& host : m_nics)
    {
        for (const auto& nic : host)
        {
            s += nic->GetStats();
        }
    }
    return s;
}

uint64_t
RdmaTransport::GetIntraHostMessages() const
{
    return m_intraMessages;
}

} // namespace ns3
