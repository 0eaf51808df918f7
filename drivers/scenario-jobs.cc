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

#include "scenario-jobs.h"

#include "ns3/chakra-trace.h"
#include "ns3/dlt-job-helper.h"
#include "ns3/log.h"
#include "ns3/model-zoo.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScenarioJobs");

std::string
JoinNames(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& s : items)
    {
        out += (out.empty() ? "" : ", ") + s;
    }
    return out;
}

ScenarioJobBuilder::ScenarioJobBuilder(const Scenario& scenario, const ClusterTopology& cluster)
    : m_scenario(scenario),
      m_cluster(cluster),
      m_nHosts(cluster.NumHosts()),
      m_gpusPerHost(cluster.gpusPerHost)
{
}

void
ScenarioJobBuilder::Fail(const std::string& field, const std::string& what) const
{
    throw ExperimentError(m_scenario.source + ": " + field + ": " + what);
}

std::vector<DltJob>
ScenarioJobBuilder::Build() const
{
    const Scenario& s = m_scenario;
    for (size_t i = 0; i < s.jobs.size(); ++i)
    {
        if (s.jobs[i].chakra.empty() && !ModelZoo::Has(s.jobs[i].model))
        {
            Fail("jobs[" + std::to_string(i) + "].model",
                 "unknown model '" + s.jobs[i].model + "' (known: " + JoinNames(ModelZoo::Names()) +
                     ")");
        }
    }
    std::vector<DltJob> jobs;
    // The one GPU allocator (model/cluster/gpu-placement.h): listed hosts as given, other jobs
    // locality-first (same ToR, then same group), in scenario order.
    GpuPlacer placer(GpuPlacer::HostsOf(m_cluster), PlacementPolicy::LOCALITY_FIRST, s.seed);
    for (uint32_t i = 0; i < s.jobs.size(); ++i)
    {
        if (s.jobs[i].gpusPerHost > m_gpusPerHost)
        {
            Fail("jobs[" + std::to_string(i) + "].gpusPerHost",
                 "asks for " + std::to_string(s.jobs[i].gpusPerHost) +
                     " GPUs per host but hosts have " + std::to_string(m_gpusPerHost));
        }
        const std::vector<HostShare> shares =
            s.jobs[i].hosts.empty() ? PlaceByCount(placer, i) : PlaceOnListedHosts(placer, i);
        std::vector<GpuId> gpus;
        for (const HostShare& hs : shares)
        {
            for (uint32_t g : hs.localGpus)
            {
                gpus.push_back(GpuId{hs.host, g});
            }
        }
        jobs.push_back(s.jobs[i].chakra.empty() ? MakeZooJob(i, gpus) : MakeChakraJob(i, gpus));
    }
    return jobs;
}

std::vector<HostShare>
ScenarioJobBuilder::PlaceOnListedHosts(GpuPlacer& placer, uint32_t i) const
{
    const ScenarioJob& sj = m_scenario.jobs[i];
    const std::string f = "jobs[" + std::to_string(i) + "]";
    const uint32_t per = sj.gpusPerHost > 0 ? sj.gpusPerHost : m_gpusPerHost;
    if (sj.gpus > 0 && sj.gpus != per * sj.hosts.size())
    {
        Fail(f + ".gpus",
             std::to_string(sj.gpus) + " GPUs does not equal hosts (" +
                 std::to_string(sj.hosts.size()) + ") x gpusPerHost (" + std::to_string(per) + ")");
    }
    for (size_t k = 0; k < sj.hosts.size(); ++k)
    {
        const uint32_t h = sj.hosts[k];
        if (h >= m_nHosts)
        {
            Fail(f + ".hosts",
                 "host " + std::to_string(h) + " does not exist (the topology has " +
                     std::to_string(m_nHosts) + " hosts, 0.." + std::to_string(m_nHosts - 1) + ")");
        }
        if (std::find(sj.hosts.begin(), sj.hosts.begin() + k, h) != sj.hosts.begin() + k)
        {
            Fail(f + ".hosts", "host " + std::to_string(h) + " is listed twice");
        }
        if (placer.FreeGpusOnHost(h) < per)
        {
            Fail(f + ".hosts",
                 "host " + std::to_string(h) + " has only " +
                     std::to_string(placer.FreeGpusOnHost(h)) + " free GPUs, the job needs " +
                     std::to_string(per));
        }
    }
    std::optional<std::vector<HostShare>> shares = placer.AllocateOn(i, sj.hosts, per);
    if (!shares)
    {
        // not reached: every listed host was checked above
        Fail(f + ".hosts", "the listed hosts could not be allocated");
    }
    return *shares;
}

