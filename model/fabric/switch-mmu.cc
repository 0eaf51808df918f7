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

#include "switch-mmu.h"

#include "crux-run-error.h"
#include "qbb-channel.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxSwitchMmu");

NS_OBJECT_ENSURE_REGISTERED(SwitchMmu);

namespace
{
/// Ethernet header (14) + FCS (4): added to the device MTU to get the largest frame.
constexpr uint64_t ETH_OVERHEAD = 18;
/// Size of a PFC PAUSE frame on the wire without preamble (minimum Ethernet frame).
constexpr uint64_t PAUSE_FRAME_BYTES = 64;
} // namespace

TypeId
SwitchMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchMmu")
            .SetParent<Object>()
            .SetGroupName("Crux")
            .AddConstructor<SwitchMmu>()
            .AddAttribute("BufferSize",
                          "Total packet buffer of the switch in bytes (shared pool + reserved "
                          "PFC headroom).",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&SwitchMmu::m_bufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("PfcEnabled",
                          "Enable IEEE 802.1Qbb PFC for the TCs in LosslessTcMask (PAUSE on "
                          "Xoff, headroom reservation). If false every TC is lossy.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchMmu::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("LosslessTcMask",
                          "Bit n set = traffic class n is lossless (PFC-protected) when "
                          "PfcEnabled.",
                          UintegerValue(0xff),
                          MakeUintegerAccessor(&SwitchMmu::m_losslessMask),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("Alpha",
                          "Dynamic Xoff threshold: an (ingress port, TC) pair may hold up to "
                          "Alpha x (free shared pool bytes) before it PAUSEs its upstream. Used "
                          "when XoffStaticBytes is 0.",
                          DoubleValue(1.0 / 8.0),
                          MakeDoubleAccessor(&SwitchMmu::m_alpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("XoffStaticBytes",
                          "Static Xoff threshold in bytes per (ingress port, TC); 0 = dynamic "
                          "threshold (Alpha).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchMmu::m_xoffStatic),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("XonOffsetBytes",
                          "Hysteresis: a paused pair resumes when it holds no headroom bytes and "
                          "at most max(0, Xoff - XonOffsetBytes) shared bytes.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&SwitchMmu::m_xonOffset),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcResponseTime",
                          "PAUSE generation plus reaction delay of both link ends, counted in "
                          "the headroom (IEEE 802.1Qbb Annex N higher-layer + interface delays).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&SwitchMmu::m_responseTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("HeadroomBytes",
                          "Headroom per (ingress port, lossless TC) in bytes; 0 = computed from "
                          "MTU, link rate, propagation delay and PfcResponseTime.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchMmu::m_headroomOverride),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EgressAlpha",
                          "Lossy TCs only: drop when the egress (port, TC) queue would exceed "
                          "EgressAlpha x (free shared pool bytes); 0 = no per-queue limit "
                          "(drop only when the shared pool is full).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&SwitchMmu::m_egressAlpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("ControlReserveBytes",
                          "Bytes each port contributes to the control-class pool: ports x "
                          "ControlReserveBytes of the shared pool that data never takes, where "
                          "the ACK, NAK and CNP frames (QbbNetDevice::CONTROL_CLASS) are charged "
                          "first, so lossless data filling the shared pool never drops them. 0 "
                          "= no reserve (control frames compete for the shared pool). "
                          "Default 256: two of the largest control frames (an ACK with HPCC's "
                          "INT echo, 118 bytes) per port; an assumption, see the class "
                          "documentation.",
                          UintegerValue(256),
                          MakeUintegerAccessor(&SwitchMmu::m_controlReserve),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PauseQuanta",
                          "Quanta (units of 512 bit times) of the PAUSE frames sent; refreshed "
                          "every half pause time while the pair stays above Xon.",
                          UintegerValue(0xffff),
                          MakeUintegerAccessor(&SwitchMmu::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddTraceSource("PfcTx",
                            "A PAUSE (quanta > 0) or resume (quanta 0) was sent: (ingress port, "
                            "TC, quanta).",
                            MakeTraceSourceAccessor(&SwitchMmu::m_pfcTrace),
                            "ns3::SwitchMmu::PfcTracedCallback")
            .AddTraceSource("SharedPoolUsed",
                            "Bytes held in the shared pool outside the control-class pool "
                            "(GetSharedUsed(): frames on the wire without preamble/IFG).",
                            MakeTraceSourceAccessor(&SwitchMmu::m_sharedUsed),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("HeadroomUsed",
                            "Bytes held in the PFC headrooms of all (ingress port, TC) pairs "
                            "(GetHeadroomUsed()).",
                            MakeTraceSourceAccessor(&SwitchMmu::m_headroomUsed),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

SwitchMmu::SwitchMmu()
{
    NS_LOG_FUNCTION(this);
}

SwitchMmu::~SwitchMmu()
{
    NS_LOG_FUNCTION(this);
}

void
SwitchMmu::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& port : m_ingress)
    {
        for (auto& q : port)
        {
            q.refresh.Cancel();
        }
    }
    m_ports.clear();
    m_shadow.clear();
    Object::DoDispose();
}

uint32_t
SwitchMmu::AddPort(Ptr<QbbNetDevice> dev)
{
    NS_LOG_FUNCTION(this << dev);
    if (!dev)
    {
        NS_FATAL_ERROR("SwitchMmu::AddPort: null device");
    }
    m_ports.push_back(dev);
    m_ingress.emplace_back();
    m_egress.emplace_back();
    m_egress.back().fill(0);
    m_shadow.emplace_back();
    m_pauseTime.emplace_back();
    m_configured = false;
    return static_cast<uint32_t>(m_ports.size() - 1);
}

uint32_t
SwitchMmu::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

void
SwitchMmu::SetForwardingLatency(Time latency)
{
    m_forwardingLatency = latency;
    m_configured = false;
}

void
SwitchMmu::SetName(const std::string& name)
{
    m_name = name;
}

void
SwitchMmu::Configure()
{
    NS_LOG_FUNCTION(this);
    uint64_t reserved = 0;
    std::string largestWhy; // how the largest per-(port, class) headroom was sized
    uint64_t largest = 0;
    uint32_t losslessClasses = 0;
    for (uint32_t tc = 0; tc < QbbNetDevice::N_TC; ++tc)
    {
        losslessClasses += (m_pfcEnabled && ((m_losslessMask >> tc) & 1)) ? 1 : 0;
    }
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        Ptr<QbbNetDevice> dev = m_ports[p];
        const uint64_t bitRate = dev->GetDataRate().GetBitRate();
        if (bitRate == 0)
        {
            NS_FATAL_ERROR("SwitchMmu: port " << p << " has a zero DataRate");
        }
        m_pauseTime[p] = Seconds(static_cast<double>(m_pauseQuanta) * 512.0 / bitRate);

        uint64_t hdrm = 0;
        std::ostringstream why;
        if (m_headroomOverride > 0)
        {
            hdrm = m_headroomOverride;
            why << "ns3::SwitchMmu::HeadroomBytes";
        }
        else
        {
            Time delay(0);
            uint64_t mtu = dev->GetMtu();
            Ptr<QbbChannel> ch = DynamicCast<QbbChannel>(dev->GetChannel());
            if (ch)
            {
                delay = ch->GetDelay();
                Ptr<QbbNetDevice> peer = ch->GetPeer(PeekPointer(dev));
                if (peer)
                {
                    mtu = std::max<uint64_t>(mtu, peer->GetMtu());
                }
            }
            const uint64_t maxFrame = mtu + ETH_OVERHEAD;
            const double bytesPerSecond = bitRate / 8.0;
            const double inFlight =
                (2.0 * delay.GetSeconds() + m_responseTime.GetSeconds()) * bytesPerSecond;
            const double pipeline = m_forwardingLatency.GetSeconds() * bytesPerSecond;
            hdrm = 3 * maxFrame + PAUSE_FRAME_BYTES +
                   static_cast<uint64_t>(std::ceil(inFlight + pipeline));
            why << "port " << p << ": 3 frames of " << maxFrame << " bytes (ns3::QbbNetDevice::Mtu "
                << mtu << " + 18) + a " << PAUSE_FRAME_BYTES << "-byte PAUSE + "
                << static_cast<uint64_t>(std::ceil(inFlight + pipeline)) << " bytes at "
                << bitRate / 1e9 << " Gbit/s during 2 x " << delay.GetNanoSeconds()
                << " ns link delay + " << m_responseTime.GetNanoSeconds()
                << " ns ns3::SwitchMmu::PfcResponseTime + " << m_forwardingLatency.GetNanoSeconds()
                << " ns ns3::CruxSwitch::ForwardingLatency";
        }
        if (losslessClasses > 0 && hdrm > largest)
        {
            largest = hdrm;
            largestWhy = why.str();
        }
        for (uint8_t tc = 0; tc < N_CLASSES; ++tc)
        {
            const bool lossless =
                m_pfcEnabled && tc < QbbNetDevice::N_TC && ((m_losslessMask >> tc) & 1);
            m_ingress[p][tc].hdrmSize = lossless ? hdrm : 0;
            reserved += m_ingress[p][tc].hdrmSize;
        }
        NS_LOG_INFO("port " << p << " headroom " << hdrm << " B, pause time " << m_pauseTime[p]);
    }
    const uint64_t controlPool = m_controlReserve * m_ports.size();
    if (reserved + controlPool >= m_bufferSize)
    {
        std::ostringstream os;
        os << m_name << ": its reserved buffer does not fit in ns3::SwitchMmu::BufferSize "
           << m_bufferSize << " bytes (a scenario's topology.switchBuffer): PFC headroom "
           << reserved << " bytes = " << m_ports.size() << " ports x " << losslessClasses
           << " lossless classes (ns3::SwitchMmu::LosslessTcMask) x up to " << largest << " bytes ("
           << largestWhy << "), plus the control-class pool " << controlPool << " bytes ("
           << m_ports.size() << " ports x ns3::SwitchMmu::ControlReserveBytes " << m_controlReserve
           << "); raise the buffer, narrow the lossless classes, shorten those delays or set "
              "ns3::SwitchMmu::HeadroomBytes";
        throw CruxRunError(os.str());
    }
    m_controlPoolSize = controlPool;
    m_sharedSize = m_bufferSize - reserved;
    m_configured = true;
}

uint64_t
SwitchMmu::FreeShared() const
{
    // Get(): ns-3's arithmetic on a TracedValue builds a temporary TracedValue
    const uint64_t used = m_sharedUsed.Get() + m_controlPoolUsed;
    return used < m_sharedSize ? m_sharedSize - used : 0;
}

uint64_t
SwitchMmu::Xoff() const
{
    if (m_xoffStatic > 0)
    {
        return m_xoffStatic;
    }
    return static_cast<uint64_t>(m_alpha * static_cast<double>(FreeShared()));
}

SwitchMmu::Verdict
SwitchMmu::Admit(uint32_t inPort, uint8_t inTc, uint32_t outPort, uint8_t outTc, uint32_t bytes)
{
    if (!m_configured)
    {
        Configure();
    }
    IngressState& q = m_ingress[inPort][inTc];
    // what data may still take: the pool without its control part (whose unused bytes count
    // as free in the dynamic thresholds, FreeShared(), as they did before the control pool)
    const uint64_t dataLimit = m_sharedSize - m_controlPoolSize;
    const uint64_t used = m_sharedUsed;
    const uint64_t room = used < dataLimit ? dataLimit - used : 0;
    if (inTc == QbbNetDevice::CONTROL_CLASS && m_controlPoolUsed + bytes <= m_controlPoolSize)
    {
        // ACK/NAK/CNP: the control-class pool first, whatever the data did to the shared pool
        m_controlPoolUsed += bytes;
        m_peakControlPoolUsed = std::max(m_peakControlPoolUsed, m_controlPoolUsed);
        m_egress[outPort][outTc] += bytes;
        m_shadow[outPort][outTc].push_back(
            ShadowEntry{static_cast<uint16_t>(inPort), inTc, true, bytes});
        return ADMIT;
    }
    if (q.hdrmSize > 0)
    {
        // Lossless: shared pool until Xoff, then headroom.
        if (!q.paused && q.headroom == 0 && bytes <= room && q.shared < Xoff())
        {
            q.shared += bytes;
            m_sharedUsed += bytes;
            m_peakSharedUsed = std::max(m_peakSharedUsed, m_sharedUsed.Get());
        }
        else if (q.headroom + bytes <= q.hdrmSize)
        {
            q.headroom += bytes;
            m_headroomUsed += bytes;
            m_peakHeadroom = std::max(m_peakHeadroom, q.headroom);
        }
        else
        {
            NS_LOG_WARN("headroom of port " << inPort << " tc " << +inTc << " exceeded ("
                                            << q.headroom << " + " << bytes << " > " << q.hdrmSize
                                            << ")");
            return DROP_HEADROOM_EXCEEDED;
        }
        if (!q.paused && (q.headroom > 0 || q.shared >= Xoff()))
        {
            SendPause(inPort, inTc);
        }
    }
    else
    {
        // Lossy.
        if (bytes > room)
        {
            return DROP_BUFFER_FULL;
        }
        if (m_egressAlpha > 0 && static_cast<double>(m_egress[outPort][outTc] + bytes) >
                                     m_egressAlpha * static_cast<double>(FreeShared()))
        {
            return DROP_BUFFER_FULL;
        }
        q.shared += bytes;
        m_sharedUsed += bytes;
        m_peakSharedUsed = std::max(m_peakSharedUsed, m_sharedUsed.Get());
    }
    m_egress[outPort][outTc] += bytes;
    m_shadow[outPort][outTc].push_back(
        ShadowEntry{static_cast<uint16_t>(inPort), inTc, false, bytes});
    return ADMIT;
}

void
SwitchMmu::CancelLastAdmit(uint32_t outPort, uint8_t outTc)
{
    NS_LOG_FUNCTION(this << outPort << +outTc);
    auto& fifo = m_shadow[outPort][outTc];
    if (fifo.empty())
    {
        NS_FATAL_ERROR("SwitchMmu::CancelLastAdmit: no admitted frame on port " << outPort << " tc "
                                                                                << +outTc);
    }
    const ShadowEntry e = fifo.back();
    fifo.pop_back();
    Release(e, outPort, outTc);
}

void
SwitchMmu::OnDequeue(uint32_t outPort, uint8_t outTc)
{
    auto& fifo = m_shadow[outPort][outTc];
    if (fifo.empty())
    {
        ++m_unmatched;
        NS_LOG_WARN("dequeue on port " << outPort << " tc " << +outTc << " without admission");
        return;
    }
    const ShadowEntry e = fifo.front();
    fifo.pop_front();
    Release(e, outPort, outTc);
}

void
SwitchMmu::Release(const ShadowEntry& e, uint32_t outPort, uint8_t outTc)
{
    m_egress[outPort][outTc] -= e.bytes;
    if (e.controlPool)
    {
        m_controlPoolUsed -= e.bytes;
        return;
    }
    IngressState& q = m_ingress[e.inPort][e.inTc];
    const uint64_t fromHeadroom = std::min<uint64_t>(q.headroom, e.bytes);
    q.headroom -= fromHeadroom;
    m_headroomUsed -= fromHeadroom;
    const uint64_t fromShared = e.bytes - fromHeadroom;
    q.shared -= fromShared;
    m_sharedUsed -= fromShared;
    if (q.paused && q.headroom == 0)
    {
        const uint64_t xoff = Xoff();
        const uint64_t xon = xoff > m_xonOffset ? xoff - m_xonOffset : 0;
        if (q.shared <= xon)
        {
            q.paused = false;
            StopRefresh(q);
            m_ports[e.inPort]->SendPause(e.inTc, 0);
            ++m_resumeCount;
            m_pfcTrace(e.inPort, e.inTc, 0);
            NS_LOG_LOGIC("resume port " << e.inPort << " tc " << +e.inTc);
        }
    }
}

void
SwitchMmu::SendPause(uint32_t port, uint8_t tc)
{
    IngressState& q = m_ingress[port][tc];
    q.paused = true;
    m_ports[port]->SendPause(tc, m_pauseQuanta);
    ++m_pauseCount;
    m_pfcTrace(port, tc, m_pauseQuanta);
    NS_LOG_LOGIC("pause port " << port << " tc " << +tc);
    StopRefresh(q);
    q.refresh =
        Simulator::Schedule(m_pauseTime[port] / 2, &SwitchMmu::RefreshPause, this, port, tc);
}

void
SwitchMmu::StopRefresh(IngressState& q)
{
    if (q.refresh.IsRunning())
    {
        // removed, not cancelled: a cancelled event would still advance the clock to its time,
        // and a run would end half a pause time after its traffic
        Simulator::Remove(q.refresh);
    }
}

void
SwitchMmu::RefreshPause(uint32_t port, uint8_t tc)
{
    if (m_ingress[port][tc].paused)
    {
        SendPause(port, tc);
    }
}

uint64_t
SwitchMmu::GetSharedPoolSize() const
{
    if (!m_configured)
    {
        const_cast<SwitchMmu*>(this)->Configure();
    }
    return m_sharedSize;
}

uint64_t
SwitchMmu::GetSharedUsed() const
{
    return m_sharedUsed;
}

uint64_t
SwitchMmu::GetPeakSharedUsed() const
{
    return m_peakSharedUsed;
}

uint64_t
SwitchMmu::GetControlPoolSize() const
{
    if (!m_configured)
    {
        const_cast<SwitchMmu*>(this)->Configure();
    }
    return m_controlPoolSize;
}

uint64_t
SwitchMmu::GetControlPoolUsed() const
{
    return m_controlPoolUsed;
}

uint64_t
SwitchMmu::GetPeakControlPoolUsed() const
{
    return m_peakControlPoolUsed;
}

uint64_t
SwitchMmu::GetHeadroomUsed() const
{
    return m_headroomUsed;
}

uint64_t
SwitchMmu::GetPeakHeadroomUsed() const
{
    return m_peakHeadroom;
}

uint64_t
SwitchMmu::GetHeadroomSize(uint32_t port, uint8_t tc) const
{
    if (port >= m_ports.size() || tc >= N_CLASSES)
    {
        NS_FATAL_ERROR("SwitchMmu::GetHeadroomSize: port " << port << " / tc " << +tc
                                                           << " out of range");
    }
    if (!m_configured)
    {
        const_cast<SwitchMmu*>(this)->Configure();
    }
    return m_ingress[port][tc].hdrmSize;
}

uint64_t
SwitchMmu::GetIngressBytes(uint32_t port, uint8_t tc) const
{
    if (port >= m_ports.size() || tc >= N_CLASSES)
    {
        NS_FATAL_ERROR("SwitchMmu::GetIngressBytes: port " << port << " / tc " << +tc
                                                           << " out of range");
    }
    return m_ingress[port][tc].shared + m_ingress[port][tc].headroom;
}

uint64_t
SwitchMmu::GetEgressBytes(uint32_t port, uint8_t tc) const
{
    if (port >= m_ports.size() || tc >= N_CLASSES)
    {
        NS_FATAL_ERROR("SwitchMmu::GetEgressBytes: port " << port << " / tc " << +tc
                                                          << " out of range");
    }
    return m_egress[port][tc];
}

uint64_t
SwitchMmu::GetXoff(uint32_t port, uint8_t tc) const
{
    if (port >= m_ports.size() || tc >= N_CLASSES)
    {
        NS_FATAL_ERROR("SwitchMmu::GetXoff: port " << port << " / tc " << +tc << " out of range");
    }
    if (!m_configured)
    {
        const_cast<SwitchMmu*>(this)->Configure();
    }
    return Xoff();
}

bool
SwitchMmu::IsPaused(uint32_t port, uint8_t tc) const
{
    if (port >= m_ports.size() || tc >= N_CLASSES)
    {
        NS_FATAL_ERROR("SwitchMmu::IsPaused: port " << port << " / tc " << +tc << " out of range");
    }
    return m_ingress[port][tc].paused;
}

uint64_t
SwitchMmu::GetPauseCount() const
{
    return m_pauseCount;
}

uint64_t
SwitchMmu::GetResumeCount() const
{
    return m_resumeCount;
}

uint64_t
SwitchMmu::GetUnmatchedDequeues() const
{
    return m_unmatched;
}

bool
SwitchMmu::IsPfcEnabled() const
{
    return m_pfcEnabled;
}

} // namespace ns3
