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

#include "qbb-net-device.h"

#include "qbb-channel.h"

#include "ns3/boolean.h"
#include "ns3/checked-command-line.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ethernet-header.h"
#include "ns3/integer.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxQbbNetDevice");

NS_OBJECT_ENSURE_REGISTERED(QbbNetDevice);

namespace
{
using crux::IPV4_ETHERTYPE;
} // namespace

TypeId
QbbNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::QbbNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Crux")
            .AddConstructor<QbbNetDevice>()
            .AddAttribute(
                "DataRate",
                "Line rate of the device (bit/s).",
                DataRateValue(DataRate("100Gb/s")),
                MakeDataRateAccessor(&QbbNetDevice::SetDataRate, &QbbNetDevice::GetDataRate),
                MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest L3 packet (bytes, Ethernet header excluded) accepted by "
                          "Send/SendInTc; larger ones are dropped with reason \"exceeds-mtu\". "
                          "The default 4200 fits a RoCEv2 frame with a 4096-byte payload "
                          "(IPv4 20 + UDP 8 + BTH 12 + AETH/RETH <= 16 + 4096 + ICRC 4).",
                          UintegerValue(4200),
                          MakeUintegerAccessor(&QbbNetDevice::SetMtu, &QbbNetDevice::GetMtu),
                          MakeUintegerChecker<uint16_t>(68))
            .AddAttribute("InterframeGapBytes",
                          "Bytes of preamble + SFD + interframe gap added to every frame's "
                          "serialization time (8 + 12 = 20 for Ethernet).",
                          UintegerValue(20),
                          MakeUintegerAccessor(&QbbNetDevice::m_ifgBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MaxTcBytes",
                          "Per traffic class egress limit in bytes (frames incl. Ethernet "
                          "header); a frame that would exceed it is dropped with reason "
                          "\"egress-queue-full\". 0 = unlimited (the owner's MMU decides).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&QbbNetDevice::m_maxTcBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Scheduler",
                          "Transmit selection between traffic classes: StrictPriority (TC 7 "
                          "highest) or Dwrr (deficit weighted round robin, see DwrrQuanta).",
                          EnumValue(QbbNetDevice::STRICT_PRIORITY),
                          MakeEnumAccessor(&QbbNetDevice::m_scheduler),
                          MakeEnumChecker(QbbNetDevice::STRICT_PRIORITY,
                                          "StrictPriority",
                                          QbbNetDevice::DWRR,
                                          "Dwrr"))
            .AddAttribute("DwrrQuanta",
                          "DWRR quantum in bytes per traffic class: one value for all TCs or "
                          "8 comma-separated values for TC 0..7, each > 0. A quantum at least "
                          "as large as the largest frame (Mtu + 14) serves one frame per turn.",
                          StringValue("4500"),
                          MakeStringAccessor(&QbbNetDevice::SetDwrrQuantaSpec,
                                             &QbbNetDevice::GetDwrrQuantaSpec),
                          MakeValidatedStringChecker([](const std::string& spec) {
                              std::array<uint32_t, N_TC> quanta;
                              return ParseDwrrQuanta(spec, quanta);
                          }))
            .AddAttribute(
                "DscpToTc",
                "DSCP -> traffic class overrides as a comma-separated list of "
                "\"lo-hi:tc\" or \"dscp:tc\" entries (DSCP 0..63, TC 0..7), e.g. "
                "\"0-7:0,46:5\". DSCPs not listed map to DSCP >> 3 (class selector).",
                StringValue(""),
                MakeStringAccessor(&QbbNetDevice::SetDscpToTcSpec, &QbbNetDevice::GetDscpToTcSpec),
                MakeValidatedStringChecker([](const std::string& spec) {
                    std::array<uint8_t, 64> map;
                    return ParseDscpToTc(spec, map);
                }))
            .AddAttribute("ControlDscp",
                          "IPv4 frames with this DSCP go into the control class (CONTROL_CLASS "
                          "= 8): served after PAUSE frames and before every traffic class, never "
                          "paused by PFC, shared by no data. 46 (EF, RFC 3246) = RdmaNic's "
                          "AckDscp: a codepoint outside the class selectors CS0..CS7 that crux "
                          "gives its data (DSCP = 8 x priority level). 64 = no control class "
                          "(every DSCP follows DscpToTc).",
                          UintegerValue(46),
                          MakeUintegerAccessor(&QbbNetDevice::m_controlDscp),
                          MakeUintegerChecker<uint8_t>(0, 64))
            .AddAttribute("EcnEnabled",
                          "Mark CE on ECN-capable IPv4 frames at enqueue (DCQCN RED profile).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&QbbNetDevice::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKminBytes",
                          "ECN: no marking while the frame's TC queue holds at most this many "
                          "bytes. Default 5 KB: the DCQCN paper's Kmin (Zhu et al., SIGCOMM'15, "
                          "40 Gbit/s; doc/crux.rst, Congestion control).",
                          UintegerValue(5000),
                          MakeUintegerAccessor(&QbbNetDevice::m_ecnKmin),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnKmaxBytes",
                          "ECN: above this queue depth (bytes) every ECN-capable frame is "
                          "marked; between Kmin and Kmax the probability rises linearly from 0 "
                          "to EcnPmax. Kmax <= Kmin gives a step at Kmin. Default 200 KB: the "
                          "DCQCN paper's Kmax.",
                          UintegerValue(200000),
                          MakeUintegerAccessor(&QbbNetDevice::m_ecnKmax),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnPmax",
                          "ECN: marking probability reached at EcnKmaxBytes. Default 1 %: the "
                          "DCQCN paper's Pmax.",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&QbbNetDevice::m_ecnPmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("EcnRandomStream",
                          "RNG stream number of the ECN marking draws. -1 (default): stream "
                          "2^40 + 256 x node id + interface index, set at the first draw, so that "
                          "a run's marks do not depend on what ran before in the process (ns-3's "
                          "automatic stream numbers keep counting across runs; DCQCN reacts to "
                          "every mark).",
                          IntegerValue(-1),
                          MakeIntegerAccessor(&QbbNetDevice::SetEcnStream),
                          MakeIntegerChecker<int64_t>(-1))
            .AddAttribute("ReceiveErrorModel",
                          "ns-3 ErrorModel applied to every arriving frame (PAUSE frames "
                          "included), as PointToPointNetDevice does: a corrupted frame is "
                          "dropped and traced on Drop with reason \"receive-error-model\". "
                          "Null (default) = no loss.",
                          PointerValue(),
                          MakePointerAccessor(&QbbNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("MacTx",
                            "A data frame starts serialization: (packet without Ethernet "
                            "header, traffic class).",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_macTxTrace),
                            "ns3::QbbNetDevice::TcPacketTracedCallback")
            .AddTraceSource("MacRx",
                            "A data frame was received (packet without Ethernet header).",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcTx",
                            "A PAUSE frame starts serialization: (device, tc, quanta).",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_pfcTxTrace),
                            "ns3::QbbNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcRx",
                            "A PAUSE frame was received, once per enabled class: "
                            "(device, tc, quanta).",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_pfcRxTrace),
                            "ns3::QbbNetDevice::PfcTracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped by this device: (packet, tc, reason).",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_dropTrace),
                            "ns3::QbbNetDevice::DropTracedCallback")
            .AddTraceSource("Sniffer",
                            "Every frame, Ethernet header included, when it starts "
                            "serialization and when it is received (PAUSE frames too); for "
                            "PCAP (DLT_EN10MB).",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("BytesInQueue",
                            "Bytes queued over all traffic classes and the control class "
                            "(GetQueueBytes(): frames with their Ethernet header, not yet "
                            "serialized; PAUSE frames not included).",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_totalQueueBytes),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("TcBytesInQueue",
                            "Bytes queued in one class changed (a frame enqueued or starting "
                            "serialization): (class 0..7 or 8 = control class, old bytes, new "
                            "bytes), bytes as GetTcQueueBytes() counts them.",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_tcBytesTrace),
                            "ns3::QbbNetDevice::TcBytesTracedCallback")
            .AddTraceSource("TcPauseState",
                            "The PFC state of a traffic class changed (IsTcPaused): (tc, paused). "
                            "true when a PAUSE stops a class that was sending, false on an XON "
                            "or when the pause time runs out; a PAUSE refreshing a paused class "
                            "fires nothing.",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_tcPauseTrace),
                            "ns3::QbbNetDevice::TcPauseTracedCallback");
    return tid;
}

