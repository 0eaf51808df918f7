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
 * RdmaNic, receive side: frame parsing, the responder (in-order check, ACK coalescing, NAK,
 * CNP, message delivery), the requester's ACK/NAK handling, go-back-N and the retransmission
 * timer / stall watchdog (rdma-nic.h).
 */

#include "rdma-nic.h"
#include "roce-header.h"

#include "ns3/crux-compat.h"
#include "ns3/crux-run-error.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/qbb-channel.h"
#include "ns3/simulator.h"
#include "ns3/wire-time.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRdmaNicRx");

namespace
{
const std::string g_reasonNak = "nak";                                 //!< Retransmit reason
const std::string g_reasonTimeout = "timeout";                         //!< Retransmit reason
constexpr uint16_t IPV4_ETHERTYPE = crux::IPV4_ETHERTYPE;              //!< EtherType of IPv4
constexpr uint32_t IPV4_HEADER_BYTES = 20;                             //!< IPv4, no options
constexpr uint32_t UDP_HEADER_BYTES = 8;                               //!< UDP header
constexpr uint32_t INT_BYTES = InbandTelemetryHeader::SERIALIZED_SIZE; //!< INT stack
} // namespace

void
RdmaNic::DeviceReceive(uint32_t /* port */,
                       QbbNetDevice* dev,
                       Ptr<Packet> packet,
                       uint16_t protocol)
{
    ReceiveFrame(Ptr<QbbNetDevice>(dev), std::move(packet), protocol);
}

void
RdmaNic::ReceiveFrame(Ptr<QbbNetDevice> dev, Ptr<Packet> packet, uint16_t protocol)
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
        if (m_ports.size() > 1)
        {
            // its ACK/NAK/CNP go back on the port the data came in on (the path reversed)
            qp->m_rxPort = static_cast<uint8_t>(PortOf(PeekPointer(dev)));
        }
        if (m_pcieRate.GetBitRate() > 0)
        {
            // the frame waits in the NIC's receive buffer for its PCIe write (PcieRxNext)
            PcieRxFrame f;
            f.qp = qp;
            f.bth = bth;
            f.ce = ce;
            f.payload = size - aethAt - intBytes - roce::ICRC_SIZE;
            f.frameBytes = size + crux::ETH_HEADER_BYTES;
            f.bufferBytes = f.frameBytes + crux::ETH_FCS_BYTES;
            if (bth.intFlag)
            {
                f.packet = packet;
            }
            PcieRxEnqueue(std::move(f), m_dev->DscpToTc(static_cast<uint8_t>(b[1] >> 2)));
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
                   bth.intFlag ? b + aethAt : nullptr,
                   m_pcieLatency);
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
RdmaNic::PcieRxConfigure()
{
    // PFC headroom as SwitchMmu computes it (IEEE 802.1Qbb-2011 Annex N): the frame the switch
    // may be sending when the PAUSE is generated, the frame it may have started when the PAUSE
    // arrives, frame-granularity accounting, the PAUSE frame, and the bytes on the wire in both
    // directions plus the response time.
    const uint64_t bitRate = m_dev->GetDataRate().GetBitRate();
    Time delay(0);
    uint64_t mtu = m_dev->GetMtu();
    Ptr<QbbChannel> ch = DynamicCast<QbbChannel>(m_dev->GetChannel());
    if (ch)
    {
        delay = ch->GetDelay();
        Ptr<QbbNetDevice> peer = ch->GetPeer(PeekPointer(m_dev));
        if (peer)
        {
            mtu = std::max<uint64_t>(mtu, peer->GetMtu());
        }
    }
    const uint64_t maxFrame = mtu + crux::ETH_HEADER_BYTES + crux::ETH_FCS_BYTES;
    const double inFlight =
        (2.0 * delay.GetSeconds() + m_pcieRxResponse.GetSeconds()) * (bitRate / 8.0);
    const uint64_t headroom =
        3 * maxFrame + crux::ETH_MIN_FRAME_BYTES + static_cast<uint64_t>(std::ceil(inFlight));
    if (m_pcieRxBuffer < headroom + 2 * maxFrame)
    {
        std::ostringstream os;
        os << "RdmaNic " << m_address
           << ": its receive buffer (RdmaNic::PcieRxBufferBytes = " << m_pcieRxBuffer
           << " bytes per traffic class) does not hold the PFC headroom of its "
           << m_dev->GetDataRate() << " port (" << headroom << " bytes) plus two frames ("
           << 2 * maxFrame << " bytes); raise RdmaNic::PcieRxBufferBytes";
        throw CruxRunError(os.str());
    }
    // mlx5 (Linux en/port_buffer.c): xoff threshold = buffer size - headroom, xon = xoff - MTU
    m_pcieRxXoff = m_pcieRxBuffer - headroom;
    m_pcieRxXon = m_pcieRxXoff - maxFrame;
    m_pcieRxPauseTime = Seconds(static_cast<double>(m_pcieRxQuanta) * 512.0 / bitRate);
    m_pcieRxConfigured = true;
    NS_LOG_INFO("NIC " << m_address << " receive buffer " << m_pcieRxBuffer
                       << " B per TC, headroom " << headroom << " B, Xoff " << m_pcieRxXoff
                       << " B, Xon " << m_pcieRxXon << " B");
}

