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

// The builders of the cluster description (BuildTwoLayerClos(), BuildDoubleSided(),
// BuildThreeTier(), TestbedClosConfig()) and AddIntraHostLinks(); the description's queries and
// path search are in cluster-topology.cc.

#include "cluster-topology-spec.h"
#include "cluster-topology.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxClusterTopologyBuilders");

namespace
{

void
RequirePositive(uint32_t value, const std::string& field)
{
    if (value == 0)
    {
        throw std::invalid_argument(field + " must be >= 1 (got 0)");
    }
}

void
RequireRate(double value, const std::string& field)
{
    if (!(value > 0) || !std::isfinite(value))
    {
        throw std::invalid_argument(field + " must be a positive finite rate in bit/s (got " +
                                    std::to_string(value) + ")");
    }
}

void
RequireDelay(double value, const std::string& field)
{
    if (!(value >= 0) || !std::isfinite(value))
    {
        throw std::invalid_argument(field + " must be a finite delay >= 0 s (got " +
                                    std::to_string(value) + ")");
    }
}

/// Check the per-host fields of a topology config: <prefix>.gpusPerHost and
/// <prefix>.nicsPerHost >= 1, and nicsPerHost <= gpusPerHost; throws std::invalid_argument.
template <typename Config>
void
RequireHostShape(const Config& c, const std::string& prefix)
{
    RequirePositive(c.gpusPerHost, prefix + ".gpusPerHost");
    RequirePositive(c.nicsPerHost, prefix + ".nicsPerHost");
    if (c.nicsPerHost > c.gpusPerHost)
    {
        throw std::invalid_argument(prefix + ".nicsPerHost must be <= gpusPerHost");
    }
}

/// Check the link fields of a three-tier config (hostLinkBps, torAggBps, aggCoreBps: positive
/// finite bit/s; delay: finite, >= 0 s), in that order; throws std::invalid_argument.
template <typename Config>
void
RequireThreeTierLinks(const Config& c, const std::string& prefix)
{
    RequireRate(c.hostLinkBps, prefix + ".hostLinkBps");
    RequireRate(c.torAggBps, prefix + ".torAggBps");
    RequireRate(c.aggCoreBps, prefix + ".aggCoreBps");
    RequireDelay(c.delay, prefix + ".delay");
}

/// Largest number of cables (bidirectional links) a builder accepts: 4,194,304. ASSUMPTION: a
/// bound far above any fabric crux can simulate (the 6,776-GPU Lingjun topology has 4,532
/// cables; a 100,000-GPU rail-optimised fabric has a few hundred thousand), so that a typo in a
/// count is one error instead of hours of allocation.
constexpr uint64_t MAX_CABLES = uint64_t{1} << 22;

/// Check a topology's cable count before anything is allocated; throws std::invalid_argument
/// "<prefix>: <cables> cables (<formula>) exceed 4,194,304 ...".
void
RequireCables(uint64_t cables, const std::string& prefix, const std::string& formula)
{
    if (cables > MAX_CABLES)
    {
        throw std::invalid_argument(prefix + ": " + std::to_string(cables) + " cables (" + formula +
                                    ") exceed the " + std::to_string(MAX_CABLES) +
                                    " a cluster description may have (a typo in a count?)");
    }
}

/// Log what a builder made. \param topo the description
void
LogBuilt(const ClusterTopology& topo)
{
    NS_LOG_INFO(topo.name << ": " << topo.NumHosts() << " hosts x " << topo.nicsPerHost << " NICs, "
                          << topo.NumSwitches() << " switches, " << topo.links.size()
                          << " directed links");
}

/// Incremental construction of a ClusterTopology.
class Builder
{
  public:
    Builder(ClusterTopology& topo, double delay)
        : m_topo(topo),
          m_delay(delay)
    {
    }

    uint32_t AddNode(ClusterNodeKind kind, const std::string& name)
    {
        m_topo.nodes.push_back({kind, name});
        m_topo.nodeUp.emplace_back();
        m_topo.nodePorts.emplace_back();
        return static_cast<uint32_t>(m_topo.nodes.size() - 1);
    }