std::vector<HostShare>
ScenarioJobBuilder::PlaceByCount(GpuPlacer& placer, uint32_t i) const
{
    const ScenarioJob& sj = m_scenario.jobs[i];
    const std::string f = "jobs[" + std::to_string(i) + "]";
    const uint32_t n = sj.gpus;
    if (n > placer.FreeGpus())
    {
        Fail(f + ".gpus",
             "job asks for " + std::to_string(n) + " GPUs but only " +
                 std::to_string(placer.FreeGpus()) + " of the cluster's " +
                 std::to_string(m_nHosts * m_gpusPerHost) + " GPUs are free");
    }
    const uint32_t per = sj.gpusPerHost > 0 ? sj.gpusPerHost : std::min(n, m_gpusPerHost);
    if (per == 0 || per > m_gpusPerHost || n % per != 0)
    {
        Fail(f + ".gpus",
             std::to_string(n) + " GPUs cannot be split into equal groups of " +
                 std::to_string(per) + " per host (hosts have " + std::to_string(m_gpusPerHost) +
                 " GPUs; a job has the same GPUs on each of its hosts: give a gpus that is a " +
                 "multiple of " + std::to_string(per) + ", or " + f +
                 ".gpusPerHost that divides it)");
    }
    std::optional<std::vector<HostShare>> shares;
    try
    {
        shares = placer.Allocate(i, JobShape{n / per, per});
    }
    catch (const std::invalid_argument&)
    {
        shares.reset(); // can never fit: reported below
    }
    if (!shares)
    {
        Fail(f + ".gpus",
             "no room for " + std::to_string(n / per) + " hosts with " + std::to_string(per) +
                 " free GPUs each (cluster: " + std::to_string(m_nHosts) + " hosts x " +
                 std::to_string(m_gpusPerHost) + " GPUs)");
    }
    return *shares;
}

DltJob
ScenarioJobBuilder::MakeZooJob(uint32_t i, const std::vector<GpuId>& gpus) const
{
    const ScenarioJob& sj = m_scenario.jobs[i];
    const std::string f = "jobs[" + std::to_string(i) + "]";
    try
    {
        DltJob job = DltJob::FromModel(i, sj.model, gpus);
        // the training step as given (batch, sequence, GPU, recomputation, optimizer)
        job.ApplyStep(sj.step);
        if (sj.computeTime >= 0)
        {
            // A shorter or longer compute phase means proportionally less or more work (a
            // smaller batch, fewer layers): the GPUs keep the zoo model's achieved FLOP/s,
            // so W_j scales with the override (utilization stays <= 1).
            if (job.computeTime > 0)
            {
                job.flopsPerIteration *= sj.computeTime / job.computeTime;
            }
            job.computeTime = sj.computeTime;
        }
        if (sj.gradientBytes >= 0)
        {
            job.gradientBytes = static_cast<uint64_t>(std::llround(sj.gradientBytes));
        }
        job.startTime = sj.start;
        job.iterations = sj.iterations;
        // with intra-host links a single-host job all-reduces over NVLink (finite t_j)
        job.intraHostAllReduce = m_scenario.topology.intraHost.enabled;
        if (sj.hasPlan)
        {
            job.ApplyPlan(sj.parallelism);
        }
        job.collectives = CollectiveConfigOf(m_cluster, sj.parallelism);
        if (sj.overlapForward >= 0)
        {
            job.overlapStart = sj.overlapForward;
        }
        if (sj.overlapBuckets > 0)
        {
            job.numBuckets = sj.overlapBuckets;
        }
        job.Validate();
        return job;
    }
    catch (const PlanError& e)
    {
        Fail(f + "." + e.Field(), e.Detail());
    }
    catch (const std::invalid_argument& e)
    {
        Fail(f, e.what());
    }
}

DltJob
ScenarioJobBuilder::MakeChakraJob(uint32_t i, const std::vector<GpuId>& gpus) const
{
    const Scenario& s = m_scenario;
    const ScenarioJob& sj = s.jobs[i];
    const std::string f = s.source + ": jobs[" + std::to_string(i) + "].chakra: ";
    // (Scenario::Load made a relative prefix relative to the scenario file's directory)
    const std::filesystem::path prefix(sj.chakra);
    try
    {
        auto trace = std::make_shared<ChakraTrace>(ChakraTrace::Load(prefix.string(), gpus.size()));
        std::string algorithm;
        ParseAllReduceAlgorithm(sj.parallelism.allReduce, algorithm); // checked by the reader
        trace->SetAllReduce(algorithm);
        // rank r = the r-th GPU of the job in rank order (TrainingIteration::RankGpus: hosts
        // in order of placement, GPUs by index)
        DltJob job = DltJob::FromChakra(i, trace, gpus);
        job.collectives = CollectiveConfigOf(m_cluster, sj.parallelism);
        job.startTime = sj.start;
        job.iterations = sj.iterations;
        job.Validate();
        NS_LOG_INFO("job " << i << ": Chakra trace " << prefix.string() << ", " << trace->NumRanks()
                           << " ranks, " << trace->NumCollectives() << " collectives, "
                           << trace->NumPointToPoint() << " send/recv, " << trace->NumSkipped()
                           << " metadata nodes skipped, W_j " << job.flopsPerIteration << " FLOPs");
        return job;
    }
    catch (const ChakraError& e)
    {
        throw ExperimentError(f + e.what());
    }
    catch (const std::invalid_argument& e)
    {
        throw ExperimentError(f + e.what());
    }
}

std::vector<DltJob>
JobsOfRun(const Scenario& s,
          const std::vector<DltJob>& placed,
          const std::vector<uint32_t>& jobIds,
          uint32_t iterationsOverride)
{
    const bool multi = jobIds.size() > 1;
    std::vector<DltJob> jobs;
    for (uint32_t id : jobIds)
    {
        DltJob job = placed.at(id);
        if (multi && s.jobs[id].background)
        {
            job.iterations = 0; // runs until the measured jobs are done
        }
        else if (iterationsOverride > 0)
        {
            job.iterations = iterationsOverride;
        }
        jobs.push_back(job);
    }
    return jobs;
}

} // namespace ns3