QbbNetDevice::QbbNetDevice()
    : m_rate(DataRate("100Gb/s")),
      m_mtu(4200),
      m_ifgBytes(20),
      m_maxTcBytes(0),
      m_scheduler(STRICT_PRIORITY),
      m_controlDscp(46),
      m_ecnEnabled(true),
      m_ecnKmin(5000),
      m_ecnKmax(200000),
      m_ecnPmax(0.01)
{
    NS_LOG_FUNCTION(this);
    for (uint32_t d = 0; d < m_dscpToTc.size(); ++d)
    {
        m_dscpToTc[d] = crux::TrafficClassOfDscp(d);
    }
    m_quantum.fill(4500);
    m_queueBytes.fill(0);
    m_peakQueueBytes.fill(0);
    m_deficit.fill(0);
    m_ecnRng = CreateObject<UniformRandomVariable>();
    m_ipChecksum = Node::ChecksumEnabled();
    UpdateRateCache();
}

QbbNetDevice::~QbbNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
QbbNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_txCompleteEvent.Cancel();
    for (auto& ev : m_resumeEvent)
    {
        ev.Cancel();
    }
    for (auto& q : m_queues)
    {
        q.clear();
    }
    m_ctrlQueue.clear();
    m_node = nullptr;
    m_channel = nullptr;
    m_ecnRng = nullptr;
    m_receiveErrorModel = nullptr;
    m_frameHandler = FrameHandler();
    m_dequeueHandler = DequeueHandler();
    m_rxOwner = nullptr;
    m_dequeueOwner = nullptr;
    m_ownerHold = nullptr;
    m_rxCallback = NetDevice::ReceiveCallback();
    m_promiscCallback = NetDevice::PromiscReceiveCallback();
    NetDevice::DoDispose();
}