    /// Add the cable lower <-> upper: returns the up link's id (the down one is id + 1).
    uint32_t AddCable(uint32_t lower,
                      uint32_t upper,
                      double bps,
                      const std::string& lowerLabel = std::string())
    {
        const std::string lo = lowerLabel.empty() ? m_topo.nodes[lower].name : lowerLabel;
        const std::string& up = m_topo.nodes[upper].name;
        const auto id = static_cast<uint32_t>(m_topo.links.size());
        m_topo.links.push_back({bps, lo + "->" + up});
        m_topo.linkEnds.emplace_back(lower, upper);
        m_topo.linkDelay.push_back(m_delay);
        m_topo.links.push_back({bps, up + "->" + lo});
        m_topo.linkEnds.emplace_back(upper, lower);
        m_topo.linkDelay.push_back(m_delay);
        m_topo.nodePorts[lower].push_back(id);
        m_topo.nodePorts[upper].push_back(id + 1);
        return id;
    }

    /// Host h's NIC n port p to ToR node tor.
    void AddNicCable(uint32_t h, uint32_t n, uint32_t p, uint32_t tor, double bps)
    {
        const std::string label = m_topo.nodes[m_topo.hostNode[h]].name + ".n" + std::to_string(n) +
                                  "p" + std::to_string(p);
        const uint32_t id = AddCable(m_topo.hostNode[h], tor, bps, label);
        m_topo.nicUp[h][n].push_back(id);
    }

    /// Switch-to-switch cable (lower tier first).
    void AddSwitchCable(uint32_t lower, uint32_t upper, double bps)
    {
        const uint32_t id = AddCable(lower, upper, bps);
        m_topo.nodeUp[lower].push_back(id);
    }

    /// Add numHosts host nodes "h<i>" with nicsPerHost empty NIC port lists.
    void AddHosts(uint32_t numHosts)
    {
        m_topo.hostNode.reserve(numHosts);
        m_topo.nicUp.assign(numHosts, std::vector<std::vector<uint32_t>>(m_topo.nicsPerHost));
        for (uint32_t h = 0; h < numHosts; ++h)
        {
            m_topo.hostNode.push_back(AddNode(ClusterNodeKind::HOST, "h" + std::to_string(h)));
        }
    }

    /// Cable every host's NICs to its ToR (host h: topology hostTor[h], already set): for each
    /// host, each NIC, each of portsPerNic ports p, a cable of bps bit/s to ToR hostTor[h] + p % 2
    /// (one port: single-homed; two ports: the ToR pair hostTor[h], hostTor[h] + 1).
    void AddHostCables(uint32_t portsPerNic, double bps)
    {
        for (uint32_t h = 0; h < m_topo.hostTor.size(); ++h)
        {
            for (uint32_t n = 0; n < m_topo.nicsPerHost; ++n)
            {
                for (uint32_t port = 0; port < portsPerNic; ++port)
                {
                    const uint32_t tor = m_topo.hostTor[h] + port % 2;
                    AddNicCable(h, n, port, m_topo.torNode[tor], bps);
                }
            }
        }
    }

    /// Cable host h's NIC n (one port each) to ToR torOf(h, n), hosts and NICs in order.
    template <typename TorOf>
    void AddRailCables(double bps, TorOf torOf)
    {
        for (uint32_t h = 0; h < m_topo.hostTor.size(); ++h)
        {
            for (uint32_t n = 0; n < m_topo.nicsPerHost; ++n)
            {
                AddNicCable(h, n, 0, m_topo.torNode[torOf(h, n)], bps);
            }
        }
    }

    /// Add numTors ToR nodes "t<i>".
    void AddTors(uint32_t numTors)
    {
        for (uint32_t t = 0; t < numTors; ++t)
        {
            m_topo.torNode.push_back(AddNode(ClusterNodeKind::TOR, "t" + std::to_string(t)));
        }
    }

    /// Add count nodes of kind named prefix<i>; returns the first node id.
    uint32_t AddSwitches(ClusterNodeKind kind, const std::string& prefix, uint32_t count)
    {
        const auto first = static_cast<uint32_t>(m_topo.nodes.size());
        for (uint32_t i = 0; i < count; ++i)
        {
            AddNode(kind, prefix + std::to_string(i));
        }
        return first;
    }

