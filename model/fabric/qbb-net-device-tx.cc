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
 * QbbNetDevice, egress: admission to the per-class FIFOs, ECN marking, transmit selection
 * (strict priority / DWRR), INT stamping and serialization (qbb-net-device.h).
 */

#include "inband-telemetry-header.h"
#include "pfc-pause-header.h"
#include "pooled-event.h"
#include "qbb-channel.h"
#include "qbb-net-device.h"

#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxQbbNetDeviceTx");

namespace
{
using crux::ETH_FCS_BYTES;
using crux::ETH_HEADER_BYTES;
using crux::ETH_MIN_FRAME_BYTES;
using crux::IPV4_ETHERTYPE;

// Drop reasons, built once so that a drop allocates nothing.
const std::string g_dropQueueFull = "egress-queue-full";
const std::string g_dropMtu = "exceeds-mtu";
const std::string g_dropNoChannel = "no-channel";
const std::string g_dropNoPeer = "no-peer";

/// IPv4 (20, no options) + UDP (8) + BTH (12): where a RoCEv2 packet's INT stack starts.
constexpr uint32_t INT_OFFSET = 40;

/**
 * The first bytes of a packet as one opaque header: the in-place rewrite of the INT stack takes
 * them out (CopyData + RemoveAtStart) and puts them back with it.
 */
class RawBytesHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CruxRawBytesHeader")
                                .SetParent<Header>()
                                .SetGroupName("Crux")
                                .AddConstructor<RawBytesHeader>();
        return tid;
    }

    RawBytesHeader() = default;

    RawBytesHeader(const uint8_t* b, uint32_t n)
        : m_n(n)
    {
        std::copy(b, b + n, m_b.begin());
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    void Print(std::ostream& os) const override
    {
        os << m_n << " bytes";
    }

    uint32_t GetSerializedSize() const override
    {
        return m_n;
    }

    void Serialize(Buffer::Iterator start) const override
    {
        start.Write(m_b.data(), m_n);
    }

    uint32_t Deserialize(Buffer::Iterator start) override
    {
        start.Read(m_b.data(), m_n);
        return m_n;
    }

  private:
    uint32_t m_n{0};                                                                 //!< bytes used
    std::array<uint8_t, 60 + 8 + 12 + InbandTelemetryHeader::SERIALIZED_SIZE> m_b{}; //!< bytes
};

} // namespace

/// The end of a frame's serialization: QbbNetDevice::TransmitComplete(), from a recycled event.
class QbbNetDevice::TxCompleteEvent : public PooledEvent<QbbNetDevice::TxCompleteEvent>
{
  public:
    /// \param dev the transmitting device
    explicit TxCompleteEvent(QbbNetDevice* dev)
        : m_dev(dev)
    {
    }

  protected:
    void Notify() override
    {
        m_dev->TransmitComplete();
    }

  private:
    QbbNetDevice* m_dev; //!< the device (cancels the event in DoDispose)
};

void
QbbNetDevice::Drop(Ptr<const Packet> p, uint8_t tc, const std::string& reason)
{
    NS_LOG_WARN("QbbNetDevice " << m_address << " drops a frame of TC " << unsigned(tc) << ": "
                                << reason);
    m_dropTrace(p, tc, reason);
}

bool
QbbNetDevice::SendInTc(Ptr<Packet> packet,
                       const Address& dest,
                       uint16_t protocolNumber,
                       uint8_t tc,
                       bool stampInt)
{
    return SendInTc(packet, Mac48Address::ConvertFrom(dest), protocolNumber, tc, stampInt);
}

bool
QbbNetDevice::SendInTc(Ptr<Packet> packet,
                       Mac48Address dest,
                       uint16_t protocolNumber,
                       uint8_t tc,
                       bool stampInt)
{
    // Per-frame path: no NS_LOG_FUNCTION (its enabled check alone costs measurable time).
    if (tc >= N_CLASSES)
    {
        tc = N_TC - 1;
    }
    if (!m_channel)
    {
        Drop(packet, tc, g_dropNoChannel);
        return false;
    }
    const uint32_t size = packet->GetSize();
    if (size > m_mtu)
    {
        Drop(packet, tc, g_dropMtu);
        return false;
    }
    const uint64_t frameBytes = size + ETH_HEADER_BYTES;
    const uint64_t queued = m_queueBytes[tc];
    if (m_maxTcBytes != 0 && queued + frameBytes > m_maxTcBytes)
    {
        Drop(packet, tc, g_dropQueueFull);
        return false;
    }
    if (m_ecnEnabled && queued > m_ecnKmin && protocolNumber == IPV4_ETHERTYPE && tc < N_TC)
    {
        MaybeMarkEcn(packet, queued);
    }
    m_queues[tc].push_back(TxItem{packet, dest, protocolNumber, stampInt});
    m_queueBytes[tc] = queued + frameBytes;
    if (queued + frameBytes > m_peakQueueBytes[tc])
    {
        m_peakQueueBytes[tc] = queued + frameBytes;
    }
    if (!m_tcBytesTrace.IsEmpty())
    {
        m_tcBytesTrace(tc, queued, queued + frameBytes);
    }
    m_totalQueueBytes += frameBytes; // after the class: BytesInQueue sees the classes' sum
    m_nonEmptyMask |= static_cast<uint16_t>(1U << tc);
    if (!m_txBusy)
    {
        StartTransmission();
    }
    return true;
}

