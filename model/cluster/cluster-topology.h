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

#ifndef CRUX_CLUSTER_TOPOLOGY_H
#define CRUX_CLUSTER_TOPOLOGY_H

// Pure C++ (no ns-3 includes, no simulator): compiled into the crux-scheduling library.

#include "ns3/crux-types.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

/*
 * The one cluster description of crux: hosts (GPUs, NICs with their ports), switches, and the
 * directed links between them, with their rates and delays. Every part of the module that needs
 * the cluster reads it from here:
 *  - the packet fabric: CruxTopologyHelper::Install() turns it into ns-3 nodes, QbbNetDevices
 *    and CruxSwitches (one device pair per cable, in link order; switch ports in cabling order,
 *    nodePorts) and installs each switch's ECMP groups from ShortestPathHops();
 *  - the flow fabric (FlowTransport) and the live cluster fabric of trace runs: one fluid link
 *    per directed link;
 *  - the scheduler's cluster model (ClusterModel links, candidate paths from EqualCostPaths());
 *  - GPU placement (gpu-placement.h) and the trace-driven runs.
 *
 * Builders: the two-layer Clos of the scenario files, the paper's testbed and §6.3
 * (BuildTwoLayerClos(), with "tor", "rail" or "rotated" NIC wiring), the "double-sided"
 * three-layer topology (BuildDoubleSided()), and a three-tier topology from a host -> ToR ->
 * aggregation-group membership, e.g. the real Lingjun topo.csv (BuildThreeTier()).
 *
 * Model. Nodes are hosts (first, node id = host index), ToRs, aggregation and core switches.
 * Every cable is two directed links (SchedLink, bit/s), created consecutively: the upward one
 * (towards the core) at an even id 2k, the downward one at 2k + 1. A host has nicsPerHost NICs;
 * GPU g of a host uses NIC g * nicsPerHost / gpusPerHost. Each NIC has one or more ports, each
 * port one cable to a ToR (the double-sided topology gives every NIC two ports, one to each of
 * the host's two ToRs). By default intra-host traffic (NVLink/PCIe) uses no modelled link;
 * AddIntraHostLinks() adds them (IntraHostConfig): per host one GPU node per GPU, one PCIe switch
 * per NIC (shared by the GPUs of that NIC, e.g. a GPU pair, as on the paper's testbed hosts) and
 * one NVSwitch, with GPU <-> PCIe switch, PCIe switch <-> NIC (the host node) and GPU <-> NVSwitch
 * cables. Those nodes and links come after every network node and link (ids >=
 * NumNetworkNodes() / NumNetworkLinks()), so the network part keeps its numbering; GpuPath() and
 * EqualCostGpuPaths() give GPU-to-GPU paths that include them.
 *
 * Routing: shortest valley-free (up*-down*) paths, as ECMP computes them in a Clos: hosts never
 * forward, a packet climbs from the source NIC to the lowest tier where its source and
 * destination share a switch, then descends to the destination NIC. See EqualCostPaths() and
 * ShortestPathHops() (the same set of paths, as a list and as per-switch next hops).
 *
 * Bandwidths and delays are not given by the paper nor by the trace (data/lingjun-2023/
 * SOURCE.md: "There are no link speeds"); every such default below is marked ASSUMPTION and is
 * taken from the paper's testbed (Crux §6.1: hosts with 8 x A100 and 4 x 200 Gbps RDMA NICs,
 * one NIC per GPU pair) where possible.
 */

