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

#include "crux-topology.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxTopology");

NS_OBJECT_ENSURE_REGISTERED(CruxTopology);

TypeId
CruxTopology::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CruxTopology")
            .SetParent<Object>()
            .SetGroupName("Crux")
            .AddConstructor<CruxTopology>()
            .AddAttribute("NicPortHashSeed",
                          "Seed of the ECMP hash (CruxSwitch::EcmpHash) by which a NIC with "
                          "several ports (double-sided topology) picks the port of a flow that "
                          "has no pinned route (SelectNicPort()). Default 0x5eed0001: an "
                          "ASSUMPTION, any value not equal to a switch's EcmpSeed (base + switch "
                          "index) keeps the NIC's choice independent of the ToRs'.",
                          UintegerValue(0x5eed0001),
                          MakeUintegerAccessor(&CruxTopology::m_nicPortSeed),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

CruxTopology::CruxTopology()
    : m_nicPortSeed(0x5eed0001)
{
    NS_LOG_FUNCTION(this);
}

CruxTopology::~CruxTopology()
{
    NS_LOG_FUNCTION(this);
}

void
CruxTopology::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_hosts.clear();
    m_switches.clear();
    m_links.clear();
    m_txDevLink.clear();
    Object::DoDispose();
}

// -------------------------------------------------------------------------------- building

uint32_t
CruxTopology::AddHost(Ptr<Node> node, uint32_t gpus)
{
    if (!node || gpus == 0)
    {
        NS_FATAL_ERROR("CruxTopology::AddHost: node must be non-null and gpus > 0");
    }
    CruxHostInfo h;
    h.index = static_cast<uint32_t>(m_hosts.size());
    if (h.index > 0xffff)
    {
        NS_FATAL_ERROR("CruxTopology::AddHost: at most 65536 hosts (10.h.h.n addressing)");
    }
    h.node = node;
    h.gpus = gpus;
    m_hosts.push_back(h);
    m_finalized = false;
    return h.index;
}

uint32_t
CruxTopology::AddSwitch(Ptr<Node> node, Ptr<CruxSwitch> sw, CruxSwitchLayer layer)
{
    if (!node || !sw)
    {
        NS_FATAL_ERROR("CruxTopology::AddSwitch: node and switch must be non-null");
    }
    CruxSwitchInfo s;
    s.index = static_cast<uint32_t>(m_switches.size());
    s.node = node;
    s.sw = sw;
    s.layer = layer;
    s.layerIndex = static_cast<uint32_t>(GetSwitchesInLayer(layer).size());
    m_switches.push_back(s);
    m_swPortLink.emplace_back();
    m_finalized = false;
    return s.index;
}

uint32_t
CruxTopology::AddHostLink(uint32_t host,
                          Ptr<QbbNetDevice> nicDev,
                          uint32_t sw,
                          uint32_t swPort,
                          DataRate rate,
                          Time delay)
{
    if (host >= m_hosts.size() || sw >= m_switches.size() || !nicDev)
    {
        NS_FATAL_ERROR("CruxTopology::AddHostLink: host " << host << " / switch " << sw
                                                          << " out of range or null device");
    }
    CruxHostInfo& h = m_hosts[host];
    const auto nic = static_cast<uint32_t>(h.nics.size());
    if (nic >= 255)
    {
        NS_FATAL_ERROR("CruxTopology::AddHostLink: at most 254 NICs per host");
    }
    Ptr<QbbNetDevice> swDev = m_switches[sw].sw->GetPort(swPort);
    const auto up = static_cast<uint32_t>(m_links.size());

    CruxLinkInfo l;
    l.id = up;
    l.txDev = nicDev;
    l.rxDev = swDev;
    l.fromNode = h.node;
    l.toNode = m_switches[sw].node;
    l.from = CruxEndpoint{true, host, nic};
    l.to = CruxEndpoint{false, sw, swPort};
    l.rate = rate;
    l.delay = delay;
    m_links.push_back(l);
    CruxLinkInfo r = l;
    r.id = up + 1;
    std::swap(r.txDev, r.rxDev);
    std::swap(r.fromNode, r.toNode);
    std::swap(r.from, r.to);
    m_links.push_back(r);

    m_txDevLink[PeekPointer(nicDev)] = up;
    m_txDevLink[PeekPointer(swDev)] = up + 1;
    auto& ports = m_swPortLink[sw];
    if (ports.size() <= swPort)
    {
        ports.resize(swPort + 1, UINT32_MAX);
    }
    ports[swPort] = up + 1;

    CruxNicInfo n;
    n.device = nicDev;
    n.address = MakeNicAddress(host, nic);
    n.tor = sw;
    n.uplink = up;
    n.downlink = up + 1;
    n.ports.push_back(CruxNicPortInfo{nicDev, sw, up, up + 1});
    h.nics.push_back(n);
    m_addrNic[n.address.Get()] = {host, nic};
    m_finalized = false;
    return nic;
}