  private:
    ClusterTopology& m_topo;
    double m_delay;
};

/// Wire ToRs to per-group aggregation switches and those to core planes (fat-tree style).
void
WireAggAndCore(Builder& b,
               const ClusterTopology& topo,
               uint32_t numGroups,
               uint32_t aggsPerGroup,
               uint32_t cores,
               double torAggBps,
               double aggCoreBps)
{
    const uint32_t firstAgg = b.AddSwitches(ClusterNodeKind::AGG, "a", numGroups * aggsPerGroup);
    const uint32_t firstCore = b.AddSwitches(ClusterNodeKind::CORE, "c", cores);
    for (uint32_t t = 0; t < topo.torNode.size(); ++t)
    {
        for (uint32_t k = 0; k < aggsPerGroup; ++k)
        {
            b.AddSwitchCable(topo.torNode[t],
                             firstAgg + topo.torGroup[t] * aggsPerGroup + k,
                             torAggBps);
        }
    }
    const uint32_t perPlane = cores / aggsPerGroup;
    for (uint32_t g = 0; g < numGroups; ++g)
    {
        for (uint32_t k = 0; k < aggsPerGroup; ++k)
        {
            for (uint32_t c = 0; c < perPlane; ++c)
            {
                b.AddSwitchCable(firstAgg + g * aggsPerGroup + k,
                                 firstCore + k * perPlane + c,
                                 aggCoreBps);
            }
        }
    }
}

} // namespace

void
AddIntraHostLinks(ClusterTopology& topo, const IntraHostConfig& c)
{
    if (topo.HasIntraHostLinks())
    {
        throw std::invalid_argument("AddIntraHostLinks: topology '" + topo.name +
                                    "' already has intra-host links");
    }
    RequireRate(c.pcieBps, "intraHost.pcieBps");
    RequireDelay(c.pcieDelay, "intraHost.pcieDelay");
    RequireRate(c.nvlinkBps, "intraHost.nvlinkBps");
    RequireDelay(c.nvlinkDelay, "intraHost.nvlinkDelay");
    const uint32_t networkNodes = static_cast<uint32_t>(topo.nodes.size());
    const uint32_t networkLinks = static_cast<uint32_t>(topo.links.size());
    const uint32_t hosts = topo.NumHosts();
    std::vector<std::vector<uint32_t>> gpuPcie(hosts);
    std::vector<std::vector<uint32_t>> pcieNic(hosts);
    std::vector<std::vector<uint32_t>> gpuNvlink(hosts);
    auto addNode = [&](ClusterNodeKind kind, const std::string& name) {
        topo.nodes.push_back({kind, name});
        topo.nodeUp.emplace_back();
        topo.nodePorts.emplace_back();
        return static_cast<uint32_t>(topo.nodes.size() - 1);
    };
    // one cable lower <-> upper; nodePorts of intra-host nodes only
    auto addCable = [&](uint32_t lower,
                        uint32_t upper,
                        double bps,
                        double delay,
                        const std::string& lo,
                        const std::string& up) {
        const auto id = static_cast<uint32_t>(topo.links.size());
        topo.links.push_back({bps, lo + "->" + up});
        topo.linkEnds.emplace_back(lower, upper);
        topo.linkDelay.push_back(delay);
        topo.links.push_back({bps, up + "->" + lo});
        topo.linkEnds.emplace_back(upper, lower);
        topo.linkDelay.push_back(delay);
        if (lower >= networkNodes)
        {
            topo.nodePorts[lower].push_back(id);
        }
        topo.nodePorts[upper].push_back(id + 1);
        return id;
    };
    for (uint32_t h = 0; h < hosts; ++h)
    {
        const std::string hn = topo.nodes[topo.hostNode[h]].name;
        std::vector<uint32_t> gpu(topo.gpusPerHost);
        for (uint32_t g = 0; g < topo.gpusPerHost; ++g)
        {
            gpu[g] = addNode(ClusterNodeKind::GPU, hn + ".g" + std::to_string(g));
        }
        std::vector<uint32_t> pcie(topo.nicsPerHost);
        for (uint32_t n = 0; n < topo.nicsPerHost; ++n)
        {
            pcie[n] = addNode(ClusterNodeKind::PCIE, hn + ".pcie" + std::to_string(n));
        }
        const uint32_t nvs = addNode(ClusterNodeKind::NVSWITCH, hn + ".nvs");
        for (uint32_t g = 0; g < topo.gpusPerHost; ++g)
        {
            const uint32_t n = topo.NicOfGpu(g);
            gpuPcie[h].push_back(addCable(gpu[g],
                                          pcie[n],
                                          c.pcieBps,
                                          c.pcieDelay,
                                          topo.nodes[gpu[g]].name,
                                          topo.nodes[pcie[n]].name));
        }
        for (uint32_t n = 0; n < topo.nicsPerHost; ++n)
        {
            pcieNic[h].push_back(addCable(pcie[n],
                                          topo.hostNode[h],
                                          c.pcieBps,
                                          c.pcieDelay,
                                          topo.nodes[pcie[n]].name,
                                          hn + ".n" + std::to_string(n)));
        }
        for (uint32_t g = 0; g < topo.gpusPerHost; ++g)
        {
            gpuNvlink[h].push_back(addCable(gpu[g],
                                            nvs,
                                            c.nvlinkBps,
                                            c.nvlinkDelay,
                                            topo.nodes[gpu[g]].name,
                                            topo.nodes[nvs].name));
        }
    }
    // the host node's nodePorts stay the NIC ports: undo the NIC -> PCIe entries added above
    for (uint32_t h = 0; h < hosts; ++h)
    {
        auto& ports = topo.nodePorts[topo.hostNode[h]];
        ports.erase(std::remove_if(ports.begin(),
                                   ports.end(),
                                   [&](uint32_t l) { return l >= networkLinks; }),
                    ports.end());
    }
    topo.networkNodes = networkNodes;
    topo.networkLinks = networkLinks;
    topo.gpuPcie = std::move(gpuPcie);
    topo.pcieNic = std::move(pcieNic);
    topo.gpuNvlink = std::move(gpuNvlink);
    topo.intraHost = c;
    topo.intraHost.enabled = true;
}

