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

#include "flow-transport-helper.h"

#include "crux-helper.h"

#include "ns3/crux-compat.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <array>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxFlowTransportHelper");

FlowTransportHelper::FlowTransportHelper()
{
    m_transportFactory.SetTypeId(FlowTransport::GetTypeId());
}

void
FlowTransportHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transportFactory.Set(name, value);
    if (name == "InterframeGapBytes")
    {
        m_ifgSet = true;
    }
}

FlowTransport::PathResolver
FlowTransportHelper::MakePathResolver(Ptr<CruxTopology> topo)
{
    if (!topo)
    {
        NS_FATAL_ERROR("FlowTransportHelper::MakePathResolver: topology is null");
    }
    return crux::MakeFunctorCallback([topo](const RdmaQpKey& key,
                                            uint16_t port) -> std::vector<uint32_t> {
        const ClusterTopology& desc = topo->GetDescription();
        if (key.src.host == key.dst.host)
        {
            return desc.GpuPath(key.src.host, key.src.localGpu, key.dst.host, key.dst.localGpu, {});
        }
        const std::vector<uint32_t> net = CruxTopologySteering(topo).PathOf(key, port);
        return desc.GpuPath(key.src.host, key.src.localGpu, key.dst.host, key.dst.localGpu, net);
    });
}

Ptr<FlowTransport>
FlowTransportHelper::Install(Ptr<CruxTopology> topo) const
{
    if (!topo)
    {
        NS_FATAL_ERROR("FlowTransportHelper::Install: topology is null");
    }
    Ptr<FlowTransport> t = m_transportFactory.Create<FlowTransport>();
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        t->AddHost(h, topo->GetHost(h).gpus);
    }
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        const CruxLinkInfo& link = topo->GetLink(l);
        const uint32_t id = t->AddLink(link.rate, link.delay);
        if (id != l)
        {
            NS_FATAL_ERROR("FlowTransportHelper::Install: link " << l << " got id " << id);
        }
    }
    // the description's intra-host links (if any) follow the network links, with the same ids
    const ClusterTopology& desc = topo->GetDescription();
    for (uint32_t l = topo->GetNLinks(); l < desc.links.size(); ++l)
    {
        const DataRate rate(static_cast<uint64_t>(std::llround(desc.links[l].bandwidth)));
        const Time delay = NanoSeconds(std::llround(desc.linkDelay[l] * 1e9));
        if (t->AddLink(rate, delay) != l)
        {
            NS_FATAL_ERROR("FlowTransportHelper::Install: intra-host link " << l << " misnumbered");
        }
    }
    t->SetPathResolver(MakePathResolver(topo));
    if (desc.HasIntraHostLinks())
    {
        t->SetIntraHostPathResolver(MakePathResolver(topo));
    }
    if (topo->GetNHosts() > 0 && !topo->GetHost(0).nics.empty() && topo->GetHost(0).nics[0].device)
    {
        Ptr<QbbNetDevice> dev = topo->GetHost(0).nics[0].device;
        std::array<uint8_t, 64> map;
        for (uint32_t d = 0; d < 64; ++d)
        {
            map[d] = dev->DscpToTc(static_cast<uint8_t>(d));
        }
        t->SetDscpToTc(map);
        if (!m_ifgSet)
        {
            UintegerValue ifg;
            dev->GetAttribute("InterframeGapBytes", ifg);
            t->SetAttribute("InterframeGapBytes", ifg);
        }
    }
    NS_LOG_INFO("flow transport: " << t->GetNHosts() << " hosts, " << t->GetNLinks() << " links");
    return t;
}

} // namespace ns3
