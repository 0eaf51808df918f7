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

#include "scenario-topology.h"

#include "ns3/boolean.h"
#include "ns3/checked-parse.h"
#include "ns3/crux-switch.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/flow-transport-helper.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/uinteger.h"

#include <string>

namespace ns3
{

namespace
{

/// The Clos view of a scenario's topology: its counts, rates and delay (TestbedClosConfig()'s
/// for "testbed"), the scenario's wiring.
ClosConfig
ScenarioClosConfig(const ScenarioTopology& tp)
{
    ClosConfig cc = TestbedClosConfig();
    if (tp.type != "testbed")
    {
        cc.tors = tp.tors;
        cc.aggs = tp.aggs;
        cc.hostsPerTor = tp.hostsPerTor;
        cc.numHosts = 0;
        cc.nicsPerHost = tp.nicsPerHost;
        cc.gpusPerHost = tp.gpusPerHost;
        cc.hostLinkBps = static_cast<double>(
            ParseDataRate(tp.hostLinkRate, "topology.hostLinkRate").GetBitRate());
        cc.torAggBps = static_cast<double>(
            ParseDataRate(tp.fabricLinkRate, "topology.fabricLinkRate").GetBitRate());
        cc.delay = ParseTime(tp.linkDelay, "topology.linkDelay").GetSeconds();
    }
    cc.wiring = tp.wiring;
    return cc;
}

/// The aggregation-core rate of "three-tier" and "double-sided", bit/s: coreLinkRate, or the
/// ToR-aggregation rate of \p cc if it is not given.
double
AggCoreBps(const ScenarioTopology& tp, const ClosConfig& cc)
{
    return tp.coreLinkRate.empty()
               ? cc.torAggBps
               : static_cast<double>(
                     ParseDataRate(tp.coreLinkRate, "topology.coreLinkRate").GetBitRate());
}

/**
 * The scenario's "three-tier" topology (BuildThreeTier()): tors ToRs of hostsPerTor hosts each,
 * ToR t in aggregation group t / torsPerGroup, aggs / groups aggregation switches per group,
 * cores core switches; every NIC of a host on its ToR.
 * \param tp the scenario's topology fields (checked by Scenario::ValidateThreeTier())
 * \param cc the Clos view of the same fields (counts, host/ToR-agg rates and delay parsed)
 * \param spec receives the membership and ThreeTierConfig
 */
void
SetThreeTier(const ScenarioTopology& tp, const ClosConfig& cc, ClusterTopologySpec& spec)
{
    spec.hostTor.resize(static_cast<size_t>(tp.tors) * tp.hostsPerTor);
    for (size_t h = 0; h < spec.hostTor.size(); ++h)
    {
        spec.hostTor[h] = static_cast<uint32_t>(h / tp.hostsPerTor);
    }
    spec.torGroup.resize(tp.tors);
    for (uint32_t t = 0; t < tp.tors; ++t)
    {
        spec.torGroup[t] = t / tp.torsPerGroup;
    }
    ThreeTierConfig& tc = spec.threeTier;
    tc.aggsPerGroup = tp.aggs / (tp.tors / tp.torsPerGroup);
    tc.cores = tp.cores;
    tc.gpusPerHost = cc.gpusPerHost;
    tc.nicsPerHost = cc.nicsPerHost;
    tc.hostLinkBps = cc.hostLinkBps;
    tc.torAggBps = cc.torAggBps;
    tc.aggCoreBps = AggCoreBps(tp, cc);
    tc.delay = cc.delay;
    tc.name = "three-tier";
}

/**
 * The scenario's "double-sided" topology (BuildDoubleSided(), the paper's §6.3 double-sided
 * topology): tors / 2 ToR pairs with hostsPerTor hosts each (every host under both ToRs of its
 * pair), every NIC with two ports (port p to ToR p of the pair), aggs / (tors / 2) aggregation
 * switches per pair, cores core switches in planes.
 * \param tp the scenario's topology fields (checked by Scenario::ValidateDoubleSided())
 * \param cc the Clos view of the same fields (counts, host/ToR-agg rates and delay parsed)
 * \return the builder's configuration
 */
DoubleSidedConfig
ScenarioDoubleSided(const ScenarioTopology& tp, const ClosConfig& cc)
{
    DoubleSidedConfig dc;
    dc.tors = tp.tors;
    dc.aggs = tp.aggs;
    dc.cores = tp.cores;
    dc.numHosts = tp.tors / 2 * tp.hostsPerTor;
    dc.gpusPerHost = cc.gpusPerHost;
    dc.nicsPerHost = cc.nicsPerHost;
    dc.portsPerNic = 2;
    dc.hostLinkBps = cc.hostLinkBps;
    dc.torAggBps = cc.torAggBps;
    dc.aggCoreBps = AggCoreBps(tp, cc);
    dc.delay = cc.delay;
    return dc;
}

/// The intra-host links of a scenario ("topology.intraHost"), rates and latencies parsed.
IntraHostConfig
ScenarioIntraHost(const ScenarioTopology::IntraHost& in)
{
    IntraHostConfig ih;
    ih.pcieBps =
        static_cast<double>(ParseDataRate(in.pcieRate, "topology.intraHost.pcieRate").GetBitRate());
    ih.pcieDelay = ParseTime(in.pcieLatency, "topology.intraHost.pcieLatency").GetSeconds();
    ih.nvlinkBps = static_cast<double>(
        ParseDataRate(in.nvlinkRate, "topology.intraHost.nvlinkRate").GetBitRate());
    ih.nvlinkDelay = ParseTime(in.nvlinkLatency, "topology.intraHost.nvlinkLatency").GetSeconds();
    return ih;
}

} // namespace

ClusterTopologySpec
ScenarioTopologySpec(const ScenarioTopology& tp)
{
    ClusterTopologySpec spec;
    spec.clos = ScenarioClosConfig(tp);
    if (tp.type == "three-tier")
    {
        spec.type = "three-tier";
        SetThreeTier(tp, spec.clos, spec);
    }
    else if (tp.type == "double-sided")
    {
        spec.type = "double-sided";
        spec.doubleSided = ScenarioDoubleSided(tp, spec.clos);
    }
    else
    {
        spec.type = "clos"; // "clos" and "testbed"
    }
    return spec;
}

ClusterTopology
BuildScenarioTopology(const ScenarioTopology& tp)
{
    if (tp.type == "clos" && tp.tors % tp.nicsPerHost != 0)
    {
        throw InputError(
            "topology.nicsPerHost",
            "must divide topology.tors (each NIC of a host goes to another ToR of its group)");
    }
    ParseByteSize(tp.switchBuffer, "topology.switchBuffer");
    ClusterTopology cluster = BuildClusterTopology(ScenarioTopologySpec(tp));
    if (tp.intraHost.enabled)
    {
        AddIntraHostLinks(cluster, ScenarioIntraHost(tp.intraHost));
    }
    // A CruxSwitch has at most MAX_PORTS ports (the packet fabric would stop with a fatal error
    // deep inside the run).
    for (uint32_t node = 0; node < cluster.NumNetworkNodes(); ++node)
    {
        const size_t ports = cluster.nodePorts.at(node).size();
        if (ports > CruxSwitch::MAX_PORTS)
        {
            throw InputError("topology",
                             "switch " + cluster.nodes.at(node).name + " would have " +
                                 std::to_string(ports) + " ports; a switch has at most " +
                                 std::to_string(CruxSwitch::MAX_PORTS) +
                                 " (lower hostsPerTor, aggs, tors or cores)");
        }
    }
    return cluster;
}

ScenarioFabric
InstallScenarioFabric(const Scenario& s,
                      const ClusterTopology& cluster,
                      uint64_t seed,
                      uint32_t ranks)
{
    const auto& tp = s.topology;
    ScenarioFabric f;
    CruxTopologyHelper th;
    th.SetRanks(ranks);
    th.SetMmuAttribute("BufferSize",
                       UintegerValue(ParseByteSize(tp.switchBuffer, "topology.switchBuffer")));
    th.SetMmuAttribute("PfcEnabled", BooleanValue(tp.pfc));
    // The seed salts every switch's ECMP hash: another seed gives other ECMP choices.
    th.SetEcmpSeedBase(static_cast<uint32_t>(seed * 2654435761ULL));
    f.topo = th.Install(cluster);
    if (s.fabric == "flow")
    {
        f.flow = FlowTransportHelper().Install(f.topo);
        f.transport = f.flow;
    }
    else
    {
        RdmaTransportHelper rdmaHelper;
        rdmaHelper.SetCongestionControl(s.congestionControl); // dcqcn, hpcc or none
        f.rdma = rdmaHelper.Install(f.topo);
        for (uint32_t id = 0; id < s.jobs.size(); ++id)
        {
            f.rdma->SetJobLabel(id, s.jobs[id].name); // the watchdog names stuck jobs by name
        }
        f.transport = f.rdma;
    }
    return f;
}

} // namespace ns3
