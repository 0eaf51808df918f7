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
 * Timeline accuracy benchmark (issue 30): the stand-alone iteration time of a trace run's LLM
 * job as the epoch engine sees it (the fluid evaluator, ExactEpochRateModel::AloneRate, on the
 * job's phase timeline, --timeline step and collective) against the same job executed message
 * by message on the flow engine (FlowStandaloneIteration(): its whole iteration DAG on a
 * LiveClusterFabric, every ring step waiting for its own input, NVLink hops overlapping other
 * ranks' transfers). Both see the same
 * hosts, the same ECMP paths (one seed) and the same links (the 2,000-GPU Clos of the trace
 * runs). One CSV row per model and host count; the errors are fluid / flow - 1.
 *
 *   timeline-accuracy-bench --models=llama-7b,llama-33b --hosts=2,7 --stride=17
 */

#include "ns3/checked-command-line.h"
#include "ns3/checked-parse.h"
#include "ns3/cluster-model.h"
#include "ns3/cluster-run.h"
#include "ns3/cluster-topology.h"
#include "ns3/comm-timeline.h"
#include "ns3/crux-experiment.h"
#include "ns3/dlt-job-helper.h"
#include "ns3/epoch-rate-model.h"
#include "ns3/live-cluster-fabric.h"
#include "ns3/sched-job-builder.h"

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string models = "llama-7b,llama-13b,llama-33b,mixtral-8x7b,gpt3-13b";
    std::string hostCounts = "2,4,7";
    uint32_t stride = 17;
    uint32_t firstHost = 3;
    uint32_t iterations = 2;
    uint64_t seed = 1;
    double limit = 120;
    CheckedCommandLine cmd(__FILE__);
    cmd.AddValue("models", "Comma-separated zoo models (trace plan for LLMs)", models);
    cmd.AddValue("hosts", "Comma-separated host counts (8 GPUs each)", hostCounts);
    cmd.AddValue("stride", "Host i of a job is firstHost + i * stride", stride);
    cmd.AddValue("firstHost", "First host of every job", firstHost);
    cmd.AddValue("iterations", "Flow-engine iterations measured after the first", iterations);
    cmd.AddValue("seed", "ECMP seed of both engines", seed);
    cmd.AddValue("limit", "Simulated seconds the flow engine may take per job", limit);
    try
    {
        cmd.Parse(argc, argv);
        if (iterations < 1 || stride < 1 || !(limit > 0))
        {
            throw std::invalid_argument("--iterations and --stride must be >= 1, --limit > 0");
        }
        const ClusterTopology topo = BuildTwoLayerClos(ClosConfig());
        // the trace runs' evaluator options
        const FlowEvaluatorOptions opt = ClusterRunConfig().EvaluatorOptions();
        std::vector<uint32_t> counts;
        for (const std::string& h : SplitCommaList(hostCounts, "--hosts"))
        {
            counts.push_back(ParseUint32(h, "--hosts", 1, 100000));
        }
        bool header = false; // written with the first row (bad input: nothing on stdout)
        uint32_t id = 0;
        for (const std::string& model : SplitCommaList(models, "--models"))
        {
            for (uint32_t n : counts)
            {
                std::vector<GpuId> gpus;
                for (uint32_t i = 0; i < n; ++i)
                {
                    const uint32_t h = firstHost + i * stride;
                    if (h >= topo.NumHosts())
                    {
                        throw std::invalid_argument("--hosts/--stride: host " + std::to_string(h) +
                                                    " is not in the Clos (" +
                                                    std::to_string(topo.NumHosts()) + " hosts)");
                    }
                    for (uint32_t g = 0; g < 8; ++g)
                    {
                        gpus.push_back(GpuId{h, g});
                    }
                }
                const DltJob job = MakeTraceRunJob(topo, id++, model, gpus);
                std::vector<double> fluid;
                std::vector<std::size_t> phases;
                for (TimelineGranularity g :
                     {TimelineGranularity::STEP, TimelineGranularity::COLLECTIVE})
                {
                    SchedJobTemplates templates(g);
                    const SchedJob sj = MakeClusterSchedJob(job, topo, seed, 64, templates);
                    ExactEpochRateModel rates(topo.links, opt);
                    fluid.push_back(1.0 / rates.AloneRate(sj, DefaultPathChoice(sj)));
                    phases.push_back(sj.phases.size());
                }
                const double flow = FlowStandaloneIteration(topo, job, seed, iterations, limit);
                char line[512];
                std::snprintf(line,
                              sizeof(line),
                              "%s,%u,%u,%zu,%zu,%.6f,%.6f,%.6f,%+.4f,%+.4f",
                              model.c_str(),
                              n,
                              job.NumGpus(),
                              phases[0],
                              phases[1],
                              flow,
                              fluid[0],
                              fluid[1],
                              fluid[0] / flow - 1,
                              fluid[1] / flow - 1);
                if (!header)
                {
                    std::cout << "model,hosts,gpus,phases_step,phases_collective,flow_iter_s,"
                                 "step_iter_s,collective_iter_s,step_error,collective_error\n";
                    header = true;
                }
                std::cout << line << std::endl;
            }
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "timeline-accuracy-bench: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
