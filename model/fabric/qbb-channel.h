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

#ifndef CRUX_QBB_CHANNEL_H
#define CRUX_QBB_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

namespace ns3
{

class QbbNetDevice;

/**
 * \ingroup crux
 * \brief Full-duplex point-to-point Ethernet link between exactly two QbbNetDevices.
 *
 * Each direction is independent (full duplex). A frame handed to TransmitStart() by one device
 * is delivered, whole, to the other device's QbbNetDevice::Receive() after its serialization
 * time plus the propagation delay (attribute "Delay"), in the receiving node's context
 * (Simulator::ScheduleWithContext with the peer's node id), i.e. store-and-forward at the frame
 * level; a non-PAUSE frame arrives the peer's QbbNetDevice::GetIngressLatency() (a switch's
 * forwarding latency) later still. The channel neither loses nor reorders frames (loss is
 * injected by the receiving device's ReceiveErrorModel).
 */
class QbbChannel : public Channel
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    QbbChannel();
    ~QbbChannel() override;

    /**
     * \brief Connect a device to this channel (called by QbbNetDevice::Attach()).
     * \param dev the device; at most two devices per channel
     * \return false if the channel already has two devices or \p dev is null
     */
    virtual bool Attach(Ptr<QbbNetDevice> dev);

    /**
     * \brief Start carrying a frame from \p src to the other end of the link.
     *
     * The frame travels as its payload plus the Ethernet header's destination and EtherType
     * (the source is the sending device): the devices write no Ethernet header into the
     * packet on every hop; QbbNetDevice builds one only for its Sniffer trace and its
     * ReceiveErrorModel.
     * \param frame the frame without its Ethernet header (L3 packet or PAUSE payload); handed
     *        to the peer unchanged
     * \param dest Ethernet destination address
     * \param protocol EtherType
     * \param src the sending device (must be attached to this channel)
     * \param txTime serialization time of the frame at the sender's line rate
     * \param macControl true for a PFC PAUSE frame (delivered without the peer's ingress
     *        latency)
     * \return false if there is no peer device yet (the frame is then lost; the caller traces it)
     */
    virtual bool TransmitStart(Ptr<Packet> frame,
                               Mac48Address dest,
                               uint16_t protocol,
                               const QbbNetDevice* src,
                               Time txTime,
                               bool macControl);

    /// \return the propagation delay of the link (one way)
    Time GetDelay() const;

    /// \return the device at the other end of the link from \p dev (nullptr if none)
    /// \param dev a device attached to this channel
    Ptr<QbbNetDevice> GetPeer(const QbbNetDevice* dev) const;

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

    /**
     * \brief The time from now until a frame starting now reaches \p peer: its serialization
     * time \p txTime, the propagation Delay and, unless it is a MAC control (PFC PAUSE) frame,
     * the peer's ingress latency (QbbNetDevice::GetIngressLatency, a switch port's forwarding
     * latency). One formula for the local and the MPI channel.
     */
    Time ArrivalDelay(const QbbNetDevice* peer, Time txTime, bool macControl) const;

  private:
    Time m_delay;               //!< one-way propagation delay
    Ptr<QbbNetDevice> m_dev[2]; //!< the two ends
    std::size_t m_nDevices = 0; //!< number of attached devices (0..2)
};

} // namespace ns3

#endif // CRUX_QBB_CHANNEL_H