ClosConfig
TestbedClosConfig()
{
    ClosConfig c;
    c.tors = 4;
    c.aggs = 2;
    c.hostsPerTor = 12;
    c.numHosts = 0;
    c.gpusPerHost = 8;
    c.nicsPerHost = 4;
    c.hostLinkBps = 200e9;
    c.torAggBps = 200e9;
    c.delay = 1e-6;
    c.wiring = "rail";
    return c;
}

ClusterTopology
BuildTwoLayerClos(const ClosConfig& c)
{
    RequirePositive(c.tors, "ClosConfig.tors");
    if (c.aggs == 0 && c.tors > 1)
    {
        throw std::invalid_argument("ClosConfig.aggs must be >= 1 with several ToRs (aggs = 0 is "
                                    "a star: one ToR)");
    }
    if (c.hostsPerTor == 0 && c.numHosts == 0)
    {
        throw std::invalid_argument(
            "ClosConfig.numHosts must be >= 1 when ClosConfig.hostsPerTor is 0");
    }
    RequireHostShape(c, "ClosConfig");
    RequireRate(c.hostLinkBps, "ClosConfig.hostLinkBps");
    RequireRate(c.torAggBps, "ClosConfig.torAggBps");
    RequireDelay(c.delay, "ClosConfig.delay");
    RequirePositive(c.linksPerTorAgg, "ClosConfig.linksPerTorAgg");
    const bool rail = c.wiring == "rail" || c.wiring == "rotated";
    if (!rail && c.wiring != "tor")
    {
        throw std::invalid_argument("ClosConfig.wiring must be \"tor\", \"rail\" or \"rotated\" "
                                    "(got \"" +
                                    c.wiring + "\")");
    }
    const uint32_t groupSize = rail ? c.nicsPerHost : 1;
    if (c.tors % groupSize != 0)
    {
        throw std::invalid_argument(
            "ClosConfig.tors (" + std::to_string(c.tors) + ") must be a multiple of nicsPerHost (" +
            std::to_string(c.nicsPerHost) + ") for " + c.wiring + " wiring");
    }
    const uint32_t groups = c.tors / groupSize;
    if (c.hostsPerTor == 0 && c.numHosts < groups)
    {
        // hosts spread evenly: a ToR (group) without a host is a switch that carries nothing
        throw std::invalid_argument("ClosConfig.numHosts (" + std::to_string(c.numHosts) +
                                    ") is fewer than the " + (rail ? "ToR groups (" : "ToRs (") +
                                    std::to_string(groups) +
                                    "): " + std::to_string(groups - c.numHosts) +
                                    " would have no host; give at least one host " +
                                    (rail ? "per group of nicsPerHost ToRs" : "per ToR"));
    }
    const uint64_t hosts64 = c.hostsPerTor > 0 ? uint64_t{groups} * c.hostsPerTor : c.numHosts;
    if (hosts64 > 65536)
    {
        throw std::invalid_argument("ClosConfig: " + std::to_string(hosts64) +
                                    " hosts exceed the 65,536 the NIC addressing allows");
    }
    const auto hosts = static_cast<uint32_t>(hosts64);
    RequireCables(hosts64 * c.nicsPerHost + uint64_t{c.tors} * c.aggs * c.linksPerTorAgg,
                  "ClosConfig",
                  "hosts x nicsPerHost + tors x aggs x linksPerTorAgg");
    ClusterTopology topo;
    topo.name = "clos";
    topo.gpusPerHost = c.gpusPerHost;
    topo.nicsPerHost = c.nicsPerHost;
    Builder b(topo, c.delay);
    b.AddHosts(hosts);
    b.AddTors(c.tors);
    const uint32_t firstAgg = b.AddSwitches(ClusterNodeKind::AGG, "a", c.aggs);
    topo.torGroup.assign(c.tors, 0);
    // host h belongs to ToR group g = the contiguous block [g*H/G, (g+1)*H/G)
    std::vector<uint32_t> group(hosts);
    for (uint32_t g = 0; g < groups; ++g)
    {
        const auto lo = static_cast<uint32_t>(uint64_t{g} * hosts / groups);
        const auto hi = static_cast<uint32_t>(uint64_t{g + 1} * hosts / groups);
        for (uint32_t h = lo; h < hi; ++h)
        {
            group[h] = g;
        }
    }
    const bool rotated = c.wiring == "rotated";
    auto torOf = [&](uint32_t h, uint32_t n) {
        return group[h] * groupSize + (rail ? (rotated ? (n + h) % groupSize : n) : 0);
    };
    topo.hostTor.resize(hosts);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        topo.hostTor[h] = torOf(h, 0);
    }
    b.AddRailCables(c.hostLinkBps, torOf);
    for (uint32_t t = 0; t < c.tors; ++t)
    {
        for (uint32_t a = 0; a < c.aggs; ++a)
        {
            for (uint32_t k = 0; k < c.linksPerTorAgg; ++k)
            {
                b.AddSwitchCable(topo.torNode[t], firstAgg + a, c.torAggBps);
            }
        }
    }
    LogBuilt(topo);
    return topo;
}

