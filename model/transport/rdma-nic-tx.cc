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

/**
 * \file
 * \ingroup crux
 * RdmaNic, send side: the per-class round robins of queue pairs, the device refill, pacing, the
 * PCIe serializer (attribute PcieRate), data packets, ACK/NAK and CNP packets (rdma-nic.h).
 */

#include "rdma-nic.h"
#include "roce-header.h"

#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/qbb-channel.h"
#include "ns3/simulator.h"
#include "ns3/wire-time.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRdmaNicTx");

namespace
{
constexpr uint16_t IPV4_ETHERTYPE = crux::IPV4_ETHERTYPE;              //!< EtherType of IPv4
constexpr uint32_t INT_BYTES = InbandTelemetryHeader::SERIALIZED_SIZE; //!< INT stack
constexpr uint32_t IPV4_HEADER_BYTES = 20;                             //!< IPv4, no options
constexpr uint32_t UDP_HEADER_BYTES = 8;                               //!< UDP header

/**
 * The IPv4 header (20 bytes, no options) and UDP header (8 bytes) of a RoCEv2 packet written as
 * one ns-3 Header: exactly the bytes Ipv4Header (version 4, IHL 5, TOS, total length,
 * identification, DF, TTL 64, protocol 17, checksum 0 as crux sends it) followed by UdpHeader
 * (source port, destination port 4791, length, checksum 0) write. Readers (switches, the NIC,
 * tests) parse these bytes with Ipv4Header/UdpHeader or directly; only ns-3's optional packet
 * metadata (Packet::EnablePrinting) names this one header instead of the two.
 */
class RoceIpUdpHeader : public Header
{
  public:
    uint32_t src{0};     //!< IPv4 source (host order)
    uint32_t dst{0};     //!< IPv4 destination (host order)
    uint8_t tos{0};      //!< DSCP << 2 | ECN
    uint16_t id{0};      //!< IPv4 identification
    uint16_t srcPort{0}; //!< UDP source port (ECMP entropy)
    uint16_t l4Bytes{0}; //!< UDP header + payload bytes (the BTH included)
    bool withBth{false}; //!< the BTH follows the UDP header in this header's bytes
    RoceBthHeader bth;   //!< the BTH, when withBth

    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CruxRoceIpUdpHeader")
                                .SetParent<Header>()
                                .SetGroupName("Crux")
                                .AddConstructor<RoceIpUdpHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    void Print(std::ostream& os) const override
    {
        os << "IPv4 " << Ipv4Address(src) << " > " << Ipv4Address(dst) << " tos " << unsigned(tos)
           << " id " << id << ", UDP " << srcPort << " > " << roce::UDP_PORT << " length "
           << l4Bytes;
        if (withBth)
        {
            os << ", ";
            bth.Print(os);
        }
    }

    uint32_t GetSerializedSize() const override
    {
        return IPV4_HEADER_BYTES + UDP_HEADER_BYTES +
               (withBth ? RoceBthHeader::SERIALIZED_SIZE : 0);
    }

    void Serialize(Buffer::Iterator i) const override
    {
        i.WriteU8(0x45); // version 4, IHL 5
        i.WriteU8(tos);
        i.WriteHtonU16(static_cast<uint16_t>(l4Bytes + IPV4_HEADER_BYTES));
        i.WriteHtonU16(id);
        i.WriteU8(0x40); // DF, fragment offset 0
        i.WriteU8(0);
        i.WriteU8(64); // TTL
        i.WriteU8(17); // UDP
        i.WriteHtonU16(0);
        i.WriteHtonU32(src);
        i.WriteHtonU32(dst);
        i.WriteHtonU16(srcPort);
        i.WriteHtonU16(roce::UDP_PORT);
        i.WriteHtonU16(l4Bytes);
        i.WriteU16(0);
        if (withBth)
        {
            bth.Serialize(i);
        }
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        i.Next(1);
        tos = i.ReadU8();
        i.Next(2);
        id = i.ReadNtohU16();
        i.Next(6);
        src = i.ReadNtohU32();
        dst = i.ReadNtohU32();
        srcPort = i.ReadNtohU16();
        i.Next(2);
        l4Bytes = i.ReadNtohU16();
        i.Next(2);
        if (withBth)
        {
            bth.Deserialize(i);
        }
        return GetSerializedSize();
    }
};
} // namespace