uint32_t
CruxTopology::AddNicPort(uint32_t host,
                         uint32_t nic,
                         Ptr<QbbNetDevice> portDev,
                         uint32_t sw,
                         uint32_t swPort,
                         DataRate rate,
                         Time delay)
{
    if (host >= m_hosts.size() || nic >= m_hosts[host].nics.size())
    {
        NS_FATAL_ERROR("CruxTopology::AddNicPort: host " << host << " has no NIC " << nic
                                                         << " (add it with AddHostLink)");
    }
    CruxHostInfo& h = m_hosts[host];
    // register the cable as AddHostLink does, then move the new NIC entry into a port of nic
    const uint32_t added = AddHostLink(host, portDev, sw, swPort, rate, delay);
    const CruxNicInfo extra = h.nics[added];
    h.nics.pop_back();
    m_addrNic.erase(extra.address.Get());
    CruxNicInfo& n = h.nics[nic];
    const auto port = static_cast<uint32_t>(n.ports.size());
    n.ports.push_back(extra.ports.front());
    for (uint32_t id : {extra.uplink, extra.downlink})
    {
        CruxLinkInfo& l = m_links[id];
        (l.from.isHost ? l.from : l.to).port = nic; // host ends name the NIC
    }
    return port;
}

uint32_t
CruxTopology::AddSwitchLink(uint32_t a,
                            uint32_t aPort,
                            uint32_t b,
                            uint32_t bPort,
                            DataRate rate,
                            Time delay)
{
    if (a >= m_switches.size() || b >= m_switches.size() || a == b)
    {
        NS_FATAL_ERROR("CruxTopology::AddSwitchLink: switches " << a << ", " << b << " invalid");
    }
    const auto ab = static_cast<uint32_t>(m_links.size());
    CruxLinkInfo l;
    l.id = ab;
    l.txDev = m_switches[a].sw->GetPort(aPort);
    l.rxDev = m_switches[b].sw->GetPort(bPort);
    l.fromNode = m_switches[a].node;
    l.toNode = m_switches[b].node;
    l.from = CruxEndpoint{false, a, aPort};
    l.to = CruxEndpoint{false, b, bPort};
    l.rate = rate;
    l.delay = delay;
    m_links.push_back(l);
    CruxLinkInfo r = l;
    r.id = ab + 1;
    std::swap(r.txDev, r.rxDev);
    std::swap(r.fromNode, r.toNode);
    std::swap(r.from, r.to);
    m_links.push_back(r);

    m_txDevLink[PeekPointer(l.txDev)] = ab;
    m_txDevLink[PeekPointer(l.rxDev)] = ab + 1;
    for (auto [s, p, id] : {std::make_tuple(a, aPort, ab), std::make_tuple(b, bPort, ab + 1)})
    {
        auto& ports = m_swPortLink[s];
        if (ports.size() <= p)
        {
            ports.resize(p + 1, UINT32_MAX);
        }
        ports[p] = id;
    }
    m_finalized = false;
    return ab;
}

void
CruxTopology::SetDescription(const ClusterTopology& desc)
{
    m_desc = desc;
    m_finalized = false;
}

const ClusterTopology&
CruxTopology::GetDescription() const
{
    return m_desc;
}

