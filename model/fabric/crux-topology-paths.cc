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

/*
 * CruxTopology's paths: the equal-cost paths between two NICs, the path a five-tuple takes
 * (hash-based ECMP or a pinned route, as the switches forward it), the UDP source port that
 * steers a flow onto a chosen path (Crux §5, ECMP source-port steering), pinned routes and base
 * RTTs. The topology's construction and lookups are crux-topology.cc.
 */

#include "crux-topology.h"
#include "wire-time.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxTopologyPaths");

namespace
{
/// Hop limit of path following (detects forwarding loops).
constexpr uint32_t MAX_HOPS = 64;
} // namespace

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