ClusterTopology
BuildDoubleSided(const DoubleSidedConfig& c)
{
    RequirePositive(c.tors, "DoubleSidedConfig.tors");
    if (c.tors % 2 != 0)
    {
        throw std::invalid_argument("DoubleSidedConfig.tors must be even (ToRs pair up), got " +
                                    std::to_string(c.tors));
    }
    const uint32_t pods = c.tors / 2;
    RequirePositive(c.aggs, "DoubleSidedConfig.aggs");
    if (c.aggs % pods != 0)
    {
        throw std::invalid_argument("DoubleSidedConfig.aggs must be a multiple of tors / 2 = " +
                                    std::to_string(pods));
    }
    const uint32_t aggsPerPod = c.aggs / pods;
    RequirePositive(c.cores, "DoubleSidedConfig.cores");
    if (c.cores % aggsPerPod != 0)
    {
        throw std::invalid_argument(
            "DoubleSidedConfig.cores must be a multiple of aggs / (tors / 2) = " +
            std::to_string(aggsPerPod));
    }
    RequirePositive(c.numHosts, "DoubleSidedConfig.numHosts");
    RequireHostShape(c, "DoubleSidedConfig");
    RequirePositive(c.portsPerNic, "DoubleSidedConfig.portsPerNic");
    RequireThreeTierLinks(c, "DoubleSidedConfig");
    RequireCables(uint64_t{c.numHosts} * c.nicsPerHost * c.portsPerNic +
                      uint64_t{c.tors} * aggsPerPod + uint64_t{c.aggs} * (c.cores / aggsPerPod),
                  "DoubleSidedConfig",
                  "hosts x NICs x ports + ToR-agg + agg-core cables");

    ClusterTopology topo;
    topo.name = "double-sided";
    topo.gpusPerHost = c.gpusPerHost;
    topo.nicsPerHost = c.nicsPerHost;
    Builder b(topo, c.delay);
    b.AddHosts(c.numHosts);
    b.AddTors(c.tors);
    topo.torGroup.resize(c.tors);
    for (uint32_t t = 0; t < c.tors; ++t)
    {
        topo.torGroup[t] = t / 2;
    }
    topo.hostTor.resize(c.numHosts);
    for (uint32_t p = 0; p < pods; ++p)
    {
        const auto lo = static_cast<uint32_t>(uint64_t{p} * c.numHosts / pods);
        const auto hi = static_cast<uint32_t>(uint64_t{p + 1} * c.numHosts / pods);
        for (uint32_t h = lo; h < hi; ++h)
        {
            topo.hostTor[h] = 2 * p;
        }
    }
    b.AddHostCables(c.portsPerNic, c.hostLinkBps);
    WireAggAndCore(b, topo, pods, aggsPerPod, c.cores, c.torAggBps, c.aggCoreBps);
    LogBuilt(topo);
    return topo;
}