// ------------------------------------------------------------------------------ configuration

void
QbbNetDevice::UpdateRateCache()
{
    m_bps = m_rate.GetBitRate();
    m_ticksPerSecond = static_cast<uint64_t>(Seconds(1).GetTimeStep());
    m_txRemainder = 0;
}

Time
QbbNetDevice::BitsToTime(uint64_t bits, bool carry)
{
    // bits * steps/s can exceed 64 bits at femtosecond resolution: use 128-bit arithmetic.
    if (carry)
    {
        const unsigned __int128 num =
            static_cast<unsigned __int128>(bits) * m_ticksPerSecond + m_txRemainder;
        m_txRemainder = static_cast<uint64_t>(num % m_bps);
        return TimeStep(static_cast<uint64_t>(num / m_bps));
    }
    const unsigned __int128 num = static_cast<unsigned __int128>(bits) * m_ticksPerSecond;
    return TimeStep(static_cast<uint64_t>((num + m_bps - 1) / m_bps));
}

void
QbbNetDevice::SetDataRate(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    if (rate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR("QbbNetDevice: attribute DataRate must be > 0 bit/s");
    }
    m_rate = rate;
    UpdateRateCache();
}

DataRate
QbbNetDevice::GetDataRate() const
{
    return m_rate;
}

void
QbbNetDevice::SetEcnStream(int64_t stream)
{
    m_ecnStream = stream;
    if (stream >= 0 && m_ecnRng)
    {
        m_ecnRng->SetStream(stream);
    }
}

void
QbbNetDevice::SetIngressLatency(Time latency)
{
    if (latency.IsStrictlyNegative())
    {
        NS_FATAL_ERROR("QbbNetDevice::SetIngressLatency: negative latency " << latency);
    }
    m_ingressLatency = latency;
}

void
QbbNetDevice::SetFrameHandler(FrameHandler handler)
{
    m_frameHandler = handler;
    m_rxOwner = nullptr;
}

void
QbbNetDevice::SetOwner(Owner* owner, uint32_t port, Ptr<Object> hold)
{
    m_rxOwner = owner;
    m_dequeueOwner = owner;
    m_ownerPort = port;
    m_ownerHold = hold;
    m_frameHandler = FrameHandler();
    m_dequeueHandler = DequeueHandler();
}

void
QbbNetDevice::SetDequeueHandler(DequeueHandler handler)
{
    m_dequeueHandler = handler;
    m_dequeueOwner = nullptr;
}

bool
QbbNetDevice::Attach(Ptr<QbbChannel> ch)
{
    NS_LOG_FUNCTION(this << ch);
    if (!ch || !ch->Attach(this))
    {
        return false;
    }
    m_channel = ch;
    m_linkChangeCallbacks();
    return true;
}

// ------------------------------------------------------------------------------ queries

bool
QbbNetDevice::IsTcPaused(uint8_t tc) const
{
    return tc < N_TC && (m_pausedMask & (1U << tc)) != 0;
}

