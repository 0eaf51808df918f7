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
 * Orchestration only: builds an EpochEngine (model/trace/epoch-engine.h, which implements the
 * arrivals, FIFO placement, a decision per instant with arrivals or completions and the results)
 * with the driver's pieces: the job builder (DltJob::FromModel on the allocated GPUs, trace LLMs
 * with ModelMapper::TracePlanRequest(), SchedJob by MakeClusterSchedJob() with the config's seed
 * and maxPaths), a CoarseEpochRateModel (config evaluator "coarse", timescaleRatio) or an
 * ExactEpochRateModel ("exact") with the config's evaluator options (engine "epoch": steady
 * rates per epoch, per connected component of link-sharing jobs, cached) and, for engine
 * "flow", a LiveClusterFabric behind EpochEngineFabric (every decision installed on it); the
 * progress lines (ProgressReporter); then runs the Simulator and destroys it.
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