namespace ns3
{

/// \ingroup crux-scheduling
/// \brief Tier of a node of a ClusterTopology.
enum class ClusterNodeKind
{
    HOST,    //!< a GPU server (tier 0)
    TOR,     //!< top-of-rack / access switch (ASW, tier 1)
    AGG,     //!< aggregation switch (PSW, tier 2)
    CORE,    //!< core switch (DSW, tier 3)
    GPU,     //!< a GPU inside a host (intra-host node, AddIntraHostLinks())
    PCIE,    //!< a PCIe switch inside a host (intra-host node)
    NVSWITCH //!< a host's NVSwitch (intra-host node)
};

/// \return "host", "tor", "agg", "core", "gpu", "pcie" or "nvswitch"
std::string ToString(ClusterNodeKind kind);

/// \ingroup crux-scheduling
/// \brief One node of a ClusterTopology.
struct ClusterNode
{
    ClusterNodeKind kind{ClusterNodeKind::HOST}; //!< tier
    std::string name;                            //!< unique label, e.g. "h12", "t3", "a0", "c5"
};

/**
 * \ingroup crux-scheduling
 * \brief Intra-host links of every host (AddIntraHostLinks()): PCIe from each GPU to its NIC
 * through a PCIe switch per NIC, NVLink from each GPU to the host's NVSwitch.
 *
 * Rate convention (workloads-fabric-facts.md §4 and open point 8: one convention per link type):
 * PCIe uses NCCL's *effective* rate, NVLink the *nominal* one (as RdmaTransport's and
 * FlowTransport's IntraHostRate, so a flow-fabric NVLink message takes the same time with or
 * without these links).
 */
struct IntraHostConfig
{
    /// Add the links (false: the topology has none; every result of crux without them is
    /// unchanged).
    bool enabled{false};
    /// Rate of each GPU <-> PCIe switch and PCIe switch <-> NIC link, per direction, bit/s.
    /// Source: NCCL's model of a PCIe Gen4 x16 link, 24 GB/s = 192 Gbit/s (NVIDIA/nccl
    /// src/graph/topo.cc kvDictPciGen: width x 120 / 80 in units of 100 Mb/s); raw Gen4 x16 is
    /// 31.5 GB/s (16 GT/s, 128b/130b coding) -- workloads-fabric-facts.md §4.
    double pcieBps{192e9};
    /// One-way latency of each PCIe link, seconds. ASSUMPTION: half of NCCL's per-hop PCI
    /// latency (1.0 us, LL protocol, NVIDIA/nccl src/graph/tuning.cc), so GPU -> PCIe switch ->
    /// NIC costs NCCL's 1.0 us.
    double pcieDelay{0.5e-6};
    /// Rate of each GPU <-> NVSwitch link (all NVLinks of the GPU bonded), per direction,
    /// bit/s. Source: A100 NVLink 3, 12 links x 25 GB/s = 300 GB/s per direction
    /// (workloads-fabric-facts.md §4; the link count and per-link rate are marked [R] there).
    double nvlinkBps{2400e9};
    /// One-way latency of each GPU <-> NVSwitch link, seconds. ASSUMPTION: half of NCCL's
    /// per-hop NVLink latency (0.6 us, LL protocol, tuning.cc), so GPU -> NVSwitch -> GPU costs
    /// NCCL's 0.6 us.
    double nvlinkDelay{0.3e-6};
};

/**
 * \ingroup crux-scheduling
 * \brief The cluster description: hosts, switches and directed links (see the file comment).
 *
 * Node ids index nodes; link ids index links, linkEnds and linkDelay (same length). Hosts are
 * numbered 0..NumHosts()-1 ("host index") and are the first nodes (hostNode[h] == h); switches
 * follow (switch index = node id - NumHosts()). ToRs are numbered 0..torNode.size()-1
 * ("ToR index"); torNode maps them to node ids. Build one with BuildTwoLayerClos(),
 * BuildDoubleSided() or BuildThreeTier(); the fields after torGroup are routing tables filled
 * by the builders.
 */
struct ClusterTopology
{
    std::string name;               //!< "clos", "double-sided" or "lingjun" (or the caller's)
    std::vector<ClusterNode> nodes; //!< node id = index
    /// directed links, link id = index; bandwidth in bit/s, name "a->b" (node names); for
    /// parallel links (several NIC ports of one host to one ToR) the name carries the port:
    /// "h3.n1p0->t1" (host 3, NIC 1, port 0).
    std::vector<SchedLink> links;
    std::vector<std::pair<uint32_t, uint32_t>> linkEnds; //!< link id -> (from node, to node)
    std::vector<double> linkDelay;  //!< link id -> one-way propagation delay, seconds
    uint32_t gpusPerHost{8};        //!< GPUs per host (every host alike)
    uint32_t nicsPerHost{8};        //!< NICs per host; NIC of GPU g = g * nicsPerHost / gpusPerHost
    std::vector<uint32_t> hostNode; //!< host index -> node id
    std::vector<uint32_t> hostTor;  //!< host index -> ToR index (its first ToR)
    std::vector<uint32_t> torNode;  //!< ToR index -> node id
    std::vector<uint32_t> torGroup; //!< ToR index -> aggregation group (pod) index

