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

#ifndef CRUX_CLUSTER_TOPOLOGY_SPEC_H
#define CRUX_CLUSTER_TOPOLOGY_SPEC_H

#include "cluster-topology.h"

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup crux-scheduling
 * A cluster topology by the name of its builder (ClusterTopologySpec) and the one dispatch from
 * that name to the builder (BuildClusterTopology), shared by the scenario driver and the trace
 * runner.
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief A cluster topology named by its builder and that builder's configuration: the one
 * description from which the scenario driver (a Scenario's "topology") and the trace runner
 * (ClusterRunConfig) build their ClusterTopology, by BuildClusterTopology(). Only the fields of
 * the named builder are read.
 */
struct ClusterTopologySpec
{
    /// The builder: "clos" (BuildTwoLayerClos(clos)), "double-sided"
    /// (BuildDoubleSided(doubleSided)) or "three-tier" (BuildThreeTier(hostTor, torGroup,
    /// threeTier)).
    std::string type{"clos"};
    ClosConfig clos;               //!< configuration of "clos"
    DoubleSidedConfig doubleSided; //!< configuration of "double-sided"
    ThreeTierConfig threeTier;     //!< configuration of "three-tier"
    std::vector<uint32_t> hostTor; //!< "three-tier": ToR index of every host
    /// "three-tier": aggregation group of every ToR
    std::vector<uint32_t> torGroup;
};

/**
 * \ingroup crux-scheduling
 * \brief Build the topology a ClusterTopologySpec names (the one "type -> builder" dispatch).
 * \param spec the builder and its configuration
 * \return the topology, without intra-host links (AddIntraHostLinks() adds them)
 * Throws std::invalid_argument as the builder does (naming its bad field), or naming the type
 * if it is none of "clos", "double-sided", "three-tier".
 */
ClusterTopology BuildClusterTopology(const ClusterTopologySpec& spec);

} // namespace ns3

#endif // CRUX_CLUSTER_TOPOLOGY_SPEC_H
