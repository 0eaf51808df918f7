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

#include "crux-experiment.h"

#include "distributed-run.h"
#include "parallel-runs.h"
#include "progress-reporter.h"
#include "result-directory.h"

#include "ns3/boolean.h"
#include "ns3/chakra-trace.h"
#include "ns3/comm-scheduler.h"
#include "ns3/crux-compat.h"
#include "ns3/crux-helper.h"
#include "ns3/crux-switch.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/data-rate.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job-helper.h"
#include "ns3/double.h"
#include "ns3/flow-transport-helper.h"
#include "ns3/flow-transport.h"
#include "ns3/gpu-intensity-tracker.h"
#include "ns3/gpu-placement.h"
#include "ns3/log.h"
#include "ns3/model-zoo.h"
#include "ns3/nstime.h"
#include "ns3/optimal-scheduler.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/sched-job-builder.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxExperiment");

namespace
{

/// Join strings with ", ".
std::string
Join(const std::vector<std::string>& v)
{
    std::string out;
    for (const auto& s : v)
    {
        out += (out.empty() ? "" : ", ") + s;
    }
    return out;
}

/// Percentage change of x against a reference (NaN if the reference is 0).
double
PercentChange(double x, double ref)
{
    return ref > 0 ? (x / ref - 1.0) * 100.0 : std::nan("");
}

/**
 * The scenario's "three-tier" topology (BuildThreeTier()): tors ToRs of hostsPerTor hosts each,
 * ToR t in aggregation group t / torsPerGroup, aggs / groups aggregation switches per group,
 * cores core switches; every NIC of a host on its ToR.
 * \param tp the scenario's topology fields (checked by Scenario::ValidateThreeTier())
 * \param cc the Clos view of the same fields (counts, host/ToR-agg rates and delay parsed)
 * \return the cluster description; throws InputError naming topology.coreLinkRate
 */
ClusterTopology
BuildScenarioThreeTier(const ScenarioTopology& tp, const ClosConfig& cc)
{
    std::vector<uint32_t> hostTor(static_cast<size_t>(tp.tors) * tp.hostsPerTor);
    for (size_t h = 0; h < hostTor.size(); ++h)
    {
        hostTor[h] = static_cast<uint32_t>(h / tp.hostsPerTor);
    }
    std::vector<uint32_t> torGroup(tp.tors);
    for (uint32_t t = 0; t < tp.tors; ++t)
    {
        torGroup[t] = t / tp.torsPerGroup;
    }
    ThreeTierConfig tc;
    tc.aggsPerGroup = tp.aggs / (tp.tors / tp.torsPerGroup);
    tc.cores = tp.cores;
    tc.gpusPerHost = cc.gpusPerHost;
    tc.nicsPerHost = cc.nicsPerHost;
    tc.hostLinkBps = cc.hostLinkBps;
    tc.torAggBps = cc.torAggBps;
    tc.aggCoreBps = tp.coreLinkRate.empty()
                        ? cc.torAggBps
                        : static_cast<double>(
                              ParseDataRate(tp.coreLinkRate, "topology.coreLinkRate").GetBitRate());
    tc.delay = cc.delay;
    tc.name = "three-tier";
    return BuildThreeTier(hostTor, torGroup, tc);
}

/**
 * The scenario's "double-sided" topology (BuildDoubleSided(), the paper's §6.3 double-sided
 * topology): tors / 2 ToR pairs with hostsPerTor hosts each (every host under both ToRs of its
 * pair), every NIC with two ports (port p to ToR p of the pair), aggs / (tors / 2) aggregation
 * switches per pair, cores core switches in planes.
 * \param tp the scenario's topology fields (checked by Scenario::ValidateDoubleSided())
 * \param cc the Clos view of the same fields (counts, host/ToR-agg rates and delay parsed)
 * \return the cluster description; throws InputError naming topology.coreLinkRate
 */
ClusterTopology
BuildScenarioDoubleSided(const ScenarioTopology& tp, const ClosConfig& cc)
{
    DoubleSidedConfig dc;
    dc.tors = tp.tors;
    dc.aggs = tp.aggs;
    dc.cores = tp.cores;
    dc.numHosts = tp.tors / 2 * tp.hostsPerTor;
    dc.gpusPerHost = cc.gpusPerHost;
    dc.nicsPerHost = cc.nicsPerHost;
    dc.portsPerNic = 2;
    dc.hostLinkBps = cc.hostLinkBps;
    dc.torAggBps = cc.torAggBps;
    dc.aggCoreBps = tp.coreLinkRate.empty()
                        ? cc.torAggBps
                        : static_cast<double>(
                              ParseDataRate(tp.coreLinkRate, "topology.coreLinkRate").GetBitRate());
    dc.delay = cc.delay;
    return BuildDoubleSided(dc);
}

} // namespace

// The results of a run as JSON, to come back from a child process (RunParallel; MessagePack
// keeps every double's bits). Every field of the two structs is listed.
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
                                   jct)
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
                                   maxQueueBytes)

CruxExperiment::CruxExperiment(const Scenario& scenario)
    : m_scenario(scenario)
{
    m_scenario.Validate();
    const Scenario& s = m_scenario;
    const auto& tp = s.topology;
    if (tp.type == "clos" && tp.tors % tp.nicsPerHost != 0)
    {
        Fail("topology.nicsPerHost",
             "must divide topology.tors (each NIC of a host goes to another ToR of its group)");
    }
    try
    {
        ParseByteSize(tp.switchBuffer, "topology.switchBuffer");
        CheckModes({s.scheduler});
        // The one cluster description of this scenario: placement, the scheduler's cluster
        // model and both fabrics are built from it.
        ClosConfig cc = TestbedClosConfig();
        if (tp.type != "testbed")
        {
            cc.tors = tp.tors;
            cc.aggs = tp.aggs;
            cc.hostsPerTor = tp.hostsPerTor;
            cc.numHosts = 0;
            cc.nicsPerHost = tp.nicsPerHost;
            cc.gpusPerHost = tp.gpusPerHost;
            cc.hostLinkBps = static_cast<double>(
                ParseDataRate(tp.hostLinkRate, "topology.hostLinkRate").GetBitRate());
            cc.torAggBps = static_cast<double>(
                ParseDataRate(tp.fabricLinkRate, "topology.fabricLinkRate").GetBitRate());
            cc.delay = ParseTime(tp.linkDelay, "topology.linkDelay").GetSeconds();
        }
        cc.wiring = tp.wiring;
        if (tp.type == "three-tier")
        {
            m_cluster = BuildScenarioThreeTier(tp, cc);
        }
        else if (tp.type == "double-sided")
        {
            m_cluster = BuildScenarioDoubleSided(tp, cc);
        }
        else
        {
            m_cluster = BuildTwoLayerClos(cc);
        }
        if (tp.intraHost.enabled)
        {
            IntraHostConfig ih;
            ih.pcieBps = static_cast<double>(
                ParseDataRate(tp.intraHost.pcieRate, "topology.intraHost.pcieRate").GetBitRate());
            ih.pcieDelay =
                ParseTime(tp.intraHost.pcieLatency, "topology.intraHost.pcieLatency").GetSeconds();
            ih.nvlinkBps = static_cast<double>(
                ParseDataRate(tp.intraHost.nvlinkRate, "topology.intraHost.nvlinkRate")
                    .GetBitRate());
            ih.nvlinkDelay =
                ParseTime(tp.intraHost.nvlinkLatency, "topology.intraHost.nvlinkLatency")
                    .GetSeconds();
            AddIntraHostLinks(m_cluster, ih);
        }
    }
    catch (const InputError& e)
    {
        // The parsers name the field; put the scenario file in front of it.
        Fail(e.GetField(), e.GetDetail());
    }
    catch (const std::invalid_argument& e)
    {
        Fail("topology", e.what());
    }
    // Checked here, before anything is built or written: a CruxSwitch has at most MAX_PORTS
    // ports (the packet fabric would stop with a fatal error deep inside the run).
    for (uint32_t node = 0; node < m_cluster.NumNetworkNodes(); ++node)
    {
        const size_t ports = m_cluster.nodePorts.at(node).size();
        if (ports > CruxSwitch::MAX_PORTS)
        {
            Fail("topology",
                 "switch " + m_cluster.nodes.at(node).name + " would have " +
                     std::to_string(ports) + " ports; a switch has at most " +
                     std::to_string(CruxSwitch::MAX_PORTS) +
                     " (lower hostsPerTor, aggs, tors or cores)");
        }
    }
    m_nHosts = m_cluster.NumHosts();
    m_gpusPerHost = m_cluster.gpusPerHost;
    for (size_t i = 0; i < s.jobs.size(); ++i)
    {
        if (s.jobs[i].chakra.empty() && !ModelZoo::Has(s.jobs[i].model))
        {
            Fail("jobs[" + std::to_string(i) + "].model",
                 "unknown model '" + s.jobs[i].model + "' (known: " + Join(ModelZoo::Names()) +
                     ")");
        }
    }
    PlaceJobs();
    // a stopTime before any measured job can finish one iteration (its compute alone, from its
    // start) would leave every run INCOMPLETE with nothing measured
    double earliest = std::numeric_limits<double>::infinity();
    size_t first = 0;
    for (size_t i = 0; i < m_jobs.size(); ++i)
    {
        const double end = m_jobs[i].startTime + m_jobs[i].computeTime;
        if (!s.jobs[i].background && end < earliest)
        {
            earliest = end;
            first = i;
        }
    }
    if (s.stopTime < earliest)
    {
        std::ostringstream os;
        os << s.stopTime << " s ends before any measured job can finish an iteration (the "
           << "earliest, jobs[" << first << "] '" << s.jobs[first].name << "', starts at "
           << s.jobs[first].start << " s and computes " << m_jobs[first].computeTime
           << " s per iteration)";
        Fail("stopTime", os.str());
    }
}

