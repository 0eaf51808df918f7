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

#ifndef CRUX_RDMA_CONGESTION_CONTROL_H
#define CRUX_RDMA_CONGESTION_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/inband-telemetry-header.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup crux
 * \brief What an arriving ACK tells a queue pair's rate controller.
 */
struct RdmaAckEvent
{
    uint64_t newlyAcked{0};   //!< data packets newly acknowledged (0: the ACK advanced nothing)
    uint64_t ackedPackets{0}; //!< packets acknowledged so far (the requester's snd_una counter)
    uint64_t nextPacket{0};   //!< counter of the next packet the requester sends (snd_nxt)
    /// The INT stack the responder echoed (HPCC), or null if the ACK carries none.
    const InbandTelemetryHeader* intEcho{nullptr};
};

/**
 * \ingroup crux
 * \brief Per-queue-pair congestion control of the RDMA NIC (the reaction point of a RoCE
 * congestion control such as DCQCN or HPCC), in the style of ns-3's TcpCongestionOps.
 *
 * One instance is created per queue pair (RdmaNic attribute "CongestionControl" names the
 * TypeId; RdmaNic::SetCongestionControlAttribute() and Config::SetDefault() set its
 * attributes; RdmaQueuePair::GetCongestionControl() gives the instance of one queue pair, whose
 * attributes can be changed at any time). The NIC asks GetRate() after each data packet of the
 * queue pair: a rate at or above the device line rate means "no pacing" (the device serializes
 * at line rate); a lower rate spaces the queue pair's packets by (wire bytes × 8 / rate).
 * GetWindowBytes() > 0 limits the payload bytes in flight. UsesInt() asks for an in-band
 * telemetry stack in every data packet (switches fill it, the responder echoes it in its ACKs)
 * and GetAckRequestInterval() for ACKs more often than the responder's coalescing gives them
 * (the BTH AckReq bit). The NIC reports the events through the On* hooks, including when the
 * queue pair goes idle (OnIdle: every posted packet acknowledged) and active again (OnActive: a
 * message posted to an idle queue pair); a controller keeps no timer running while idle.
 *
 * This base class is the "none" controller: it always answers the line rate, has no window and
 * ignores all events. Subclasses: DcqcnCongestionControl, HpccCongestionControl.
 */
class RdmaCongestionControl : public Object
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaCongestionControl();
    ~RdmaCongestionControl() override;

    /**
     * \brief Called once when the queue pair is created.
     * \param lineRate line rate of the NIC's device (bit/s)
     * \param baseRtt base round-trip time of the fabric (RdmaNic attribute "BaseRtt"; 0 if
     *        unknown)
     */
    virtual void Init(DataRate lineRate, Time baseRtt);

    /// \return the current sending rate limit of the queue pair (bit/s)
    virtual DataRate GetRate() const;

    /// \return the largest number of payload bytes the queue pair may have unacknowledged;
    /// 0 = no window (the base class)
    virtual uint64_t GetWindowBytes() const;

    /// \return true if the queue pair's data packets carry an InbandTelemetryHeader (HPCC)
    virtual bool UsesInt() const;

    /// \return n > 0: every n-th data packet sets AckReq (the responder acknowledges it at
    /// once); 0: only a message's last packet does (the base class)
    virtual uint32_t GetAckRequestInterval() const;

    /**
     * \brief A data packet of the queue pair starts its way to the device.
     * \param frameBytes bytes of the frame (L3 packet + 14-byte Ethernet header)
     */
    virtual void OnDataSent(uint32_t frameBytes);

    /**
     * \brief An ACK (not a NAK) arrived for the queue pair.
     * \param ack what it acknowledges and the INT it echoes
     */
    virtual void OnAck(const RdmaAckEvent& ack);

    /// A congestion notification packet (CNP, BTH opcode 0x81) arrived for the queue pair.
    virtual void OnCnp();

    /// The retransmission timer of the queue pair expired (go-back-N rewind to the last ACK).
    virtual void OnTimeout();

    /**
     * \brief The queue pair has nothing in flight and nothing to send: every packet posted so
     * far is acknowledged. A controller stops its timers here (nothing it computes matters until
     * the next message) and catches up in OnActive(), so a run ends when its traffic ends.
     */
    virtual void OnIdle();

    /**
     * \brief A message was posted to an idle queue pair (also the first message of a new one),
     * before its first packet is sent: the controller restarts what OnIdle() stopped.
     */
    virtual void OnActive();

    /// \return the line rate given to Init()
    DataRate GetLineRate() const;
    /// \return the base RTT given to Init()
    Time GetBaseRtt() const;

  protected:
    DataRate m_lineRate; //!< device line rate given to Init()
    Time m_baseRtt;      //!< base RTT given to Init()
};

} // namespace ns3

#endif // CRUX_RDMA_CONGESTION_CONTROL_H