void
QbbNetDevice::MaybeMarkEcn(Ptr<Packet> packet, uint64_t queued)
{
    Ipv4Header ip;
    if (packet->PeekHeader(ip) == 0)
    {
        return;
    }
    const Ipv4Header::EcnType ecn = ip.GetEcn();
    if (ecn == Ipv4Header::ECN_NotECT || ecn == Ipv4Header::ECN_CE)
    {
        return;
    }
    if (queued <= m_ecnKmax && m_ecnKmax > m_ecnKmin)
    {
        const double p = m_ecnPmax * static_cast<double>(queued - m_ecnKmin) /
                         static_cast<double>(m_ecnKmax - m_ecnKmin);
        if (m_ecnStream < 0)
        {
            // deterministic per device and run (node ids restart with every simulation)
            SetEcnStream((int64_t(1) << 40) + 256 * int64_t(m_node ? m_node->GetId() : 0) +
                         int64_t(m_ifIndex));
        }
        if (m_ecnRng->GetValue() >= p)
        {
            return;
        }
    }
    packet->RemoveHeader(ip);
    ip.SetEcn(Ipv4Header::ECN_CE);
    if (m_ipChecksum)
    {
        ip.EnableChecksum();
    }
    packet->AddHeader(ip);
    NS_LOG_LOGIC("CE marked at queue depth " << queued);
}

int
QbbNetDevice::SelectTc()
{
    if (m_nonEmptyMask & (1U << CONTROL_CLASS))
    {
        return CONTROL_CLASS; // ACK/NAK/CNP first; PFC never pauses the control class
    }
    const uint8_t eligible =
        static_cast<uint8_t>(m_nonEmptyMask) & static_cast<uint8_t>(~m_pausedMask);
    if (eligible == 0)
    {
        return -1;
    }
    if (m_scheduler == STRICT_PRIORITY)
    {
        return 31 - __builtin_clz(static_cast<unsigned>(eligible));
    }
    return SelectDwrr(eligible);
}

int
QbbNetDevice::SelectDwrr(uint8_t eligible)
{
    // Deficit round robin (Shreedhar & Varghese 1995) over the eligible TCs, one frame per call:
    // a TC's turn grants it one quantum; it sends while its deficit covers the head frame.
    for (;;)
    {
        for (uint8_t k = 0; k < N_TC; ++k)
        {
            const uint8_t c = m_drrCurrent;
            if (eligible & (1U << c))
            {
                if (!m_drrTurnStarted)
                {
                    m_deficit[c] += m_quantum[c];
                    m_drrTurnStarted = true;
                }
                const int64_t head = m_queues[c].front().packet->GetSize() + ETH_HEADER_BYTES;
                if (m_deficit[c] >= head)
                {
                    m_deficit[c] -= head;
                    return c;
                }
            }
            m_drrTurnStarted = false;
            m_drrCurrent = static_cast<uint8_t>((c + 1) % N_TC);
        }
        // A whole round without a frame (quanta smaller than frames): fast-forward the idle
        // rounds, in each of which every eligible TC would have gained one quantum.
        int64_t rounds = INT64_MAX;
        for (uint8_t c = 0; c < N_TC; ++c)
        {
            if (eligible & (1U << c))
            {
                const int64_t head = m_queues[c].front().packet->GetSize() + ETH_HEADER_BYTES;
                const int64_t need = (head - m_deficit[c] + m_quantum[c] - 1) / m_quantum[c];
                rounds = std::min(rounds, need);
            }
        }
        if (rounds > 1)
        {
            for (uint8_t c = 0; c < N_TC; ++c)
            {
                if (eligible & (1U << c))
                {
                    m_deficit[c] += (rounds - 1) * static_cast<int64_t>(m_quantum[c]);
                }
            }
        }
    }
}

