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

#include "experiment-result.h"

#include <nlohmann/json.hpp>

namespace ns3
{

// The results of a run as JSON, to come back from a child process (RunParallel; MessagePack
// keeps every double's bits). Every field of the two structs is listed.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LinkThroughputSample, time, seconds, link, tc, bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ExperimentJobResult,
                                   id,
                                   name,
                                   model,
                                   gpus,
                                   hosts,
                                   background,
                                   flopsPerIteration,
                                   level,
                                   dscp,
                                   schedulerCommTime,
                                   intensity,
                                   k,
                                   reroutedFlows,
                                   timeShift,
                                   flowPaths,
                                   iterStart,
                                   iterEnd,
                                   iterComm,
                                   measuredIterations,
                                   meanIterationTime,
                                   throughput,
                                   meanCommTime,
                                   jct,
                                   profiledCommTime)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ExperimentRunResult,
                                   run,
                                   scheduler,
                                   jobs,
                                   windowStart,
                                   windowEnd,
                                   utilization,
                                   utilizationSeries,
                                   utilizationBin,
                                   linkTcBytes,
                                   linkPauseTx,
                                   drops,
                                   pauseFrames,
                                   retransmittedPackets,
                                   timeouts,
                                   complete,
                                   jobsOutsideWindow,
                                   simulatedTime,
                                   wallSeconds,
                                   events,
                                   maxQueueBytes,
                                   linkThroughput,
                                   linkThroughputInterval,
                                   roles,
                                   seeds,
                                   ecmpSeed,
                                   signature)

std::string
ExperimentRunResultToBytes(const ExperimentRunResult& r)
{
    std::string bytes;
    nlohmann::json::to_msgpack(nlohmann::json(r), bytes);
    return bytes;
}

ExperimentRunResult
ExperimentRunResultFromBytes(const std::string& bytes)
{
    return nlohmann::json::from_msgpack(bytes).get<ExperimentRunResult>();
}

} // namespace ns3
