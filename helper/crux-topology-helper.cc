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

#include "crux-topology-helper.h"

#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/net-device-container.h"
#include "ns3/qbb-net-device.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxTopologyHelper");

CruxTopologyHelper::CruxTopologyHelper()
{
    m_switchFactory.SetTypeId("ns3::CruxSwitch");
}

void
CruxTopologyHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_qbb.SetDeviceAttribute(name, value);
}

void
CruxTopologyHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

void
CruxTopologyHelper::SetMmuAttribute(const std::string& name, const AttributeValue& value)
{
    // Validate the name now, not at build time.
    TypeId::AttributeInformation info;
    if (!SwitchMmu::GetTypeId().LookupAttributeByName(name, &info))
    {
        NS_FATAL_ERROR("CruxTopologyHelper::SetMmuAttribute: ns3::SwitchMmu has no attribute \""
                       << name << "\"");
    }
    m_mmuAttributes.emplace_back(name, value.Copy());
}

void
CruxTopologyHelper::SetEcmpSeedBase(uint32_t base)
{
    m_ecmpSeedBase = base;
}

void
CruxTopologyHelper::SetRanks(uint32_t nRanks)
{
    m_ranks = std::max<uint32_t>(1, nRanks);
}

std::vector<uint32_t>
CruxTopologyHelper::AssignRanks(const ClusterTopology& desc, uint32_t nRanks)
{
    const uint32_t nTors = static_cast<uint32_t>(desc.torNode.size());
    if (nRanks == 0 || nRanks > nTors)
    {
        throw std::invalid_argument(
            std::to_string(nRanks) + " MPI ranks for topology '" + desc.name +
            "': the rank rule (contiguous blocks of ToRs with their hosts) supports 1 to " +
            std::to_string(nTors) + " ranks (its number of ToRs)");
    }
    std::vector<uint32_t> rank(desc.NumNetworkNodes(), 0);
    for (uint32_t t = 0; t < nTors; ++t)
    {
        rank[desc.torNode[t]] = static_cast<uint32_t>(uint64_t{t} * nRanks / nTors);
    }
    for (uint32_t h = 0; h < desc.NumHosts(); ++h)
    {
        rank[desc.hostNode[h]] = rank[desc.torNode[desc.hostTor[h]]];
    }
    for (const ClusterNodeKind kind : {ClusterNodeKind::AGG, ClusterNodeKind::CORE})
    {
        std::vector<uint32_t> ids;
        for (uint32_t n = 0; n < desc.NumNetworkNodes(); ++n)
        {
            if (desc.nodes[n].kind == kind)
            {
                ids.push_back(n);
            }
        }
        for (uint32_t i = 0; i < ids.size(); ++i)
        {
            rank[ids[i]] = static_cast<uint32_t>(uint64_t{i} * nRanks / ids.size());
        }
    }
    return rank;
}