void
CruxExperiment::Fail(const std::string& field, const std::string& what) const
{
    throw ExperimentError(m_scenario.source + ": " + field + ": " + what);
}

void
CruxExperiment::PlaceJobs()
{
    const Scenario& s = m_scenario;
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
        m_jobs.push_back(s.jobs[i].chakra.empty() ? MakeZooJob(i, gpus) : MakeChakraJob(i, gpus));
    }
}

std::vector<HostShare>
CruxExperiment::PlaceOnListedHosts(GpuPlacer& placer, uint32_t i) const
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
CruxExperiment::PlaceByCount(GpuPlacer& placer, uint32_t i) const
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
                 " GPUs)");
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
CruxExperiment::MakeZooJob(uint32_t i, const std::vector<GpuId>& gpus) const
{
    const ScenarioJob& sj = m_scenario.jobs[i];
    const std::string f = "jobs[" + std::to_string(i) + "]";
    try
    {
        DltJob job = DltJob::FromModel(i, sj.model, gpus);
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
CruxExperiment::MakeChakraJob(uint32_t i, const std::vector<GpuId>& gpus) const
{
    const Scenario& s = m_scenario;
    const ScenarioJob& sj = s.jobs[i];
    const std::string f = s.source + ": jobs[" + std::to_string(i) + "].chakra: ";
    // (Scenario::Load made a relative prefix relative to the scenario file's directory)
    const std::filesystem::path prefix(sj.chakra);
    try
    {
        auto trace = std::make_shared<ChakraTrace>(ChakraTrace::Load(prefix.string(), gpus.size()));
        AllReduceAlgorithm algorithm = AllReduceAlgorithm::AUTO;
        ParseAllReduceAlgorithm(sj.parallelism.allReduce, algorithm); // checked by the reader
        trace->SetAllReduce(algorithm);
        // rank r = the r-th GPU of the job in rank order (TrainingIteration::RankGpus: hosts
        // in order of placement, GPUs by index)
        DltJob job = DltJob::FromChakra(i, trace, gpus);
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

const Scenario&
CruxExperiment::GetScenario() const
{
    return m_scenario;
}

const std::vector<DltJob>&
CruxExperiment::GetJobs() const
{
    return m_jobs;
}

uint32_t
CruxExperiment::GetNHosts() const
{
    return m_nHosts;
}

uint32_t
CruxExperiment::GetGpusPerHost() const
{
    return m_gpusPerHost;
}

const std::map<uint32_t, double>&
CruxExperiment::GetMeasuredCommTimes() const
{
    return m_measuredComm;
}

void
CruxExperiment::CheckModes(const std::vector<std::string>& modes)
{
    const auto known = KnownCommSchedulers();
    for (const auto& m : modes)
    {
        if (m != "alone" && std::find(known.begin(), known.end(), m) == known.end())
        {
            throw ExperimentError("scheduler",
                                  "unknown scheduler '" + m + "' (known: alone, " + Join(known) +
                                      ")");
        }
    }
}

void
CruxExperiment::Check(const std::vector<std::string>& modes) const
{
    CheckModes(modes);
    // A bad output location is reported before the simulations, not after them. Distributed:
    // rank 0 alone probes the directory (ranks probing it at once race on creating it) and
    // every rank takes its answer, so that every rank refuses alike.
    std::string why = m_distributed && CruxDistributed::GetRank() != 0
                          ? std::string()
                          : ResultDirectory::Problem(m_scenario.outputDir);
    if (m_distributed)
    {
        why = CruxDistributed::AllGather(why).front();
    }
    if (!why.empty())
    {
        throw ExperimentError(m_scenario.source + ": outputDir: " + why);
    }
    if (std::find(modes.begin(), modes.end(), "optimal") != modes.end())
    {
        // The optimal search refuses a too large space only when it is called, i.e. after the
        // modes before it were simulated: check its size now, on the scheduler's view built
        // from the cluster description (same equal-cost paths as the fabric's).
        const Scenario& s = m_scenario;
        ClusterModel cm;
        cm.links = m_cluster.links;
        DoubleValue limit;
        CreateCommScheduler("optimal")->GetAttribute("MaxSearchSize", limit);
        try
        {
            for (const auto& job : m_jobs)
            {
                cm.jobs.push_back(
                    MakeClusterSchedJob(job, m_cluster, 0, std::numeric_limits<uint32_t>::max()));
            }
            CheckOptimalSearchSize(cm, s.priorityLevels, limit.Get());
        }
        catch (const std::invalid_argument& e)
        {
            throw ExperimentError(s.source + ": scheduler 'optimal': " + e.what());
        }
    }
}

std::vector<ExperimentRunResult>
CruxExperiment::Run(const std::vector<std::string>& modes)
{
    Check(modes);
    std::vector<std::string> ordered;
    if (std::find(modes.begin(), modes.end(), "alone") != modes.end())
    {
        ordered.emplace_back("alone");
    }
    for (const auto& m : modes)
    {
        if (m != "alone" && std::find(ordered.begin(), ordered.end(), m) == ordered.end())
        {
            ordered.push_back(m);
        }
    }
    return RunOrdered(ordered);
}

std::vector<ExperimentRunResult>
CruxExperiment::RunMode(const std::string& mode)
{
    CheckModes({mode});
    return RunOrdered({mode});
}

void
CruxExperiment::SetParallelRuns(uint32_t jobs)
{
    m_parallelRuns = std::max<uint32_t>(1, jobs);
}

void
CruxExperiment::SetProgressInterval(double seconds)
{
    m_progressSeconds = seconds;
}

void
CruxExperiment::SetDistributed(bool on, double stopCheckSeconds)
{
    m_distributed = on;
    m_stopCheckSeconds = stopCheckSeconds;
    m_ranks = on ? CruxDistributed::GetSize() : 1;
    m_jobRank.clear();
    if (!on)
    {
        return;
    }
    const Scenario& s = m_scenario;
    if (s.fabric != "packet")
    {
        throw ExperimentError(s.source + ": fabric: MPI ranks split the packet fabric; got '" +
                              s.fabric + "' (use --fabric=packet)");
    }
    std::vector<uint32_t> nodeRank;
    try
    {
        nodeRank = CruxTopologyHelper::AssignRanks(m_cluster, m_ranks);
    }
    catch (const std::invalid_argument& e)
    {
        throw ExperimentError(s.source + ": topology: " + e.what());
    }
    for (const auto& job : m_jobs)
    {
        std::map<uint32_t, std::vector<uint32_t>> hostsOf; // rank → hosts of the job
        for (uint32_t h : job.Hosts())
        {
            hostsOf[nodeRank[m_cluster.hostNode[h]]].push_back(h);
        }
        if (hostsOf.size() > 1)
        {
            std::ostringstream os;
            os << s.source << ": jobs[" << job.id << "] ('" << s.jobs[job.id].name
               << "'): its hosts are on " << hostsOf.size() << " of the " << m_ranks
               << " MPI ranks (";
            bool first = true;
            for (const auto& [r, hosts] : hostsOf)
            {
                os << (first ? "" : "; ") << "rank " << r << ": hosts";
                for (uint32_t h : hosts)
                {
                    os << " " << h;
                }
                first = false;
            }
            os << "); a job's hosts must be under the ToRs of one rank (rank rule: contiguous "
                  "blocks of ToRs), use fewer ranks or place the job under fewer ToRs";
            throw ExperimentError(os.str());
        }
        m_jobRank[job.id] = hostsOf.empty() ? 0 : hostsOf.begin()->first;
    }
}

const std::map<uint32_t, uint32_t>&
CruxExperiment::GetJobRanks() const
{
    return m_jobRank;
}

CruxExperiment::RunSpec
CruxExperiment::MakeSpec(RunSpec::Kind kind,
                         const std::string& label,
                         const std::vector<uint32_t>& jobIds,
                         const std::string& scheduler,
                         uint32_t iterationsOverride) const
{
    RunSpec spec;
    spec.kind = kind;
    spec.label = label;
    spec.jobIds = jobIds;
    spec.scheduler = scheduler;
    spec.iterationsOverride = iterationsOverride;
    for (uint32_t id : jobIds)
    {
        auto it = m_measuredComm.find(id);
        if (it != m_measuredComm.end())
        {
            spec.measuredComm.insert(*it);
        }
    }
    return spec;
}

std::vector<CruxExperiment::RunSpec>
CruxExperiment::ProfileSpecs() const
{
    std::vector<RunSpec> out;
    const uint32_t p = m_scenario.profileIterations;
    for (const auto& job : m_jobs)
    {
        if (p > 0 && m_measuredComm.count(job.id) == 0)
        {
            out.push_back(MakeSpec(RunSpec::PROFILE,
                                   "profile:" + m_scenario.jobs[job.id].name,
                                   {job.id},
                                   "ecmp",
                                   p + 1));
        }
    }
    return out;
}

std::vector<ExperimentRunResult>
CruxExperiment::RunOrdered(const std::vector<std::string>& ordered)
{
    // The runs of one batch are independent of each other (in parallel with SetParallelRuns):
    // a run depends on another only through the t_j measured alone (profileIterations > 0),
    // which the scheduler runs see (ecmp only those known before it in the sequence).
    const bool measures = m_scenario.profileIterations > 0;
    std::vector<uint32_t> all;
    for (const auto& job : m_jobs)
    {
        all.push_back(job.id);
    }
    // distributed: progress lines from rank 0 only
    ProgressReporter progress("crux-experiment",
                              m_distributed && CruxDistributed::GetRank() != 0 ? 0.0
                                                                               : m_progressSeconds);
    const bool alone = !ordered.empty() && ordered.front() == "alone";
    progress.StartRuns(
        static_cast<uint32_t>((alone ? m_jobs.size() : 0) + ordered.size() - (alone ? 1 : 0)));
    std::vector<ExperimentRunResult> out;
    std::vector<RunSpec> batch;
    size_t k = 0;
    if (alone)
    {
        for (const auto& job : m_jobs)
        {
            const std::string& name = m_scenario.jobs[job.id].name;
            batch.push_back(MakeSpec(RunSpec::ALONE, "alone:" + name, {job.id}, "ecmp", 0));
        }
        ++k;
        if (measures)
        {
            RunBatch(batch, out, progress);
        }
    }
    for (; k < ordered.size() && ordered[k] == "ecmp"; ++k)
    {
        batch.push_back(MakeSpec(RunSpec::MODE, "ecmp", all, "ecmp", 0));
    }
    if (k < ordered.size())
    {
        // every other scheduler uses the t_j of every job: profile the jobs still without one
        std::vector<RunSpec> profiles = ProfileSpecs();
        if (!profiles.empty())
        {
            progress.AddRuns(static_cast<uint32_t>(profiles.size()));
            batch.insert(batch.end(), profiles.begin(), profiles.end());
            RunBatch(batch, out, progress);
        }
        for (; k < ordered.size(); ++k)
        {
            batch.push_back(MakeSpec(RunSpec::MODE, ordered[k], all, ordered[k], 0));
        }
    }
    RunBatch(batch, out, progress);
    return out;
}

void
CruxExperiment::RunBatch(std::vector<RunSpec>& batch,
                         std::vector<ExperimentRunResult>& out,
                         ProgressReporter& progress)
{
    std::vector<ParallelRun> runs;
    for (const RunSpec& spec : batch)
    {
        runs.push_back(ParallelRun{spec.label, [this, &spec]() {
                                       std::string bytes;
                                       nlohmann::json::to_msgpack(nlohmann::json(RunJobs(spec)),
                                                                  bytes);
                                       return bytes;
                                   }});
    }
    // a distributed run is one simulation over all ranks: one after another
    const std::vector<std::string> bytes =
        RunParallel(runs, m_distributed ? 1 : m_parallelRuns, &progress);
    const uint32_t p = m_scenario.profileIterations;
    for (size_t i = 0; i < batch.size(); ++i)
    {
        const RunSpec& spec = batch[i];
        const auto r = nlohmann::json::from_msgpack(bytes[i]).get<ExperimentRunResult>();
        if (spec.kind == RunSpec::MODE)
        {
            out.push_back(r);
            continue;
        }
        const ExperimentJobResult& jr = r.jobs.front();
        const uint32_t id = spec.jobIds.front();
        if (p > 0 && jr.iterComm.size() >= 2)
        {
            // Crux §5: t_j profiled alone; skip the first (set-up) iteration.
            double sum = 0;
            uint32_t n = 0;
            for (size_t it = 1; it < jr.iterComm.size() && n < p; ++it, ++n)
            {
                sum += jr.iterComm[it];
            }
            m_measuredComm[id] = sum / n;
        }
        if (spec.kind == RunSpec::ALONE)
        {
            m_aloneIter[id] = jr.meanIterationTime;
            out.push_back(r);
        }
    }
    batch.clear();
}

namespace
{

/// Per-run mutable state reached from trace sinks.
struct RunState
{
    uint32_t measuredRemaining{0}; //!< measured jobs not finished
    int64_t lastDone{-1};          //!< time step at which measuredRemaining reached 0 (-1: not yet)
    std::map<std::pair<uint32_t, uint32_t>, double> comm; //!< (job, iteration) → all-reduce s
    /// per link, per TC: IP bytes of the data frames sent (packet fabric)
    std::vector<std::array<uint64_t, crux::NUM_TRAFFIC_CLASSES>> linkTcBytes;
    std::map<std::string, uint64_t> deviceDrops; //!< device drop reason → frames
};

/// The fabric of one run: the topology and the transport that carries the jobs' messages.
struct RunFabric
{
    Ptr<CruxTopology> topo;          //!< switches, hosts, links
    Ptr<RdmaTransport> rdma;         //!< packet level (null on the flow fabric)
    Ptr<FlowTransport> flow;         //!< flow level (null on the packet fabric)
    Ptr<MessageTransport> transport; //!< the one the jobs use
};

/// What the decision's installation did, for the result rows.
struct RunInstall
{
    std::map<uint32_t, uint32_t> rerouted; //!< job id → flows steered off their ECMP path
    /// (job id, flow id) → the flow's links (CruxTopology::PathToString)
    std::map<std::pair<uint32_t, uint32_t>, std::string> flowPaths;
};

/**
 * Build the scenario's fabric: the cluster description as ns-3 nodes (switch buffer, PFC, the
 * seed-salted ECMP hash) and the transport of its "fabric" (packet level with its congestion
 * control, or flow level). Both transports give a connection the same default UDP source port,
 * so ECMP places it on the same path. \p ranks > 1 splits the nodes over the MPI ranks
 * (CruxTopologyHelper::SetRanks).
 */
RunFabric
BuildRunFabric(const Scenario& s, const ClusterTopology& cluster, uint32_t ranks = 1)
{
    const auto& tp = s.topology;
    RunFabric f;
    CruxTopologyHelper th;
    th.SetRanks(ranks);
    th.SetMmuAttribute("BufferSize",
                       UintegerValue(ParseByteSize(tp.switchBuffer, "topology.switchBuffer")));
    th.SetMmuAttribute("PfcEnabled", BooleanValue(tp.pfc));
    // The seed salts every switch's ECMP hash: another seed gives other ECMP choices.
    th.SetEcmpSeedBase(static_cast<uint32_t>(s.seed * 2654435761ULL));
    f.topo = th.Install(cluster);
    if (s.fabric == "flow")
    {
        f.flow = FlowTransportHelper().Install(f.topo);
        f.transport = f.flow;
    }
    else
    {
        RdmaTransportHelper rdmaHelper;
        rdmaHelper.SetCongestionControl(s.congestionControl); // dcqcn, hpcc or none
        f.rdma = rdmaHelper.Install(f.topo);
        for (uint32_t id = 0; id < s.jobs.size(); ++id)
        {
            f.rdma->SetJobLabel(id, s.jobs[id].name); // the watchdog names stuck jobs by name
        }
        f.transport = f.rdma;
    }
    return f;
}

/// Install the decision through CruxHelper (DSCP, source ports or pinned routes, all or
/// nothing) and keep what it did. \throws ExperimentError if the decision cannot be installed
RunInstall
InstallRunDecision(const Scenario& s,
                   const ClusterModel& cm,
                   const Decision& decision,
                   std::vector<DltJob>& jobs,
                   PathSteering& steering)
{
    CruxHelper crux;
    crux.SetPathEnforcement(s.pathEnforcement);
    std::map<uint32_t, CruxJobInstall> installed;
    try
    {
        installed = crux.Install(cm, decision, jobs, steering);
    }
    catch (const std::invalid_argument& e)
    {
        throw ExperimentError(e.what());
    }
    RunInstall out;
    for (const auto& [jobId, in] : installed)
    {
        out.rerouted[jobId] = in.rerouted;
        for (const auto& [flowId, path] : in.paths)
        {
            out.flowPaths[{jobId, flowId}] = CruxTopology::PathToString(path);
        }
    }
    return out;
}

/// Count every device drop (the data bytes per link and class are the devices' own counters,
/// read after the run: no trace sink on the per-frame path).
void
ConnectLinkCounters(const RunFabric& f, RunState& state)
{
    state.linkTcBytes.assign(f.topo->GetNLinks(), {});
    for (uint32_t l = 0; l < f.topo->GetNLinks() && f.rdma; ++l)
    {
        f.topo->GetLink(l).txDev->TraceConnectWithoutContext(
            "Drop",
            crux::MakeFunctorCallback<void, Ptr<const Packet>, uint8_t, const std::string&>(
                [&state](Ptr<const Packet>, uint8_t, const std::string& reason) {
                    ++state.deviceDrops["device:" + reason];
                }));
    }
}

/// Install one application per job, registered with the tracker; the run stops when every
/// measured job (iterations > 0) is done (with \p stopWhenDone; a distributed run decides that
/// over all ranks instead). \return the applications, in the order of \p jobs
std::vector<Ptr<DltJobApplication>>
InstallJobApps(const std::vector<DltJob>& jobs,
               const RunFabric& f,
               Ptr<GpuIntensityTracker> tracker,
               RunState& state,
               bool stopWhenDone = true)
{
    std::vector<Ptr<DltJobApplication>> apps;
    for (const auto& job : jobs)
    {
        tracker->RegisterJob(job.id, job.flopsPerIteration, job.NumGpus(), job.computeTime);
        Ptr<DltJobApplication> app =
            DltJobHelper().Install(job, f.transport, f.topo->GetHost(job.Hosts().front()).node);
        app->TraceConnectWithoutContext(
            "IterationComplete",
            MakeCallback(&GpuIntensityTracker::NotifyIterationComplete, tracker));
        app->TraceConnectWithoutContext(
            "AllReduceComplete",
            crux::MakeFunctorCallback<void, uint32_t, uint32_t, uint32_t, Time, Time>(
                [&state](uint32_t jobId, uint32_t iter, uint32_t, Time start, Time end) {
                    state.comm[{jobId, iter}] += (end - start).GetSeconds();
                }));
        if (job.iterations > 0)
        {
            ++state.measuredRemaining;
            app->TraceConnectWithoutContext("JobComplete",
                                            crux::MakeFunctorCallback<void, uint32_t, Time>(
                                                [&state, stopWhenDone](uint32_t, Time) {
                                                    if (--state.measuredRemaining == 0)
                                                    {
                                                        state.lastDone =
                                                            Simulator::Now().GetTimeStep();
                                                        if (stopWhenDone)
                                                        {
                                                            Simulator::Stop();
                                                        }
                                                    }
                                                }));
        }
        apps.push_back(app);
    }
    return apps;
}

/// Progress lines of one run (ProgressReporter::Update, checked whenever an all-reduce
/// completes; no simulator event): simulated time and the iterations done of the measured jobs
/// (iterations > 0), which give the estimate of the time left.
void
ConnectProgress(const std::vector<DltJob>& jobs,
                const std::vector<Ptr<DltJobApplication>>& apps,
                const std::string& label,
                ProgressReporter& progress)
{
    if (!progress.IsOn())
    {
        return;
    }
    uint64_t total = 0;
    for (const auto& job : jobs)
    {
        total += job.iterations;
    }
    auto update =
        [&jobs, &apps, &progress, label, total](uint32_t, uint32_t, uint32_t, Time, Time) {
            uint64_t done = 0;
            for (size_t i = 0; i < jobs.size(); ++i)
            {
                done += std::min<uint64_t>(apps[i]->GetIterationTimes().size(), jobs[i].iterations);
            }
            std::ostringstream os;
            os << std::fixed << std::setprecision(4) << "sim " << Simulator::Now().GetSeconds()
               << " s, iterations " << done << "/" << total;
            progress.Update(label, os.str(), total > 0 ? static_cast<double>(done) / total : 0.0);
        };
    for (const auto& app : apps)
    {
        app->TraceConnectWithoutContext(
            "AllReduceComplete",
            crux::MakeFunctorCallback<void, uint32_t, uint32_t, uint32_t, Time, Time>(update));
    }
}

/// The fabric's counters after the run: bytes per link and class, peak queues, PAUSE frames,
/// drops with their reasons, retransmissions and timeouts.
void
CollectFabricCounters(const RunFabric& f, RunState& state, ExperimentRunResult& r)
{
    const Ptr<CruxTopology>& topo = f.topo;
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        auto& c = state.linkTcBytes[l];
        if (f.rdma)
        {
            // IP bytes of the data frames (ACK/NAK/CNP travel in the control class)
            for (uint8_t tc = 0; tc < crux::NUM_TRAFFIC_CLASSES; ++tc)
            {
                c[tc] = topo->GetLink(l).txDev->GetTxBytes(tc);
            }
        }
        if (f.flow)
        {
            for (uint8_t tc = 0; tc < crux::NUM_TRAFFIC_CLASSES; ++tc)
            {
                c[tc] = f.flow->GetLinkBytes(l, tc);
            }
        }
        if (std::any_of(c.begin(), c.end(), [](uint64_t b) { return b > 0; }))
        {
            r.linkTcBytes[l] = std::vector<uint64_t>(c.begin(), c.end());
        }
        if (f.rdma)
        {
            r.maxQueueBytes.resize(QbbNetDevice::N_CLASSES, 0);
            for (uint8_t k = 0; k < QbbNetDevice::N_CLASSES; ++k)
            {
                r.maxQueueBytes[k] =
                    std::max(r.maxQueueBytes[k], topo->GetLink(l).txDev->GetPeakTcQueueBytes(k));
            }
        }
        const Ptr<QbbNetDevice> dev = topo->GetLink(l).txDev;
        const uint64_t pauses = dev->GetPauseTxCount();
        if (pauses > 0)
        {
            auto& perTc = r.linkPauseTx[l];
            perTc.resize(QbbNetDevice::N_TC, 0);
            for (uint8_t tc = 0; tc < QbbNetDevice::N_TC; ++tc)
            {
                perTc[tc] = dev->GetPauseTxCount(tc);
            }
        }
        r.pauseFrames += pauses;
    }
    r.drops = state.deviceDrops;
    for (uint32_t sw = 0; sw < topo->GetNSwitches(); ++sw)
    {
        for (const auto& [reason, n] : topo->GetSwitch(sw).sw->GetDropCounts())
        {
            if (n > 0)
            {
                r.drops["switch:" + reason] += n;
            }
        }
    }
    if (f.rdma)
    {
        const RdmaQpStats stats = f.rdma->GetStats();
        r.retransmittedPackets = stats.retransmittedPackets;
        r.timeouts = stats.timeouts;
        if (stats.pcieRxDrops > 0)
        {
            r.drops["nic:pcie-rx-buffer-full"] += stats.pcieRxDrops; // RdmaNic receive buffer
        }
    }
}

/// The jobs of one run: the placed jobs \p jobIds; in a run of several jobs, background jobs
/// run until the measured ones are done (iterations 0); \p iterationsOverride > 0 replaces the
/// others' iteration count. \return the jobs, in the order of \p jobIds
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

/// The scheduler's decision for \p jobs on \p topo, with the t_j measured alone
/// (\p measuredComm, job id → seconds) in the cluster model. \param cm receives the cluster
/// model the scheduler saw \throws ExperimentError naming the scenario file or the scheduler
Decision
Decide(const Scenario& s,
       Ptr<CruxTopology> topo,
       const std::vector<DltJob>& jobs,
       const std::map<uint32_t, double>& measuredComm,
       const std::string& scheduler,
       ClusterModel& cm)
{
    // The scheduler's view (candidate paths from the cluster description, ECMP defaults from
    // the switches' hash of the default ports).
    try
    {
        cm = MakeClusterModel(topo, jobs);
    }
    catch (const std::invalid_argument& e)
    {
        throw ExperimentError(s.source + ": " + e.what());
    }
    for (SchedJob& sj : cm.jobs)
    {
        auto mc = measuredComm.find(sj.id);
        sj.measuredCommTime = mc != measuredComm.end() ? mc->second : 0.0;
    }
    SchedulerConfig sc;
    sc.numLevels = s.priorityLevels;
    sc.seed = s.seed;
    try
    {
        return CreateCommScheduler(scheduler)->Schedule(cm, sc);
    }
    catch (const std::invalid_argument& e)
    {
        throw ExperimentError(s.source + ": scheduler '" + scheduler + "': " + e.what());
    }
}

/// What a job's application recorded in a run (DltJobApplication), as plain values: they come
/// back from the other ranks in a distributed run.
struct JobRecord
{
    std::vector<double> starts; //!< iteration start times, s (GetIterationStarts)
    std::vector<double> times;  //!< iteration durations, s (GetIterationTimes)
    bool complete{false};       //!< IsComplete()
    double jct{-1};             //!< GetJct() in seconds if complete, else -1
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(JobRecord, starts, times, complete, jct)

/// \return the records of \p apps, in their order
std::vector<JobRecord>
RecordsOf(const std::vector<Ptr<DltJobApplication>>& apps)
{
    std::vector<JobRecord> out;
    for (const auto& app : apps)
    {
        JobRecord rec;
        rec.starts = app->GetIterationStarts();
        rec.times = app->GetIterationTimes();
        rec.complete = app->IsComplete();
        rec.jct = rec.complete ? app->GetJct().GetSeconds() : -1.0;
        out.push_back(std::move(rec));
    }
    return out;
}

/// Fill \p r's measurement window, job rows and utilization from the applications' iteration
/// records (doc: the measurement window). \param totalGpus GPUs of the cluster \param
/// peakFlops the tracker's peak FLOP/s per GPU
void
MeasureJobs(const Scenario& s,
            const std::vector<DltJob>& jobs,
            const std::vector<JobRecord>& apps,
            const Decision& decision,
            const RunInstall& install,
            const RunState& state,
            uint32_t totalGpus,
            double peakFlops,
            ExperimentRunResult& r)
{
    const bool multi = jobs.size() > 1;
    // The window: from the last start to the first end of a measured job.
    double windowStart = 0;
    double windowEnd = r.simulatedTime;
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        windowStart = std::max(windowStart, jobs[i].startTime);
        if (jobs[i].iterations > 0 && apps[i].complete)
        {
            const auto& st = apps[i].starts;
            const auto& du = apps[i].times;
            windowEnd = std::min(windowEnd, st.back() + du.back());
        }
    }
    r.windowStart = windowStart;
    r.windowEnd = windowEnd;
    double flopRate = 0;
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        const DltJob& job = jobs[i];
        const JobDecision& jd = decision.jobs.at(job.id);
        ExperimentJobResult jr;
        jr.id = job.id;
        jr.name = s.jobs[job.id].name;
        jr.model = job.modelName;
        jr.gpus = job.NumGpus();
        jr.hosts = job.Hosts();
        jr.background = s.jobs[job.id].background;
        jr.flopsPerIteration = job.flopsPerIteration;
        jr.level = jd.level;
        jr.dscp = job.dscp;
        jr.schedulerCommTime = jd.commTime;
        jr.intensity = jd.intensity;
        jr.k = jd.k;
        auto rr = install.rerouted.find(job.id);
        jr.reroutedFlows = rr != install.rerouted.end() ? rr->second : 0;
        jr.timeShift = jd.timeShift;
        for (const auto& [key, path] : install.flowPaths)
        {
            if (key.first == job.id)
            {
                jr.flowPaths[key.second] = path;
            }
        }
        const auto& st = apps[i].starts;
        const auto& du = apps[i].times;
        double sumT = 0;
        double sumC = 0;
        for (size_t it = 0; it < st.size(); ++it)
        {
            const double start = st[it];
            const double end = st[it] + du[it];
            auto c = state.comm.find({job.id, static_cast<uint32_t>(it)});
            const double comm = c != state.comm.end() ? c->second : 0.0;
            jr.iterStart.push_back(start);
            jr.iterEnd.push_back(end);
            jr.iterComm.push_back(comm);
            const bool inWindow =
                !multi || (start >= windowStart - 1e-12 && end <= windowEnd + 1e-12);
            if (it >= 1 && inWindow)
            {
                ++jr.measuredIterations;
                sumT += du[it];
                sumC += comm;
            }
        }
        if (jr.measuredIterations > 0)
        {
            jr.meanIterationTime = sumT / jr.measuredIterations;
            jr.meanCommTime = sumC / jr.measuredIterations;
            jr.throughput = 1.0 / jr.meanIterationTime;
            flopRate += job.flopsPerIteration * jr.throughput;
        }
        else
        {
            r.jobsOutsideWindow.push_back(jr.name);
        }
        jr.jct = apps[i].jct;
        r.jobs.push_back(jr);
    }
    r.utilization = flopRate / (static_cast<double>(totalGpus) * peakFlops);
}

/**
 * What one run sets up before its simulation, the same with and without MPI. Filled in place by
 * SetUpRun (the link counters' trace sinks point into \c state, so it must not move).
 */
struct RunSetup
{
    RunFabric fabric;                             //!< topology and transport
    std::optional<CruxTopologySteering> steering; //!< the fabric's path services (ECMP hash)
    std::vector<DltJob> jobs;                     //!< the run's jobs, in run order
    ClusterModel cm;                              //!< the cluster model the scheduler saw
    Decision decision;                            //!< the scheduler's decision
    RunInstall install;                           //!< what installing the decision did
    RunState state;                               //!< counters reached from trace sinks
    Ptr<GpuIntensityTracker> tracker;             //!< the run's tracker (TotalGpus set)
};

/**
 * Set up one run: the RNG seed, the fabric with its nodes over \p ranks (1 without MPI), the
 * jobs of \p jobIds (JobsOfRun), the scheduler's decision (Decide) installed on the fabric, the
 * link counters connected, a GPU-intensity tracker for \p totalGpus GPUs.
 * \throws ExperimentError as Decide does
 */
void
SetUpRun(const Scenario& s,
         const ClusterTopology& cluster,
         uint32_t ranks,
         const std::vector<DltJob>& placed,
         const std::vector<uint32_t>& jobIds,
         uint32_t iterationsOverride,
         const std::map<uint32_t, double>& measuredComm,
         const std::string& scheduler,
         uint32_t totalGpus,
         RunSetup& run)
{
    RngSeedManager::SetSeed(static_cast<uint32_t>(s.seed));
    RngSeedManager::SetRun(1);
    run.fabric = BuildRunFabric(s, cluster, ranks);
    run.steering.emplace(run.fabric.topo);
    run.jobs = JobsOfRun(s, placed, jobIds, iterationsOverride);
    run.decision = Decide(s, run.fabric.topo, run.jobs, measuredComm, scheduler, run.cm);
    run.install = InstallRunDecision(s, run.cm, run.decision, run.jobs, *run.steering);
    ConnectLinkCounters(run.fabric, run.state);
    run.tracker = CreateObject<GpuIntensityTracker>();
    run.tracker->SetAttribute("TotalGpus", UintegerValue(totalGpus));
}

/**
 * The job rows, window and utilization of a run that ended at \p end (r.simulatedTime, seconds,
 * set by the caller): MeasureJobs over \p records (one per job of \p run, in order) and
 * \p state, and \p tracker's utilization series (about 200 bins) up to \p end.
 */
void
FinishRun(const Scenario& s,
          const RunSetup& run,
          const std::vector<JobRecord>& records,
          const RunState& state,
          Ptr<GpuIntensityTracker> tracker,
          uint32_t totalGpus,
          Time end,
          ExperimentRunResult& r)
{
    DoubleValue peakValue;
    tracker->GetAttribute("PeakFlops", peakValue);
    MeasureJobs(s,
                run.jobs,
                records,
                run.decision,
                run.install,
                state,
                totalGpus,
                peakValue.Get(),
                r);
    r.utilizationBin = std::max(0.01, std::ceil(r.simulatedTime / 200 * 100) / 100);
    if (r.simulatedTime > 0)
    {
        r.utilizationSeries =
            tracker->GetUtilizationSeries(Seconds(r.utilizationBin), Seconds(0), end);
    }
    if (!r.complete)
    {
        NS_LOG_WARN("run " << r.run << ": stopTime " << s.stopTime
                           << " s reached before every measured job finished");
    }
}

} // namespace

namespace
{

/// One IterationComplete notification (GpuIntensityTracker::NotifyIterationComplete's
/// arguments; times as simulator time steps, so that they come back exactly).
struct TrackerRecord
{
    uint32_t job{0};       //!< job id
    uint32_t iteration{0}; //!< iteration index
    int64_t start{0};      //!< start, time steps
    int64_t end{0};        //!< end, time steps
    double flops{0};       //!< FLOPs of the iteration
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TrackerRecord, job, iteration, start, end, flops)

/// What one rank of a distributed run measured: its jobs' records and its nodes' counters
/// (every counter of a node simulated by another rank stays 0 here, so sums are exact).
struct RankPart
{
    std::vector<uint32_t> jobIds;   //!< the jobs simulated by this rank
    std::vector<JobRecord> records; //!< their records, in the order of jobIds
    /// the AllReduceComplete notifications of its jobs, in order (job, iteration, start and
    /// end as TrackerRecord; flops unused)
    std::vector<TrackerRecord> allReduce;
    std::vector<TrackerRecord> tracker; //!< the tracker notifications of its jobs
    int64_t lastDone{-1}; //!< time step its last measured job finished (-1: none or not done)
    ExperimentRunResult counters;  //!< CollectFabricCounters of this rank
    uint64_t events{0};            //!< events this rank executed
    uint32_t measuredRemaining{0}; //!< its measured jobs not finished
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RankPart,
                                   jobIds,
                                   records,
                                   allReduce,
                                   tracker,
                                   lastDone,
                                   counters,
                                   events,
                                   measuredRemaining)

/// Add the fabric counters of one rank (\p part) to the run's (\p r): sums, and the largest
/// peak queue per class.
void
AddRankCounters(const ExperimentRunResult& part, ExperimentRunResult& r)
{
    // link id -> per-TC counts, added class by class
    auto addPerTc = [](const std::map<uint32_t, std::vector<uint64_t>>& from,
                       std::map<uint32_t, std::vector<uint64_t>>& to) {
        for (const auto& [link, counts] : from)
        {
            auto& sum = to[link];
            sum.resize(std::max(sum.size(), counts.size()), 0);
            for (size_t tc = 0; tc < counts.size(); ++tc)
            {
                sum[tc] += counts[tc];
            }
        }
    };
    addPerTc(part.linkTcBytes, r.linkTcBytes);
    addPerTc(part.linkPauseTx, r.linkPauseTx);
    for (const auto& [reason, n] : part.drops)
    {
        r.drops[reason] += n;
    }
    r.pauseFrames += part.pauseFrames;
    r.retransmittedPackets += part.retransmittedPackets;
    r.timeouts += part.timeouts;
    r.maxQueueBytes.resize(std::max(r.maxQueueBytes.size(), part.maxQueueBytes.size()), 0);
    for (size_t k = 0; k < part.maxQueueBytes.size(); ++k)
    {
        r.maxQueueBytes[k] = std::max(r.maxQueueBytes[k], part.maxQueueBytes[k]);
    }
}

/// Every \p interval, over all ranks (a collective inside a simulator event, at the same
/// simulation time on every rank): stop when every measured job of the run is done.
void
DistributedStopCheck(const RunState* state, bool anyMeasured, Time interval)
{
    if (CruxDistributed::AllTrue(state->measuredRemaining == 0) && anyMeasured)
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(interval, &DistributedStopCheck, state, anyMeasured, interval);
}

} // namespace

ExperimentRunResult
CruxExperiment::RunJobsDistributed(const RunSpec& spec) const
{
    const Scenario& s = m_scenario;
    const std::string& label = spec.label;
    const std::string& scheduler = spec.scheduler;
    const uint32_t rank = CruxDistributed::GetRank();
    NS_LOG_INFO("rank " << rank << ": run " << label << " with scheduler " << scheduler);
    const uint32_t totalGpus = m_nHosts * m_gpusPerHost;

    // Every rank builds the whole fabric (nodes of other ranks stay idle) and takes the same
    // decision; it installs only the applications of its own jobs.
    RunSetup run;
    SetUpRun(s,
             m_cluster,
             m_ranks,
             m_jobs,
             spec.jobIds,
             spec.iterationsOverride,
             spec.measuredComm,
             scheduler,
             totalGpus,
             run);
    const std::vector<DltJob>& jobs = run.jobs;
    RunState& state = run.state;
    std::vector<DltJob> local;
    bool anyMeasured = false;
    for (const auto& job : jobs)
    {
        anyMeasured = anyMeasured || job.iterations > 0;
        if (m_jobRank.at(job.id) == rank)
        {
            local.push_back(job);
        }
    }
    const std::vector<Ptr<DltJobApplication>> apps =
        InstallJobApps(local, run.fabric, run.tracker, state, false);
    for (size_t i = 0; i < apps.size(); ++i)
    {
        apps[i]->SetJobName(s.jobs.at(local[i].id).name); // named in the watchdog's line
    }
    RankPart part;
    for (const auto& app : apps)
    {
        app->TraceConnectWithoutContext(
            "IterationComplete",
            crux::MakeFunctorCallback<void, uint32_t, uint32_t, Time, Time, double>(
                [&part](uint32_t job, uint32_t it, Time start, Time end, double flops) {
                    part.tracker.push_back(
                        TrackerRecord{job, it, start.GetTimeStep(), end.GetTimeStep(), flops});
                }));
        app->TraceConnectWithoutContext(
            "AllReduceComplete",
            crux::MakeFunctorCallback<void, uint32_t, uint32_t, uint32_t, Time, Time>(
                [&part](uint32_t job, uint32_t it, uint32_t, Time start, Time end) {
                    part.allReduce.push_back(
                        TrackerRecord{job, it, start.GetTimeStep(), end.GetTimeStep(), 0.0});
                }));
    }
    ProgressReporter progress("crux-experiment", rank == 0 ? m_progressSeconds : 0.0);
    ConnectProgress(local, apps, label, progress);

    Simulator::Stop(Seconds(s.stopTime));
    const Time interval = Seconds(m_stopCheckSeconds);
    Simulator::Schedule(interval, &DistributedStopCheck, &state, anyMeasured, interval);
    const auto wall0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto wall1 = std::chrono::steady_clock::now();
    // this rank's jobs that can never finish (RunJobs); the program ends every rank
    if (state.measuredRemaining > 0)
    {
        if (const auto stuck = DltJobApplication::DescribeStuck(apps, Seconds(s.stopTime));
            !stuck.empty())
        {
            Simulator::Destroy();
            throw CruxRunError(stuck);
        }
    }

    // This rank's part, then every rank's, merged in rank order (the same on every rank).
    for (const auto& job : local)
    {
        part.jobIds.push_back(job.id);
    }
    part.records = RecordsOf(apps);
    part.lastDone = state.lastDone;
    CollectFabricCounters(run.fabric, state, part.counters);
    part.events = Simulator::GetEventCount();
    part.measuredRemaining = state.measuredRemaining;
    std::string bytes;
    nlohmann::json::to_msgpack(nlohmann::json(part), bytes);
    std::vector<RankPart> parts;
    for (const std::string& b : CruxDistributed::AllGather(bytes))
    {
        parts.push_back(nlohmann::json::from_msgpack(b).get<RankPart>());
    }

    ExperimentRunResult r;
    r.run = label;
    r.scheduler = scheduler;
    r.wallSeconds = std::chrono::duration<double>(wall1 - wall0).count();
    uint32_t remaining = 0;
    int64_t lastDone = -1;
    for (const RankPart& p : parts)
    {
        r.events += p.events;
        remaining += p.measuredRemaining;
        lastDone = std::max(lastDone, p.lastDone);
    }
    r.complete = remaining == 0;
    // The end a single-process run has: the completion of the last measured job (the ranks ran
    // on to the next stop check); what ended after it is left out of the job records below.
    const Time end =
        anyMeasured && r.complete && lastDone >= 0 ? TimeStep(lastDone) : Simulator::Now();
    r.simulatedTime = end.GetSeconds();
    std::map<uint32_t, JobRecord> recordOf;
    RunState merged;
    std::map<uint32_t, std::vector<TrackerRecord>> trackerOf;
    for (const RankPart& p : parts)
    {
        for (const TrackerRecord& t : p.tracker)
        {
            if (t.end <= end.GetTimeStep())
            {
                trackerOf[t.job].push_back(t);
            }
        }
        for (size_t i = 0; i < p.jobIds.size(); ++i)
        {
            // the iterations completed by the end (one tracker record each, in order)
            JobRecord rec = p.records.at(i);
            const size_t n = std::min(rec.times.size(), trackerOf[p.jobIds[i]].size());
            rec.starts.resize(std::min(rec.starts.size(), n));
            rec.times.resize(n);
            recordOf[p.jobIds[i]] = rec;
        }
        for (const TrackerRecord& ar : p.allReduce)
        {
            if (ar.end <= end.GetTimeStep())
            {
                merged.comm[{ar.job, ar.iteration}] +=
                    (TimeStep(ar.end) - TimeStep(ar.start)).GetSeconds();
            }
        }
    }
    // The tracker of a single-process run, rebuilt: jobs registered in run order, each job's
    // iterations in its own order.
    Ptr<GpuIntensityTracker> tracker = CreateObject<GpuIntensityTracker>();
    tracker->SetAttribute("TotalGpus", UintegerValue(totalGpus));
    std::vector<JobRecord> records;
    for (const auto& job : jobs)
    {
        tracker->RegisterJob(job.id, job.flopsPerIteration, job.NumGpus(), job.computeTime);
        for (const TrackerRecord& t : trackerOf[job.id])
        {
            tracker->NotifyIterationComplete(t.job,
                                             t.iteration,
                                             TimeStep(t.start),
                                             TimeStep(t.end),
                                             t.flops);
        }
        records.push_back(recordOf.at(job.id));
    }
    FinishRun(s, run, records, merged, tracker, totalGpus, end, r);
    for (const RankPart& p : parts)
    {
        AddRankCounters(p.counters, r);
    }
    Simulator::Destroy();
    CruxDistributed::EndRun();
    return r;
}

ExperimentRunResult
CruxExperiment::RunJobs(const RunSpec& spec) const
{
    if (m_distributed)
    {
        return RunJobsDistributed(spec);
    }
    const Scenario& s = m_scenario;
    const std::string& label = spec.label;
    const std::string& scheduler = spec.scheduler;
    NS_LOG_INFO("run " << label << " with scheduler " << scheduler);
    const uint32_t totalGpus = m_nHosts * m_gpusPerHost;
    RunSetup run;
    SetUpRun(s,
             m_cluster,
             1,
             m_jobs,
             spec.jobIds,
             spec.iterationsOverride,
             spec.measuredComm,
             scheduler,
             totalGpus,
             run);
    const std::vector<Ptr<DltJobApplication>> apps =
        InstallJobApps(run.jobs, run.fabric, run.tracker, run.state);
    for (size_t i = 0; i < apps.size(); ++i)
    {
        apps[i]->SetJobName(s.jobs.at(run.jobs[i].id).name); // named in the watchdog's line
    }
    ProgressReporter progress("crux-experiment", m_progressSeconds);
    ConnectProgress(run.jobs, apps, label, progress);

    Simulator::Stop(Seconds(s.stopTime));
    const auto wall0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto wall1 = std::chrono::steady_clock::now();
    // not stopped by the measured jobs' end: a job that can never finish is an error, one line
    // per job (a job only cut short by stopTime is INCOMPLETE in the results)
    if (run.state.measuredRemaining > 0)
    {
        if (const auto stuck = DltJobApplication::DescribeStuck(apps, Seconds(s.stopTime));
            !stuck.empty())
        {
            Simulator::Destroy();
            throw CruxRunError(stuck);
        }
    }

    ExperimentRunResult r;
    r.run = label;
    r.scheduler = scheduler;
    r.simulatedTime = Simulator::Now().GetSeconds();
    r.wallSeconds = std::chrono::duration<double>(wall1 - wall0).count();
    r.events = Simulator::GetEventCount();
    r.complete = run.state.measuredRemaining == 0;
    FinishRun(s, run, RecordsOf(apps), run.state, run.tracker, totalGpus, Simulator::Now(), r);
    CollectFabricCounters(run.fabric, run.state, r);
    Simulator::Destroy();
    return r;
}

std::string
CruxExperiment::FormatTable(const std::vector<ExperimentRunResult>& runs) const
{
    std::ostringstream os;
    os << std::fixed;
    const uint32_t gpus = m_nHosts * m_gpusPerHost;
    os << "scenario " << m_scenario.name << " (" << m_scenario.source << "), fabric "
       << m_scenario.fabric << ", seed " << m_scenario.seed << ", " << m_nHosts << " hosts x "
       << m_gpusPerHost << " GPUs\n";
    os << std::left << std::setw(18) << "run" << std::setw(12) << "job" << std::right
       << std::setw(6) << "level" << std::setw(10) << "iters" << std::setw(14) << "iter time s"
       << std::setw(10) << "vs alone" << std::setw(14) << "throughput/s" << std::setw(10)
       << "vs alone" << std::setw(12) << "JCT s"
       << "\n";
    double aloneFlopRate = 0;
    bool allAlone = true;
    for (const auto& job : m_jobs)
    {
        auto it = m_aloneIter.find(job.id);
        if (it == m_aloneIter.end() || it->second <= 0)
        {
            allAlone = false;
            continue;
        }
        aloneFlopRate += job.flopsPerIteration / it->second;
    }
    // Peak FLOP/s per GPU: the current default of the attribute, which every run's tracker
    // was created with.
    TypeId::AttributeInformation peakInfo;
    GpuIntensityTracker::GetTypeId().LookupAttributeByName("PeakFlops", &peakInfo);
    const double peakFlops = DynamicCast<const DoubleValue>(peakInfo.initialValue)->Get();
    auto pct = [](double v) {
        std::ostringstream o;
        if (std::isnan(v))
        {
            o << "-";
        }
        else
        {
            o << std::showpos << std::fixed << std::setprecision(1) << v << "%";
        }
        return o.str();
    };
    for (const auto& r : runs)
    {
        for (const auto& j : r.jobs)
        {
            auto a = m_aloneIter.find(j.id);
            const double ref =
                (a != m_aloneIter.end() && r.run.rfind("alone:", 0) != 0) ? a->second : 0.0;
            const double refTput = ref > 0 ? 1.0 / ref : 0.0;
            os << std::left << std::setw(18) << r.run << std::setw(12) << j.name << std::right
               << std::setw(6) << j.level << std::setw(10) << j.measuredIterations << std::setw(14)
               << std::setprecision(4) << j.meanIterationTime << std::setw(10)
               << pct(PercentChange(j.meanIterationTime, ref)) << std::setw(14)
               << std::setprecision(3) << j.throughput << std::setw(10)
               << pct(PercentChange(j.throughput, refTput)) << std::setw(12)
               << std::setprecision(3);
            if (j.jct >= 0)
            {
                os << j.jct;
            }
            else
            {
                os << "-";
            }
            os << "\n";
        }
        if (!r.complete)
        {
            os << "  (stopTime reached before every measured job finished)\n";
        }
    }
    os << "cluster GPU utilization (" << gpus << " GPUs, " << std::setprecision(0)
       << peakFlops / 1e12 << " TFLOP/s peak each):\n";
    const double aloneUtil = aloneFlopRate / (gpus * peakFlops);
    if (allAlone)
    {
        os << "  " << std::left << std::setw(16) << "alone (sum)" << std::right
           << std::setprecision(4) << aloneUtil << "\n";
    }
    for (const auto& r : runs)
    {
        if (r.run.rfind("alone:", 0) == 0 || r.run.rfind("profile:", 0) == 0)
        {
            continue;
        }
        os << "  " << std::left << std::setw(16) << r.run << std::right << std::setprecision(4)
           << r.utilization << std::setw(10)
           << pct(allAlone ? PercentChange(r.utilization, aloneUtil) : std::nan(""));
        if (!r.jobsOutsideWindow.empty())
        {
            os << "  INCOMPLETE: without";
            for (const auto& name : r.jobsOutsideWindow)
            {
                os << " " << name;
            }
            os << " (no iteration inside the measurement window)";
        }
        os << "\n";
    }
    if (m_scenario.fabric == "packet")
    {
        // Every packet-level number must come without artefacts: the counts that would show one.
        os << "packet fabric (" << m_scenario.congestionControl
           << "): PAUSE frames, drops, retransmitted packets, timeouts:\n";
        for (const auto& r : runs)
        {
            uint64_t drops = 0;
            for (const auto& [reason, n] : r.drops)
            {
                drops += n;
            }
            os << "  " << std::left << std::setw(16) << r.run << std::right << std::setw(12)
               << r.pauseFrames << std::setw(8) << drops << std::setw(12) << r.retransmittedPackets
               << std::setw(10) << r.timeouts << "\n";
        }
    }
    return os.str();
}

namespace
{

/// jobs.csv: one row per run and job.
void
WriteJobsCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,scheduler,job,model,gpus,background,level,dscp,flops_per_iteration,"
         "scheduler_comm_time_s,intensity_flops_per_s,k,rerouted_flows,measured_iterations,"
         "mean_iteration_s,throughput_iter_per_s,mean_comm_s,jct_s\n";
    for (const auto& r : runs)
    {
        for (const auto& j : r.jobs)
        {
            f << r.run << "," << r.scheduler << "," << j.name << "," << j.model << "," << j.gpus
              << "," << (j.background ? 1 : 0) << "," << j.level << "," << j.dscp << ","
              << j.flopsPerIteration << "," << j.schedulerCommTime << "," << j.intensity << ","
              << j.k << "," << j.reroutedFlows << "," << j.measuredIterations << ","
              << j.meanIterationTime << "," << j.throughput << "," << j.meanCommTime << "," << j.jct
              << "\n";
        }
    }
}

/// iterations.csv: one row per run, job and iteration.
void
WriteIterationsCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,job,iteration,start_s,end_s,duration_s,allreduce_s\n";
    for (const auto& r : runs)
    {
        for (const auto& j : r.jobs)
        {
            for (size_t i = 0; i < j.iterStart.size(); ++i)
            {
                f << r.run << "," << j.name << "," << i << "," << j.iterStart[i] << ","
                  << j.iterEnd[i] << "," << j.iterEnd[i] - j.iterStart[i] << "," << j.iterComm[i]
                  << "\n";
            }
        }
    }
}

/// links.csv: IP bytes per run, link and TC (non-zero only).
void
WriteLinksCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,link,tc,bytes\n";
    for (const auto& r : runs)
    {
        for (const auto& [l, tcs] : r.linkTcBytes)
        {
            for (size_t tc = 0; tc < tcs.size(); ++tc)
            {
                if (tcs[tc] > 0)
                {
                    f << r.run << "," << l << "," << tc << "," << tcs[tc] << "\n";
                }
            }
        }
    }
}