void
RdmaNic::Activate(RdmaQueuePair* qp)
{
    if (qp->m_inActiveList || qp->m_parked || qp->m_tcWait || qp->m_windowWait ||
        qp->m_sndNxt >= qp->m_sndMax)
    {
        return;
    }
    if (m_ports.size() > 1 && qp->m_sndNxt == qp->m_sndUna)
    {
        // nothing in flight: the port may change (a new source port or pinned route)
        const uint32_t port = m_portSelector.IsNull() ? 0 : m_portSelector(qp->GetFiveTuple());
        if (port >= m_ports.size())
        {
            NS_FATAL_ERROR("RdmaNic " << m_address << ": the port selector chose port " << port
                                      << " of " << m_ports.size() << " for " << Describe(qp));
        }
        qp->m_txPort = static_cast<uint8_t>(port);
    }
    Port& pt = m_ports[qp->m_txPort];
    const uint8_t tc = qp->CurrentTc();
    pt.active[tc].push_back(qp);
    qp->m_inActiveList = true;
    // Deferred to the end of the current instant, once for all queue pairs activated in it, so
    // that queue pairs posted at the same time start together in the round robin.
    pt.pendingFill |= static_cast<uint8_t>(1U << tc);
    if (!m_fillEvent.IsRunning())
    {
        m_fillEvent = Simulator::ScheduleNow(&RdmaNic::DeferredFill, this);
    }
}

void
RdmaNic::DeferredFill()
{
    for (uint32_t port = 0; port < m_ports.size(); ++port)
    {
        uint8_t mask = m_ports[port].pendingFill;
        m_ports[port].pendingFill = 0;
        while (mask != 0)
        {
            const uint8_t c = static_cast<uint8_t>(__builtin_ctz(mask));
            mask &= static_cast<uint8_t>(~(1U << c));
            Fill(port, c);
        }
    }
}

void
RdmaNic::Wake(RdmaQueuePair* qp)
{
    qp->m_parked = false;
    Activate(qp);
}

void
RdmaNic::DeviceDequeue(uint32_t /* port */,
                       QbbNetDevice* dev,
                       const Ptr<Packet>& /* p */,
                       uint8_t tc)
{
    if (tc >= QbbNetDevice::N_TC)
    {
        return; // an ACK/NAK/CNP left the control class: no data to refill
    }
    const uint32_t port = m_ports.size() > 1 ? PortOf(dev) : 0;
    if (m_ports[port].devQueued[tc] > 0)
    {
        --m_ports[port].devQueued[tc];
    }
    Fill(port, tc);
}

uint32_t
RdmaNic::PortOf(const QbbNetDevice* dev) const
{
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        if (PeekPointer(m_ports[i].dev) == dev)
        {
            return i;
        }
    }
    return 0;
}

void
RdmaNic::Fill(uint32_t port, uint8_t tc)
{
    Port& pt = m_ports[port];
    pt.refill |= static_cast<uint8_t>(1U << tc);
    if (pt.inFill)
    {
        return; // the running Fill() loop picks it up
    }
    pt.inFill = true;
    while (pt.refill != 0)
    {
        const uint8_t c = static_cast<uint8_t>(__builtin_ctz(pt.refill));
        pt.refill &= static_cast<uint8_t>(~(1U << c));
        FillTc(port, c);
    }
    pt.inFill = false;
}

void
RdmaNic::FillTc(uint32_t port, uint8_t tc)
{
    Port& pt = m_ports[port];
    std::deque<RdmaQueuePair*>& list = pt.active[tc];
    while (pt.devQueued[tc] < m_maxDevQueue && !list.empty())
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
            pt.active[qtc].push_back(qp);
            qp->m_inActiveList = true;
            pt.refill |= static_cast<uint8_t>(1U << qtc);
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
            pt.active[ntc].push_back(qp);
            qp->m_inActiveList = true;
            if (ntc != tc)
            {
                pt.refill |= static_cast<uint8_t>(1U << ntc);
            }
        }
    }
}

void
RdmaNic::AddHeaders(Ptr<Packet> p,
                    const RdmaQueuePair* qp,
                    uint8_t dscp,
                    bool ectCapable,
                    const RoceBthHeader& bth)
{
    // One header write for IPv4, UDP and the BTH (the bytes Ipv4Header + UdpHeader +
    // RoceBthHeader write; see RoceIpUdpHeader): three AddHeader() calls and three header
    // objects less per packet.
    RoceIpUdpHeader h;
    h.withBth = true;
    h.bth = bth;
    h.src = m_address.Get();
    h.dst = qp->m_remote.Get();
    h.tos = static_cast<uint8_t>((dscp << 2) |
                                 (ectCapable ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT));
    h.id = m_ipId++;
    h.srcPort = qp->m_srcPort;
    h.l4Bytes =
        static_cast<uint16_t>(p->GetSize() + UDP_HEADER_BYTES + RoceBthHeader::SERIALIZED_SIZE);
    p->AddHeader(h);
}

