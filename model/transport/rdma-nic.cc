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
#include "ns3/qbb-channel.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
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
const std::string g_reasonNak = "nak";         //!< Retransmit trace reason
const std::string g_reasonTimeout = "timeout"; //!< Retransmit trace reason
constexpr uint16_t IPV4_ETHERTYPE = 0x0800;    //!< EtherType of IPv4
constexpr uint32_t IPV4_HEADER_BYTES = 20;     //!< IPv4 header without options
constexpr uint32_t UDP_HEADER_BYTES = 8;       //!< UDP header
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
                          "flow fabric counts it). 0 (default): no PCIe limit.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RdmaNic::m_pcieRate),
                          MakeDataRateChecker())
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
      m_cnpEnabled(true),
      m_cnpInterval(MicroSeconds(50))
{
    m_devQueued.fill(0);
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
    for (auto& q : m_active)
    {
        q.clear();
    }
    for (auto& qp : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    if (m_dev)
    {
        m_dev->SetFrameHandler(QbbNetDevice::FrameHandler());
        m_dev->SetDequeueHandler(QbbNetDevice::DequeueHandler());
    }
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
    if (m_mtu + GetDataHeaderBytes() > dev->GetMtu())
    {
        NS_FATAL_ERROR("RdmaNic::Attach: RdmaNic Mtu " << m_mtu << " + " << GetDataHeaderBytes()
                                                       << " header bytes exceeds the device Mtu "
                                                       << dev->GetMtu() << " of " << address);
    }
    m_dev = dev;
    m_address = address;
    // The device holds the NIC (Ptr in its callbacks) so that a NIC lives as long as its port;
    // the device's DoDispose() clears its handlers, which breaks the cycle at Simulator::Destroy.
    Ptr<RdmaNic> self(this);
    m_dev->SetFrameHandler(MakeCallback(&RdmaNic::ReceiveFrame, self));
    m_dev->SetDequeueHandler(MakeCallback(&RdmaNic::DeviceDequeued, self));
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
    if (qp->m_cc->UsesInt() && m_dev && m_mtu + GetDataHeaderBytes() + INT_BYTES > m_dev->GetMtu())
    {
        NS_FATAL_ERROR("RdmaNic " << m_address << ": " << qp->m_cc->GetInstanceTypeId().GetName()
                                  << " adds a " << INT_BYTES << "-byte INT stack to every data "
                                  << "packet: Mtu " << m_mtu << " + " << GetDataHeaderBytes()
                                  << " + " << INT_BYTES << " exceeds the device Mtu "
                                  << m_dev->GetMtu());
    }
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
                  Callback<void> done)
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
    qp->m_txMsgs.push_back(m);
    qp->m_sndMax += m.nPkts;
    RdmaQueuePair::RxMessage r;
    r.bytes = bytes;
    r.jobId = jobId;
    r.flowId = flowId;
    r.postTime = now;
    r.done = done;
    qp->m_peer->m_rxMsgs.push_back(std::move(r));
    NS_LOG_LOGIC("post " << bytes << " B (" << m.nPkts << " packets) on " << Describe(qp));
    if (wasIdle)
    {
        qp->m_lastProgress = now;
        qp->m_rtoBackoff = 1;
        if (m_stallTimeout.IsStrictlyPositive())
        {
            EnsureTimer(qp, now + m_stallTimeout);
        }
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
        os << " flow " << m.flowId << " is stuck: ";
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

// ------------------------------------------------------------------------------- transmit

void
RdmaNic::Activate(RdmaQueuePair* qp)
{
    if (qp->m_inActiveList || qp->m_parked || qp->m_tcWait || qp->m_windowWait ||
        qp->m_sndNxt >= qp->m_sndMax)
    {
        return;
    }
    const uint8_t tc = qp->CurrentTc();
    m_active[tc].push_back(qp);
    qp->m_inActiveList = true;
    // Deferred to the end of the current instant, once for all queue pairs activated in it, so
    // that queue pairs posted at the same time start together in the round robin.
    m_pendingFill |= static_cast<uint8_t>(1U << tc);
    if (!m_fillEvent.IsRunning())
    {
        m_fillEvent = Simulator::ScheduleNow(&RdmaNic::DeferredFill, this);
    }
}

void
RdmaNic::DeferredFill()
{
    uint8_t mask = m_pendingFill;
    m_pendingFill = 0;
    while (mask != 0)
    {
        const uint8_t c = static_cast<uint8_t>(__builtin_ctz(mask));
        mask &= static_cast<uint8_t>(~(1U << c));
        Fill(c);
    }
}

void
RdmaNic::Wake(RdmaQueuePair* qp)
{
    qp->m_parked = false;
    Activate(qp);
}

void
RdmaNic::DeviceDequeued(Ptr<QbbNetDevice> /* dev */, Ptr<const Packet> /* p */, uint8_t tc)
{
    if (tc >= QbbNetDevice::N_TC)
    {
        return; // an ACK/NAK/CNP left the control class: no data to refill
    }
    if (m_devQueued[tc] > 0)
    {
        --m_devQueued[tc];
    }
    Fill(tc);
}

void
RdmaNic::Fill(uint8_t tc)
{
    m_refill |= static_cast<uint8_t>(1U << tc);
    if (m_inFill)
    {
        return; // the running Fill() loop picks it up
    }
    m_inFill = true;
    while (m_refill != 0)
    {
        const uint8_t c = static_cast<uint8_t>(__builtin_ctz(m_refill));
        m_refill &= static_cast<uint8_t>(~(1U << c));
        FillTc(c);
    }
    m_inFill = false;
}

void
RdmaNic::FillTc(uint8_t tc)
{
    std::deque<RdmaQueuePair*>& list = m_active[tc];
    while (m_devQueued[tc] < m_maxDevQueue && !list.empty())
    {
        RdmaQueuePair* qp = list.front();
        list.pop_front();
        qp->m_inActiveList = false;
        if (qp->m_sndNxt >= qp->m_sndMax)
        {
            continue; // nothing left (acknowledged ahead)
        }
        const uint8_t qtc = qp->CurrentTc();
        if (qtc != qp->m_txTc && qp->m_sndNxt > qp->m_sndUna)
        {
            // Class change with packets in flight: wait until they are acknowledged, so that
            // the new class cannot overtake them (in the device or in the fabric) and cause a
            // spurious go-back-N. AdvanceUna() or Rewind() resumes the queue pair.
            qp->m_tcWait = true;
            ++qp->m_stats.classChangeWaits;
            continue;
        }
        if (qtc != tc)
        {
            // its next message uses another class
            m_active[qtc].push_back(qp);
            qp->m_inActiveList = true;
            m_refill |= static_cast<uint8_t>(1U << qtc);
            continue;
        }
        if (qp->m_parked)
        {
            continue;
        }
        const uint64_t window = qp->m_cc->GetWindowBytes();
        if (window > 0 && qp->m_sndNxt > qp->m_sndUna &&
            (qp->m_sndNxt - qp->m_sndUna + 1) * static_cast<uint64_t>(m_mtu) > window)
        {
            qp->m_windowWait = true; // AdvanceUna() or Rewind() resumes it
            continue;
        }
        if (m_pcieRate.GetBitRate() > 0 && m_pcieFreeAt > Simulator::Now())
        {
            // the PCIe link is carrying the previous frame: wait at the head of the class
            list.push_front(qp);
            qp->m_inActiveList = true;
            if (!m_pcieEvent.IsRunning())
            {
                m_pcieEvent =
                    Simulator::Schedule(m_pcieFreeAt - Simulator::Now(), &RdmaNic::PcieFree, this);
            }
            return;
        }
        if (qp->m_nextTxTime > Simulator::Now())
        {
            qp->m_parked = true;
            qp->m_wakeEvent =
                Simulator::Schedule(qp->m_nextTxTime - Simulator::Now(), &RdmaNic::Wake, this, qp);
            continue;
        }
        SendDataPacket(qp);
        if (qp->m_sndNxt < qp->m_sndMax && !qp->m_inActiveList && !qp->m_parked)
        {
            const uint8_t ntc = qp->CurrentTc();
            m_active[ntc].push_back(qp);
            qp->m_inActiveList = true;
            if (ntc != tc)
            {
                m_refill |= static_cast<uint8_t>(1U << ntc);
            }
        }
    }
}

void
RdmaNic::AddHeaders(Ptr<Packet> p, const RdmaQueuePair* qp, uint8_t dscp, bool ectCapable)
{
    UdpHeader udp;
    udp.SetSourcePort(qp->m_srcPort);
    udp.SetDestinationPort(roce::UDP_PORT);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(m_address);
    ip.SetDestination(qp->m_remote);
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetPayloadSize(p->GetSize());
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
    ip.SetEcn(ectCapable ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT);
    ip.SetDontFragment();
    ip.SetIdentification(m_ipId++);
    p->AddHeader(ip);
}

bool
RdmaNic::Enqueue(Ptr<Packet> p, RdmaQueuePair* qp, uint8_t tc)
{
    if (!m_peerMacKnown)
    {
        m_peerMac = Mac48Address::GetBroadcast();
        Ptr<QbbChannel> ch = DynamicCast<QbbChannel>(m_dev->GetChannel());
        if (ch)
        {
            Ptr<QbbNetDevice> peer = ch->GetPeer(PeekPointer(m_dev));
            if (peer)
            {
                m_peerMac = peer->GetAddress();
                m_peerMacKnown = true;
            }
        }
    }
    const bool data = tc < QbbNetDevice::N_TC;
    if (data)
    {
        ++m_devQueued[tc];
    }
    if (!m_dev->SendInTc(p, m_peerMac, IPV4_ETHERTYPE, tc))
    {
        if (data)
        {
            --m_devQueued[tc];
        }
        ++qp->m_stats.deviceDrops;
        NS_LOG_WARN("device refused a frame of " << Describe(qp));
        return false;
    }
    return true;
}

void
RdmaNic::SendDataPacket(RdmaQueuePair* qp)
{
    const Time now = Simulator::Now();
    const RdmaQueuePair::TxMessage& msg = qp->m_txMsgs[qp->m_txCur];
    const uint64_t seq = qp->m_sndNxt;
    const uint64_t off = seq - msg.firstSeq;
    const bool last = off + 1 == msg.nPkts;
    const uint32_t payload =
        last ? static_cast<uint32_t>(msg.bytes - (msg.nPkts - 1) * static_cast<uint64_t>(m_mtu))
             : m_mtu;
    uint8_t opcode;
    if (msg.nPkts == 1)
    {
        opcode = roce::RC_SEND_ONLY;
    }
    else if (off == 0)
    {
        opcode = roce::RC_SEND_FIRST;
    }
    else if (last)
    {
        opcode = roce::RC_SEND_LAST;
    }
    else
    {
        opcode = roce::RC_SEND_MIDDLE;
    }
    const uint8_t dscp = msg.dscp;
    const uint8_t tc = msg.tc;
    qp->m_txTc = tc;

    Ptr<Packet> p = Create<Packet>(payload + roce::ICRC_SIZE);
    const bool withInt = qp->m_cc->UsesInt();
    if (withInt)
    {
        p->AddHeader(InbandTelemetryHeader()); // empty: the switches fill it
    }
    const uint32_t ackEvery = qp->m_cc->GetAckRequestInterval();
    RoceBthHeader bth;
    bth.SetOpcode(opcode);
    bth.SetDestQp(qp->m_destQpn);
    bth.SetAckRequest(last || (ackEvery > 0 && (seq + 1) % ackEvery == 0));
    bth.SetIntFlag(withInt);
    bth.SetPsn(qp->m_txPsnBase + static_cast<uint32_t>(seq & roce::PSN_MASK));
    p->AddHeader(bth);

    // bookkeeping before the device call (which may call back into Fill)
    if (qp->m_sndNxt == qp->m_sndUna)
    {
        qp->m_rtoStart = now; // first packet in flight: the retransmission clock starts
        EnsureTimer(qp, now + m_rto * qp->m_rtoBackoff);
    }
    if (seq < qp->m_sndHigh)
    {
        ++qp->m_stats.retransmittedPackets;
    }
    else
    {
        qp->m_sndHigh = seq + 1;
    }
    ++qp->m_sndNxt;
    if (last)
    {
        ++qp->m_txCur;
    }
    ++qp->m_stats.txDataPackets;
    qp->m_stats.txDataBytes += payload;

    const uint32_t frameBytes = payload + GetDataHeaderBytes() + (withInt ? INT_BYTES : 0) + 14;
    qp->m_cc->OnDataSent(frameBytes);
    const DataRate rate = qp->m_cc->GetRate();
    const DataRate line = m_dev->GetDataRate();
    if (rate < line)
    {
        // pace: the next packet may leave one frame time at the allowed rate later
        // (frame + FCS + preamble/interframe gap, as the device serializes it)
        qp->m_nextTxTime = now + crux::BytesTxTime(rate, frameBytes + 4 + 20);
    }
    if (m_pcieRate.GetBitRate() > 0)
    {
        m_pcieFreeAt =
            std::max(now, m_pcieFreeAt) + crux::BytesTxTime(m_pcieRate, frameBytes + 4 + 20);
    }
    AddHeaders(p, qp, dscp, true);
    m_txDataTrace(p);
    Enqueue(p, qp, tc);
}

void
RdmaNic::PcieFree()
{
    // strict priority at the PCIe link: the highest class with a waiting queue pair goes first
    for (int tc = QbbNetDevice::N_TC - 1; tc >= 0 && m_pcieFreeAt <= Simulator::Now(); --tc)
    {
        if (!m_active[tc].empty())
        {
            Fill(static_cast<uint8_t>(tc));
        }
    }
    // queue pairs of lower classes may still wait: come back when the link is free again
    const Time now = Simulator::Now();
    if (m_pcieFreeAt > now && !m_pcieEvent.IsRunning() &&
        std::any_of(m_active.begin(), m_active.end(), [](const auto& l) { return !l.empty(); }))
    {
        m_pcieEvent = Simulator::Schedule(m_pcieFreeAt - now, &RdmaNic::PcieFree, this);
    }
}

void
RdmaNic::SendAck(RdmaQueuePair* qp, bool nak, const uint8_t* intEcho)
{
    const uint32_t epsn = (qp->m_rxPsnBase + static_cast<uint32_t>(qp->m_rxEpsn)) & roce::PSN_MASK;
    Ptr<Packet> p = Create<Packet>(roce::ICRC_SIZE);
    if (intEcho != nullptr && !nak)
    {
        p->AddHeader(InbandTelemetryHeader::FromRaw(intEcho)); // HPCC: echo the data's INT
    }
    RoceAethHeader aeth;
    aeth.SetSyndrome(nak ? RoceAethHeader::SYNDROME_NAK_PSN_SEQ_ERROR
                         : RoceAethHeader::SYNDROME_ACK);
    aeth.SetMsn(static_cast<uint32_t>(qp->m_msn));
    p->AddHeader(aeth);
    RoceBthHeader bth;
    bth.SetOpcode(roce::RC_ACK);
    bth.SetDestQp(qp->m_destQpn);
    bth.SetPsn(nak ? epsn : epsn - 1);
    p->AddHeader(bth);
    if (nak)
    {
        ++qp->m_stats.naksSent;
    }
    else
    {
        ++qp->m_stats.acksSent;
    }
    qp->m_unackedRx = 0;
    AddHeaders(p, qp, m_ackDscp, false);
    Enqueue(p, qp, m_dev->DscpToClass(m_ackDscp));
}

void
RdmaNic::SendCnp(RdmaQueuePair* qp)
{
    Ptr<Packet> p = Create<Packet>(roce::CNP_PAYLOAD + roce::ICRC_SIZE);
    RoceBthHeader bth;
    bth.SetOpcode(roce::CNP);
    bth.SetDestQp(qp->m_destQpn);
    bth.SetPsn(0);
    p->AddHeader(bth);
    ++qp->m_stats.cnpsSent;
    AddHeaders(p, qp, m_ackDscp, false);
    Enqueue(p, qp, m_dev->DscpToClass(m_ackDscp));
}

// -------------------------------------------------------------------------------- receive

void
RdmaNic::ReceiveFrame(Ptr<QbbNetDevice> /* dev */, Ptr<Packet> packet, uint16_t protocol)
{
    // One copy of the fixed-size headers out of the packet and a direct parse: cheaper than
    // deserializing Ipv4Header/UdpHeader/BTH objects on this per-packet path. Layout (we send
    // no IPv4 options): IPv4 [0, 20), UDP [20, 28), BTH [28, 40), AETH [40, 44) for ACKs.
    constexpr uint32_t ipLen = IPV4_HEADER_BYTES;
    constexpr uint32_t bthAt = ipLen + UDP_HEADER_BYTES;
    constexpr uint32_t aethAt = bthAt + RoceBthHeader::SERIALIZED_SIZE;
    constexpr uint32_t minLen = aethAt + roce::ICRC_SIZE;
    const uint32_t size = packet->GetSize();
    if (protocol != IPV4_ETHERTYPE || size < minLen)
    {
        ++m_unknownFrames;
        return;
    }
    // room for an INT stack after the BTH (data) or after the AETH (ACK echo); only copied when
    // present (below)
    uint8_t b[aethAt + RoceAethHeader::SERIALIZED_SIZE + INT_BYTES];
    packet->CopyData(b, std::min<uint32_t>(size, aethAt + RoceAethHeader::SERIALIZED_SIZE));
    const uint32_t dst = (static_cast<uint32_t>(b[16]) << 24) |
                         (static_cast<uint32_t>(b[17]) << 16) |
                         (static_cast<uint32_t>(b[18]) << 8) | b[19];
    const uint16_t dport = static_cast<uint16_t>((b[22] << 8) | b[23]);
    if (b[0] != 0x45 || b[9] != 17 || dst != m_address.Get() || dport != roce::UDP_PORT)
    {
        ++m_unknownFrames;
        NS_LOG_WARN("NIC " << m_address << " got a frame that is not RoCEv2 for it");
        return;
    }
    const roce::BthView bth = roce::BthView::Read(b + bthAt);
    const uint32_t idx = bth.destQp - FIRST_QPN;
    if (bth.destQp < FIRST_QPN || idx >= m_qps.size() || !m_qps[idx]->m_peer)
    {
        ++m_unknownFrames;
        NS_LOG_WARN("NIC " << m_address << ": no connected QPN " << bth.destQp);
        return;
    }
    RdmaQueuePair* qp = PeekPointer(m_qps[idx]);
    if (roce::IsRcSend(bth.opcode))
    {
        const bool ce = (b[1] & 0x3) == Ipv4Header::ECN_CE;
        const uint32_t intBytes = bth.intFlag ? INT_BYTES : 0;
        if (size < aethAt + intBytes + roce::ICRC_SIZE)
        {
            ++m_unknownFrames;
            return;
        }
        if (bth.intFlag)
        {
            packet->CopyData(b, aethAt + INT_BYTES);
        }
        HandleData(qp,
                   bth,
                   ce,
                   size - aethAt - intBytes - roce::ICRC_SIZE,
                   bth.intFlag ? b + aethAt : nullptr);
    }
    else if (bth.opcode == roce::RC_ACK)
    {
        constexpr uint32_t ackLen = aethAt + RoceAethHeader::SERIALIZED_SIZE + roce::ICRC_SIZE;
        if (size < ackLen)
        {
            ++m_unknownFrames;
            return;
        }
        // an ACK longer than BTH + AETH + ICRC carries an INT echo after the AETH (HPCC)
        const bool echo = size >= ackLen + INT_BYTES;
        if (echo)
        {
            packet->CopyData(b, sizeof(b));
        }
        HandleAck(qp,
                  bth,
                  b[aethAt],
                  echo ? b + aethAt + RoceAethHeader::SERIALIZED_SIZE : nullptr);
    }
    else if (bth.opcode == roce::CNP)
    {
        ++qp->m_stats.cnpsReceived;
        qp->m_cc->OnCnp();
    }
    else
    {
        ++m_unknownFrames;
    }
}

void
RdmaNic::HandleData(RdmaQueuePair* qp,
                    const roce::BthView& bth,
                    bool ce,
                    uint32_t payload,
                    const uint8_t* intStack)
{
    const Time now = Simulator::Now();
    if (ce)
    {
        ++qp->m_stats.ceReceived;
        if (m_cnpEnabled && (!qp->m_cnpSentOnce || now - qp->m_lastCnpTime >= m_cnpInterval))
        {
            qp->m_cnpSentOnce = true;
            qp->m_lastCnpTime = now;
            SendCnp(qp);
        }
    }
    const uint32_t epsn = (qp->m_rxPsnBase + static_cast<uint32_t>(qp->m_rxEpsn)) & roce::PSN_MASK;
    const int32_t d = roce::PsnDiff(bth.psn, epsn);
    const uint8_t op = bth.opcode;
    if (d > 0)
    {
        // ahead of the expected PSN: a packet was lost; drop, NAK once per gap
        ++qp->m_stats.outOfOrderDrops;
        if (!qp->m_nakOutstanding)
        {
            qp->m_nakOutstanding = true;
            SendAck(qp, true);
        }
        return;
    }
    if (d < 0)
    {
        // duplicate of an accepted packet (after a go-back-N rewind): re-acknowledge
        ++qp->m_stats.duplicates;
        ++qp->m_unackedRx;
        if (bth.ackReq || qp->m_unackedRx >= m_ackInterval)
        {
            SendAck(qp, false, intStack);
        }
        return;
    }
    // in order
    if (qp->m_rxMsgs.empty())
    {
        NS_FATAL_ERROR("RdmaNic " << m_address << ": data for " << Describe(qp)
                                  << " but no message is expected (PSN " << bth.psn << ")");
    }
    const bool starts = op == roce::RC_SEND_FIRST || op == roce::RC_SEND_ONLY;
    if (starts != (qp->m_rxMsgBytes == 0))
    {
        NS_FATAL_ERROR("RdmaNic " << m_address << ": opcode sequence error on " << Describe(qp)
                                  << " (opcode " << unsigned(op) << " at PSN " << bth.psn << ", "
                                  << qp->m_rxMsgBytes << " bytes of the message so far)");
    }
    ++qp->m_rxEpsn;
    qp->m_nakOutstanding = false;
    ++qp->m_stats.rxDataPackets;
    qp->m_stats.rxDataBytes += payload;
    qp->m_rxMsgBytes += payload;
    ++qp->m_unackedRx;
    const bool end = roce::IsMessageEnd(op);
    if (end || bth.ackReq || qp->m_unackedRx >= m_ackInterval)
    {
        if (end)
        {
            ++qp->m_msn; // the ACK of a message's last packet carries its MSN
        }
        SendAck(qp, false, intStack);
    }
    if (!end)
    {
        if (qp->m_rxMsgBytes > qp->m_rxMsgs.front().bytes)
        {
            NS_FATAL_ERROR("RdmaNic " << m_address << ": message on " << Describe(qp)
                                      << " longer than its " << qp->m_rxMsgs.front().bytes
                                      << " bytes");
        }
        return;
    }
    RdmaQueuePair::RxMessage m = std::move(qp->m_rxMsgs.front());
    qp->m_rxMsgs.pop_front();
    if (qp->m_rxMsgBytes != m.bytes)
    {
        NS_FATAL_ERROR("RdmaNic " << m_address << ": message on " << Describe(qp) << " ended after "
                                  << qp->m_rxMsgBytes << " bytes, expected " << m.bytes);
    }
    qp->m_rxMsgBytes = 0;
    ++qp->m_stats.messagesDelivered;
    NS_LOG_LOGIC("message of " << m.bytes << " B delivered on " << Describe(qp));
    m_messageCompleteTrace(m.jobId, m.flowId, m.bytes, now - m.postTime);
    if (!m.done.IsNull())
    {
        m.done();
    }
}

void
RdmaNic::HandleAck(RdmaQueuePair* qp,
                   const roce::BthView& bth,
                   uint8_t syndrome,
                   const uint8_t* intEcho)
{
    const uint32_t una = (qp->m_txPsnBase + static_cast<uint32_t>(qp->m_sndUna)) & roce::PSN_MASK;
    const int32_t d = roce::PsnDiff(bth.psn, una);
    if ((syndrome & 0x60) == 0)
    {
        ++qp->m_stats.acksReceived;
        uint64_t acked = 0;
        if (d >= 0)
        {
            const uint64_t newUna = qp->m_sndUna + static_cast<uint64_t>(d) + 1;
            if (newUna > qp->m_sndHigh)
            {
                NS_FATAL_ERROR("RdmaNic " << m_address << ": ACK PSN " << bth.psn << " on "
                                          << Describe(qp) << " beyond the last packet sent");
            }
            acked = newUna - qp->m_sndUna;
            AdvanceUna(qp, newUna);
        }
        RdmaAckEvent ev;
        ev.newlyAcked = acked;
        ev.ackedPackets = qp->m_sndUna;
        ev.nextPacket = qp->m_sndNxt;
        InbandTelemetryHeader echo;
        if (intEcho != nullptr)
        {
            echo = InbandTelemetryHeader::FromRaw(intEcho);
            ev.intEcho = &echo;
        }
        qp->m_cc->OnAck(ev);
    }
    else if (syndrome == RoceAethHeader::SYNDROME_NAK_PSN_SEQ_ERROR)
    {
        ++qp->m_stats.naksReceived;
        if (d < 0)
        {
            return; // stale
        }
        const uint64_t newUna = qp->m_sndUna + static_cast<uint64_t>(d);
        if (newUna > qp->m_sndHigh)
        {
            NS_FATAL_ERROR("RdmaNic " << m_address << ": NAK PSN " << bth.psn << " on "
                                      << Describe(qp) << " beyond the last packet sent");
        }
        if (newUna > qp->m_sndUna)
        {
            AdvanceUna(qp, newUna);
        }
        if (qp->m_sndNxt > qp->m_sndUna)
        {
            ++qp->m_stats.nakRewinds;
            Rewind(qp, g_reasonNak);
        }
    }
    else
    {
        NS_LOG_WARN("unsupported AETH syndrome 0x" << std::hex << unsigned(syndrome));
    }
}

void
RdmaNic::AdvanceUna(RdmaQueuePair* qp, uint64_t newUna)
{
    const Time now = Simulator::Now();
    qp->m_sndUna = newUna;
    qp->m_lastProgress = now;
    qp->m_rtoStart = now;
    qp->m_rtoBackoff = 1;
    std::size_t popped = 0;
    while (!qp->m_txMsgs.empty() &&
           qp->m_txMsgs.front().firstSeq + qp->m_txMsgs.front().nPkts <= newUna)
    {
        qp->m_txMsgs.pop_front();
        ++popped;
        ++qp->m_stats.messagesAcked;
    }
    if (qp->m_sndNxt < newUna)
    {
        // the responder has packets we were about to resend
        qp->m_sndNxt = newUna;
        qp->SeekCursor();
    }
    else
    {
        qp->m_txCur -= popped;
    }
    if (qp->m_sndUna == qp->m_sndMax)
    {
        Simulator::Remove(qp->m_timer); // idle: nothing to time; PostSend() re-arms
    }
    if (qp->m_tcWait && qp->m_sndUna >= qp->m_sndNxt)
    {
        qp->m_tcWait = false; // everything in flight acknowledged: switch class now
        Activate(qp);
    }
    if (qp->m_pendingPort != 0 && qp->m_sndUna == qp->m_sndHigh)
    {
        qp->m_srcPort = qp->m_pendingPort;
        qp->m_pendingPort = 0;
    }
    if (qp->m_windowWait)
    {
        qp->m_windowWait = false; // the window moved: FillTc checks it again
        Activate(qp);
    }
}

void
RdmaNic::Rewind(RdmaQueuePair* qp, const std::string& reason)
{
    const uint32_t psn = (qp->m_txPsnBase + static_cast<uint32_t>(qp->m_sndUna)) & roce::PSN_MASK;
    NS_LOG_INFO("NIC " << m_address << " " << Describe(qp) << " goes back to PSN " << psn << " ("
                       << reason << "), " << (qp->m_sndNxt - qp->m_sndUna) << " packets");
    qp->m_sndNxt = qp->m_sndUna;
    qp->m_txCur = 0; // the head message holds the first unacknowledged packet
    qp->m_rtoStart = Simulator::Now();
    qp->m_tcWait = false;
    qp->m_windowWait = false;
    m_retransmitTrace(qp, psn, reason);
    Activate(qp);
}

void
RdmaNic::EnsureTimer(RdmaQueuePair* qp, Time at)
{
    if (qp->m_timer.IsRunning())
    {
        if (qp->m_timerAt <= at)
        {
            return;
        }
        Simulator::Remove(qp->m_timer);
    }
    const Time now = Simulator::Now();
    if (at < now)
    {
        at = now;
    }
    qp->m_timerAt = at;
    qp->m_timer = Simulator::Schedule(at - now, &RdmaNic::TimerExpired, this, qp);
}

void
RdmaNic::TimerExpired(RdmaQueuePair* qp)
{
    if (qp->m_sndUna == qp->m_sndMax)
    {
        return; // idle: the next PostSend() re-arms
    }
    const Time now = Simulator::Now();
    if (m_stallTimeout.IsStrictlyPositive() && now - qp->m_lastProgress >= m_stallTimeout)
    {
        throw CruxRunError(DescribeStall(qp));
    }
    if (qp->m_sndNxt > qp->m_sndUna && now - qp->m_rtoStart >= m_rto * qp->m_rtoBackoff)
    {
        ++qp->m_stats.timeouts;
        qp->m_rtoBackoff = std::min(qp->m_rtoBackoff * 2, m_maxRtoBackoff);
        qp->m_cc->OnTimeout();
        Rewind(qp, g_reasonTimeout);
    }
    Time next = Time::Max();
    if (qp->m_sndNxt > qp->m_sndUna)
    {
        next = qp->m_rtoStart + m_rto * qp->m_rtoBackoff;
    }
    if (m_stallTimeout.IsStrictlyPositive())
    {
        next = std::min(next, qp->m_lastProgress + m_stallTimeout);
    }
    if (next != Time::Max())
    {
        EnsureTimer(qp, next);
    }
}

} // namespace ns3