    /// Routing table: nicUp[host index][nic] = ids of the upward links (one per NIC port, port
    /// order) leaving that NIC.
    std::vector<std::vector<std::vector<uint32_t>>> nicUp;
    /// Routing table: nodeUp[node id] = ids of the upward links leaving a switch (empty for
    /// hosts, whose uplinks are in nicUp, and for core switches), in creation order.
    std::vector<std::vector<uint32_t>> nodeUp;
    /// Ports: nodePorts[node id] = ids of the links leaving that node, in cabling order; a
    /// switch's port p is nodePorts[node][p] (the packet fabric numbers the switch's devices
    /// this way), a host's entries are its NIC ports (NIC-major, then port).
    std::vector<std::vector<uint32_t>> nodePorts;

    /// The intra-host links' configuration (enabled = false: none were added).
    IntraHostConfig intraHost;
    /// Network nodes / links before AddIntraHostLinks() (0 = no intra-host part: every node and
    /// link is a network one).
    uint32_t networkNodes{0};
    uint32_t networkLinks{0}; //!< see networkNodes
    /// gpuPcie[host][gpu] = id of the link GPU -> its PCIe switch (the reverse link is id + 1);
    /// empty without intra-host links.
    std::vector<std::vector<uint32_t>> gpuPcie;
    /// pcieNic[host][nic] = id of the link PCIe switch -> NIC (id + 1: NIC -> PCIe switch).
    std::vector<std::vector<uint32_t>> pcieNic;
    /// gpuNvlink[host][gpu] = id of the link GPU -> NVSwitch (id + 1: NVSwitch -> GPU).
    std::vector<std::vector<uint32_t>> gpuNvlink;

    /// \return true if AddIntraHostLinks() added intra-host links
    bool HasIntraHostLinks() const;
    /// \return the number of network links (ids 0..NumNetworkLinks()-1): networkLinks with
    ///         intra-host links, else links.size()
    uint32_t NumNetworkLinks() const;
    /// \return the number of network nodes (hosts and switches; intra-host nodes follow)
    uint32_t NumNetworkNodes() const;

    /**
     * \brief The full GPU-to-GPU path of a network path: with intra-host links, the source
     * GPU's PCIe links (GPU -> PCIe switch -> NIC), the network path, the destination's PCIe
     * links (NIC -> PCIe switch -> GPU); between two GPUs of one host the NVLink path (GPU ->
     * NVSwitch -> GPU; empty for the same GPU). Without intra-host links: networkPath as is.
     * \param srcHost source host \param srcGpu its GPU \param dstHost destination host
     * \param dstGpu its GPU
     * \param networkPath a path between the GPUs' NICs (ignored when srcHost == dstHost)
     * \return link ids in travel order; throws std::out_of_range for a bad host or GPU index
     */
    std::vector<uint32_t> GpuPath(uint32_t srcHost,
                                  uint32_t srcGpu,
                                  uint32_t dstHost,
                                  uint32_t dstGpu,
                                  const std::vector<uint32_t>& networkPath) const;