bool
RdmaNic::Enqueue(Ptr<Packet> p, RdmaQueuePair* qp, uint8_t tc, uint32_t port)
{
    Port& pt = m_ports[port];
    if (!pt.peerMacKnown)
    {
        pt.peerMac = Mac48Address::GetBroadcast();
        Ptr<QbbChannel> ch = DynamicCast<QbbChannel>(pt.dev->GetChannel());
        if (ch)
        {
            Ptr<QbbNetDevice> peer = ch->GetPeer(PeekPointer(pt.dev));
            if (peer)
            {
                pt.peerMac = Mac48Address::ConvertFrom(peer->GetAddress());
                pt.peerMacKnown = true;
            }
        }
    }
    const bool data = tc < QbbNetDevice::N_TC;
    if (data)
    {
        ++pt.devQueued[tc];
    }
    if (!pt.dev->SendInTc(p, pt.peerMac, IPV4_ETHERTYPE, tc))
    {
        if (data)
        {
            --pt.devQueued[tc];
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

    const uint32_t frameBytes =
        payload + GetDataHeaderBytes() + (withInt ? INT_BYTES : 0) + crux::ETH_HEADER_BYTES;
    qp->m_cc->OnDataSent(frameBytes);
    const DataRate rate = qp->m_cc->GetRate();
    const DataRate line = m_ports[qp->m_txPort].dev->GetDataRate();
    if (rate < line)
    {
        // pace: the next packet may leave one frame time at the allowed rate later
        // (frame + FCS + preamble/interframe gap, as the device serializes it)
        qp->m_nextTxTime = now + crux::BytesTxTime(rate, crux::FrameWireBytes(frameBytes));
    }
    if (m_pcieRate.GetBitRate() > 0)
    {
        m_pcieFreeAt = std::max(now, m_pcieFreeAt) +
                       crux::BytesTxTime(m_pcieRate, crux::FrameWireBytes(frameBytes));
    }
    AddHeaders(p, qp, dscp, true, bth);
    if (!m_txDataTrace.IsEmpty())
    {
        m_txDataTrace(p);
    }
    Enqueue(p, qp, tc, qp->m_txPort);
}

void
RdmaNic::PcieFree()
{
    // strict priority at the PCIe link: the highest class with a waiting queue pair goes first
    // (the NIC's one PCIe link serves all its ports)
    for (int tc = QbbNetDevice::N_TC - 1; tc >= 0 && m_pcieFreeAt <= Simulator::Now(); --tc)
    {
        for (uint32_t port = 0; port < m_ports.size() && m_pcieFreeAt <= Simulator::Now(); ++port)
        {
            if (!m_ports[port].active[tc].empty())
            {
                Fill(port, static_cast<uint8_t>(tc));
            }
        }
    }
    // queue pairs of lower classes may still wait: come back when the link is free again
    const Time now = Simulator::Now();
    const bool waiting = std::any_of(m_ports.begin(), m_ports.end(), [](const Port& pt) {
        return std::any_of(pt.active.begin(), pt.active.end(), [](const auto& l) {
            return !l.empty();
        });
    });
    if (m_pcieFreeAt > now && !m_pcieEvent.IsRunning() && waiting)
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
    if (nak)
    {
        ++qp->m_stats.naksSent;
    }
    else
    {
        ++qp->m_stats.acksSent;
    }
    qp->m_unackedRx = 0;
    AddHeaders(p, qp, m_ackDscp, false, bth);
    Enqueue(p, qp, m_dev->DscpToClass(m_ackDscp), qp->m_rxPort);
}

void
RdmaNic::SendCnp(RdmaQueuePair* qp)
{
    Ptr<Packet> p = Create<Packet>(roce::CNP_PAYLOAD + roce::ICRC_SIZE);
    RoceBthHeader bth;
    bth.SetOpcode(roce::CNP);
    bth.SetDestQp(qp->m_destQpn);
    bth.SetPsn(0);
    ++qp->m_stats.cnpsSent;
    AddHeaders(p, qp, m_ackDscp, false, bth);
    Enqueue(p, qp, m_dev->DscpToClass(m_ackDscp), qp->m_rxPort);
}

} // namespace ns3
