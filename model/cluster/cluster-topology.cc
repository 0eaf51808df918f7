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

// The cluster description's queries and path search (valley-free equal-cost paths, ECMP
// choice); its builders are in cluster-topology-builders.cc.

#include "cluster-topology.h"

#include "ns3/hash-mix.h"
#include "ns3/log.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxClusterTopology");

namespace
{

/// One partial up-path: the node reached and the links taken (in order from the host).
struct UpPath
{
    uint32_t node;
    std::vector<uint32_t> links;
};

/// Advance every partial path one tier up; keeps the order (path order, then link order).
std::vector<UpPath>
Climb(const ClusterTopology& topo, const std::vector<UpPath>& level)
{
    std::vector<UpPath> next;
    for (const UpPath& p : level)
    {
        for (uint32_t l : topo.nodeUp[p.node])
        {
            UpPath q{topo.linkEnds[l].second, p.links};
            q.links.push_back(l);
            next.push_back(std::move(q));
        }
    }
    return next;
}

/// Group partial paths by their end node: node -> indices into level, in level order.
std::map<uint32_t, std::vector<uint32_t>>
ByNode(const std::vector<UpPath>& level)
{
    std::map<uint32_t, std::vector<uint32_t>> out;
    for (uint32_t i = 0; i < level.size(); ++i)
    {
        out[level[i].node].push_back(i);
    }
    return out;
}

} // namespace

std::string
ToString(ClusterNodeKind kind)
{
    switch (kind)
    {
    case ClusterNodeKind::HOST:
        return "host";
    case ClusterNodeKind::TOR:
        return "tor";
    case ClusterNodeKind::AGG:
        return "agg";
    case ClusterNodeKind::CORE:
        return "core";
    case ClusterNodeKind::GPU:
        return "gpu";
    case ClusterNodeKind::PCIE:
        return "pcie";
    case ClusterNodeKind::NVSWITCH:
        return "nvswitch";
    }
    return "unknown";
}

uint32_t
ClusterTopology::NumHosts() const
{
    return static_cast<uint32_t>(hostNode.size());
}

uint32_t
ClusterTopology::NumGpus() const
{
    return NumHosts() * gpusPerHost;
}

uint32_t
ClusterTopology::NumTors() const
{
    return static_cast<uint32_t>(torNode.size());
}

uint32_t
ClusterTopology::NicOfGpu(uint32_t gpu) const
{
    if (gpu >= gpusPerHost)
    {
        throw std::out_of_range("ClusterTopology: GPU index " + std::to_string(gpu) +
                                " >= gpusPerHost " + std::to_string(gpusPerHost));
    }
    return static_cast<uint32_t>(uint64_t{gpu} * nicsPerHost / gpusPerHost);
}

uint32_t
ClusterTopology::NumSwitches() const
{
    return NumNetworkNodes() - NumHosts();
}

bool
ClusterTopology::HasIntraHostLinks() const
{
    return intraHost.enabled;
}

uint32_t
ClusterTopology::NumNetworkLinks() const
{
    return HasIntraHostLinks() ? networkLinks : static_cast<uint32_t>(links.size());
}

uint32_t
ClusterTopology::NumNetworkNodes() const
{
    return HasIntraHostLinks() ? networkNodes : static_cast<uint32_t>(nodes.size());
}

std::vector<uint32_t>
ClusterTopology::GpuPath(uint32_t srcHost,
                         uint32_t srcGpu,
                         uint32_t dstHost,
                         uint32_t dstGpu,
                         const std::vector<uint32_t>& networkPath) const
{
    if (srcHost >= NumHosts() || dstHost >= NumHosts())
    {
        throw std::out_of_range("GpuPath: host index " +
                                std::to_string(std::max(srcHost, dstHost)) + " >= NumHosts() " +
                                std::to_string(NumHosts()));
    }
    const uint32_t srcNic = NicOfGpu(srcGpu); // checks the GPU indices
    const uint32_t dstNic = NicOfGpu(dstGpu);
    if (!HasIntraHostLinks())
    {
        return srcHost == dstHost ? std::vector<uint32_t>() : networkPath;
    }
    if (srcHost == dstHost)
    {
        if (srcGpu == dstGpu)
        {
            return {};
        }
        return {gpuNvlink[srcHost][srcGpu], Reverse(gpuNvlink[dstHost][dstGpu])};
    }
    std::vector<uint32_t> path;
    path.reserve(networkPath.size() + 4);
    path.push_back(gpuPcie[srcHost][srcGpu]);
    path.push_back(pcieNic[srcHost][srcNic]);
    path.insert(path.end(), networkPath.begin(), networkPath.end());
    path.push_back(Reverse(pcieNic[dstHost][dstNic]));
    path.push_back(Reverse(gpuPcie[dstHost][dstGpu]));
    return path;
}

