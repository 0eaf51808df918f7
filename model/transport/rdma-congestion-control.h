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
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Per-queue-pair rate controller of the RDMA NIC (reaction point of a rate-based RoCE
 * congestion control such as DCQCN, Zhu et al., SIGCOMM'15).
 *
 * One instance is created per queue pair (RdmaNic attribute "CongestionControl" names the
 * TypeId). The NIC asks GetRate() before each data packet of the queue pair: a rate at or above
 * the device line rate means "no pacing" (the device serializes at line rate); a lower rate
 * spaces the queue pair's packets by (frame bytes × 8 / rate). The NIC reports the events a
 * congestion control needs through the On* hooks.
 *
 * This base class is the trivial controller: it always answers the line rate and ignores all
 * events. DCQCN will be a subclass overriding the hooks.
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
     */
    virtual void Init(DataRate lineRate);

    /// \return the current sending rate limit of the queue pair (bit/s)
    virtual DataRate GetRate() const;

    /**
     * \brief A data packet of the queue pair starts its way to the device.
     * \param frameBytes bytes of the frame (L3 packet + 14-byte Ethernet header)
     */
    virtual void OnDataSent(uint32_t frameBytes);

    /**
     * \brief An ACK advanced the acknowledged sequence.
     * \param newlyAckedPackets data packets newly acknowledged (> 0)
     */
    virtual void OnAck(uint64_t newlyAckedPackets);

    /// A congestion notification packet (CNP, BTH opcode 0x81) arrived for the queue pair.
    virtual void OnCnp();

    /// The retransmission timer of the queue pair expired (go-back-N rewind to the last ACK).
    virtual void OnTimeout();

  protected:
    DataRate m_lineRate; //!< device line rate given to Init()
};

} // namespace ns3

#endif // CRUX_RDMA_CONGESTION_CONTROL_H
