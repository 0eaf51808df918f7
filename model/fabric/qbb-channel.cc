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

#include "qbb-channel.h"

#include "pooled-event.h"
#include "qbb-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxQbbChannel");

NS_OBJECT_ENSURE_REGISTERED(QbbChannel);

namespace
{
/// The arrival of a frame at the peer device: QbbNetDevice::Receive(), from a recycled event.
class FrameArrival : public PooledEvent<FrameArrival>
{
  public:
    /// \param dev receiving device \param frame the frame \param dest its destination MAC
    /// \param protocol its EtherType
    FrameArrival(QbbNetDevice* dev, Ptr<Packet> frame, Mac48Address dest, uint16_t protocol)
        : m_dev(dev),
          m_frame(std::move(frame)),
          m_dest(dest),
          m_protocol(protocol)
    {
    }

  protected:
    void Notify() override
    {
        m_dev->Receive(std::move(m_frame), m_dest, m_protocol);
    }

  private:
    QbbNetDevice* m_dev; //!< receiving device (held by the channel)
    Ptr<Packet> m_frame; //!< the frame without Ethernet header
    Mac48Address m_dest; //!< Ethernet destination
    uint16_t m_protocol; //!< EtherType
};
} // namespace

TypeId
QbbChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QbbChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Crux")
                            .AddConstructor<QbbChannel>()
                            .AddAttribute("Delay",
                                          "One-way propagation delay of the link.",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&QbbChannel::m_delay),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

QbbChannel::QbbChannel()
{
    NS_LOG_FUNCTION(this);
}

QbbChannel::~QbbChannel()
{
    NS_LOG_FUNCTION(this);
}

void
QbbChannel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_dev[0] = nullptr;
    m_dev[1] = nullptr;
    m_nDevices = 0;
    Channel::DoDispose();
}

bool
QbbChannel::Attach(Ptr<QbbNetDevice> dev)
{
    NS_LOG_FUNCTION(this << dev);
    if (!dev || m_nDevices >= 2)
    {
        return false;
    }
    m_dev[m_nDevices++] = dev;
    return true;
}

bool
QbbChannel::TransmitStart(Ptr<Packet> frame,
                          Mac48Address dest,
                          uint16_t protocol,
                          const QbbNetDevice* src,
                          Time txTime,
                          bool macControl)
{
    if (m_nDevices < 2)
    {
        return false;
    }
    QbbNetDevice* peer =
        (PeekPointer(m_dev[0]) == src) ? PeekPointer(m_dev[1]) : PeekPointer(m_dev[0]);
    // The peer lives as long as this channel holds it; the raw pointer avoids two reference
    // count updates per frame.
    // A switch port's forwarding latency is added here rather than as an event of its own.
    Simulator::ScheduleWithContext(peer->GetNodeId(),
                                   ArrivalDelay(peer, txTime, macControl),
                                   new FrameArrival(peer, std::move(frame), dest, protocol));
    return true;
}

Time
QbbChannel::ArrivalDelay(const QbbNetDevice* peer, Time txTime, bool macControl) const
{
    Time delay = txTime + m_delay;
    if (!macControl)
    {
        delay += peer->GetIngressLatency();
    }
    return delay;
}

Time
QbbChannel::GetDelay() const
{
    return m_delay;
}

Ptr<QbbNetDevice>
QbbChannel::GetPeer(const QbbNetDevice* dev) const
{
    if (m_nDevices < 2)
    {
        return nullptr;
    }
    return PeekPointer(m_dev[0]) == dev ? m_dev[1] : m_dev[0];
}

std::size_t
QbbChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
QbbChannel::GetDevice(std::size_t i) const
{
    if (i >= m_nDevices)
    {
        return nullptr;
    }
    return m_dev[i];
}

} // namespace ns3
