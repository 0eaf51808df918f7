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

#ifndef CRUX_SCENARIO_TOPOLOGY_H
#define CRUX_SCENARIO_TOPOLOGY_H

#include "ns3/cluster-topology-spec.h"
#include "ns3/cluster-topology.h"
#include "ns3/crux-scenario.h"
#include "ns3/crux-topology.h"
#include "ns3/flow-transport.h"
#include "ns3/message-transport.h"
#include "ns3/ptr.h"
#include "ns3/rdma-transport.h"

#include <cstdint>

/**
 * \file
 * \ingroup crux
 * The topology builder of a scenario: its "topology" as the one cluster description
 * (BuildScenarioTopology, through BuildClusterTopology's type dispatch, shared with the trace
 * runner) and that description as the ns-3 fabric of one run (InstallScenarioFabric).
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief The ClusterTopologySpec of a scenario's "topology": the counts and the parsed rates and
 * delay; "testbed" is TestbedClosConfig() (its counts and rates) with the scenario's wiring.
 * \param tp the scenario's topology fields (checked by Scenario::Validate())
 * \return the spec ("testbed" and "clos" are "clos")
 * \throws InputError naming the field ("topology.hostLinkRate", ...) if a rate, delay or
 *         count cannot be used
 */
ClusterTopologySpec ScenarioTopologySpec(const ScenarioTopology& tp);

/**
 * \ingroup crux
 * \brief Build a scenario's cluster description: ScenarioTopologySpec(), BuildClusterTopology(),
 * then the intra-host links if "intraHost" is enabled; checks before that "nicsPerHost" divides
 * "tors" (clos) and "switchBuffer", and after it that no switch has more than
 * CruxSwitch::MAX_PORTS ports (the packet fabric would stop deep inside the run).
 * \param tp the scenario's topology fields (checked by Scenario::Validate())
 * \return the cluster description placement, the scheduler's model and both fabrics use
 * \throws InputError naming the field ("topology.<field>", or "topology" for the port count), or
 *         std::invalid_argument from a builder
 */
ClusterTopology BuildScenarioTopology(const ScenarioTopology& tp);

/**
 * \ingroup crux
 * \brief The fabric of one run: the cluster description as ns-3 nodes and the transport that
 * carries the jobs' messages.
 */
struct ScenarioFabric
{
    Ptr<CruxTopology> topo;          //!< switches, hosts, links
    Ptr<RdmaTransport> rdma;         //!< packet level (null on the flow fabric)
    Ptr<FlowTransport> flow;         //!< flow level (null on the packet fabric)
    Ptr<MessageTransport> transport; //!< the one the jobs use
};

/**
 * \ingroup crux
 * \brief Install a scenario's fabric for one run: the cluster description as ns-3 nodes
 * (CruxTopologyHelper: switch buffer, PFC, the seed-salted ECMP hash) and the transport of the
 * scenario's "fabric" (packet level with its congestion control, or flow level). Both
 * transports give a connection the same default UDP source port, so ECMP places it on the same
 * path.
 * \param s the scenario ("topology.switchBuffer", "topology.pfc", "fabric",
 *        "congestionControl", the job names for the stall watchdog)
 * \param cluster its cluster description (BuildScenarioTopology)
 * \param seed the run's seed: salts every switch's ECMP hash (another seed, other ECMP choices)
 * \param ranks MPI ranks the nodes are split over (CruxTopologyHelper::SetRanks; 1 = none)
 * \return the fabric
 */
ScenarioFabric InstallScenarioFabric(const Scenario& s,
                                     const ClusterTopology& cluster,
                                     uint64_t seed,
                                     uint32_t ranks = 1);

} // namespace ns3

#endif // CRUX_SCENARIO_TOPOLOGY_H
