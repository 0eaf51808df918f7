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

#include "flow-transport.h"

#include "ns3/boolean.h"
#include "ns3/crux-compat.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "ns3/wire-time.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxFlowTransport");

NS_OBJECT_ENSURE_REGISTERED(FlowTransport);

namespace
{
/// A projected transfer time within this many time steps above an integer is rounded down.
constexpr double TICK_EPSILON = 1e-6;
/// Minimum Ethernet frame (header + payload + FCS), bytes.
constexpr uint64_t MIN_FRAME_BYTES = 64;
} // namespace

TypeId
FlowTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowTransport")
            .SetParent<MessageTransport>()
            .SetGroupName("Crux")
            .AddConstructor<FlowTransport>()
            .AddAttribute("IntraHostRate",
                          "Bandwidth of a GPU's intra-host (NVLink) egress for messages between "
                          "GPUs of the same host (as RdmaTransport's IntraHostRate). Default "
                          "300 GB/s per direction (A100 NVLink 3: 12 links x 25 GB/s).",
                          DataRateValue(DataRate("2400Gb/s")),
                          MakeDataRateAccessor(&FlowTransport::m_intraRate),
                          MakeDataRateChecker())
            .AddAttribute("IntraHostLatency",
                          "Fixed latency added to every intra-host message (alpha of the "
                          "alpha-beta model; as RdmaTransport's IntraHostLatency).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&FlowTransport::m_intraLatency),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("PacketPayload",
                          "Payload bytes per packet used to count the framing overhead of a "
                          "message (RdmaNic's Mtu, default 4096). 0 = pure fluid: a message of "
                          "B bytes is B bytes on the wire and there is no store-and-forward "
                          "latency.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&FlowTransport::m_packetPayload),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PacketHeaderBytes",
                          "Frame bytes of a packet besides its payload, FCS included: IPv4 20 + "
                          "UDP 8 + BTH 12 + ICRC 4 + Ethernet 14 + FCS 4 = 62 for RoCEv2. "
                          "Frames are padded to 64 bytes.",
                          UintegerValue(62),
                          MakeUintegerAccessor(&FlowTransport::m_headerBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("InterframeGapBytes",
                          "Preamble + SFD + interframe gap bytes per packet (QbbNetDevice's "
                          "InterframeGapBytes, 20 for Ethernet).",
                          UintegerValue(20),
                          MakeUintegerAccessor(&FlowTransport::m_ifgBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("StoreAndForward",
                          "Add the store-and-forward pipeline latency of the first packet "
                          "(sum over the path's links of its serialization time minus the "
                          "largest one) to every message's delivery. Needs PacketPayload > 0.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FlowTransport::m_storeAndForward),
                          MakeBooleanChecker())
            .AddAttribute("UpdateQuantum",
                          "0 (exact, the default): the rates are recomputed at every flow's "
                          "start and end. > 0: only at multiples of this time, so flows "
                          "starting or ending within one quantum share one max-min water "
                          "filling (every start and end is late by less than the quantum). An "
                          "approximation for jobs of thousands of GPUs, whose flows otherwise "
                          "end at as many distinct instants, each refilling every flow.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&FlowTransport::m_quantum),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("MessageComplete",
                            "A network message was delivered: job, flow, payload bytes, Send() "
                            "time, delivery time.",
                            MakeTraceSourceAccessor(&FlowTransport::m_messageCompleteTrace),
                            "ns3::FlowTransport::MessageCompleteTracedCallback");
    return tid;
}

FlowTransport::FlowTransport()
    : m_intraRate(DataRate("2400Gb/s")),
      m_intraLatency(MicroSeconds(1)),
      m_packetPayload(4096),
      m_headerBytes(62),
      m_ifgBytes(20),
      m_storeAndForward(true)
{
    for (uint32_t d = 0; d < 64; ++d)
    {
        m_dscpToTc[d] = crux::TrafficClassOfDscp(d);
    }
}

FlowTransport::~FlowTransport() = default;

void
FlowTransport::DoDispose()
{
    m_event.Cancel();
    m_active.clear();
    m_conns.clear();
    m_port.clear();
    m_resolver = PathResolver();
    m_intraResolver = PathResolver();
    MessageTransport::DoDispose();
}

// ------------------------------------------------------------------------------ topology

void
FlowTransport::AddHost(uint32_t host, uint32_t gpus)
{
    CheckNewHost(host, gpus, "FlowTransport", m_gpus);
    m_gpus.push_back(gpus);
    m_nvlinkBusy.emplace_back(gpus, Time(0));
}

uint32_t
FlowTransport::AddLink(DataRate rate, Time delay)
{
    const uint32_t id = static_cast<uint32_t>(m_linkRate.size());
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR("FlowTransport::AddLink: link " << id << " has rate 0");
    }
    if (delay.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("FlowTransport::AddLink: link " << id << " has negative delay " << delay);
    }
    m_linkRate.push_back(rate);
    m_linkDelay.push_back(delay);
    m_linkBytes.emplace_back();
    m_linkBytes.back().fill(0);
    m_filling.AddLink(static_cast<double>(rate.GetBitRate()));
    return id;
}

void
FlowTransport::SetPathResolver(PathResolver resolver)
{
    m_resolver = resolver;
}

void
FlowTransport::SetIntraHostPathResolver(PathResolver resolver)
{
    m_intraResolver = resolver;
}

uint32_t
FlowTransport::GetNHosts() const
{
    return static_cast<uint32_t>(m_gpus.size());
}

uint32_t
FlowTransport::GetNGpus(uint32_t host) const
{
    if (host >= m_gpus.size())
    {
        NS_FATAL_ERROR("FlowTransport::GetNGpus: host " << host << " not registered");
    }
    return m_gpus[host];
}

uint32_t
FlowTransport::GetNLinks() const
{
    return static_cast<uint32_t>(m_linkRate.size());
}

void
FlowTransport::CheckLink(uint32_t link, const char* what) const
{
    if (link >= m_linkRate.size())
    {
        NS_FATAL_ERROR("FlowTransport::" << what << ": link " << link << " does not exist ("
                                         << m_linkRate.size() << " links)");
    }
}

DataRate
FlowTransport::GetLinkRate(uint32_t link) const
{
    CheckLink(link, "GetLinkRate");
    return m_linkRate[link];
}

Time
FlowTransport::GetLinkDelay(uint32_t link) const
{
    CheckLink(link, "GetLinkDelay");
    return m_linkDelay[link];
}

void
FlowTransport::SetDscpToTc(const std::array<uint8_t, 64>& map)
{
    for (uint32_t d = 0; d < 64; ++d)
    {
        if (map[d] >= N_TC)
        {
            NS_FATAL_ERROR("FlowTransport::SetDscpToTc: map[" << d << "] = " << unsigned(map[d])
                                                              << " is not a traffic class 0..7");
        }
    }
    m_dscpToTc = map;
}

uint8_t
FlowTransport::DscpToTc(uint8_t dscp) const
{
    if (dscp > 63)
    {
        NS_FATAL_ERROR("FlowTransport::DscpToTc: dscp = " << unsigned(dscp)
                                                          << " out of range 0..63");
    }
    return m_dscpToTc[dscp];
}

// ------------------------------------------------------------------------------ paths / ports

void
FlowTransport::SetQpSourcePort(const RdmaQpKey& key, uint16_t port)
{
    if (port == 0)
    {
        NS_FATAL_ERROR("FlowTransport::SetQpSourcePort: port must be non-zero");
    }
    if (key.src.host == key.dst.host)
    {
        NS_FATAL_ERROR("FlowTransport::SetQpSourcePort: GPUs of the same host "
                       << key.src.host << " have no connection");
    }
    m_port[key] = port;
}

uint16_t
FlowTransport::GetQpSourcePort(const RdmaQpKey& key) const
{
    auto it = m_port.find(key);
    return it != m_port.end() ? it->second : RdmaTransport::DefaultSourcePort(key);
}

std::vector<uint32_t>
FlowTransport::ResolvePath(const RdmaQpKey& key, uint16_t port) const
{
    if (m_resolver.IsNull() && key.src.host != key.dst.host)
    {
        NS_FATAL_ERROR("FlowTransport: no path resolver set (SetPathResolver or "
                       "FlowTransportHelper::Install)");
    }
    const bool intra = key.src.host == key.dst.host;
    if (intra && m_intraResolver.IsNull())
    {
        NS_FATAL_ERROR("FlowTransport: no intra-host path resolver set");
    }
    std::vector<uint32_t> path = intra ? m_intraResolver(key, port) : m_resolver(key, port);
    if (path.empty())
    {
        NS_FATAL_ERROR("FlowTransport: no path for job "
                       << key.jobId << " flow " << key.flowId << " host " << key.src.host
                       << " -> host " << key.dst.host << " (port " << port << ")");
    }
    std::vector<uint32_t> sorted = path;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
    {
        CheckLink(sorted[i], "path resolver");
        if (i > 0 && sorted[i] == sorted[i - 1])
        {
            NS_FATAL_ERROR("FlowTransport: path of job " << key.jobId << " flow " << key.flowId
                                                         << " crosses link " << sorted[i]
                                                         << " twice");
        }
    }
    return path;
}

std::vector<uint32_t>
FlowTransport::GetPath(const RdmaQpKey& key) const
{
    CheckGpu(key.src, "key.src", "FlowTransport", m_gpus);
    CheckGpu(key.dst, "key.dst", "FlowTransport", m_gpus);
    if (key.src.host == key.dst.host)
    {
        NS_FATAL_ERROR("FlowTransport::GetPath: GPUs of the same host "
                       << key.src.host << " do not use the network");
    }
    return ResolvePath(key, GetQpSourcePort(key));
}

// ------------------------------------------------------------------------------ model

uint64_t
FlowTransport::PacketWireBytes(uint64_t payload) const
{
    return std::max<uint64_t>(payload + m_headerBytes, MIN_FRAME_BYTES) + m_ifgBytes;
}

uint64_t
FlowTransport::GetWireBytes(uint64_t payload) const
{
    if (m_packetPayload == 0)
    {
        return payload;
    }
    const uint64_t full = payload / m_packetPayload;
    const uint64_t last = payload % m_packetPayload;
    return full * PacketWireBytes(m_packetPayload) + (last > 0 ? PacketWireBytes(last) : 0);
}

Time
FlowTransport::GetPathLatency(const std::vector<uint32_t>& path, uint64_t payload) const
{
    Time alpha(0);
    for (uint32_t l : path)
    {
        CheckLink(l, "GetPathLatency");
        alpha += m_linkDelay[l];
    }
    if (m_storeAndForward && m_packetPayload > 0 && path.size() > 1)
    {
        const uint64_t first = std::min<uint64_t>(payload, m_packetPayload);
        const uint32_t wire = static_cast<uint32_t>(PacketWireBytes(first));
        Time sum(0);
        Time slowest(0);
        for (uint32_t l : path)
        {
            const Time ser = crux::BytesTxTime(m_linkRate[l], wire);
            sum += ser;
            slowest = std::max(slowest, ser);
        }
        alpha += sum - slowest;
    }
    return alpha;
}

// ------------------------------------------------------------------------------ send

void
FlowTransport::Send(const MessageRequest& req, CompletionCallback done)
{
    CheckRequest(req, "FlowTransport", m_gpus);
    const Time now = Simulator::Now();
    if (req.src.host == req.dst.host && !m_intraResolver.IsNull() &&
        req.src.localGpu != req.dst.localGpu)
    {
        ++m_intraMessages; // a flow on the intra-host links (SetIntraHostPathResolver)
    }
    else if (req.src.host == req.dst.host)
    {
        // NVLink, exactly as RdmaTransport: serialize on the source GPU's egress, then latency
        SendOverNvlink(req, done, m_nvlinkBusy, m_intraRate, m_intraLatency);
        ++m_intraMessages;
        return;
    }
    const RdmaQpKey key = RdmaQpKey::FromRequest(req);
    if (req.udpSrcPort != 0)
    {
        m_port[key] = req.udpSrcPort;
    }
    auto it = m_conns.find(key);
    if (it == m_conns.end())
    {
        it = m_conns.emplace(key, Connection()).first;
        it->second.key = key;
    }
    Connection& c = it->second;
    Message m;
    m.req = req;
    m.done = done;
    m.posted = now;
    c.queue.push_back(m);
    if (!c.active)
    {
        Activate(&c);
        RequestUpdate();
    }
}

void
FlowTransport::Activate(Connection* c)
{
    const Message& m = c->queue.front();
    const bool intra = c->key.src.host == c->key.dst.host;
    const uint16_t port = intra ? 0 : GetQpSourcePort(c->key);
    c->path = ResolvePath(c->key, port);
    c->tc = m_dscpToTc[m.req.dscp];
    // NVLink carries no Ethernet frames: an intra-host message moves its payload only
    c->wireBytes = intra ? m.req.bytes : GetWireBytes(m.req.bytes);
    c->remaining = static_cast<double>(c->wireBytes);
    c->rate = 0;
    c->finishAt = Time::Max();
    c->active = true;
    auto known = std::find_if(c->flows.begin(), c->flows.end(), [c](const auto& f) {
        return std::get<0>(f) == c->tc && std::get<1>(f) == c->path;
    });
    if (known == c->flows.end())
    {
        if (c->path.empty())
        {
            NS_FATAL_ERROR("FlowTransport: job " << c->key.jobId << " flow " << c->key.flowId
                                                 << " has a path without a link");
        }
        // class 0 of the water filling is the highest priority: TC 7
        const uint32_t f = m_filling.AddFlow(c->path, N_TC - 1 - c->tc);
        m_flowRate.push_back(0);
        known = c->flows.emplace(c->flows.end(), c->tc, c->path, f);
    }
    c->flow = std::get<2>(*known);
    m_filling.Activate(c->flow);
    m_active.push_back(c);
    NS_LOG_INFO("job " << c->key.jobId << " flow " << c->key.flowId << ": " << m.req.bytes << " B ("
                       << c->wireBytes << " wire B) TC " << unsigned(c->tc) << " port " << port
                       << " path " << c->path.size() << " links");
}

void
FlowTransport::RequestUpdate()
{
    if (m_updateNow)
    {
        return;
    }
    if (m_quantum.IsStrictlyPositive())
    {
        // the next multiple of the quantum (now if on it), unless an update comes before
        const Time at = OnGrid(Simulator::Now());
        if (m_event.IsRunning() && TimeStep(m_event.GetTs()) <= at)
        {
            return;
        }
        m_event.Cancel();
        m_event = Simulator::Schedule(at - Simulator::Now(), &FlowTransport::Update, this);
        m_updateNow = at == Simulator::Now();
        return;
    }
    m_event.Cancel();
    m_event = Simulator::ScheduleNow(&FlowTransport::Update, this);
    m_updateNow = true;
}

Time
FlowTransport::OnGrid(Time t) const
{
    const int64_t q = m_quantum.GetTimeStep();
    const int64_t ticks = t.GetTimeStep();
    return TimeStep((ticks + q - 1) / q * q);
}

// ------------------------------------------------------------------------------ fluid model

void
FlowTransport::Advance()
{
    const Time now = Simulator::Now();
    if (now <= m_lastAdvance)
    {
        m_lastAdvance = now;
        return;
    }
    const double dt = (now - m_lastAdvance).GetSeconds();
    for (Connection* c : m_active)
    {
        if (c->rate > 0)
        {
            c->remaining = std::max(0.0, c->remaining - c->rate * dt / 8.0);
        }
    }
    m_lastAdvance = now;
}

void
FlowTransport::Update()
{
    m_updateNow = false;
    m_ticksPerSecond = Seconds(1).GetTimeStep();
    Advance();
    const Time now = Simulator::Now();

    // transfers that end now: account, schedule delivery, start the connection's next message
    std::vector<Connection*> finished;
    for (Connection* c : m_active)
    {
        if (c->finishAt <= now)
        {
            finished.push_back(c);
        }
    }
    if (!finished.empty())
    {
        m_active.erase(std::remove_if(m_active.begin(),
                                      m_active.end(),
                                      [now](const Connection* c) { return c->finishAt <= now; }),
                       m_active.end());
        for (Connection* c : finished)
        {
            Message m = c->queue.front();
            c->queue.pop_front();
            c->active = false;
            c->rate = 0;
            c->remaining = 0;
            m_filling.Deactivate(c->flow);
            for (uint32_t l : c->path)
            {
                m_linkBytes[l][c->tc] += m.req.bytes;
            }
            const Time alpha = GetPathLatency(c->path, m.req.bytes);
            NS_LOG_LOGIC("job " << m.req.jobId << " flow " << m.req.flowId << ": transfer of "
                                << m.req.bytes << " B done, delivery in " << alpha);
            if (c->key.src.host == c->key.dst.host)
            {
                // intra-host: not a network message (no MessageComplete trace, as RdmaTransport)
                crux::Schedule(alpha, [done = m.done]() {
                    if (!done.IsNull())
                    {
                        done();
                    }
                });
            }
            else
            {
                Simulator::Schedule(alpha,
                                    &FlowTransport::Deliver,
                                    this,
                                    m.req.jobId,
                                    m.req.flowId,
                                    m.req.bytes,
                                    m.posted,
                                    m.done);
            }
            if (!c->queue.empty())
            {
                Activate(c);
            }
        }
    }

    ComputeRates();

    // project transfer ends; the earliest one is the next event
    Time next = Time::Max();
    const double maxTicks = static_cast<double>(std::numeric_limits<int64_t>::max() / 4);
    for (Connection* c : m_active)
    {
        if (c->rate <= 0)
        {
            c->finishAt = Time::Max();
            continue;
        }
        const double ticks = c->remaining * 8.0 / c->rate * static_cast<double>(m_ticksPerSecond);
        if (ticks >= maxTicks)
        {
            c->finishAt = Time::Max();
            continue;
        }
        const int64_t steps = static_cast<int64_t>(std::ceil(std::max(0.0, ticks - TICK_EPSILON)));
        c->finishAt = now + TimeStep(steps);
        next = std::min(next, c->finishAt);
    }
    if (next != Time::Max())
    {
        if (m_quantum.IsStrictlyPositive())
        {
            next = OnGrid(next); // the flows ending within the quantum end together
        }
        m_event = Simulator::Schedule(next - now, &FlowTransport::Update, this);
    }
}

void
FlowTransport::ComputeRates()
{
    ++m_rateComputations;
    m_filling.Update(m_flowRate);
    for (Connection* c : m_active)
    {
        c->rate = m_flowRate[c->flow];
    }
}

void
FlowTransport::Deliver(uint32_t jobId,
                       uint32_t flowId,
                       uint64_t bytes,
                       Time posted,
                       CompletionCallback done)
{
    ++m_delivered;
    m_messageCompleteTrace(jobId, flowId, bytes, posted, Simulator::Now());
    if (!done.IsNull())
    {
        done();
    }
}

// ------------------------------------------------------------------------------ statistics

double
FlowTransport::GetFlowRate(const RdmaQpKey& key) const
{
    auto it = m_conns.find(key);
    if (it == m_conns.end() || !it->second.active)
    {
        return 0;
    }
    return it->second.rate;
}

uint32_t
FlowTransport::GetNActiveFlows() const
{
    return static_cast<uint32_t>(m_active.size());
}

uint64_t
FlowTransport::GetLinkBytes(uint32_t link, uint8_t tc) const
{
    CheckLink(link, "GetLinkBytes");
    if (tc >= N_TC)
    {
        NS_FATAL_ERROR("FlowTransport::GetLinkBytes: tc = " << unsigned(tc)
                                                            << " is not a traffic class 0..7");
    }
    uint64_t bytes = m_linkBytes[link][tc];
    const double dt = (Simulator::Now() - m_lastAdvance).GetSeconds();
    for (const Connection* c : m_active)
    {
        if (c->tc != tc || std::find(c->path.begin(), c->path.end(), link) == c->path.end())
        {
            continue;
        }
        const double remaining = std::max(0.0, c->remaining - c->rate * std::max(0.0, dt) / 8.0);
        const uint64_t payload = c->queue.front().req.bytes;
        const double done =
            static_cast<double>(payload) * (1.0 - remaining / static_cast<double>(c->wireBytes));
        bytes += std::min<uint64_t>(payload, static_cast<uint64_t>(std::floor(done)));
    }
    return bytes;
}

uint64_t
FlowTransport::GetLinkBytes(uint32_t link) const
{
    uint64_t sum = 0;
    for (uint8_t tc = 0; tc < N_TC; ++tc)
    {
        sum += GetLinkBytes(link, tc);
    }
    return sum;
}

uint64_t
FlowTransport::GetDeliveredMessages() const
{
    return m_delivered;
}

uint64_t
FlowTransport::GetIntraHostMessages() const
{
    return m_intraMessages;
}

uint64_t
FlowTransport::GetRateComputations() const
{
    return m_rateComputations;
}

} // namespace ns3