    /**
     * \brief EqualCostPaths() with each path extended by GpuPath() (same order, same count;
     * with intra-host links a same-host pair gets its NVLink path).
     * \param srcHost source host \param srcGpu its GPU \param dstHost destination host
     * \param dstGpu its GPU \param maxPaths cap (>= 1)
     * \return paths; throws as EqualCostPaths()
     */
    std::vector<std::vector<uint32_t>> EqualCostGpuPaths(uint32_t srcHost,
                                                         uint32_t srcGpu,
                                                         uint32_t dstHost,
                                                         uint32_t dstGpu,
                                                         uint32_t maxPaths = 64) const;

    /// \return number of hosts (hostNode.size())
    uint32_t NumHosts() const;
    /// \return NumHosts() * gpusPerHost
    uint32_t NumGpus() const;
    /// \return number of ToRs (torNode.size())
    uint32_t NumTors() const;
    /// \return the NIC index of GPU gpu (gpu * nicsPerHost / gpusPerHost);
    ///         throws std::out_of_range if gpu >= gpusPerHost
    uint32_t NicOfGpu(uint32_t gpu) const;
    /// \return number of switches (NumNetworkNodes() - NumHosts())
    uint32_t NumSwitches() const;
    /// \return the ports each NIC has (nicUp[0][0].size(); every NIC alike), 0 without hosts
    uint32_t PortsPerNic() const;
    /// \return true if node is a network switch (ToR, aggregation or core); throws
    ///         std::out_of_range for a bad id
    bool IsSwitch(uint32_t node) const;

    /**
     * \brief Shortest-path hop counts towards one switch, over switch-to-switch links.
     *
     * Breadth-first search (Boost Graph Library) on the reversed switch graph: hops[n] is the
     * number of switch-to-switch links on a shortest path from switch node n to node target;
     * hops[target] = 0, -1 for unreachable switches and for hosts. The packet fabric's ECMP
     * group of switch s towards a NIC behind ToR t is every port of s whose link leads to a
     * switch u with hops[u] == hops[s] - 1 (valley-free shortest paths in the builders'
     * topologies, the same set EqualCostPaths() lists).
     * \param target a switch node id; throws std::out_of_range for a bad id or a host node
     * \return hop count per node id (size nodes.size())
     */
    std::vector<int32_t> ShortestPathHops(uint32_t target) const;

    /**
     * \brief Why a path is not a route between two GPUs' NICs ("" if it is): link ids known
     * and not repeated, consecutive, leaving the source GPU's NIC and entering the
     * destination GPU's NIC.
     * \param path directed link ids \param srcHost source host \param srcGpu its GPU
     * \param dstHost destination host (!= srcHost) \param dstGpu its GPU
     * \return "" or one sentence naming the first problem
     */
    std::string CheckPath(const std::vector<uint32_t>& path,
                          uint32_t srcHost,
                          uint32_t srcGpu,
                          uint32_t dstHost,
                          uint32_t dstGpu) const;

    /**
     * \brief Equal-cost shortest paths between two NICs (EqualCostPaths() of their GPUs).
     * \param srcHost source host index
     * \param srcNic NIC index on srcHost (0..nicsPerHost-1)
     * \param dstHost destination host index
     * \param dstNic NIC index on dstHost
     * \param maxPaths cap on the number of paths (>= 1)
     * \return as EqualCostPaths(); for srcHost == dstHost and different NICs the paths through
     *         the NICs' common ToR (one hop up, one down), {{}} for the same NIC
     * Throws std::out_of_range / std::invalid_argument as EqualCostPaths().
     */
    std::vector<std::vector<uint32_t>> EqualCostNicPaths(uint32_t srcHost,
                                                         uint32_t srcNic,
                                                         uint32_t dstHost,
                                                         uint32_t dstNic,
                                                         uint32_t maxPaths = 64) const;

    /// \return the id of the link in the opposite direction of link id (id ^ 1)
    static uint32_t Reverse(uint32_t id)
    {
        return id ^ 1U;
    }

