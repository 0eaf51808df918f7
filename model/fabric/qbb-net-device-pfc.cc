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
 * QbbNetDevice, ingress and IEEE 802.1Qbb PFC: frame arrival (Sniffer, ReceiveErrorModel,
 * hand-over to the frame handler or the ns-3 stack), PAUSE frames sent and received, pause
 * timers (qbb-net-device.h).
 */

#include "pfc-pause-header.h"
#include "qbb-channel.h"
#include "qbb-net-device.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxQbbNetDevicePfc");

namespace
{
using crux::IPV4_ETHERTYPE;
constexpr uint64_t PAUSE_QUANTUM_BITS = 512; //!< one PFC quantum, bit times (802.1Qbb)

// Drop reasons, built once so that a drop allocates nothing.
const std::string g_dropBadControl = "unknown-mac-control";
const std::string g_dropErrorModel = "receive-error-model";
} // namespace

void
QbbNetDevice::SendPause(uint8_t tc, uint16_t quanta)
{
    NS_LOG_FUNCTION(this << unsigned(tc) << quanta);
    if (tc >= N_TC)
    {
        NS_FATAL_ERROR("QbbNetDevice::SendPause: traffic class " << unsigned(tc)
                                                                 << " out of range 0..7");
    }
    if (!m_channel)
    {
        NS_LOG_WARN("QbbNetDevice::SendPause: no channel attached; PAUSE not sent");
        return;
    }
    PfcPauseHeader pause;
    pause.SetPause(tc, quanta);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pause);
    m_ctrlQueue.push_back(CtrlItem{frame, tc, quanta});
    if (!m_txBusy)
    {
        StartTransmission();
    }
}

uint8_t
QbbNetDevice::ClassOf(Ptr<const Packet> packet, uint16_t protocol) const
{
    uint8_t b[2];
    if (protocol != IPV4_ETHERTYPE || packet->CopyData(b, 2) != 2 || (b[0] >> 4) != 4)
    {
        return 0;
    }
    return DscpToClass(static_cast<uint8_t>(b[1] >> 2));
}

void
QbbNetDevice::Receive(Ptr<Packet> packet, Mac48Address dest, uint16_t type)
{
    if (!m_snifferTrace.IsEmpty() || m_receiveErrorModel)
    {
        // the frame as it was on the wire, for the trace and the error model (a copy: the
        // device itself works on the payload)
        Ptr<Packet> frame = WithEthernetHeader(packet, GetPeerMac(), dest, type);
        m_snifferTrace(frame);
        if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame))
        {
            Drop(packet, ClassOf(packet, type), g_dropErrorModel);
            return;
        }
    }
    if (type == PFC_ETHERTYPE)
    {
        ReceivePause(packet);
        return;
    }
    if (!m_macRxTrace.IsEmpty())
    {
        m_macRxTrace(packet);
    }
    if (m_rxOwner != nullptr)
    {
        m_rxOwner->DeviceReceive(m_ownerPort, this, std::move(packet), type);
        return;
    }
    if (!m_frameHandler.IsNull())
    {
        m_frameHandler(this, packet, type);
        return;
    }
    if (!m_promiscCallback.IsNull())
    {
        const Mac48Address to = dest;
        PacketType kind = PACKET_OTHERHOST;
        if (to == m_address)
        {
            kind = PACKET_HOST;
        }
        else if (to.IsBroadcast())
        {
            kind = PACKET_BROADCAST;
        }
        else if (to.IsGroup())
        {
            kind = PACKET_MULTICAST;
        }
        m_promiscCallback(this, packet, type, GetPeerMac(), to, kind);
    }
    if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this, packet, type, GetPeerMac());
    }
}

void
QbbNetDevice::ReceivePause(Ptr<Packet> frame)
{
    PfcPauseHeader pause;
    if (frame->GetSize() < PfcPauseHeader::SERIALIZED_SIZE)
    {
        Drop(frame, 0, g_dropBadControl);
        return;
    }
    frame->RemoveHeader(pause);
    if (pause.GetOpcode() != PFC_OPCODE)
    {
        Drop(frame, 0, g_dropBadControl);
        return;
    }
    ++m_pauseRxCount;
    for (uint8_t c = 0; c < N_TC; ++c)
    {
        if (!pause.IsClassEnabled(c))
        {
            continue;
        }
        const uint16_t quanta = pause.GetQuanta(c);
        NS_LOG_LOGIC("PAUSE TC " << unsigned(c) << " quanta " << quanta);
        m_pfcRxTrace(this, c, quanta);
        if (m_resumeEvent[c].IsRunning())
        {
            // removed, not cancelled: a cancelled event would still advance the clock to its
            // time, and a run would end one pause time after its traffic
            Simulator::Remove(m_resumeEvent[c]);
        }
        if (quanta == 0)
        {
            SetTcPaused(c, false);
        }
        else
        {
            SetTcPaused(c, true);
            const Time duration = BitsToTime(PAUSE_QUANTUM_BITS * quanta, false);
            m_resumeEvent[c] = Simulator::Schedule(duration, &QbbNetDevice::ResumeTc, this, c);
        }
    }
    if (!m_txBusy)
    {
        StartTransmission();
    }
}

void
QbbNetDevice::ResumeTc(uint8_t tc)
{
    NS_LOG_FUNCTION(this << unsigned(tc));
    SetTcPaused(tc, false);
    if (!m_txBusy)
    {
        StartTransmission();
    }
}

void
QbbNetDevice::SetTcPaused(uint8_t tc, bool paused)
{
    const uint8_t bit = static_cast<uint8_t>(1U << tc);
    const bool was = (m_pausedMask & bit) != 0;
    if (paused)
    {
        m_pausedMask |= bit;
    }
    else
    {
        m_pausedMask &= static_cast<uint8_t>(~bit);
    }
    if (was != paused)
    {
        NS_LOG_DEBUG("TC " << unsigned(tc) << (paused ? " paused" : " resumed") << " by the peer");
        m_tcPauseTrace(tc, paused);
    }
}

} // namespace ns3
