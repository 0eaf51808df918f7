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

#include "qbb-remote-channel.h"

#include "qbb-net-device.h"

#include "ns3/address-utils.h"
#include "ns3/header.h"
#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxQbbRemoteChannel");

NS_OBJECT_ENSURE_REGISTERED(QbbRemoteChannel);

namespace
{
/**
 * What travels beside a frame between ranks: the Ethernet destination, the EtherType and the
 * PAUSE flag (9 bytes, in front of the frame; never on a wire of the model).
 */
class QbbRemoteFrameHeader : public Header
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::QbbRemoteFrameHeader")
                                .SetParent<Header>()
                                .SetGroupName("Crux")
                                .AddConstructor<QbbRemoteFrameHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 9;
    }

    void Serialize(Buffer::Iterator start) const override
    {
        WriteTo(start, dest);
        start.WriteHtonU16(protocol);
        start.WriteU8(macControl ? 1 : 0);
    }

    uint32_t Deserialize(Buffer::Iterator start) override
    {
        ReadFrom(start, dest);
        protocol = start.ReadNtohU16();
        macControl = start.ReadU8() != 0;
        return 9;
    }

    void Print(std::ostream& os) const override
    {
        os << "dest=" << dest << " protocol=0x" << std::hex << protocol << std::dec
           << " macControl=" << macControl;
    }

    Mac48Address dest;      //!< Ethernet destination
    uint16_t protocol{0};   //!< EtherType
    bool macControl{false}; //!< PFC PAUSE frame
};

NS_OBJECT_ENSURE_REGISTERED(QbbRemoteFrameHeader);

/// MpiReceiver callback: a frame from another rank arrives at \p dev (now is its arrival time).
void
DeliverRemoteFrame(Ptr<QbbNetDevice> dev, Ptr<Packet> p)
{
    QbbRemoteFrameHeader h;
    p->RemoveHeader(h);
    dev->Receive(p, h.dest, h.protocol);
}
} // namespace

uint64_t QbbRemoteChannel::g_remoteFramesSent = 0;

uint64_t
QbbRemoteChannel::GetRemoteFramesSent()
{
    return g_remoteFramesSent;
}

TypeId
QbbRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QbbRemoteChannel")
                            .SetParent<QbbChannel>()
                            .SetGroupName("Crux")
                            .AddConstructor<QbbRemoteChannel>();
    return tid;
}

QbbRemoteChannel::QbbRemoteChannel()
{
    NS_LOG_FUNCTION(this);
}

QbbRemoteChannel::~QbbRemoteChannel()
{
    NS_LOG_FUNCTION(this);
}

bool
QbbRemoteChannel::Attach(Ptr<QbbNetDevice> dev)
{
    NS_LOG_FUNCTION(this << dev);
    if (!QbbChannel::Attach(dev))
    {
        return false;
    }
    if (!dev->GetObject<MpiReceiver>())
    {
        Ptr<MpiReceiver> rx = CreateObject<MpiReceiver>();
        rx->SetReceiveCallback(MakeBoundCallback(&DeliverRemoteFrame, dev));
        dev->AggregateObject(rx);
    }
    return true;
}

bool
QbbRemoteChannel::TransmitStart(Ptr<Packet> frame,
                                Mac48Address dest,
                                uint16_t protocol,
                                const QbbNetDevice* src,
                                Time txTime,
                                bool macControl)
{
    Ptr<QbbNetDevice> peer = GetPeer(src);
    if (!peer)
    {
        return false;
    }
    Ptr<Node> node = peer->GetNode();
    if (node->GetSystemId() == MpiInterface::GetSystemId())
    {
        return QbbChannel::TransmitStart(std::move(frame), dest, protocol, src, txTime, macControl);
    }
    QbbRemoteFrameHeader h;
    h.dest = dest;
    h.protocol = protocol;
    h.macControl = macControl;
    Ptr<Packet> p = frame->Copy();
    p->AddHeader(h);
    ++g_remoteFramesSent;
    MpiInterface::SendPacket(p,
                             Simulator::Now() + ArrivalDelay(PeekPointer(peer), txTime, macControl),
                             node->GetId(),
                             peer->GetIfIndex());
    return true;
}

} // namespace ns3