std::vector<std::vector<uint32_t>>
ClusterTopology::EqualCostGpuPaths(uint32_t srcHost,
                                   uint32_t srcGpu,
                                   uint32_t dstHost,
                                   uint32_t dstGpu,
                                   uint32_t maxPaths) const
{
    auto paths = EqualCostPaths(srcHost, srcGpu, dstHost, dstGpu, maxPaths);
    for (auto& p : paths)
    {
        p = GpuPath(srcHost, srcGpu, dstHost, dstGpu, p);
    }
    return paths;
}

uint32_t
ClusterTopology::PortsPerNic() const
{
    return nicUp.empty() || nicUp[0].empty() ? 0 : static_cast<uint32_t>(nicUp[0][0].size());
}

bool
ClusterTopology::IsSwitch(uint32_t node) const
{
    if (node >= nodes.size())
    {
        throw std::out_of_range("ClusterTopology: node id " + std::to_string(node) +
                                " >= " + std::to_string(nodes.size()) + " nodes");
    }
    const ClusterNodeKind k = nodes[node].kind;
    return k == ClusterNodeKind::TOR || k == ClusterNodeKind::AGG || k == ClusterNodeKind::CORE;
}

std::vector<int32_t>
ClusterTopology::ShortestPathHops(uint32_t target) const
{
    if (!IsSwitch(target))
    {
        throw std::out_of_range("ShortestPathHops: node " + std::to_string(target) +
                                " is a host, not a switch");
    }
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
    Graph g(nodes.size());
    for (uint32_t l = 0; l < linkEnds.size(); ++l)
    {
        const auto [from, to] = linkEnds[l];
        if (IsSwitch(from) && IsSwitch(to))
        {
            boost::add_edge(from, to, g);
        }
    }
    std::vector<int32_t> hops(nodes.size(), -1);
    hops[target] = 0;
    auto rg = boost::make_reverse_graph(g);
    boost::breadth_first_search(rg,
                                boost::vertex(target, rg),
                                boost::visitor(boost::make_bfs_visitor(
                                    boost::record_distances(hops.data(), boost::on_tree_edge()))));
    return hops;
}

std::vector<std::vector<uint32_t>>
ClusterTopology::EqualCostPaths(uint32_t srcHost,
                                uint32_t srcGpu,
                                uint32_t dstHost,
                                uint32_t dstGpu,
                                uint32_t maxPaths) const
{
    const uint32_t srcNic = NicOfGpu(srcGpu); // checks the GPU indices
    const uint32_t dstNic = NicOfGpu(dstGpu);
    // EqualCostNicPaths checks the hosts and maxPaths; GPUs of one host need no network path
    // (their NICs count as one: an empty path, as for one NIC)
    const bool sameHost = srcHost == dstHost;
    return EqualCostNicPaths(srcHost, srcNic, dstHost, sameHost ? srcNic : dstNic, maxPaths);
}

std::vector<std::vector<uint32_t>>
ClusterTopology::EqualCostNicPaths(uint32_t srcHost,
                                   uint32_t srcNic,
                                   uint32_t dstHost,
                                   uint32_t dstNic,
                                   uint32_t maxPaths) const
{
    if (srcHost >= NumHosts() || dstHost >= NumHosts())
    {
        throw std::out_of_range("EqualCostNicPaths: host index " +
                                std::to_string(std::max(srcHost, dstHost)) + " >= NumHosts() " +
                                std::to_string(NumHosts()));
    }
    if (srcNic >= nicsPerHost || dstNic >= nicsPerHost)
    {
        throw std::out_of_range("EqualCostNicPaths: NIC index " +
                                std::to_string(std::max(srcNic, dstNic)) + " >= nicsPerHost " +
                                std::to_string(nicsPerHost));
    }
    if (maxPaths == 0)
    {
        throw std::invalid_argument("EqualCostNicPaths: maxPaths must be >= 1");
    }
    if (srcHost == dstHost && srcNic == dstNic)
    {
        return {std::vector<uint32_t>()};
    }
    if (nicUp.size() != NumHosts() || nodeUp.size() != nodes.size())
    {
        throw std::logic_error("EqualCostPaths: routing tables missing (build the topology "
                               "with a Build* function)");
    }
    // Tier 1: the ToRs the two NICs' ports reach.
    std::vector<UpPath> src;
    std::vector<UpPath> dst;
    for (uint32_t l : nicUp[srcHost][srcNic])
    {
        src.push_back({linkEnds[l].second, {l}});
    }
    for (uint32_t l : nicUp[dstHost][dstNic])
    {
        dst.push_back({linkEnds[l].second, {l}});
    }
    std::vector<std::vector<uint32_t>> out;
    while (!src.empty() && !dst.empty())
    {
        const auto srcBy = ByNode(src);
        const auto dstBy = ByNode(dst);
        // meeting switches in ascending node id, with their up-halves from either side
        std::vector<std::pair<const std::vector<uint32_t>*, const std::vector<uint32_t>*>> meet;
        for (const auto& [node, si] : srcBy)
        {
            auto it = dstBy.find(node);
            if (it != dstBy.end())
            {
                meet.emplace_back(&si, &it->second);
            }
        }
        if (!meet.empty())
        {
            std::size_t total = 0;
            for (const auto& m : meet)
            {
                total += m.first->size() * m.second->size();
            }
            const std::size_t want = std::min<std::size_t>(total, maxPaths);
            out.reserve(want);
            for (std::size_t round = 0; out.size() < want; ++round)
            {
                for (const auto& [si, di] : meet)
                {
                    const std::size_t a = si->size();
                    const std::size_t b = di->size();
                    if (round >= a * b)
                    {
                        continue;
                    }
                    const std::size_t i = round % a;
                    const std::size_t j = (round / a + i) % b;
                    const UpPath& up = src[(*si)[i]];
                    const UpPath& down = dst[(*di)[j]];
                    std::vector<uint32_t> path = up.links;
                    for (auto it = down.links.rbegin(); it != down.links.rend(); ++it)
                    {
                        path.push_back(Reverse(*it));
                    }
                    out.push_back(std::move(path));
                    if (out.size() == want)
                    {
                        break;
                    }
                }
            }
            NS_LOG_LOGIC("host " << srcHost << " NIC " << srcNic << " -> host " << dstHost
                                 << " NIC " << dstNic << ": " << out.size() << " of " << total
                                 << " equal-cost paths, " << out.front().size() << " links, via "
                                 << meet.size() << " meeting switches");
            return out;
        }
        src = Climb(*this, src);
        dst = Climb(*this, dst);
    }
    NS_LOG_LOGIC("host " << srcHost << " NIC " << srcNic << " -> host " << dstHost << " NIC "
                         << dstNic << ": not connected");
    return out; // not connected
}