/// paths.csv: the links of every flow of every run and job.
void
WritePathsCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,job,flow,links\n";
    for (const auto& r : runs)
    {
        for (const auto& j : r.jobs)
        {
            for (const auto& [flow, path] : j.flowPaths)
            {
                f << r.run << "," << j.name << "," << flow << "," << path << "\n";
            }
        }
    }
}

/// pfc.csv: PAUSE frames sent per run, link and paused traffic class (rows with frames only).
void
WritePfcCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,link,tc,pause_frames_sent\n";
    for (const auto& r : runs)
    {
        for (const auto& [l, perTc] : r.linkPauseTx)
        {
            for (size_t tc = 0; tc < perTc.size(); ++tc)
            {
                if (perTc[tc] > 0)
                {
                    f << r.run << "," << l << "," << tc << "," << perTc[tc] << "\n";
                }
            }
        }
    }
}

/// drops.csv: dropped frames per run and reason.
void
WriteDropsCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,reason,frames\n";
    for (const auto& r : runs)
    {
        for (const auto& [reason, n] : r.drops)
        {
            f << r.run << "," << reason << "," << n << "\n";
        }
    }
}

/// utilization.csv: the FLOP utilization series of every run.
void
WriteUtilizationCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,bin_start_s,bin_s,flop_utilization\n";
    for (const auto& r : runs)
    {
        for (size_t b = 0; b < r.utilizationSeries.size(); ++b)
        {
            f << r.run << "," << b * r.utilizationBin << "," << r.utilizationBin << ","
              << r.utilizationSeries[b] << "\n";
        }
    }
}

