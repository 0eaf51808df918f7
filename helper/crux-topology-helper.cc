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

#include "ns3/log.h"
#include "ns3/net-device-container.h"
#include "ns3/qbb-net-device.h"
#include "ns3/uinteger.h"

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

uint32_t
CruxTopologyHelper::CreateSwitch(Ptr<CruxTopology> topo, CruxSwitchLayer layer)
{
    Ptr<Node> node = CreateObject<Node>();
    Ptr<CruxSwitch> sw = m_switchFactory.Create<CruxSwitch>();
    for (const auto& [name, value] : m_mmuAttributes)
    {
        sw->GetMmu()->SetAttribute(name, *value);
    }
    node->AggregateObject(sw);
    return topo->AddSwitch(node, sw, layer);
}

uint32_t
CruxTopologyHelper::ConnectSwitches(Ptr<CruxTopology> topo,
                                    uint32_t a,
                                    uint32_t b,
                                    DataRate rate,
                                    Time delay)
{
    m_qbb.SetDeviceAttribute("DataRate", DataRateValue(rate));
    m_qbb.SetChannelAttribute("Delay", TimeValue(delay));
    const CruxSwitchInfo& sa = topo->GetSwitch(a);
    const CruxSwitchInfo& sb = topo->GetSwitch(b);
    NetDeviceContainer d = m_qbb.Install(sa.node, sb.node);
    const uint32_t pa = sa.sw->AddPort(DynamicCast<QbbNetDevice>(d.Get(0)));
    const uint32_t pb = sb.sw->AddPort(DynamicCast<QbbNetDevice>(d.Get(1)));
    return topo->AddSwitchLink(a, pa, b, pb, rate, delay);
}

void
CruxTopologyHelper::ConnectHost(Ptr<CruxTopology> topo,
                                uint32_t host,
                                uint32_t sw,
                                DataRate rate,
                                Time delay)
{
    m_qbb.SetDeviceAttribute("DataRate", DataRateValue(rate));
    m_qbb.SetChannelAttribute("Delay", TimeValue(delay));
    const CruxSwitchInfo& s = topo->GetSwitch(sw);
    NetDeviceContainer d = m_qbb.Install(topo->GetHost(host).node, s.node);
    const uint32_t port = s.sw->AddPort(DynamicCast<QbbNetDevice>(d.Get(1)));
    topo->AddHostLink(host, DynamicCast<QbbNetDevice>(d.Get(0)), sw, port, rate, delay);
}