void
CruxTopology::Finalize()
{
    NS_LOG_FUNCTION(this);
    const auto nSw = static_cast<uint32_t>(m_switches.size());
    const uint32_t nHosts = GetNHosts();
    if (m_desc.NumHosts() != nHosts || m_desc.NumSwitches() != nSw ||
        m_desc.NumNetworkLinks() != m_links.size())
    {
        NS_FATAL_ERROR("CruxTopology::Finalize: the devices ("
                       << nHosts << " hosts, " << nSw << " switches, " << m_links.size()
                       << " links) do not match the cluster description '" << m_desc.name << "' ("
                       << m_desc.NumHosts() << ", " << m_desc.NumSwitches() << ", "
                       << m_desc.NumNetworkLinks() << "); build with CruxTopologyHelper::Install");
    }
    // ECMP groups: for every NIC address, the ports towards the NIC on a shortest path (the
    // cluster description's hop counts towards the ToRs of its ports), in the switch's port
    // order; at a ToR of the NIC, its ports' down links.
    std::map<uint32_t, std::vector<int32_t>> hops; // ToR switch index -> hops per node id
    for (const CruxHostInfo& h : m_hosts)
    {
        for (const CruxNicInfo& n : h.nics)
        {
            for (const CruxNicPortInfo& p : n.ports)
            {
                if (hops.count(p.tor) == 0)
                {
                    hops[p.tor] = m_desc.ShortestPathHops(nHosts + p.tor);
                }
            }
        }
    }
    std::vector<int32_t> dist; // hops to the nearest ToR of one NIC, per node id
    for (uint32_t s = 0; s < nSw; ++s)
    {
        Ptr<CruxSwitch> sw = m_switches[s].sw;
        sw->ClearRoutes();
        for (const CruxHostInfo& h : m_hosts)
        {
            for (const CruxNicInfo& n : h.nics)
            {
                std::vector<uint32_t> ports;
                for (const CruxNicPortInfo& p : n.ports)
                {
                    if (p.tor == s)
                    {
                        ports.push_back(m_links[p.downlink].from.port);
                    }
                }
                if (ports.empty())
                {
                    const std::vector<int32_t>* d = &hops.at(n.tor);
                    if (n.ports.size() > 1)
                    {
                        dist = *d;
                        for (const CruxNicPortInfo& p : n.ports)
                        {
                            const std::vector<int32_t>& dp = hops.at(p.tor);
                            for (std::size_t i = 0; i < dist.size(); ++i)
                            {
                                if (dp[i] >= 0 && (dist[i] < 0 || dp[i] < dist[i]))
                                {
                                    dist[i] = dp[i];
                                }
                            }
                        }
                        d = &dist;
                    }
                    if ((*d)[nHosts + s] <= 0)
                    {
                        continue; // unreachable
                    }
                    for (uint32_t id : m_swPortLink[s])
                    {
                        if (id == UINT32_MAX || m_links[id].to.isHost)
                        {
                            continue;
                        }
                        if ((*d)[nHosts + m_links[id].to.index] == (*d)[nHosts + s] - 1)
                        {
                            ports.push_back(m_links[id].from.port);
                        }
                    }
                }
                if (!ports.empty())
                {
                    sw->SetRoute(n.address, ports);
                }
            }
        }
    }
    m_finalized = true;
}

void
CruxTopology::CheckFinalized(const char* what) const
{
    if (!m_finalized)
    {
        NS_FATAL_ERROR("CruxTopology::" << what << ": call Finalize() after building");
    }
}

// -------------------------------------------------------------------------------- structure

uint32_t
CruxTopology::GetNHosts() const
{
    return static_cast<uint32_t>(m_hosts.size());
}

const CruxHostInfo&
CruxTopology::GetHost(uint32_t h) const
{
    if (h >= m_hosts.size())
    {
        NS_FATAL_ERROR("CruxTopology::GetHost: host " << h << " >= " << m_hosts.size());
    }
    return m_hosts[h];
}

uint32_t
CruxTopology::GetNSwitches() const
{
    return static_cast<uint32_t>(m_switches.size());
}