Ptr<CruxTopology>
CruxTopologyHelper::Install(const ClusterTopology& desc)
{
    NS_LOG_FUNCTION(this << desc.name);
    const uint32_t nHosts = desc.NumHosts();
    if (nHosts == 0)
    {
        NS_FATAL_ERROR("CruxTopologyHelper::Install: topology '" << desc.name << "' has no hosts");
    }
    // NIC and port of every host up link (a NIC with several ports gets one device per port)
    std::map<uint32_t, std::pair<uint32_t, uint32_t>> nicPortOf; // up link -> (NIC, port)
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        if (desc.hostNode[h] != h)
        {
            NS_FATAL_ERROR("CruxTopologyHelper::Install: hosts must be the first nodes");
        }
        for (uint32_t n = 0; n < desc.nicUp[h].size(); ++n)
        {
            for (uint32_t p = 0; p < desc.nicUp[h][n].size(); ++p)
            {
                nicPortOf[desc.nicUp[h][n][p]] = {n, p};
            }
        }
    }
    // system id of every node (all 0 in a single-process fabric)
    std::vector<uint32_t> rank(desc.NumNetworkNodes(), 0);
    if (m_ranks > 1)
    {
        try
        {
            rank = AssignRanks(desc, m_ranks);
        }
        catch (const std::invalid_argument& e)
        {
            NS_FATAL_ERROR("CruxTopologyHelper::Install: " << e.what());
        }
    }
    Ptr<CruxTopology> topo = CreateObject<CruxTopology>();
    topo->SetDescription(desc);
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        topo->AddHost(CreateObject<Node>(rank[desc.hostNode[h]]), desc.gpusPerHost);
    }
    // network nodes and links only: the intra-host part of the description (if any) has no
    // devices in the packet fabric (see doc/crux.rst, "Intra-host links")
    for (uint32_t n = nHosts; n < desc.NumNetworkNodes(); ++n)
    {
        const ClusterNodeKind kind = desc.nodes[n].kind;
        const CruxSwitchLayer layer = kind == ClusterNodeKind::TOR   ? CruxSwitchLayer::TOR
                                      : kind == ClusterNodeKind::AGG ? CruxSwitchLayer::AGG
                                                                     : CruxSwitchLayer::CORE;
        Ptr<Node> node = CreateObject<Node>(rank[n]);
        Ptr<CruxSwitch> sw = m_switchFactory.Create<CruxSwitch>();
        for (const auto& [name, value] : m_mmuAttributes)
        {
            sw->GetMmu()->SetAttribute(name, *value);
        }
        node->AggregateObject(sw);
        const uint32_t s = topo->AddSwitch(node, sw, layer);
        sw->SetAttribute("EcmpSeed", UintegerValue(m_ecmpSeedBase + s));
    }
    // One device pair per cable (links 2k up, 2k + 1 down), in link order: switch ports are
    // numbered in cabling order, as ClusterTopology::nodePorts lists them.
    for (uint32_t l = 0; l + 1 < desc.NumNetworkLinks(); l += 2)
    {
        const auto [lower, upper] = desc.linkEnds[l];
        const DataRate rate(static_cast<uint64_t>(std::llround(desc.links[l].bandwidth)));
        // the description keeps seconds; devices use ns-3 Time (ns resolution)
        const Time delay = NanoSeconds(std::llround(desc.linkDelay[l] * 1e9));
        m_qbb.SetDeviceAttribute("DataRate", DataRateValue(rate));
        m_qbb.SetChannelAttribute("Delay", TimeValue(delay));
        const CruxSwitchInfo& up = topo->GetSwitch(upper - nHosts);
        if (!desc.IsSwitch(lower))
        {
            NetDeviceContainer d = m_qbb.Install(topo->GetHost(lower).node, up.node);
            const uint32_t port = up.sw->AddPort(DynamicCast<QbbNetDevice>(d.Get(1)));
            const auto np = nicPortOf.find(l);
            if (np == nicPortOf.end())
            {
                NS_FATAL_ERROR("CruxTopologyHelper::Install: host link "
                               << l << " of '" << desc.name << "' is no NIC port");
            }
            if (np->second.second == 0)
            {
                topo->AddHostLink(lower,
                                  DynamicCast<QbbNetDevice>(d.Get(0)),
                                  upper - nHosts,
                                  port,
                                  rate,
                                  delay);
            }
            else
            {
                topo->AddNicPort(lower,
                                 np->second.first,
                                 DynamicCast<QbbNetDevice>(d.Get(0)),
                                 upper - nHosts,
                                 port,
                                 rate,
                                 delay);
            }
        }
        else
        {
            const CruxSwitchInfo& lo = topo->GetSwitch(lower - nHosts);
            NetDeviceContainer d = m_qbb.Install(lo.node, up.node);
            const uint32_t pa = lo.sw->AddPort(DynamicCast<QbbNetDevice>(d.Get(0)));
            const uint32_t pb = up.sw->AddPort(DynamicCast<QbbNetDevice>(d.Get(1)));
            topo->AddSwitchLink(lower - nHosts, pa, upper - nHosts, pb, rate, delay);
        }
    }
    topo->Finalize();
    return topo;
}

Ptr<CruxTopology>
CruxTopologyHelper::BuildClos(const ClosConfig& cfg)
{
    NS_LOG_FUNCTION(this);
    try
    {
        return Install(BuildTwoLayerClos(cfg));
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR("CruxTopologyHelper::BuildClos: " << e.what());
    }
    return nullptr;
}

Ptr<CruxTopology>
CruxTopologyHelper::BuildTestbed()
{
    return BuildClos(TestbedClosConfig());
}

Ptr<CruxTopology>
CruxTopologyHelper::BuildStar(uint32_t nHosts, DataRate rate, Time delay, uint32_t gpusPerHost)
{
    ClosConfig cfg;
    cfg.tors = 1;
    cfg.aggs = 0;
    cfg.hostsPerTor = nHosts;
    cfg.numHosts = 0;
    cfg.nicsPerHost = 1;
    cfg.gpusPerHost = gpusPerHost;
    cfg.hostLinkBps = static_cast<double>(rate.GetBitRate());
    cfg.torAggBps = cfg.hostLinkBps;
    cfg.delay = delay.GetSeconds();
    cfg.wiring = "rail";
    return BuildClos(cfg);
}

void
CruxTopologyHelper::SetHostFrameHandler(Ptr<CruxTopology> topo,
                                        uint32_t host,
                                        uint32_t nic,
                                        QbbNetDevice::FrameHandler handler)
{
    const CruxHostInfo& h = topo->GetHost(host);
    if (nic >= h.nics.size())
    {
        NS_FATAL_ERROR("CruxTopologyHelper::SetHostFrameHandler: host "
                       << host << " has " << h.nics.size() << " NICs");
    }
    h.nics[nic].device->SetFrameHandler(handler);
}

void
CruxTopologyHelper::PreferFastScheduler()
{
    StringValue current;
    GlobalValue::GetValueByName("SchedulerType", current);
    if (current.Get() == "ns3::MapScheduler")
    {
        GlobalValue::Bind("SchedulerType", StringValue("ns3::PriorityQueueScheduler"));
    }
}

} // namespace ns3
