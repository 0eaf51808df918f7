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

/*
 * Decision-time benchmark (issue 4): one scheduler decision for N concurrent jobs on the
 * 173-ToR Clos (BuildTwoLayerClos defaults). The jobs are the first trace jobs (generated
 * Lingjun trace, --seed) that fit, placed with --placement, turned into SchedJobs exactly as the
 * cluster runs do (DltJob::FromModel on the job's GPUs, MakeClusterSchedJob). Prints the model
 * size and the mean / best milliseconds per Schedule() call over --repeat calls.
 *
 *   cluster-decision-bench --jobs=100 --scheduler=crux --placement=random --repeat=5
 */

#include "ns3/checked-command-line.h"
#include "ns3/cluster-topology.h"
#include "ns3/comm-scheduler.h"
#include "ns3/dlt-job-helper.h"
#include "ns3/dlt-job.h"
#include "ns3/gpu-placement.h"
#include "ns3/lingjun-trace-generator.h"
#include "ns3/model-mapping.h"
#include "ns3/sched-job-builder.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t numJobs = 100;
    std::string scheduler = "crux";
    std::string placement = "random";
    uint32_t repeat = 5;
    uint64_t seed = 1;
    CheckedCommandLine cmd(__FILE__);
    cmd.AddValue("jobs", "Concurrent jobs in the model", numJobs);
    cmd.AddValue("scheduler", "Scheduler name", scheduler);
    cmd.AddValue("placement", "locality, random or buddy", placement);
    cmd.AddValue("repeat", "Timed Schedule() calls", repeat);
    cmd.AddValue("seed", "Seed of the trace, placement, ECMP hash and scheduler", seed);
    try
    {
        cmd.Parse(argc, argv);
        const ClusterTopology topo = BuildTwoLayerClos(ClosConfig());
        // Trace jobs (sizes and models) from a generated trace on the Clos' own host list.
        LingjunTopology lt;
        lt.psws = {"psw0"};
        lt.dsws = {"dsw0"};
        for (uint32_t t = 0; t < topo.NumTors(); ++t)
        {
            lt.tors.emplace_back("psw0", "asw" + std::to_string(t));
            lt.torPsw.push_back(0);
            lt.torDsw.push_back(0);
        }
        for (uint32_t h = 0; h < topo.NumHosts(); ++h)
        {
            lt.hosts.push_back("host" + std::to_string(h));
            lt.hostTor.push_back(topo.hostTor[h]);
            lt.hostIndex[lt.hosts.back()] = h;
        }
        LingjunGeneratorConfig gc;
        gc.seed = seed;
        const GeneratedLingjunTrace g = GenerateLingjunTrace(gc, lt);
        std::vector<TraceWarning> w;
        std::istringstream js(g.jobCsv);
        std::istringstream ws(g.workerCsv);
        const auto trace = AssembleLingjunTrace(ParseLingjunJobs(js, "job.csv", w),
                                                ParseLingjunWorkers(ws, "worker.csv", w),
                                                lt)
                               .jobs;
        GpuPlacer placer(GpuPlacer::HostsOf(topo), ParsePlacementPolicy(placement), seed);
        ModelMapper mapper(seed);
        ClusterModel model;
        model.links = topo.links;
        uint32_t gpus = 0;
        size_t flows = 0;
        for (const auto& tj : trace)
        {
            if (model.jobs.size() >= numJobs)
            {
                break;
            }
            const uint32_t id = static_cast<uint32_t>(model.jobs.size());
            std::optional<std::vector<HostShare>> alloc;
            try
            {
                alloc = placer.Allocate(id, ShapeFor(tj.gpus, topo.gpusPerHost));
            }
            catch (const std::invalid_argument&)
            {
                continue;
            }
            if (!alloc)
            {
                continue;
            }
            std::vector<GpuId> ids;
            for (const auto& s : *alloc)
            {
                for (uint32_t gg : s.localGpus)
                {
                    ids.push_back(GpuId{s.host, gg});
                }
            }
            const ModelAssignment a = mapper.Map(tj.modelLabel, tj.name);
            const DltJob job = MakeTraceRunJob(topo, id, a.zooModel, ids); // as the cluster runs
            model.jobs.push_back(MakeClusterSchedJob(job, topo, seed));
            gpus += job.NumGpus();
            flows += model.jobs.back().flows.size();
        }
        SchedulerConfig sc;
        sc.numLevels = 8;
        sc.seed = seed;
        const auto sched = CreateCommScheduler(scheduler);
        double total = 0;
        double best = 1e300;
        Decision d;
        for (uint32_t r = 0; r < std::max(1U, repeat); ++r)
        {
            const auto t0 = std::chrono::steady_clock::now();
            d = sched->Schedule(model, sc);
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            total += ms;
            best = std::min(best, ms);
        }
        std::cout << "decision-bench: scheduler=" << scheduler << " placement=" << placement
                  << " jobs=" << model.jobs.size() << " gpus=" << gpus << " flows=" << flows
                  << " links=" << model.links.size() << " tors=" << topo.NumTors() << "\n"
                  << "decision-bench: ms_per_decision_mean=" << total / std::max(1U, repeat)
                  << " ms_per_decision_best=" << best << " goal_ms=50 "
                  << (total / std::max(1U, repeat) <= 50 ? "MET" : "MISSED") << "\n";
    }
    catch (const std::exception& e)
    {
        std::cerr << "cluster-decision-bench: error: " << OneLine(e.what()) << std::endl;
        return 1;
    }
    return 0;
}