    /**
     * \brief Equal-cost shortest paths between two GPUs' NICs.
     *
     * Paths are valley-free: from the source NIC's ports up to the lowest tier at which a switch
     * is reachable upward from both NICs (the "meeting" switches), then down to the destination
     * NIC's port. Each path is the ordered list of link ids (link i's to-node is link i+1's
     * from-node; the first link leaves srcHost's node, the last one enters dstHost's node).
     *
     * Deterministic order: meeting switches are visited round-robin in ascending node id (one
     * path per switch per round), so that any prefix of the list spreads over the meeting
     * switches; at one meeting switch with a up-halves from the source (in creation order of
     * the links) and b up-halves from the destination, round k takes up-half k % a with
     * down-half (k / a + k % a) % b (a diagonal walk, so a prefix also spreads over both
     * sides' first hops). maxPaths caps the list: only the first maxPaths paths in this order
     * are returned. With the defaults of the three builders the full sets have 1 (same ToR),
     * 16 (Clos, other ToR),
     * and 1 / 8 / 64 (Lingjun: same ToR / same group / other group) paths; the double-sided
     * topology has 2 (same ToR pair = same pod: via either ToR) and 2 x 4 x 8 x 2 = 128 (other
     * pod) paths, and only that inter-pod set is cut by the default cap of 64 (the first 64
     * use every core switch twice: once via both even ToRs, once via both odd ToRs).
     *
     * \param srcHost source host index
     * \param srcGpu GPU index on srcHost (0..gpusPerHost-1)
     * \param dstHost destination host index
     * \param dstGpu GPU index on dstHost
     * \param maxPaths cap on the number of paths returned (>= 1)
     * \return paths; {{}} (one empty path) when srcHost == dstHost (intra-host traffic uses no
     *         modelled link); empty if the NICs are not connected
     * Throws std::out_of_range for a bad host or GPU index, std::invalid_argument for
     * maxPaths == 0.
     */
    std::vector<std::vector<uint32_t>> EqualCostPaths(uint32_t srcHost,
                                                      uint32_t srcGpu,
                                                      uint32_t dstHost,
                                                      uint32_t dstGpu,
                                                      uint32_t maxPaths = 64) const;
};

/**
 * \ingroup crux-scheduling
 * \brief The path index plain ECMP hashing picks for a flow.
 *
 * A fixed integer hash (splitmix64 finalizer, applied in a chain to seed, jobId and flowId) of
 * the flow identity, modulo numPaths. Pure and deterministic across platforms and runs.
 *
 * \param seed hash seed (e.g. the run's seed)
 * \param jobId job id
 * \param flowId flow id within the job
 * \param numPaths number of candidate paths (>= 1)
 * \return an index in [0, numPaths); throws std::invalid_argument if numPaths == 0
 */
uint32_t EcmpPathIndex(uint64_t seed, uint32_t jobId, uint32_t flowId, uint32_t numPaths);

/**
 * \ingroup crux-scheduling
 * \brief Configuration of a two-layer Clos (BuildTwoLayerClos()): the §6.3 trace topology (the
 * defaults), the scenario files' Clos and the paper's testbed (TestbedClosConfig()).
 *
 * Every ToR is wired to every aggregation switch by linksPerTorAgg cables. The ToRs form
 * groups of nicsPerHost ToRs ("rail" and "rotated" wiring) or of one ToR ("tor" wiring); the
 * hosts are spread over the groups, and host h's NIC n is cabled to ToR
 *  - "tor": the group's ToR (all NICs of a host on one ToR; the §6.3 reading);
 *  - "rail": group * nicsPerHost + n (NIC n of every host on the n-th ToR of its group: a
 *    rail-optimised Clos, the scenario files' default);
 *  - "rotated": group * nicsPerHost + (n + h) % nicsPerHost (the testbed wiring of
 *    scenarios/testbed-gpt-bert.json, so that rings of different hosts use different rails).
 */
struct ClosConfig
{
    /// ToR switches. Source: Crux §6.3 ("173 ToR").
    uint32_t tors{173};
    /// Aggregation switches. Source: Crux §6.3 ("16 aggregation switches").
    uint32_t aggs{16};
    /// Hosts per ToR; if > 0 the Clos has tors * hostsPerTor hosts and numHosts is ignored.
    /// Default 0: use numHosts.
    uint32_t hostsPerTor{0};
    /// Total hosts (used when hostsPerTor == 0), spread as evenly as possible over the ToRs in
    /// contiguous blocks (ToR t gets hosts [t*H/T, (t+1)*H/T)). ASSUMPTION: the paper gives no
    /// host count, only "2,000+ GPUs" for the trace (§6.3); 250 hosts x 8 GPUs = 2,000 GPUs
    /// (77 ToRs get 2 hosts, 96 ToRs get 1).
    uint32_t numHosts{250};
    /// GPUs per host. Source: testbed (Crux §6.1: 8 x A100 per host) and Lingjun pods asking for
    /// 8 GPUs (SOURCE.md).
    uint32_t gpusPerHost{8};
    /// NICs per host, one cable each to the host's ToR. Source: testbed (Crux §6.1, 4 NICs).
    uint32_t nicsPerHost{4};
    /// Host-ToR link rate per NIC, bit/s. Source: testbed (Crux §6.1, 200 Gbps NICs).
    double hostLinkBps{200e9};
    /// ToR-aggregation link rate, bit/s. ASSUMPTION: 200 Gbps (a ToR with 2 hosts has 1.6 Tbit/s
    /// down and 16 x 200 Gbps = 3.2 Tbit/s up, i.e. no oversubscription).
    double torAggBps{200e9};
    /// One-way propagation delay of every link, seconds. ASSUMPTION: 1 us.
    double delay{1e-6};
    /// Parallel cables per ToR-aggregation pair (>= 1).
    uint32_t linksPerTorAgg{1};
    /// NIC wiring: "tor", "rail" or "rotated" (see the struct comment); the ToR count must be a
    /// multiple of nicsPerHost for "rail" and "rotated".
    std::string wiring{"tor"};
};

/**
 * \ingroup crux-scheduling
 * \return the paper's testbed (Crux §6.1: 12 hosts of 8 A100 GPUs and 4 x 200 Gbps NICs, one
 *         NIC per GPU pair; 4 ToRs, 2 aggregation switches, 200 Gbps links, 1 us; "rail"
 *         wiring, one group of 4 ToRs). The switch counts and link rates of the testbed fabric
 *         are our ASSUMPTION (the paper describes the hosts, not the fabric).
 */
ClosConfig TestbedClosConfig();

/**
 * \ingroup crux-scheduling
 * \brief Build the two-layer Clos.
 *
 * Node ids: hosts 0..H-1 ("h<i>"), then ToRs ("t<i>"), then aggregation switches ("a<i>").
 * Link ids: per host, per NIC: up, down; then per ToR t, per aggregation a, per parallel cable:
 * up, down. One aggregation group (torGroup = 0 for all); hostTor = the ToR of the host's NIC 0.
 * With one ToR and aggs = 0 it is a star (every host on one switch).
 * Defaults: 250 + 173 + 16 = 439 nodes; 2 x (250 x 4 + 173 x 16) = 7,536 directed links;
 * 2,000 GPUs.
 * \param config see ClosConfig; throws std::invalid_argument naming a bad field (zero
 *        count, non-positive rate, negative delay, unknown wiring, ToRs not a multiple of
 *        nicsPerHost for rail wiring, aggs = 0 with several ToRs)
 */
ClusterTopology BuildTwoLayerClos(const ClosConfig& config);

/**
 * \ingroup crux-scheduling
 * \brief Configuration of the double-sided topology of Crux §6.3 (BuildDoubleSided()).
 *
 * Our reading (the paper gives only the switch counts and "each host connects to two ToRs via
 * eight links"), after Alibaba's dual-ToR design: ToRs form pairs (ToR 2p, ToR 2p+1) = pod p;
 * every NIC of a host has two ports, port 0 cabled to the pair's even ToR and port 1 to its odd
 * ToR, so 4 NICs x 2 ports = 8 links per host and every GPU reaches both ToRs. Each pod has
 * aggsPerPod aggregation switches (aggs / pods), each ToR of the pod is wired to all of them;
 * the core is split into aggsPerPod planes of cores / aggsPerPod switches, and the k-th
 * aggregation switch of every pod is wired to every core switch of plane k (a fat-tree).
 */
struct DoubleSidedConfig
{
    /// ToR switches (even: they pair up). Source: Crux §6.3 ("6 ToR").
    uint32_t tors{6};
    /// Aggregation switches; must be a multiple of tors / 2 (pods). Source: Crux §6.3 ("12").
    uint32_t aggs{12};
    /// Core switches; must be a multiple of aggs / pods (planes). Source: Crux §6.3 ("32").
    uint32_t cores{32};
    /// Total hosts, spread evenly over the ToR pairs in contiguous blocks. ASSUMPTION: 250 hosts
    /// x 8 GPUs = 2,000 GPUs, the same cluster size as the Clos (paper: "2,000+ GPUs").
    uint32_t numHosts{250};
    /// GPUs per host. Source: testbed (Crux §6.1).
    uint32_t gpusPerHost{8};
    /// NICs per host. Source: testbed (Crux §6.1: 4 NICs); x 2 ports = the paper's 8 links.
    uint32_t nicsPerHost{4};
    /// Ports per NIC, port p cabled to ToR (p % 2) of the pair. ASSUMPTION: 2 (dual-ToR).
    uint32_t portsPerNic{2};
    /// Host-ToR link rate per NIC port, bit/s. ASSUMPTION: 100 Gbps (a 200 Gbps testbed NIC
    /// split over its two ports; 800 Gbit/s per host, as in the Clos).
    double hostLinkBps{100e9};
    /// ToR-aggregation link rate, bit/s. ASSUMPTION: 400 Gbps.
    double torAggBps{400e9};
    /// Aggregation-core link rate, bit/s. ASSUMPTION: 400 Gbps.
    double aggCoreBps{400e9};
    /// One-way propagation delay of every link, seconds. ASSUMPTION: 1 us.
    double delay{1e-6};
};

/**
 * \ingroup crux-scheduling
 * \brief Build the double-sided topology.
 *
 * Node ids: hosts, ToRs, aggregation switches (pod p owns aggs [p*A, (p+1)*A)), core switches
 * (plane k owns cores [k*C, (k+1)*C)). Link ids: per host, per NIC, per port: up, down; then
 * ToR-agg cables; then agg-core cables. hostTor = the pair's even ToR; torGroup = pod.
 * Defaults: 250 + 6 + 12 + 32 = 300 nodes; 2 x (250 x 8 + 6 x 4 + 12 x 8) = 4,240 directed
 * links; 2,000 GPUs.
 * \param config see DoubleSidedConfig; throws std::invalid_argument naming a bad field
 */
ClusterTopology BuildDoubleSided(const DoubleSidedConfig& config);

/**
 * \ingroup crux-scheduling
 * \brief Configuration of a three-tier topology built from a membership (BuildThreeTier()),
 * e.g. the real Lingjun topology (topo.csv gives only the membership: host -> ASW (ToR) ->
 * PSW (aggregation group) -> DSW (one core group, "G6")).
 *
 * Each group (PSW) has aggsPerGroup aggregation switches, each ToR of the group wired to all of
 * them; the core is split into aggsPerGroup planes of cores / aggsPerGroup switches and the
 * k-th aggregation switch of every group is wired to every core of plane k.
 */
struct ThreeTierConfig
{
    /// Aggregation switches per group. ASSUMPTION: 8 (topo.csv names groups, not switches).
    uint32_t aggsPerGroup{8};
    /// Core switches (a multiple of aggsPerGroup). ASSUMPTION: 64 (8 per plane), so hosts in
    /// different groups have 8 x 8 = 64 equal-cost paths.
    uint32_t cores{64};
    /// GPUs per host. Source: Lingjun pods mostly ask for 8 GPUs (SOURCE.md), testbed 8 x A100.
    uint32_t gpusPerHost{8};
    /// NICs per host, one cable each to the host's ToR. ASSUMPTION from the testbed (4 x 200G).
    uint32_t nicsPerHost{4};
    /// Host-ToR link rate per NIC, bit/s. ASSUMPTION from the testbed (200 Gbps).
    double hostLinkBps{200e9};
    /// ToR-aggregation link rate, bit/s. ASSUMPTION: 400 Gbps (a full ToR of 8 hosts has
    /// 6.4 Tbit/s down, 3.2 Tbit/s up: 2:1 oversubscribed).
    double torAggBps{400e9};
    /// Aggregation-core link rate, bit/s. ASSUMPTION: 400 Gbps.
    double aggCoreBps{400e9};
    /// One-way propagation delay of every link, seconds. ASSUMPTION: 1 us.
    double delay{1e-6};
    /// ClusterTopology::name of the result.
    std::string name{"lingjun"};
};

/**
 * \ingroup crux-scheduling
 * \brief Build hosts -> ToRs -> aggregation groups -> core from a membership.
 *
 * Node ids: hosts (in hostTor order), ToRs, aggregation switches (group g owns
 * [g*A, (g+1)*A)), core switches. With the real Lingjun topo.csv (847 hosts, 119 ToRs,
 * 3 groups) and the defaults: 847 + 119 + 24 + 64 = 1,054 nodes;
 * 2 x (847 x 4 + 119 x 8 + 24 x 8) = 9,064 directed links; 6,776 GPUs.
 *
 * \param hostTor hostTor[h] = ToR index of host h (e.g. LingjunTopology::hostTor)
 * \param torGroup torGroup[t] = group of ToR t (e.g. LingjunTopology::torPsw); groups are
 *        0..max; every ToR index in hostTor must be < torGroup.size()
 * \param config see ThreeTierConfig
 * Throws std::invalid_argument naming the bad field or argument (empty membership, ToR index
 * out of range, zero counts, non-positive rates).
 */
ClusterTopology BuildThreeTier(const std::vector<uint32_t>& hostTor,
                               const std::vector<uint32_t>& torGroup,
                               const ThreeTierConfig& config);

/**
 * \ingroup crux-scheduling
 * \brief Add the intra-host links of every host to a built topology (see IntraHostConfig and
 * the file comment). Per host h, in host order: GPU nodes "h<h>.g<i>", PCIe switch nodes
 * "h<h>.pcie<n>" (one per NIC), one NVSwitch node "h<h>.nvs"; cables (up link at an even id,
 * down link next) GPU -> PCIe switch of its NIC (NicOfGpu()), PCIe switch -> NIC (the host node,
 * named "h<h>.n<n>"), GPU -> NVSwitch. Per host 2 x (2 G + N) directed links (G GPUs, N NICs).
 * Network nodes and links keep their ids; nodePorts of the host node is not changed (it lists
 * the NIC ports of the packet fabric).
 * \param topo a topology built by a Build* function, without intra-host links
 * \param config rates (positive finite bit/s) and delays (finite, >= 0 s); enabled is ignored
 *        (the call enables them)
 * Throws std::invalid_argument naming the bad field, or if topo already has intra-host links.
 */
void AddIntraHostLinks(ClusterTopology& topo, const IntraHostConfig& config);

} // namespace ns3

#endif // CRUX_CLUSTER_TOPOLOGY_H
