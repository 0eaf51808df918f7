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

#include "rdma-transport-helper.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRdmaTransportHelper");

RdmaTransportHelper::RdmaTransportHelper()
{
    m_nicFactory.SetTypeId(RdmaNic::GetTypeId());
    m_transportFactory.SetTypeId(RdmaTransport::GetTypeId());
}

void
RdmaTransportHelper::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

void
RdmaTransportHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transportFactory.Set(name, value);
}

Ptr<RdmaNic>
RdmaTransportHelper::InstallNic(Ptr<QbbNetDevice> dev, Ipv4Address address) const
{
    if (!dev)
    {
        NS_FATAL_ERROR("RdmaTransportHelper::InstallNic: device is null (" << address << ")");
    }
    Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
    nic->Attach(dev, address);
    return nic;
}

Ptr<RdmaTransport>
RdmaTransportHelper::Install(Ptr<CruxTopology> topo)
{
    if (!topo)
    {
        NS_FATAL_ERROR("RdmaTransportHelper::Install: topology is null");
    }
    Ptr<RdmaTransport> t = m_transportFactory.Create<RdmaTransport>();
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        const CruxHostInfo& host = topo->GetHost(h);
        t->AddHost(h, host.gpus);
        for (uint32_t n = 0; n < host.nics.size(); ++n)
        {
            t->AddNic(h, n, InstallNic(host.nics[n].device, host.nics[n].address));
        }
    }
    return t;
}

Ptr<RdmaTransport>
RdmaTransportHelper::Install(const std::vector<std::vector<Ptr<QbbNetDevice>>>& hostNics,
                             uint32_t gpusPerHost)
{
    Ptr<RdmaTransport> t = m_transportFactory.Create<RdmaTransport>();
    for (uint32_t h = 0; h < hostNics.size(); ++h)
    {
        t->AddHost(h, gpusPerHost);
        for (uint32_t n = 0; n < hostNics[h].size(); ++n)
        {
            t->AddNic(h, n, InstallNic(hostNics[h][n], CruxTopology::MakeNicAddress(h, n)));
        }
    }
    return t;
}

} // namespace ns3