void
RdmaNic::PcieRxEnqueue(PcieRxFrame f, uint8_t tc)
{
    if (!m_pcieRxConfigured)
    {
        PcieRxConfigure();
    }
    if (m_pcieRxBytes[tc] + f.bufferBytes > m_pcieRxBuffer)
    {
        // the headroom did not hold (PcieRxBufferBytes too small for the link): go-back-N
        // recovers the frame
        ++f.qp->m_stats.pcieRxDrops;
        NS_LOG_WARN("NIC " << m_address << " receive buffer of TC " << unsigned(tc)
                           << " full: frame of " << Describe(f.qp) << " dropped");
        return;
    }
    m_pcieRxBytes[tc] += f.bufferBytes;
    m_pcieRxPeak = std::max(m_pcieRxPeak, m_pcieRxBytes[tc]);
    m_pcieRxQueue[tc].push_back(std::move(f));
    if (!m_pcieRxPaused[tc] && m_pcieRxBytes[tc] >= m_pcieRxXoff)
    {
        m_pcieRxPaused[tc] = true;
        PcieRxPause(tc);
    }
    if (!m_pcieRxBusy)
    {
        PcieRxNext();
    }
}

void
RdmaNic::PcieRxPause(uint8_t tc)
{
    if (!m_pcieRxPaused[tc])
    {
        return;
    }
    for (Port& pt : m_ports)
    {
        // the receive buffer is the NIC's: every port that can bring data of the class pauses
        pt.dev->SendPause(tc, m_pcieRxQuanta);
        ++m_pcieRxPauses;
    }
    NS_LOG_LOGIC("NIC " << m_address << " pauses TC " << unsigned(tc) << " (" << m_pcieRxBytes[tc]
                        << " B in its receive buffer)");
    m_pcieRxRefresh[tc] =
        Simulator::Schedule(m_pcieRxPauseTime / 2, &RdmaNic::PcieRxPause, this, tc);
}

void
RdmaNic::PcieRxNext()
{
    const uint8_t ended = m_pcieRxCurTc;
    if (m_pcieRxBusy)
    {
        m_pcieRxBusy = false;
        m_pcieRxBytes[ended] -= m_pcieRxCurBytes;
    }
    for (;;)
    {
        int tc = QbbNetDevice::N_TC - 1;
        while (tc >= 0 && m_pcieRxQueue[tc].empty())
        {
            --tc;
        }
        if (tc < 0)
        {
            break;
        }
        PcieRxFrame f = std::move(m_pcieRxQueue[tc].front());
        m_pcieRxQueue[tc].pop_front();
        // the receive pipeline: transport check, then the DMA write of the payload
        constexpr uint32_t intAt =
            IPV4_HEADER_BYTES + UDP_HEADER_BYTES + RoceBthHeader::SERIALIZED_SIZE;
        uint8_t b[intAt + INT_BYTES];
        const uint8_t* intStack = nullptr;
        if (f.packet)
        {
            f.packet->CopyData(b, sizeof(b));
            intStack = b + intAt;
        }
        const Time write = crux::BytesTxTime(m_pcieRate, crux::FrameWireBytes(f.frameBytes));
        if (HandleData(f.qp, f.bth, f.ce, f.payload, intStack, write + m_pcieLatency))
        {
            m_pcieRxBusy = true;
            m_pcieRxCurTc = static_cast<uint8_t>(tc);
            m_pcieRxCurBytes = f.bufferBytes;
            m_pcieRxEvent = Simulator::Schedule(write, &RdmaNic::PcieRxNext, this);
            break;
        }
        // discarded (out of order or duplicate): no write
        m_pcieRxBytes[tc] -= f.bufferBytes;
    }
    // resume the classes that drained to Xon
    for (uint8_t tc = 0; tc < QbbNetDevice::N_TC; ++tc)
    {
        if (m_pcieRxPaused[tc] && m_pcieRxBytes[tc] <= m_pcieRxXon)
        {
            m_pcieRxPaused[tc] = false;
            if (m_pcieRxRefresh[tc].IsRunning())
            {
                Simulator::Remove(m_pcieRxRefresh[tc]); // a cancelled one would move the end
            }
            for (Port& pt : m_ports)
            {
                pt.dev->SendPause(tc, 0);
                ++m_pcieRxResumes;
            }
            NS_LOG_LOGIC("NIC " << m_address << " resumes TC " << unsigned(tc));
        }
    }
}

void
RdmaNic::DeliverMessage(RdmaQueuePair* qp, const RdmaQueuePair::RxMessage& m)
{
    ++qp->m_stats.messagesDelivered;
    NS_LOG_LOGIC("message of " << m.bytes << " B delivered on " << Describe(qp));
    m_messageCompleteTrace(m.jobId, m.flowId, m.bytes, Simulator::Now() - m.postTime);
    if (!m.done.IsNull())
    {
        m.done();
    }
}

bool
RdmaNic::HandleData(RdmaQueuePair* qp,
                    const roce::BthView& bth,
                    bool ce,
                    uint32_t payload,
                    const uint8_t* intStack,
                    Time deliverDelay)
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
        return false;
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
        return false;
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
        return true;
    }
    RdmaQueuePair::RxMessage m = std::move(qp->m_rxMsgs.front());
    qp->m_rxMsgs.pop_front();
    if (qp->m_rxMsgBytes != m.bytes)
    {
        NS_FATAL_ERROR("RdmaNic " << m_address << ": message on " << Describe(qp) << " ended after "
                                  << qp->m_rxMsgBytes << " bytes, expected " << m.bytes);
    }
    qp->m_rxMsgBytes = 0;
    if (deliverDelay.IsStrictlyPositive())
    {
        // complete for the application once its last byte crossed PCIe into GPU memory
        crux::Schedule(deliverDelay, [this, qp, m]() { DeliverMessage(qp, m); });
        return true;
    }
    DeliverMessage(qp, m);
    return true;
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
        if (qp->m_sndUna == qp->m_sndMax)
        {
            qp->m_cc->OnIdle(); // every posted packet acknowledged: its timers stop
        }
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