uint64_t
QbbNetDevice::GetTcQueueBytes(uint8_t tc) const
{
    if (tc >= N_CLASSES)
    {
        NS_FATAL_ERROR("QbbNetDevice::GetTcQueueBytes: class " << unsigned(tc)
                                                               << " out of range 0..8");
    }
    return m_queueBytes[tc];
}

uint64_t
QbbNetDevice::GetPeakTcQueueBytes(uint8_t tc) const
{
    if (tc >= N_CLASSES)
    {
        NS_FATAL_ERROR("QbbNetDevice::GetPeakTcQueueBytes: class " << unsigned(tc)
                                                                   << " out of range 0..8");
    }
    return m_peakQueueBytes[tc];
}

uint64_t
QbbNetDevice::GetTxWireBytes() const
{
    return m_txWireBytes;
}

uint64_t
QbbNetDevice::GetQueueBytes() const
{
    return m_totalQueueBytes;
}

uint64_t
QbbNetDevice::GetPauseRxCount() const
{
    return m_pauseRxCount;
}

uint64_t
QbbNetDevice::GetPauseTxCount() const
{
    return std::accumulate(m_pauseTxPerTc.begin(), m_pauseTxPerTc.end(), uint64_t{0});
}

uint64_t
QbbNetDevice::GetPauseTxCount(uint8_t tc) const
{
    return tc < N_TC ? m_pauseTxPerTc[tc] : 0;
}

uint64_t
QbbNetDevice::GetTxFrames(uint8_t cls) const
{
    if (cls >= N_CLASSES)
    {
        NS_FATAL_ERROR("QbbNetDevice::GetTxFrames: class " << unsigned(cls)
                                                           << " out of range 0..8");
    }
    return m_txFrames[cls];
}

uint64_t
QbbNetDevice::GetTxBytes(uint8_t cls) const
{
    if (cls >= N_CLASSES)
    {
        NS_FATAL_ERROR("QbbNetDevice::GetTxBytes: class " << unsigned(cls) << " out of range 0..8");
    }
    return m_txBytes[cls];
}

// ------------------------------------------------------------------------------ frames

Ptr<Packet>
QbbNetDevice::WithEthernetHeader(Ptr<const Packet> payload,
                                 Mac48Address src,
                                 Mac48Address dest,
                                 uint16_t protocol)
{
    Ptr<Packet> frame = payload->Copy();
    EthernetHeader eth(false);
    eth.SetSource(src);
    eth.SetDestination(dest);
    eth.SetLengthType(protocol);
    frame->AddHeader(eth);
    return frame;
}

Mac48Address
QbbNetDevice::GetPeerMac() const
{
    Ptr<QbbNetDevice> peer = m_channel ? m_channel->GetPeer(this) : nullptr;
    return peer ? peer->m_address : Mac48Address::GetBroadcast();
}

// ------------------------------------------------------------------------------ NetDevice

void
QbbNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
QbbNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
QbbNetDevice::GetChannel() const
{
    return m_channel;
}

void
QbbNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
QbbNetDevice::GetAddress() const
{
    return m_address;
}

bool
QbbNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
QbbNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
QbbNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
QbbNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
QbbNetDevice::IsBroadcast() const
{
    return true;
}

Address
QbbNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
QbbNetDevice::IsMulticast() const
{
    return true;
}

Address
QbbNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
QbbNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
QbbNetDevice::IsPointToPoint() const
{
    return true;
}

bool
QbbNetDevice::IsBridge() const
{
    return false;
}

bool
QbbNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    uint8_t tc = 0;
    if (protocolNumber == IPV4_ETHERTYPE)
    {
        Ipv4Header ip;
        if (packet->PeekHeader(ip) != 0)
        {
            tc = DscpToClass(static_cast<uint8_t>(ip.GetDscp()) & 0x3f);
        }
    }
    return SendInTc(packet, dest, protocolNumber, tc);
}

bool
QbbNetDevice::SendFrom(Ptr<Packet> packet,
                       const Address& source,
                       const Address& dest,
                       uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << source << dest << protocolNumber);
    NS_LOG_WARN("QbbNetDevice does not support SendFrom; frame not sent");
    return false;
}

Ptr<Node>
QbbNetDevice::GetNode() const
{
    return m_node;
}

void
QbbNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
    m_nodeId = node ? node->GetId() : 0;
}

bool
QbbNetDevice::NeedsArp() const
{
    return false;
}

void
QbbNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
QbbNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
QbbNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
