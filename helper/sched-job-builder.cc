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

#include "sched-job-builder.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

SchedJob
MakeSchedJob(const DltJob& job, const SchedFlowPathFiller& fillPaths)
{
    if (!fillPaths)
    {
        throw std::invalid_argument("MakeSchedJob: fillPaths is null (job " +
                                    std::to_string(job.id) + ")");
    }
    SchedJob sj;
    sj.id = job.id;
    sj.flopsPerIteration = job.flopsPerIteration;
    sj.computeTime = job.ComputeSpan();
    // The scheduler's iteration model lets communication start after overlapStart × c. The
    // application releases the first gradient bucket at f + (c − f)/B (f = forward part):
    // that is when communication can really start (1 for a single bucket: no overlap).
    sj.overlapStart = job.overlapStart + (1.0 - job.overlapStart) / job.numBuckets;
    if (job.plan)
    {
        // Interim view of a planned job (its full timeline is later work): its first
        // inter-host traffic can start after the first micro-batch's forward pass when it has
        // pipeline, expert or cross-host tensor traffic; else (data parallelism only) when the
        // first bucket of the last micro-batch's backward pass is released.
        const double m = job.plan->microBatches;
        const double p = job.plan->pp;
        const double o = job.overlapStart;
        const double b = job.numBuckets;
        const bool early =
            job.plan->pp > 1 || job.plan->ep > 1 || job.plan->tp > job.TensorParallel();
        const double first = early ? o / m : (m - 1 + o + (1 - o) / b) / m;
        sj.overlapStart = std::min(1.0, first * m / (m + p - 1));
    }
    sj.numGpus = job.NumGpus();
    for (const auto& f : job.CommunicationPattern())
    {
        SchedFlow sf;
        sf.id = f.flowId;
        sf.bytesPerIteration = f.bytesPerIteration;
        fillPaths(f, sf);
        sj.flows.push_back(sf);
    }
    return sj;
}

void
CheckJobOnScaleTopology(const DltJob& job, const ScaleTopology& topo)
{
    for (size_t i = 0; i < job.gpus.size(); ++i)
    {
        const GpuId& g = job.gpus[i];
        if (g.host >= topo.NumHosts())
        {
            throw std::invalid_argument(
                "job " + std::to_string(job.id) + ": gpus[" + std::to_string(i) + "] is on host " +
                std::to_string(g.host) + ", but topology '" + topo.name + "' has hosts 0.." +
                std::to_string(topo.NumHosts()) + " (exclusive)");
        }
        if (g.localGpu >= topo.gpusPerHost)
        {
            throw std::invalid_argument(
                "job " + std::to_string(job.id) + ": gpus[" + std::to_string(i) + "] is GPU " +
                std::to_string(g.localGpu) + " of host " + std::to_string(g.host) +
                ", but hosts of topology '" + topo.name + "' have " +
                std::to_string(topo.gpusPerHost) + " GPUs");
        }
    }
}

SchedJob
MakeScaleSchedJob(const DltJob& job,
                  const ScaleTopology& topo,
                  uint64_t ecmpSeed,
                  uint32_t maxPaths)
{
    if (maxPaths == 0)
    {
        throw std::invalid_argument("MakeScaleSchedJob: maxPaths must be >= 1");
    }
    CheckJobOnScaleTopology(job, topo);
    return MakeSchedJob(job, [&](const DltCommFlow& f, SchedFlow& sf) {
        sf.candidatePaths =
            topo.EqualCostPaths(f.src.host, f.src.localGpu, f.dst.host, f.dst.localGpu, maxPaths);
        if (sf.candidatePaths.empty())
        {
            throw std::invalid_argument("job " + std::to_string(job.id) + " flow " +
                                        std::to_string(f.flowId) + ": topology '" + topo.name +
                                        "' has no path from host " + std::to_string(f.src.host) +
                                        " to host " + std::to_string(f.dst.host));
        }
        sf.defaultPath = EcmpPathIndex(ecmpSeed,
                                       job.id,
                                       f.flowId,
                                       static_cast<uint32_t>(sf.candidatePaths.size()));
    });
}

} // namespace ns3