const CruxSwitchInfo&
CruxTopology::GetSwitch(uint32_t s) const
{
    if (s >= m_switches.size())
    {
        NS_FATAL_ERROR("CruxTopology::GetSwitch: switch " << s << " >= " << m_switches.size());
    }
    return m_switches[s];
}

std::vector<uint32_t>
CruxTopology::GetSwitchesInLayer(CruxSwitchLayer layer) const
{
    std::vector<uint32_t> r;
    for (const CruxSwitchInfo& s : m_switches)
    {
        if (s.layer == layer)
        {
            r.push_back(s.index);
        }
    }
    return r;
}

uint32_t
CruxTopology::GetNLinks() const
{
    return static_cast<uint32_t>(m_links.size());
}

const CruxLinkInfo&
CruxTopology::GetLink(uint32_t id) const
{
    if (id >= m_links.size())
    {
        NS_FATAL_ERROR("CruxTopology::GetLink: link " << id << " >= " << m_links.size());
    }
    return m_links[id];
}

uint32_t
CruxTopology::GetReverseLink(uint32_t id) const
{
    if (id >= m_links.size())
    {
        NS_FATAL_ERROR("CruxTopology::GetReverseLink: link " << id << " >= " << m_links.size());
    }
    return id ^ 1u;
}

uint32_t
CruxTopology::GetLinkId(Ptr<Node> node, Ptr<NetDevice> dev) const
{
    auto it = m_txDevLink.find(PeekPointer(dev));
    if (it == m_txDevLink.end() || m_links[it->second].fromNode != node)
    {
        NS_FATAL_ERROR("CruxTopology::GetLinkId: device is not a fabric device of node "
                       << (node ? node->GetId() : UINT32_MAX));
    }
    return it->second;
}

std::optional<uint32_t>
CruxTopology::FindLinkByTxDevice(Ptr<const NetDevice> dev) const
{
    auto it = m_txDevLink.find(PeekPointer(dev));
    if (it == m_txDevLink.end())
    {
        return std::nullopt;
    }
    return it->second;
}

uint32_t
CruxTopology::GetSwitchPortLink(uint32_t sw, uint32_t port) const
{
    if (sw >= m_swPortLink.size() || port >= m_swPortLink[sw].size() ||
        m_swPortLink[sw][port] == UINT32_MAX)
    {
        NS_FATAL_ERROR("CruxTopology::GetSwitchPortLink: switch " << sw << " port " << port
                                                                  << " has no link");
    }
    return m_swPortLink[sw][port];
}

// -------------------------------------------------------------------------------- addressing

Ipv4Address
CruxTopology::MakeNicAddress(uint32_t host, uint32_t nic)
{
    return Ipv4Address(0x0A000000u | ((host & 0xffffu) << 8) | ((nic + 1) & 0xffu));
}

Ipv4Address
CruxTopology::GetNicAddress(uint32_t host, uint32_t nic) const
{
    const CruxHostInfo& h = GetHost(host);
    if (nic >= h.nics.size())
    {
        NS_FATAL_ERROR("CruxTopology::GetNicAddress: host " << host << " has " << h.nics.size()
                                                            << " NICs, asked for " << nic);
    }
    return h.nics[nic].address;
}

uint32_t
CruxTopology::GpuToNic(uint32_t host, uint32_t gpu) const
{
    const CruxHostInfo& h = GetHost(host);
    if (gpu >= h.gpus)
    {
        NS_FATAL_ERROR("CruxTopology::GpuToNic: host " << host << " has " << h.gpus
                                                       << " GPUs, asked for gpu " << gpu);
    }
    if (h.nics.empty())
    {
        NS_FATAL_ERROR("CruxTopology::GpuToNic: host " << host << " has no NIC");
    }
    return static_cast<uint32_t>(static_cast<uint64_t>(gpu) * h.nics.size() / h.gpus);
}

std::optional<std::pair<uint32_t, uint32_t>>
CruxTopology::FindNic(Ipv4Address addr) const
{
    auto it = m_addrNic.find(addr.Get());
    if (it == m_addrNic.end())
    {
        return std::nullopt;
    }
    return it->second;
}

} // namespace ns3
