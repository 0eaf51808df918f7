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

#include "qbb-helper.h"

#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node-container.h"
#include "ns3/qbb-channel.h"
#include "ns3/qbb-net-device.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxQbbHelper");

QbbHelper::QbbHelper()
{
    m_deviceFactory.SetTypeId("ns3::QbbNetDevice");
    m_channelFactory.SetTypeId("ns3::QbbChannel");
}

void
QbbHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
QbbHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

NetDeviceContainer
QbbHelper::Install(Ptr<Node> a, Ptr<Node> b)
{
    if (!a || !b)
    {
        NS_FATAL_ERROR("QbbHelper::Install: both nodes must be non-null");
    }
    // A link between two MPI ranks (nodes with different system ids, see
    // CruxTopologyHelper::SetRanks) gets the remote variant, found by TypeId: it exists only
    // when ns-3 has its mpi module.
    Ptr<QbbChannel> channel;
    if (a->GetSystemId() != b->GetSystemId())
    {
        TypeId remote;
        if (!TypeId::LookupByNameFailSafe("ns3::QbbRemoteChannel", &remote))
        {
            NS_FATAL_ERROR("QbbHelper::Install: nodes " << a->GetId() << " and " << b->GetId()
                                                        << " are on different MPI ranks, but "
                                                           "this build has no ns-3 mpi module");
        }
        ObjectFactory factory = m_channelFactory;
        factory.SetTypeId(remote);
        channel = factory.Create<QbbChannel>();
    }
    else
    {
        channel = m_channelFactory.Create<QbbChannel>();
    }
    NetDeviceContainer devices;
    for (const Ptr<Node>& node : {a, b})
    {
        Ptr<QbbNetDevice> dev = m_deviceFactory.Create<QbbNetDevice>();
        dev->SetAddress(Mac48Address::Allocate());
        node->AddDevice(dev);
        if (!dev->Attach(channel))
        {
            NS_FATAL_ERROR("QbbHelper::Install: could not attach a device to its channel");
        }
        devices.Add(dev);
    }
    return devices;
}

NetDeviceContainer
QbbHelper::Install(NodeContainer c)
{
    if (c.GetN() != 2)
    {
        NS_FATAL_ERROR("QbbHelper::Install: the node container holds " << c.GetN()
                                                                       << " nodes, need 2");
    }
    return Install(c.Get(0), c.Get(1));
}

void
QbbHelper::EnablePcapInternal(std::string prefix,
                              Ptr<NetDevice> nd,
                              bool promiscuous,
                              bool explicitFilename)
{
    Ptr<QbbNetDevice> device = nd->GetObject<QbbNetDevice>();
    if (!device)
    {
        NS_LOG_INFO("QbbHelper::EnablePcapInternal: device " << nd << " is not a QbbNetDevice");
        return;
    }
    PcapHelper pcapHelper;
    const std::string filename =
        explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, device);
    Ptr<PcapFileWrapper> file =
        pcapHelper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    pcapHelper.HookDefaultSink<QbbNetDevice>(device, "Sniffer", file);
}

} // namespace ns3
