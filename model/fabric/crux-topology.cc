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

#include "wire-time.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxTopology");

NS_OBJECT_ENSURE_REGISTERED(CruxTopology);

namespace
{
/// Hop limit of path following (detects forwarding loops).
constexpr uint32_t MAX_HOPS = 64;
} // namespace

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

// -------------------------------------------------------------------------------- paths

std::vector<CruxPath>
CruxTopology::GetEqualCostPaths(uint32_t srcHost,
                                uint32_t srcNic,
                                uint32_t dstHost,
                                uint32_t dstNic) const
{
    CheckFinalized("GetEqualCostPaths");
    GetNicAddress(srcHost, srcNic); // range checks
    GetNicAddress(dstHost, dstNic);
    if (srcHost == dstHost && srcNic == dstNic)
    {
        NS_FATAL_ERROR("CruxTopology::GetEqualCostPaths: source and destination are the same NIC"
                       << " (host " << srcHost << " nic " << srcNic << ")");
    }
    return m_desc.EqualCostNicPaths(srcHost,
                                    srcNic,
                                    dstHost,
                                    dstNic,
                                    std::numeric_limits<uint32_t>::max());
}

CruxPath
CruxTopology::FollowPath(const FiveTuple& t, bool pinned) const
{
    CheckFinalized("PredictPath");
    auto src = FindNic(t.srcIp);
    if (!src || !FindNic(t.dstIp))
    {
        NS_FATAL_ERROR("CruxTopology::PredictPath: " << t << ": source or destination is not a "
                                                     << "NIC address of this topology");
    }
    const CruxNicInfo& nic = m_hosts[src->first].nics[src->second];
    CruxPath path{nic.ports.size() > 1 ? nic.ports[NicPort(t, nic, pinned)].uplink : nic.uplink};
    CruxEndpoint at = m_links[path.back()].to;
    for (uint32_t hop = 0; hop < MAX_HOPS; ++hop)
    {
        const CruxSwitch& sw = *m_switches[at.index].sw;
        const int32_t port = pinned ? sw.SelectEgressPort(t) : sw.SelectEcmpPort(t);
        if (port < 0)
        {
            return CruxPath();
        }
        const std::vector<uint32_t>& ports = m_swPortLink[at.index];
        if (static_cast<std::size_t>(port) >= ports.size() || ports[port] == UINT32_MAX)
        {
            return CruxPath(); // a port outside this topology (configured by hand)
        }
        const uint32_t id = ports[port];
        path.push_back(id);
        at = m_links[id].to;
        if (at.isHost)
        {
            return path;
        }
    }
    NS_LOG_WARN("forwarding loop for " << t);
    return CruxPath();
}

uint32_t
CruxTopology::NicPort(const FiveTuple& t, const CruxNicInfo& nic, bool pinned) const
{
    const auto n = static_cast<uint32_t>(nic.ports.size());
    if (n <= 1)
    {
        return 0;
    }
    if (pinned && !m_nicPinned.empty())
    {
        auto it = m_nicPinned.find(t);
        if (it != m_nicPinned.end())
        {
            return it->second;
        }
    }
    return CruxSwitch::EcmpHash(t, m_nicPortSeed) % n;
}

uint32_t
CruxTopology::SelectNicPort(const FiveTuple& tuple) const
{
    auto src = FindNic(tuple.srcIp);
    if (!src)
    {
        NS_FATAL_ERROR("CruxTopology::SelectNicPort: " << tuple << ": source is not a NIC "
                                                       << "address of this topology");
    }
    return NicPort(tuple, m_hosts[src->first].nics[src->second], true);
}

CruxPath
CruxTopology::PredictEcmpPath(const FiveTuple& tuple) const
{
    return FollowPath(tuple, false);
}

CruxPath
CruxTopology::PredictPath(const FiveTuple& tuple) const
{
    return FollowPath(tuple, true);
}

std::optional<uint16_t>
CruxTopology::TryFindUdpSourcePort(Ipv4Address srcIp,
                                   Ipv4Address dstIp,
                                   const CruxPath& wantedPath,
                                   uint16_t basePort) const
{
    const uint32_t nPorts = 65536u - MIN_STEERING_PORT;
    const uint32_t start = std::max<uint32_t>(basePort, MIN_STEERING_PORT) - MIN_STEERING_PORT;
    FiveTuple t;
    t.srcIp = srcIp;
    t.dstIp = dstIp;
    t.protocol = 17;
    t.dstPort = ROCEV2_PORT;
    for (uint32_t i = 0; i < nPorts; ++i)
    {
        t.srcPort = static_cast<uint16_t>(MIN_STEERING_PORT + (start + i) % nPorts);
        if (FollowPath(t, true) == wantedPath)
        {
            return t.srcPort;
        }
    }
    return std::nullopt;
}

uint16_t
CruxTopology::FindUdpSourcePort(Ipv4Address srcIp,
                                Ipv4Address dstIp,
                                const CruxPath& wantedPath,
                                uint16_t basePort) const
{
    auto p = TryFindUdpSourcePort(srcIp, dstIp, wantedPath, basePort);
    if (!p)
    {
        NS_FATAL_ERROR("CruxTopology::FindUdpSourcePort: no UDP source port in [49152, 65535] "
                       "takes "
                       << srcIp << " -> " << dstIp << " over path " << PathToString(wantedPath));
    }
    return *p;
}