/// timing.csv: wall-clock seconds, simulated seconds and ns-3 events of every run (the one file
/// that differs between two runs with the same seed: the wall-clock column).
void
WriteTimingCsv(std::ostream& f, const std::vector<ExperimentRunResult>& runs)
{
    f << "run,wall_s,simulated_s,events\n";
    for (const auto& r : runs)
    {
        f << r.run << "," << r.wallSeconds << "," << r.simulatedTime << "," << r.events << "\n";
    }
}

/// summary.json: the scenario as it ran, the t_j measured alone and every run's numbers.
nlohmann::json
SummaryJson(const Scenario& scenario,
            const std::map<uint32_t, double>& measuredComm,
            const std::vector<ExperimentRunResult>& runs)
{
    using nlohmann::json;
    json j;
    j["scenario"] = json::parse(scenario.ToJson());
    j["measuredCommTime"] = json::object();
    for (const auto& [id, t] : measuredComm)
    {
        j["measuredCommTime"][scenario.jobs[id].name] = t;
    }
    j["runs"] = json::array();
    for (const auto& r : runs)
    {
        json jr;
        jr["run"] = r.run;
        jr["scheduler"] = r.scheduler;
        jr["complete"] = r.complete;
        jr["windowStart"] = r.windowStart;
        jr["windowEnd"] = r.windowEnd;
        jr["utilization"] = r.utilization;
        if (!r.jobsOutsideWindow.empty())
        {
            jr["utilizationIncomplete"] = r.jobsOutsideWindow; // jobs it leaves out
        }
        jr["pauseFrames"] = r.pauseFrames;
        jr["retransmittedPackets"] = r.retransmittedPackets;
        jr["timeouts"] = r.timeouts;
        jr["drops"] = r.drops;
        if (!r.maxQueueBytes.empty())
        {
            jr["maxQueueBytes"] = r.maxQueueBytes; // packet fabric: TC 0..7, control class
        }
        jr["simulatedTime"] = r.simulatedTime;
        jr["jobs"] = json::array();
        for (const auto& jb : r.jobs)
        {
            jr["jobs"].push_back({{"name", jb.name},
                                  {"model", jb.model},
                                  {"gpus", jb.gpus},
                                  {"hosts", jb.hosts},
                                  {"level", jb.level},
                                  {"dscp", jb.dscp},
                                  {"intensity", jb.intensity},
                                  {"schedulerCommTime", jb.schedulerCommTime},
                                  {"k", jb.k},
                                  {"reroutedFlows", jb.reroutedFlows},
                                  {"measuredIterations", jb.measuredIterations},
                                  {"meanIterationTime", jb.meanIterationTime},
                                  {"throughput", jb.throughput},
                                  {"meanCommTime", jb.meanCommTime},
                                  {"jct", jb.jct}});
        }
        j["runs"].push_back(jr);
    }
    return j;
}

} // namespace