ClusterTopology
BuildThreeTier(const std::vector<uint32_t>& hostTor,
               const std::vector<uint32_t>& torGroup,
               const ThreeTierConfig& c)
{
    if (hostTor.empty())
    {
        throw std::invalid_argument("BuildThreeTier: hostTor is empty");
    }
    if (torGroup.empty())
    {
        throw std::invalid_argument("BuildThreeTier: torGroup is empty");
    }
    for (std::size_t h = 0; h < hostTor.size(); ++h)
    {
        if (hostTor[h] >= torGroup.size())
        {
            throw std::invalid_argument("BuildThreeTier: hostTor[" + std::to_string(h) +
                                        "] = " + std::to_string(hostTor[h]) +
                                        " >= torGroup.size() " + std::to_string(torGroup.size()));
        }
    }
    const uint32_t numGroups = *std::max_element(torGroup.begin(), torGroup.end()) + 1;
    if (numGroups > torGroup.size())
    {
        throw std::invalid_argument("BuildThreeTier: torGroup has a group index (" +
                                    std::to_string(numGroups - 1) +
                                    ") >= the number of ToRs; groups must be dense 0..G-1");
    }
    RequirePositive(c.aggsPerGroup, "ThreeTierConfig.aggsPerGroup");
    RequirePositive(c.cores, "ThreeTierConfig.cores");
    if (c.cores % c.aggsPerGroup != 0)
    {
        throw std::invalid_argument(
            "ThreeTierConfig.cores must be a multiple of ThreeTierConfig.aggsPerGroup");
    }
    RequireHostShape(c, "ThreeTierConfig");
    RequireThreeTierLinks(c, "ThreeTierConfig");

    if (hostTor.size() > 65536)
    {
        throw std::invalid_argument("BuildThreeTier: " + std::to_string(hostTor.size()) +
                                    " hosts exceed the 65,536 the NIC addressing allows");
    }
    RequireCables(uint64_t{hostTor.size()} * c.nicsPerHost +
                      uint64_t{torGroup.size()} * c.aggsPerGroup + uint64_t{numGroups} * c.cores,
                  "ThreeTierConfig",
                  "hosts x nicsPerHost + tors x aggsPerGroup + groups x cores");
    const auto hosts = static_cast<uint32_t>(hostTor.size());
    const auto tors = static_cast<uint32_t>(torGroup.size());
    ClusterTopology topo;
    topo.name = c.name;
    topo.gpusPerHost = c.gpusPerHost;
    topo.nicsPerHost = c.nicsPerHost;
    topo.hostTor = hostTor;
    topo.torGroup = torGroup;
    Builder b(topo, c.delay);
    b.AddHosts(hosts);
    b.AddTors(tors);
    b.AddHostCables(1, c.hostLinkBps);
    WireAggAndCore(b, topo, numGroups, c.aggsPerGroup, c.cores, c.torAggBps, c.aggCoreBps);
    LogBuilt(topo);
    return topo;
}

ClusterTopology
BuildClusterTopology(const ClusterTopologySpec& spec)
{
    NS_LOG_FUNCTION(spec.type);
    if (spec.type == "clos")
    {
        return BuildTwoLayerClos(spec.clos);
    }
    if (spec.type == "double-sided")
    {
        return BuildDoubleSided(spec.doubleSided);
    }
    if (spec.type == "three-tier")
    {
        return BuildThreeTier(spec.hostTor, spec.torGroup, spec.threeTier);
    }
    throw std::invalid_argument("unknown topology type '" + spec.type +
                                "' (known: clos, double-sided, three-tier)");
}

} // namespace ns3
