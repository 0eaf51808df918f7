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

#ifndef CRUX_QBB_REMOTE_CHANNEL_H
#define CRUX_QBB_REMOTE_CHANNEL_H

#include "qbb-channel.h"

namespace ns3
{

/**
 * \ingroup crux
 * \brief A QbbChannel whose two devices may live on different MPI ranks (ns-3's distributed
 * simulator, src/mpi): the Qbb counterpart of ns-3's PointToPointRemoteChannel.
 *
 * Compiled only when ns-3 has its mpi module (in-tree build configured with --enable-mpi);
 * QbbHelper creates it by TypeId ("ns3::QbbRemoteChannel") for a link whose two nodes have
 * different system ids (Node::GetSystemId(), set by CruxTopologyHelper::SetRanks()).
 *
 * A frame (data, or a PFC PAUSE frame) whose receiving device is on this rank is delivered as
 * by QbbChannel. A frame for a device on another rank is sent to that rank with
 * MpiInterface::SendPacket(), with the arrival time QbbChannel would give it (now + the frame's
 * serialization time + the channel Delay + the receiving device's ingress latency for a
 * non-PAUSE frame); the Ethernet destination, the EtherType and the PAUSE flag travel in a
 * 9-byte header in front of the frame, which the receiving side removes before
 * QbbNetDevice::Receive(). The receiving side is an MpiReceiver aggregated to every device
 * attached to this channel. ns-3's DistributedSimulatorImpl takes the smallest Delay of the
 * channels that cross ranks as its lookahead (it reads the attribute "Delay" of the channel of
 * every point-to-point device).
 */
class QbbRemoteChannel : public QbbChannel
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    QbbRemoteChannel();
    ~QbbRemoteChannel() override;

    /**
     * \brief Connect a device (QbbChannel::Attach) and aggregate an MpiReceiver to it, which
     * hands frames from other ranks to the device.
     * \param dev the device
     * \return false if the channel already has two devices or \p dev is null
     */
    bool Attach(Ptr<QbbNetDevice> dev) override;

    /**
     * \brief Carry a frame to the peer: on this rank as QbbChannel does, to another rank by
     * MpiInterface::SendPacket(). Same parameters and return value as
     * QbbChannel::TransmitStart().
     * \param frame the frame without its Ethernet header
     * \param dest Ethernet destination address
     * \param protocol EtherType
     * \param src the sending device
     * \param txTime serialization time of the frame
     * \param macControl true for a PFC PAUSE frame
     * \return false if there is no peer device
     */
    bool TransmitStart(Ptr<Packet> frame,
                       Mac48Address dest,
                       uint16_t protocol,
                       const QbbNetDevice* src,
                       Time txTime,
                       bool macControl) override;

    /// \return frames (PAUSE frames included) this process has sent to other ranks so far
    static uint64_t GetRemoteFramesSent();

  private:
    static uint64_t g_remoteFramesSent; //!< frames this process sent to other ranks
};

} // namespace ns3

#endif // CRUX_QBB_REMOTE_CHANNEL_H