Ptr<CruxTopology>
CruxTopologyHelper::BuildClos(const CruxClosConfig& cfg)
{
    NS_LOG_FUNCTION(this);
    if (cfg.numTors == 0 || cfg.hostsPerTor == 0 || cfg.nicsPerHost == 0 || cfg.gpusPerHost == 0 ||
        cfg.linksPerTorAgg == 0)
    {
        NS_FATAL_ERROR("CruxClosConfig: numTors, hostsPerTor, nicsPerHost, gpusPerHost and "
                       "linksPerTorAgg must all be > 0");
    }
    if (cfg.numTors % cfg.nicsPerHost != 0)
    {
        NS_FATAL_ERROR("CruxClosConfig: numTors ("
                       << cfg.numTors << ") must be a multiple of nicsPerHost (" << cfg.nicsPerHost
                       << ")");
    }
    if (cfg.numAggs == 0 && cfg.numTors > 1)
    {
        NS_FATAL_ERROR("CruxClosConfig: numAggs = 0 needs numTors = 1 (got " << cfg.numTors
                                                                             << " ToRs)");
    }
    if (cfg.hostLinkRate.GetBitRate() == 0 || cfg.fabricLinkRate.GetBitRate() == 0)
    {
        NS_FATAL_ERROR("CruxClosConfig: hostLinkRate and fabricLinkRate must be > 0");
    }
    const uint32_t groups = cfg.numTors / cfg.nicsPerHost;
    const uint32_t nHosts = groups * cfg.hostsPerTor;
    if (nHosts > 65536)
    {
        NS_FATAL_ERROR("CruxClosConfig: " << nHosts << " hosts exceed the 65536 addressable");
    }

    Ptr<CruxTopology> topo = CreateObject<CruxTopology>();
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        topo->AddHost(CreateObject<Node>(), cfg.gpusPerHost);
    }
    std::vector<uint32_t> tors;
    std::vector<uint32_t> aggs;
    for (uint32_t t = 0; t < cfg.numTors; ++t)
    {
        tors.push_back(CreateSwitch(topo, CruxSwitchLayer::TOR));
    }
    for (uint32_t a = 0; a < cfg.numAggs; ++a)
    {
        aggs.push_back(CreateSwitch(topo, CruxSwitchLayer::AGG));
    }
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        const uint32_t group = h / cfg.hostsPerTor;
        for (uint32_t n = 0; n < cfg.nicsPerHost; ++n)
        {
            ConnectHost(
                topo,
                h,
                tors[group * cfg.nicsPerHost + (cfg.rotateNics ? (n + h) % cfg.nicsPerHost : n)],
                cfg.hostLinkRate,
                cfg.hostLinkDelay);
        }
    }
    for (uint32_t t : tors)
    {
        for (uint32_t a : aggs)
        {
            for (uint32_t k = 0; k < cfg.linksPerTorAgg; ++k)
            {
                ConnectSwitches(topo, t, a, cfg.fabricLinkRate, cfg.fabricLinkDelay);
            }
        }
    }
    if (cfg.assignEcmpSeeds)
    {
        for (uint32_t s = 0; s < topo->GetNSwitches(); ++s)
        {
            topo->GetSwitch(s).sw->SetAttribute("EcmpSeed", UintegerValue(cfg.ecmpSeedBase + s));
        }
    }
    topo->Finalize();
    return topo;
}

Ptr<CruxTopology>
CruxTopologyHelper::BuildTestbed()
{
    return BuildClos(TestbedConfig());
}

Ptr<CruxTopology>
CruxTopologyHelper::BuildStar(uint32_t nHosts, DataRate rate, Time delay, uint32_t gpusPerHost)
{
    CruxClosConfig cfg;
    cfg.numTors = 1;
    cfg.hostsPerTor = nHosts;
    cfg.numAggs = 0;
    cfg.nicsPerHost = 1;
    cfg.gpusPerHost = gpusPerHost;
    cfg.hostLinkRate = rate;
    cfg.hostLinkDelay = delay;
    cfg.fabricLinkRate = rate;
    cfg.fabricLinkDelay = delay;
    return BuildClos(cfg);
}

CruxClosConfig
CruxTopologyHelper::TestbedConfig()
{
    CruxClosConfig cfg;
    cfg.numTors = 4;
    cfg.hostsPerTor = 12;
    cfg.numAggs = 2;
    cfg.linksPerTorAgg = 1;
    cfg.nicsPerHost = 4;
    cfg.gpusPerHost = 8;
    cfg.hostLinkRate = DataRate("200Gb/s");
    cfg.hostLinkDelay = MicroSeconds(1);
    cfg.fabricLinkRate = DataRate("200Gb/s");
    cfg.fabricLinkDelay = MicroSeconds(1);
    return cfg;
}

CruxClosConfig
CruxTopologyHelper::Sec22Config()
{
    CruxClosConfig cfg;
    cfg.numTors = 2;
    cfg.hostsPerTor = 6;
    cfg.numAggs = 2;
    cfg.linksPerTorAgg = 1;
    cfg.nicsPerHost = 1;
    cfg.gpusPerHost = 8;
    cfg.hostLinkRate = DataRate("100Gb/s");
    cfg.hostLinkDelay = MicroSeconds(1);
    cfg.fabricLinkRate = DataRate("100Gb/s");
    cfg.fabricLinkDelay = MicroSeconds(1);
    return cfg;
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

} // namespace ns3