void
CruxExperiment::WriteResults(const std::vector<ExperimentRunResult>& runs) const
{
    if (runs.empty())
    {
        throw ExperimentError("WriteResults: no runs to write (Run() returns them; " +
                              m_scenario.outputDir + " is left as it is)");
    }
    ResultDirectory out(m_scenario.outputDir);
    WriteJobsCsv(out.Open("jobs.csv"), runs);
    WriteIterationsCsv(out.Open("iterations.csv"), runs);
    WriteLinksCsv(out.Open("links.csv"), runs);
    WritePathsCsv(out.Open("paths.csv"), runs);
    WritePfcCsv(out.Open("pfc.csv"), runs);
    WriteDropsCsv(out.Open("drops.csv"), runs);
    WriteUtilizationCsv(out.Open("utilization.csv"), runs);
    out.Open("table.txt") << FormatTable(runs);
    out.Open("summary.json") << SummaryJson(m_scenario, m_measuredComm, runs).dump(2) << "\n";
    // Wall-clock times differ between runs; they go to a separate file so that the result files
    // above are identical for the same seed.
    WriteTimingCsv(out.Open("timing.csv"), runs);
    out.Commit();
}

std::vector<std::string>
SplitCommaList(const std::string& text, const std::string& field)
{
    std::vector<std::string> out;
    if (text.find_first_not_of(' ') == std::string::npos)
    {
        return out;
    }
    std::stringstream ss(text + ","); // the sentinel makes a trailing comma an empty item
    std::string item;
    while (std::getline(ss, item, ','))
    {
        const auto a = item.find_first_not_of(' ');
        if (a == std::string::npos)
        {
            throw ExperimentError(field, "empty item in '" + text + "'");
        }
        out.push_back(item.substr(a, item.find_last_not_of(' ') - a + 1));
    }
    return out;
}

} // namespace ns3
