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

#include "crux-helper.h"

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
    if (job.chakra)
    {
        // a Chakra job: FromChakra() set overlapStart to when its first communication can
        // start (compute along the trace's dependencies, free communication)
        sj.overlapStart = job.overlapStart;
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
CheckJobOnClusterTopology(const DltJob& job, const ClusterTopology& topo)
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
MakeClusterSchedJob(const DltJob& job,
                    const ClusterTopology& topo,
                    uint64_t ecmpSeed,
                    uint32_t maxPaths)
{
    if (maxPaths == 0)
    {
        throw std::invalid_argument("MakeClusterSchedJob: maxPaths must be >= 1");
    }
    CheckJobOnClusterTopology(job, topo);
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

ClusterModel
MakeClusterModel(Ptr<CruxTopology> topo, const std::vector<DltJob>& jobs)
{
    if (!topo)
    {
        throw std::invalid_argument("MakeClusterModel: topology is null");
    }
    ClusterModel cm;
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        SchedLink sl;
        sl.bandwidth = static_cast<double>(topo->GetLink(l).rate.GetBitRate());
        sl.name = "l" + std::to_string(l);
        cm.links.push_back(sl);
    }
    const CruxTopologySteering steering(topo);
    for (const DltJob& job : jobs)
    {
        cm.jobs.push_back(MakeSchedJob(job, [&](const DltCommFlow& f, SchedFlow& sf) {
            const RdmaQpKey key{job.id, f.flowId, f.src, f.dst};
            const uint32_t sn = topo->GpuToNic(f.src.host, f.src.localGpu);
            const uint32_t dn = topo->GpuToNic(f.dst.host, f.dst.localGpu);
            sf.candidatePaths = topo->GetEqualCostPaths(f.src.host, sn, f.dst.host, dn);
            if (sf.candidatePaths.empty())
            {
                throw std::invalid_argument("topology: no path from host " +
                                            std::to_string(f.src.host) + " to host " +
                                            std::to_string(f.dst.host));
            }
            const CruxPath ecmp = steering.PathOf(key, 0);
            auto it = std::find(sf.candidatePaths.begin(), sf.candidatePaths.end(), ecmp);
            if (it == sf.candidatePaths.end())
            {
                throw std::logic_error("internal: ECMP path " + CruxTopology::PathToString(ecmp) +
                                       " of job " + std::to_string(job.id) + " flow " +
                                       std::to_string(f.flowId) + " is not a shortest path");
            }
            sf.defaultPath = static_cast<uint32_t>(it - sf.candidatePaths.begin());
        }));
    }
    return cm;
}

} // namespace ns3