void
CruxTopology::InstallPinnedRoute(const FiveTuple& tuple, const CruxPath& path)
{
    CheckFinalized("InstallPinnedRoute");
    auto src = FindNic(tuple.srcIp);
    auto dst = FindNic(tuple.dstIp);
    if (!src || !dst)
    {
        NS_FATAL_ERROR("CruxTopology::InstallPinnedRoute: " << tuple << ": source or destination"
                                                            << " is not a NIC address");
    }
    if (path.size() < 2)
    {
        NS_FATAL_ERROR("CruxTopology::InstallPinnedRoute: path needs >= 2 links, got "
                       << path.size());
    }
    for (uint32_t id : path)
    {
        if (id >= m_links.size())
        {
            NS_FATAL_ERROR("CruxTopology::InstallPinnedRoute: link " << id << " does not exist");
        }
    }
    const CruxLinkInfo& first = m_links[path.front()];
    if (!(first.from == CruxEndpoint{true, src->first, src->second}))
    {
        NS_FATAL_ERROR("CruxTopology::InstallPinnedRoute: path "
                       << PathToString(path) << " does not start at " << tuple.srcIp);
    }
    const CruxLinkInfo& last = m_links[path.back()];
    if (!(last.to == CruxEndpoint{true, dst->first, dst->second}))
    {
        NS_FATAL_ERROR("CruxTopology::InstallPinnedRoute: path "
                       << PathToString(path) << " does not end at " << tuple.dstIp);
    }
    for (std::size_t i = 1; i < path.size(); ++i)
    {
        const CruxLinkInfo& prev = m_links[path[i - 1]];
        const CruxLinkInfo& l = m_links[path[i]];
        if (l.from.isHost || prev.to.isHost || l.from.index != prev.to.index)
        {
            NS_FATAL_ERROR("CruxTopology::InstallPinnedRoute: hop " << i << " (link " << path[i]
                                                                    << ") does not continue "
                                                                    << "link " << path[i - 1]);
        }
    }
    for (std::size_t i = 1; i < path.size(); ++i)
    {
        const CruxLinkInfo& l = m_links[path[i]];
        m_switches[l.from.index].sw->AddPinnedRoute(tuple, l.from.port);
    }
    const CruxNicInfo& nic = m_hosts[src->first].nics[src->second];
    for (uint32_t p = 0; nic.ports.size() > 1 && p < nic.ports.size(); ++p)
    {
        if (nic.ports[p].uplink == path.front())
        {
            m_nicPinned[tuple] = p; // the source NIC leaves on the path's first link
        }
    }
}

void
CruxTopology::RemovePinnedRoute(const FiveTuple& tuple)
{
    m_nicPinned.erase(tuple);
    for (const CruxSwitchInfo& s : m_switches)
    {
        s.sw->RemovePinnedRoute(tuple);
    }
}

std::string
CruxTopology::PathToString(const CruxPath& path)
{
    std::ostringstream os;
    for (std::size_t i = 0; i < path.size(); ++i)
    {
        os << (i ? " " : "") << "l" << path[i];
    }
    return os.str();
}

Time
CruxTopology::GetBaseRtt(const CruxPath& path,
                         uint32_t dataFrameBytes,
                         uint32_t ackFrameBytes) const
{
    auto wire = [](Ptr<QbbNetDevice> dev, uint32_t frame) {
        UintegerValue ifg;
        dev->GetAttribute("InterframeGapBytes", ifg);
        const uint64_t bytes = std::max<uint64_t>(frame + 4, 64) + ifg.Get();
        return crux::BytesTxTime(dev->GetDataRate(), bytes);
    };
    Time rtt(0);
    for (uint32_t id : path)
    {
        const CruxLinkInfo& fwd = GetLink(id);
        const CruxLinkInfo& rev = GetLink(GetReverseLink(id));
        rtt += fwd.delay + rev.delay;
        rtt += wire(fwd.txDev, dataFrameBytes) + wire(rev.txDev, ackFrameBytes);
        rtt += fwd.rxDev->GetIngressLatency() + rev.rxDev->GetIngressLatency();
    }
    return rtt;
}

Time
CruxTopology::GetMaxBaseRtt(uint32_t dataFrameBytes, uint32_t ackFrameBytes) const
{
    CheckFinalized("GetMaxBaseRtt");
    Time best(0);
    std::set<std::pair<uint32_t, uint32_t>> seen; // (source switch, destination switch)
    for (uint32_t h1 = 0; h1 < m_hosts.size(); ++h1)
    {
        for (uint32_t n1 = 0; n1 < m_hosts[h1].nics.size(); ++n1)
        {
            for (uint32_t h2 = 0; h2 < m_hosts.size(); ++h2)
            {
                for (uint32_t n2 = 0; n2 < m_hosts[h2].nics.size(); ++n2)
                {
                    if (h1 == h2 && n1 == n2)
                    {
                        continue;
                    }
                    const auto tors =
                        std::make_pair(m_hosts[h1].nics[n1].tor, m_hosts[h2].nics[n2].tor);
                    if (!seen.insert(tors).second)
                    {
                        continue;
                    }
                    const std::vector<CruxPath> paths = GetEqualCostPaths(h1, n1, h2, n2);
                    if (!paths.empty())
                    {
                        best = std::max(best,
                                        GetBaseRtt(paths.front(), dataFrameBytes, ackFrameBytes));
                    }
                }
            }
        }
    }
    return best;
}

} // namespace ns3