void
QbbNetDevice::StartTransmission()
{
    if (!m_ctrlQueue.empty())
    {
        CtrlItem item = std::move(m_ctrlQueue.front());
        m_ctrlQueue.pop_front();
        m_txBusy = true;
        ++m_pauseTxPerTc[item.tc]; // SendPause() accepts only classes 0..7
        m_pfcTxTrace(this, item.tc, item.quanta);
        TransmitFrame(item.frame,
                      PfcPauseHeader::GetPauseDestination(),
                      PFC_ETHERTYPE,
                      true,
                      CONTROL_CLASS);
        return;
    }
    const int sel = SelectTc();
    if (sel < 0)
    {
        return;
    }
    const uint8_t tc = static_cast<uint8_t>(sel);
    std::deque<TxItem>& q = m_queues[tc];
    TxItem item = std::move(q.front());
    q.pop_front();
    const uint64_t frameBytes = item.packet->GetSize() + ETH_HEADER_BYTES;
    const uint64_t queued = m_queueBytes[tc];
    m_queueBytes[tc] = queued - frameBytes;
    if (!m_tcBytesTrace.IsEmpty())
    {
        m_tcBytesTrace(tc, queued, queued - frameBytes);
    }
    m_totalQueueBytes -= frameBytes;
    if (q.empty())
    {
        m_nonEmptyMask &= static_cast<uint16_t>(~(1U << tc));
        if (tc < N_TC)
        {
            m_deficit[tc] = 0; // DRR: an emptied queue keeps no credit
        }
    }
    if (item.stampInt)
    {
        StampInt(item.packet, tc);
    }
    // Busy before the callbacks: they may enqueue more frames on this device.
    m_txBusy = true;
    if (m_dequeueOwner != nullptr)
    {
        m_dequeueOwner->DeviceDequeue(m_ownerPort, this, item.packet, tc);
    }
    else if (!m_dequeueHandler.IsNull())
    {
        m_dequeueHandler(this, item.packet, tc);
    }
    ++m_txFrames[tc];
    m_txBytes[tc] += item.packet->GetSize();
    if (!m_macTxTrace.IsEmpty())
    {
        m_macTxTrace(item.packet, tc);
    }
    TransmitFrame(item.packet, item.dest, item.protocol, false, tc);
}

void
QbbNetDevice::StampInt(Ptr<Packet> packet, uint8_t cls)
{
    // In place: the IPv4/UDP/BTH prefix and the INT stack come out as raw bytes, get one hop,
    // and go back as one header (no header object is deserialized).
    const uint32_t n = INT_OFFSET + InbandTelemetryHeader::SERIALIZED_SIZE;
    uint8_t b[n];
    if (packet->GetSize() < n || packet->CopyData(b, n) != n || b[0] != 0x45)
    {
        return; // not the layout RdmaNic sends (IPv4 without options): leave it
    }
    // The port as the packet's class sees it under strict priority: what is queued in its class
    // and in the classes served before it, and what those sent.
    uint64_t queued = 0;
    uint64_t sent = 0;
    for (uint8_t c = cls; c < N_CLASSES; ++c)
    {
        queued += m_queueBytes[c];
        sent += m_txWireBytesClass[c];
    }
    const IntHop hop =
        IntHop::Make(m_bps, static_cast<uint64_t>(Simulator::Now().GetNanoSeconds()), sent, queued);
    if (!InbandTelemetryHeader::PushHopRaw(b + INT_OFFSET, hop))
    {
        return; // all hop slots used
    }
    packet->RemoveAtStart(n);
    packet->AddHeader(RawBytesHeader(b, n));
}

void
QbbNetDevice::TransmitFrame(Ptr<Packet> frame,
                            Mac48Address dest,
                            uint16_t protocol,
                            bool macControl,
                            uint8_t cls)
{
    if (!m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(WithEthernetHeader(frame, m_address, dest, protocol));
    }
    const uint32_t onWire =
        std::max(frame->GetSize() + ETH_HEADER_BYTES + ETH_FCS_BYTES, ETH_MIN_FRAME_BYTES);
    m_txWireBytes += onWire + m_ifgBytes;
    m_txWireBytesClass[cls] += onWire + m_ifgBytes;
    const Time txTime = BitsToTime(static_cast<uint64_t>(onWire + m_ifgBytes) * 8, true);
    m_txCompleteEvent =
        Simulator::Schedule(txTime, Ptr<EventImpl>(new TxCompleteEvent(this), false));
    if (!m_channel->TransmitStart(frame, dest, protocol, this, txTime, macControl))
    {
        Drop(frame, 0, g_dropNoPeer);
    }
}

void
QbbNetDevice::TransmitComplete()
{
    m_txBusy = false;
    StartTransmission();
}

} // namespace ns3
