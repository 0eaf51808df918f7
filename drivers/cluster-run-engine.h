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

#ifndef CRUX_CLUSTER_RUN_ENGINE_H
#define CRUX_CLUSTER_RUN_ENGINE_H

#include "cluster-run.h"

#include "ns3/cluster-topology.h"
#include "ns3/lingjun-trace.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Run one scheduler over a trace window: the engine of ClusterRun::Run().
 *
 * Simulation time 0 = window start. Jobs arrive at their trace start, are placed by the one GPU
 * allocator (GpuPlacer, ClusterRunConfig::placement) in strict FIFO order, and on every arrival
 * or completion the scheduler recomputes paths and priorities of all running jobs (Crux §6.3).
 * Engine "epoch" (ClusterRunConfig::engine): job progress from the FlowEvaluator's steady rates
 * per epoch, per connected component of link-sharing jobs, cached. Engine "flow": the same
 * arrivals, placement, queue and decisions, but the jobs run as DltJobApplications on a
 * LiveClusterFabric and every decision is installed on it (CruxHelper).
 *
 * \param config the run's configuration (validated)
 * \param topo the cluster description
 * \param window the window's jobs, arrival order
 * \param origin trace time of the first submission, seconds
 * \param windowStart window start after origin, seconds
 * \param windowEnd effective window end after origin, seconds
 * \param scheduler registered scheduler name
 * \return the run's result (jobsZeroDuration left 0 for the caller)
 */
ClusterRunResult RunClusterEngine(const ClusterRunConfig& config,
                                  const ClusterTopology& topo,
                                  const std::vector<TraceJob>& window,
                                  double origin,
                                  double windowStart,
                                  double windowEnd,
                                  const std::string& scheduler);

} // namespace ns3

#endif // CRUX_CLUSTER_RUN_ENGINE_H
