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

#include "rdma-nic.h"

#include "dcqcn-congestion-control.h"
#include "roce-header.h"

#include "ns3/boolean.h"
#include "ns3/crux-compat.h"
#include "ns3/crux-run-error.h"
#include "ns3/data-rate.h"
#include "ns3/fatal-error.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRdmaNic");

NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

namespace
{
constexpr uint32_t IPV4_HEADER_BYTES = 20; //!< IPv4 header without options
constexpr uint32_t UDP_HEADER_BYTES = 8;   //!< UDP header
constexpr uint32_t INT_BYTES = InbandTelemetryHeader::SERIALIZED_SIZE; //!< INT stack

/// IB local ACK timeout with the exponent NCCL sets: 4.096 us x 2^20 (NCCL_IB_TIMEOUT = 20).
/// (Functions, not namespace-scope Time constants: GetTypeId() runs during static
/// initialisation, possibly before such constants are initialised.)
Time
IbTimeout()
{
    return NanoSeconds(4096ULL << 20);
}

/// NCCL_IB_RETRY_CNT = 7: a ConnectX NIC reports "retry exceeded" after 1 + 7 timeouts.
Time
IbRetryExceeded()
{
    return IbTimeout() * 8;
}
} // namespace

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<Object>()
            .SetGroupName("Crux")
            .AddConstructor<RdmaNic>()
            .AddAttribute("Mtu",
                          "Payload bytes per RoCEv2 data packet (the IB path MTU: 256, 512, 1024, "
                          "2048 or 4096 on real NICs; any value >= 1 is accepted). The L3 packet "
                          "is Mtu + 44 bytes (IPv4 20, UDP 8, BTH 12, ICRC 4) and must fit the "
                          "device's Mtu attribute.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaNic::m_mtu),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("AckInterval",
                          "The responder acknowledges every AckInterval in-order data packets "
                          "(and always the last packet of a message and packets with AckReq).",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RdmaNic::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RetransmitTimeout",
                          "The IB local ACK timeout (transport timer, IBA vol. 1 §9.7.6.1.3): "
                          "with unacknowledged packets in flight and no ACK progress for this "
                          "long, go back to the last acknowledged PSN. Default 4.096 us x 2^20 = "
                          "4.29 s: the timeout exponent NCCL sets on its queue pairs "
                          "(NCCL_IB_TIMEOUT, default 20 since NCCL 2.23). It is what a RoCE NIC "
                          "times; a short timer fires without loss while a queue pair waits for "
                          "its turn among many or for a coalesced ACK.",
                          TimeValue(IbTimeout()),
                          MakeTimeAccessor(&RdmaNic::m_rto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MaxRtoBackoff",
                          "The retransmission timeout doubles after each expiry without ACK "
                          "progress, up to this multiple of RetransmitTimeout. 1 (default) = no "
                          "backoff: an IB requester retries with the same timeout.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaNic::m_maxRtoBackoff),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("StallTimeout",
                          "Watchdog: a queue pair with posted, unacknowledged data and no ACK "
                          "progress for this long ends the simulation with a CruxRunError naming "
                          "the job, flow, GPUs and queue pair. Default 8 x 4.29 s = 34.4 s: when "
                          "a ConnectX NIC with NCCL's defaults (timeout 20, NCCL_IB_RETRY_CNT 7) "
                          "reports a retry-exceeded error. 0 disables the watchdog.",
                          TimeValue(IbRetryExceeded()),
                          MakeTimeAccessor(&RdmaNic::m_stallTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("InitialPsn",
                          "PSN of the first data packet of every queue pair created on this NIC "
                          "(24 bit).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_initialPsn),
                          MakeUintegerChecker<uint32_t>(0, roce::PSN_MASK))
            .AddAttribute("AckDscp",
                          "DSCP of ACK, NAK and CNP packets. 46 (EF) = QbbNetDevice's "
                          "ControlDscp: they travel in the control class, which no data shares "
                          "(data uses DSCP 8 x level, CS0..CS7).",
                          UintegerValue(46),
                          MakeUintegerAccessor(&RdmaNic::m_ackDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("PcieRate",
                          "Rate of the PCIe link between the NIC and its PCIe switch (intra-host "
                          "links, ClusterTopology::AddIntraHostLinks; RdmaTransportHelper sets it "
                          "from the description). Data frames cross it one at a time before the "
                          "NIC hands them to its device, the highest traffic class first when "
                          "several wait (the paper's intra-host priority, Crux §5); each frame "
                          "occupies it for its wire size (frame, FCS, preamble and gap, as the "
                          "flow fabric counts it). Received data frames cross it towards the "
                          "GPU the same way (receive buffer, NIC-originated PFC: see "
                          "PcieRxBufferBytes). 0 (default): no PCIe limit.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RdmaNic::m_pcieRate),
                          MakeDataRateChecker())
            .AddAttribute("PcieLatency",
                          "One-way latency GPU <-> NIC through the PCIe switch (intra-host links: "
                          "RdmaTransportHelper sets it to the GPU -> PCIe switch -> NIC path, 2 x "
                          "topology.intraHost.pcieLatency). The DMA read of a message pays it "
                          "before its first packet can leave, the DMA write of its last packet "
                          "before the message is complete at the receiver; the flow fabric's "
                          "path latency counts the same two. 0 (default): none.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaNic::m_pcieLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PcieRxBufferBytes",
                          "Receive buffer of the NIC port per traffic class, in bytes (frame + "
                          "FCS), used with PcieRate > 0: received data frames wait in it for "
                          "their PCIe write; the NIC PAUSEs a class at Xoff = this minus the PFC "
                          "headroom. Default 130,944: a lossless receive buffer of a ConnectX "
                          "adapter (port buffer 262,016 B split into two buffers of 130,944 B; "
                          "NVIDIA/Mellanox community DOC-2933, \"HowTo Tune Receive Buffers on "
                          "Mellanox Adapter Cards\"; Linux mlx5 en/port_buffer.c sets xoff = "
                          "size - headroom and xon = xoff - max MTU the same way).",
                          UintegerValue(130944),
                          MakeUintegerAccessor(&RdmaNic::m_pcieRxBuffer),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("PcieRxPfcResponseTime",
                          "PAUSE generation plus reaction delay of both link ends, counted in "
                          "the receive buffer's PFC headroom (IEEE 802.1Qbb Annex N, as "
                          "SwitchMmu::PfcResponseTime; ASSUMPTION: the switch's 1 us).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&RdmaNic::m_pcieRxResponse),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PcieRxPauseQuanta",
                          "Quanta (units of 512 bit times) of the PAUSE frames the NIC sends "
                          "when its PCIe write-back falls behind; refreshed every half pause "
                          "time while the class stays paused (as SwitchMmu::PauseQuanta).",
                          UintegerValue(0xffff),
                          MakeUintegerAccessor(&RdmaNic::m_pcieRxQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("MaxDeviceQueueFrames",
                          "Data frames per traffic class the NIC keeps queued in its device; "
                          "more wait in the queue pairs (so PFC PAUSE back-pressures them).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&RdmaNic::m_maxDevQueue),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("CnpEnabled",
                          "Responder sends a CNP (BTH opcode 0x81) to the requester when a "
                          "CE-marked data packet arrives (DCQCN notification point; on with the "
                          "default DCQCN, off for HPCC and none).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_cnpEnabled),
                          MakeBooleanChecker())
            .AddAttribute("CnpInterval",
                          "Minimum time between two CNPs of one queue pair (N = 50 us: DCQCN "
                          "paper and ns3-rdma's CNPInterval).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("CongestionControl",
                          "TypeId of the per-queue-pair congestion control (a subclass of "
                          "ns3::RdmaCongestionControl): ns3::DcqcnCongestionControl (default), "
                          "ns3::HpccCongestionControl, or ns3::RdmaCongestionControl (none: "
                          "line rate).",
                          TypeIdValue(DcqcnCongestionControl::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::SetCongestionControlType,
                                             &RdmaNic::GetCongestionControlType),
                          MakeTypeIdChecker())
            .AddAttribute("BaseRtt",
                          "Base round-trip time of the fabric, given to each queue pair's "
                          "congestion control (HPCC's T). RdmaTransportHelper sets it to the "
                          "largest base RTT of the topology when it is 0 (the default).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaNic::m_baseRtt),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("MessageComplete",
                            "The last byte of a message arrived at this NIC: (jobId, flowId, "
                            "bytes, duration since PostSend).",
                            MakeTraceSourceAccessor(&RdmaNic::m_messageCompleteTrace),
                            "ns3::RdmaNic::MessageCompleteTracedCallback")
            .AddTraceSource("Retransmit",
                            "A requester queue pair goes back to an earlier PSN: (queue pair, "
                            "PSN, reason \"nak\" or \"timeout\").",
                            MakeTraceSourceAccessor(&RdmaNic::m_retransmitTrace),
                            "ns3::RdmaNic::RetransmitTracedCallback")
            .AddTraceSource("TxData",
                            "A data packet (IPv4 header first) is handed to the device.",
                            MakeTraceSourceAccessor(&RdmaNic::m_txDataTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RdmaNic::RdmaNic()
    : m_mtu(4096),
      m_ackInterval(8),
      m_rto(IbTimeout()),
      m_maxRtoBackoff(1),
      m_stallTimeout(IbRetryExceeded()),
      m_initialPsn(0),
      m_ackDscp(46),
      m_maxDevQueue(2),
      m_pcieRxBuffer(130944),
      m_pcieRxQuanta(0xffff),
      m_cnpEnabled(true),
      m_cnpInterval(MicroSeconds(50))
{
    m_ccFactory.SetTypeId(DcqcnCongestionControl::GetTypeId());
}

void
RdmaNic::SetCongestionControlType(TypeId tid)
{
    if (!tid.IsChildOf(RdmaCongestionControl::GetTypeId()) &&
        tid != RdmaCongestionControl::GetTypeId())
    {
        NS_FATAL_ERROR("RdmaNic attribute CongestionControl: " << tid.GetName()
                                                               << " is not an "
                                                                  "ns3::RdmaCongestionControl");
    }
    // A new type drops the attributes given for the previous one.
    m_ccFactory = ObjectFactory();
    m_ccFactory.SetTypeId(tid);
}

TypeId
RdmaNic::GetCongestionControlType() const
{
    return m_ccFactory.GetTypeId();
}

void
RdmaNic::SetCongestionControlAttribute(const std::string& name, const AttributeValue& value)
{
    m_ccFactory.Set(name, value);
}

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    m_fillEvent.Cancel();
    m_pcieEvent.Cancel();
    m_pcieRxEvent.Cancel();
    for (uint8_t tc = 0; tc < QbbNetDevice::N_TC; ++tc)
    {
        m_pcieRxRefresh[tc].Cancel();
        m_pcieRxQueue[tc].clear();
    }
    for (auto& qp : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    for (Port& pt : m_ports)
    {
        pt.dev->SetOwner(nullptr, 0, nullptr);
    }
    m_ports.clear();
    m_portSelector = Callback<uint32_t, const FiveTuple&>();
    m_dev = nullptr;
    Object::DoDispose();
}

void
RdmaNic::Attach(Ptr<QbbNetDevice> dev, Ipv4Address address)
{
    NS_LOG_FUNCTION(this << dev << address);
    if (!dev)
    {
        NS_FATAL_ERROR("RdmaNic::Attach: device is null");
    }
    m_address = address;
    CheckMtu(dev, m_ccFactory.Create<RdmaCongestionControl>());
    m_dev = dev;
    m_ports.assign(1, Port());
    m_ports[0].dev = dev;
    InstallHandlers(dev);
}

void
RdmaNic::InstallHandlers(Ptr<QbbNetDevice> dev)
{
    // The device holds the NIC (SetOwner's hold) so that a NIC lives as long as its port; the
    // device's DoDispose() clears its owner, which breaks the cycle at Simulator::Destroy.
    dev->SetOwner(this, 0, Ptr<Object>(this));
}

uint32_t
RdmaNic::AddPort(Ptr<QbbNetDevice> dev)
{
    NS_LOG_FUNCTION(this << dev);
    if (!dev || m_ports.empty())
    {
        NS_FATAL_ERROR("RdmaNic::AddPort: device is null or the NIC has no port 0 (Attach)");
    }
    CheckMtu(dev, m_ccFactory.Create<RdmaCongestionControl>());
    if (m_ports.size() >= 255)
    {
        NS_FATAL_ERROR("RdmaNic::AddPort: at most 255 ports per NIC");
    }
    m_ports.emplace_back();
    m_ports.back().dev = dev;
    InstallHandlers(dev);
    return static_cast<uint32_t>(m_ports.size() - 1);
}

uint32_t
RdmaNic::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<QbbNetDevice>
RdmaNic::GetPortDevice(uint32_t port) const
{
    if (port >= m_ports.size())
    {
        NS_FATAL_ERROR("RdmaNic::GetPortDevice: port " << port << " >= " << m_ports.size());
    }
    return m_ports[port].dev;
}

void
RdmaNic::SetPortSelector(Callback<uint32_t, const FiveTuple&> selector)
{
    m_portSelector = selector;
}

Ptr<QbbNetDevice>
RdmaNic::GetDevice() const
{
    return m_dev;
}

Ipv4Address
RdmaNic::GetAddress() const
{
    return m_address;
}

uint32_t
RdmaNic::GetMtu() const
{
    return m_mtu;
}

uint32_t
RdmaNic::GetDataHeaderBytes()
{
    return IPV4_HEADER_BYTES + UDP_HEADER_BYTES + RoceBthHeader::SERIALIZED_SIZE + roce::ICRC_SIZE;
}

Ptr<RdmaQueuePair>
RdmaNic::CreateQueuePair()
{
    const uint32_t qpn = FIRST_QPN + static_cast<uint32_t>(m_qps.size());
    if (qpn > roce::QPN_MASK)
    {
        NS_FATAL_ERROR("RdmaNic " << m_address << ": out of 24-bit queue pair numbers");
    }
    Ptr<RdmaQueuePair> qp = CreateObject<RdmaQueuePair>();
    qp->m_nic = this;
    qp->m_qpn = qpn;
    qp->m_local = m_address;
    qp->m_txPsnBase = m_initialPsn;
    qp->SetCongestionControl(m_ccFactory.Create<RdmaCongestionControl>());
    m_qps.push_back(qp);
    return qp;
}

void
RdmaNic::InitCongestionControl(RdmaQueuePair* qp)
{
    qp->m_cc->Init(m_dev ? m_dev->GetDataRate() : DataRate("100Gb/s"), m_baseRtt);
    for (const Port& port : m_ports)
    {
        CheckMtu(port.dev, qp->m_cc); // a controller set on the queue pair may add INT
    }
}

void
RdmaNic::CheckMtu(Ptr<QbbNetDevice> dev, Ptr<RdmaCongestionControl> cc) const
{
    const bool withInt = cc && cc->UsesInt();
    const uint64_t packet = uint64_t{m_mtu} + GetDataHeaderBytes() + (withInt ? INT_BYTES : 0);
    if (packet <= dev->GetMtu())
    {
        return;
    }
    std::ostringstream os;
    os << "RdmaNic " << m_address << ": a full data packet is " << packet
       << " bytes (ns3::RdmaNic::Mtu " << m_mtu << " + " << GetDataHeaderBytes()
       << " bytes IPv4/UDP/BTH/ICRC";
    if (withInt)
    {
        os << " + the " << INT_BYTES << "-byte INT stack " << cc->GetInstanceTypeId().GetName()
           << " adds to every data packet";
    }
    const uint64_t overhead = packet - m_mtu;
    os << "), more than its device's ns3::QbbNetDevice::Mtu " << dev->GetMtu()
       << ": lower ns3::RdmaNic::Mtu to at most "
       << (dev->GetMtu() > overhead ? dev->GetMtu() - overhead : 0)
       << " or raise ns3::QbbNetDevice::Mtu to at least " << packet;
    if (withInt)
    {
        os << " (or choose a congestion control without INT)";
    }
    throw CruxRunError(os.str());
}

void
RdmaNic::Connect(Ptr<RdmaQueuePair> a, Ptr<RdmaQueuePair> b, uint16_t srcPort)
{
    if (!a || !b || !a->m_nic || !b->m_nic)
    {
        NS_FATAL_ERROR("RdmaNic::Connect: queue pair is null or has no NIC");
    }
    if (a->m_peer || b->m_peer)
    {
        NS_FATAL_ERROR("RdmaNic::Connect: queue pair already connected (QPN "
                       << (a->m_peer ? a->m_qpn : b->m_qpn) << ")");
    }
    if (a->m_nic == b->m_nic)
    {
        NS_FATAL_ERROR("RdmaNic::Connect: both queue pairs are on NIC " << a->m_local);
    }
    if (srcPort == 0)
    {
        NS_FATAL_ERROR("RdmaNic::Connect: UDP source port must be non-zero");
    }
    a->m_peer = PeekPointer(b);
    b->m_peer = PeekPointer(a);
    a->m_destQpn = b->m_qpn;
    b->m_destQpn = a->m_qpn;
    a->m_remote = b->m_local;
    b->m_remote = a->m_local;
    a->m_srcPort = srcPort;
    b->m_srcPort = srcPort;
    a->m_rxPsnBase = b->m_txPsnBase;
    b->m_rxPsnBase = a->m_txPsnBase;
}

void
RdmaNic::PostSend(Ptr<RdmaQueuePair> qpPtr,
                  uint64_t bytes,
                  uint8_t dscp,
                  uint32_t jobId,
                  uint32_t flowId,
                  Callback<void> done,
                  uint32_t tag)
{
    RdmaQueuePair* qp = PeekPointer(qpPtr);
    if (!qp || qp->m_nic != this)
    {
        NS_FATAL_ERROR("RdmaNic::PostSend: queue pair does not belong to NIC " << m_address);
    }
    if (!qp->m_peer)
    {
        NS_FATAL_ERROR("RdmaNic::PostSend: queue pair " << Describe(qp) << " is not connected");
    }
    if (!m_dev)
    {
        NS_FATAL_ERROR("RdmaNic::PostSend: NIC " << m_address << " has no device (Attach)");
    }
    if (bytes == 0)
    {
        NS_FATAL_ERROR("RdmaNic::PostSend: message bytes must be > 0 (job " << jobId << ", flow "
                                                                            << flowId << ")");
    }
    if (dscp > 63)
    {
        NS_FATAL_ERROR("RdmaNic::PostSend: dscp " << unsigned(dscp) << " out of range 0..63");
    }
    if (m_dev->DscpToClass(dscp) == QbbNetDevice::CONTROL_CLASS)
    {
        NS_FATAL_ERROR("RdmaNic::PostSend: DSCP " << unsigned(dscp)
                                                  << " is the device's ControlDscp, reserved "
                                                     "for ACK/NAK/CNP (job "
                                                  << jobId << ", flow " << flowId << ")");
    }
    // the matching receive, posted now on the peer queue pair
    RdmaQueuePair::RxMessage r;
    r.bytes = bytes;
    r.jobId = jobId;
    r.flowId = flowId;
    r.postTime = Simulator::Now();
    r.done = done;
    qp->m_peer->m_rxMsgs.push_back(std::move(r));
    if (m_pcieLatency.IsStrictlyPositive())
    {
        // the DMA read of the payload: its first byte reaches the NIC one PCIe latency later
        crux::Schedule(m_pcieLatency, [this, qpPtr, bytes, dscp, jobId, flowId, tag]() {
            QueueMessage(PeekPointer(qpPtr), bytes, dscp, jobId, flowId, tag);
        });
        return;
    }
    QueueMessage(qp, bytes, dscp, jobId, flowId, tag);
}

void
RdmaNic::QueueMessage(RdmaQueuePair* qp,
                      uint64_t bytes,
                      uint8_t dscp,
                      uint32_t jobId,
                      uint32_t flowId,
                      uint32_t tag)
{
    const Time now = Simulator::Now();
    const bool wasIdle = qp->m_sndUna == qp->m_sndMax;
    RdmaQueuePair::TxMessage m;
    m.firstSeq = qp->m_sndMax;
    m.nPkts = (bytes + m_mtu - 1) / m_mtu;
    m.bytes = bytes;
    m.dscp = dscp;
    m.tc = m_dev->DscpToTc(dscp);
    m.jobId = jobId;
    m.flowId = flowId;
    m.tag = tag;
    qp->m_txMsgs.push_back(m);
    qp->m_sndMax += m.nPkts;
    NS_LOG_LOGIC("post " << bytes << " B (" << m.nPkts << " packets) on " << Describe(qp));
    if (wasIdle)
    {
        qp->m_lastProgress = now;
        qp->m_rtoBackoff = 1;
        if (m_stallTimeout.IsStrictlyPositive())
        {
            EnsureTimer(qp, now + m_stallTimeout);
        }
        qp->m_cc->OnActive(); // restarts the timers OnIdle() stopped
    }
    Activate(qp);
}

Ptr<RdmaQueuePair>
RdmaNic::GetQueuePair(uint32_t qpn) const
{
    if (qpn < FIRST_QPN || qpn - FIRST_QPN >= m_qps.size())
    {
        return nullptr;
    }
    return m_qps[qpn - FIRST_QPN];
}

uint32_t
RdmaNic::GetNQueuePairs() const
{
    return static_cast<uint32_t>(m_qps.size());
}

Ptr<RdmaQueuePair>
RdmaNic::GetQueuePairByIndex(uint32_t i) const
{
    if (i >= m_qps.size())
    {
        NS_FATAL_ERROR("RdmaNic::GetQueuePairByIndex: index " << i << " >= " << m_qps.size());
    }
    return m_qps[i];
}

RdmaQpStats
RdmaNic::GetStats() const
{
    RdmaQpStats s;
    for (const auto& qp : m_qps)
    {
        s += qp->m_stats;
    }
    return s;
}

uint64_t
RdmaNic::GetPcieRxPauseFrames() const
{
    return m_pcieRxPauses;
}

uint64_t
RdmaNic::GetPcieRxResumeFrames() const
{
    return m_pcieRxResumes;
}

uint64_t
RdmaNic::GetPcieRxPeakBytes() const
{
    return m_pcieRxPeak;
}

uint64_t
RdmaNic::GetPcieRxXoff() const
{
    return m_pcieRxXoff;
}

uint64_t
RdmaNic::GetUnknownFrames() const
{
    return m_unknownFrames;
}

std::string
RdmaNic::Describe(const RdmaQueuePair* qp) const
{
    std::ostringstream os;
    os << "QPN 0x" << std::hex << qp->m_qpn << std::dec << " (" << qp->m_local << ":"
       << qp->m_srcPort << " -> " << qp->m_remote << " QPN 0x" << std::hex << qp->m_destQpn
       << std::dec << ")";
    return os.str();
}

std::string
RdmaNic::DescribeStall(const RdmaQueuePair* qp) const
{
    std::ostringstream os;
    os << "RdmaNic watchdog: ";
    if (!qp->m_txMsgs.empty())
    {
        const RdmaQueuePair::TxMessage& m = qp->m_txMsgs.front();
        os << "job " << m.jobId;
        if (!qp->m_jobLabel.empty())
        {
            os << " (" << qp->m_jobLabel << ")";
        }
        os << " flow " << m.flowId << " is stuck";
        const std::string what =
            qp->m_describe.IsNull() ? std::string() : qp->m_describe(m.jobId, m.tag);
        if (!what.empty())
        {
            os << " in " << what;
        }
        os << ": ";
        if (!qp->m_gpuLabel.empty())
        {
            os << qp->m_gpuLabel << ", ";
        }
        const uint64_t done = qp->m_sndUna > m.firstSeq ? qp->m_sndUna - m.firstSeq : 0;
        os << "message of " << m.bytes << " bytes with " << done << " of " << m.nPkts
           << " packets acknowledged, ";
    }
    os << "queue pair " << Describe(qp) << " made no progress for " << std::setprecision(4)
       << m_stallTimeout.GetSeconds() << " s (" << qp->m_stats.timeouts << " timeouts, "
       << qp->m_stats.nakRewinds << " NAK rewinds; a lost link or a PFC deadlock; attribute "
       << "ns3::RdmaNic::StallTimeout)";
    return os.str();
}

} // namespace ns3