std::string
ClusterTopology::CheckPath(const std::vector<uint32_t>& path,
                           uint32_t srcHost,
                           uint32_t srcGpu,
                           uint32_t dstHost,
                           uint32_t dstGpu) const
{
    if (path.empty())
    {
        return "the path is empty (hosts " + std::to_string(srcHost) + " and " +
               std::to_string(dstHost) + " differ)";
    }
    std::set<uint32_t> seen;
    for (uint32_t l : path)
    {
        if (l >= links.size())
        {
            return "link id " + std::to_string(l) + " is not in the topology (" +
                   std::to_string(links.size()) + " links)";
        }
        if (!seen.insert(l).second)
        {
            return "link " + std::to_string(l) + " appears twice";
        }
    }
    if (srcHost >= NumHosts() || dstHost >= NumHosts())
    {
        return "host " + std::to_string(std::max(srcHost, dstHost)) + " is not in the topology";
    }
    const uint32_t srcNode = hostNode[srcHost];
    const uint32_t dstNode = hostNode[dstHost];
    if (linkEnds[path.front()].first != srcNode)
    {
        return "the first link " + std::to_string(path.front()) + " (" + links[path.front()].name +
               ") does not leave source host " + std::to_string(srcHost);
    }
    for (size_t i = 0; i + 1 < path.size(); ++i)
    {
        if (linkEnds[path[i]].second != linkEnds[path[i + 1]].first)
        {
            return "links " + std::to_string(path[i]) + " and " + std::to_string(path[i + 1]) +
                   " are not consecutive";
        }
    }
    if (linkEnds[path.back()].second != dstNode)
    {
        return "the last link " + std::to_string(path.back()) + " (" + links[path.back()].name +
               ") does not enter destination host " + std::to_string(dstHost);
    }
    // the NIC of each end, when the topology has routing tables
    auto nicLinks = [&](uint32_t host, uint32_t gpu) -> const std::vector<uint32_t>* {
        if (host >= nicUp.size())
        {
            return nullptr;
        }
        const uint32_t nic = NicOfGpu(gpu);
        return nic < nicUp[host].size() ? &nicUp[host][nic] : nullptr;
    };
    if (const auto* up = nicLinks(srcHost, srcGpu))
    {
        if (std::find(up->begin(), up->end(), path.front()) == up->end())
        {
            return "the first link " + std::to_string(path.front()) +
                   " does not leave the NIC of source GPU " + std::to_string(srcGpu);
        }
    }
    if (const auto* up = nicLinks(dstHost, dstGpu))
    {
        if (std::find(up->begin(), up->end(), Reverse(path.back())) == up->end())
        {
            return "the last link " + std::to_string(path.back()) +
                   " does not enter the NIC of destination GPU " + std::to_string(dstGpu);
        }
    }
    return "";
}

uint32_t
EcmpPathIndex(uint64_t seed, uint32_t jobId, uint32_t flowId, uint32_t numPaths)
{
    if (numPaths == 0)
    {
        throw std::invalid_argument("EcmpPathIndex: numPaths must be >= 1");
    }
    uint64_t h = crux::Mix64(seed);
    h = crux::Mix64(h ^ jobId);
    h = crux::Mix64(h ^ (uint64_t{flowId} << 32 | 0x5bd1e995ULL));
    NS_LOG_LOGIC("job " << jobId << " flow " << flowId << ": ECMP path " << h % numPaths << " of "
                        << numPaths);
    return static_cast<uint32_t>(h % numPaths);
}

} // namespace ns3
