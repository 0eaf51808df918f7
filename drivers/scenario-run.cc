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

#include "scenario-run.h"

#include "distributed-run.h"
#include "progress-reporter.h"
#include "run-statistics.h"
#include "scenario-jobs.h"
#include "scenario-progress.h"
#include "scenario-topology.h"

#include "ns3/comm-dag.h"
#include "ns3/comm-scheduler.h"
#include "ns3/crux-compat.h"
#include "ns3/crux-helper.h"
#include "ns3/crux-run-error.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job-helper.h"
#include "ns3/gpu-intensity-tracker.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/sched-job-builder.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <iomanip>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScenarioRun");

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(JobRecord, starts, times, complete, jct)

namespace
{

/// Install the decision through CruxHelper (DSCP, source ports or pinned routes, all or
/// nothing) and keep what it did. \throws ExperimentError if the decision cannot be installed
DecisionInstall
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
    DecisionInstall out;
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

/// Install one application per job, registered with the tracker and the statistics; the run
/// stops when every measured job (iterations > 0) is done (with \p stopWhenDone; a distributed
/// run decides that over all ranks instead). \return the applications, in the order of \p jobs
std::vector<Ptr<DltJobApplication>>
InstallJobApps(const std::vector<DltJob>& jobs,
               const ScenarioFabric& f,
               Ptr<GpuIntensityTracker> tracker,
               RunStatistics& stats,
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
        stats.ConnectJob(app, job.iterations > 0, stopWhenDone);
        apps.push_back(app);
    }
    return apps;
}

/// Give every application its job's scenario name (named in the watchdog's line).
/// \param s the scenario \param jobs the run's jobs \param apps their applications, same order
void
NameJobApps(const Scenario& s,
            const std::vector<DltJob>& jobs,
            const std::vector<Ptr<DltJobApplication>>& apps)
{
    for (size_t i = 0; i < apps.size(); ++i)
    {
        apps[i]->SetJobName(s.jobs.at(jobs[i].id).name);
    }
}

/// After Simulator::Run(): when measured jobs are left unfinished, those that can never finish
/// (DltJobApplication::DescribeStuck) end the run with a CruxRunError, one line per job; jobs
/// only cut short by the stop time are INCOMPLETE in the results instead.
/// \param stats the run's counters \param apps this process's applications
/// \param stopTime the run's stop time [s]
void
ThrowIfStuck(const RunStatistics& stats,
             const std::vector<Ptr<DltJobApplication>>& apps,
             double stopTime)
{
    if (stats.GetMeasuredRemaining() == 0)
    {
        return;
    }
    if (const auto stuck = DltJobApplication::DescribeStuck(apps, Seconds(stopTime));
        !stuck.empty())
    {
        Simulator::Destroy();
        throw CruxRunError(stuck);
    }
}

/// The scheduler's decision for \p jobs on \p topo, with the t_j measured alone
/// (\p measuredComm, job id → seconds) in the cluster model and the run's \p seed. \param cm
/// receives the cluster model the scheduler saw \throws ExperimentError naming the scenario file or
/// the scheduler
Decision
Decide(const Scenario& s,
       Ptr<CruxTopology> topo,
       const std::vector<DltJob>& jobs,
       const std::map<uint32_t, double>& measuredComm,
       const std::string& scheduler,
       uint64_t seed,
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
    sc.seed = seed;
    try
    {
        return CreateCommScheduler(scheduler)->Schedule(cm, sc);
    }
    catch (const std::invalid_argument& e)
    {
        throw ExperimentError(s.source + ": scheduler '" + scheduler + "': " + e.what());
    }
}

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
    /// RunStatistics::CollectFabricCounters of this rank (ExperimentRunResultToBytes)
    std::string counters;
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

/// Record the tracker and all-reduce notifications of this rank's applications into \p part.
void
ConnectRankRecords(const std::vector<Ptr<DltJobApplication>>& apps, RankPart& part)
{
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
}

/// \return every rank's part (\p part is this rank's), in rank order, the same on every rank
std::vector<RankPart>
GatherRankParts(const RankPart& part)
{
    std::string bytes;
    nlohmann::json::to_msgpack(nlohmann::json(part), bytes);
    std::vector<RankPart> parts;
    for (const std::string& b : CruxDistributed::AllGather(bytes))
    {
        parts.push_back(nlohmann::json::from_msgpack(b).get<RankPart>());
    }
    return parts;
}

/// What the ranks' parts give a run that ended at a time: the measurement's inputs of a
/// single-process run.
struct MergedParts
{
    std::vector<JobRecord> records;   //!< one per job of the run, in run order
    RunStatistics stats;              //!< the all-reduce durations
    Ptr<GpuIntensityTracker> tracker; //!< the tracker, rebuilt
};

/// Merge \p parts as a single-process run of \p jobs that ended at \p end would have
/// recorded them (what ended after it is left out). \param totalGpus GPUs of the cluster
/// \param merged receives the records, the all-reduce durations and the rebuilt tracker
void
MergeRankParts(const std::vector<RankPart>& parts,
               const std::vector<DltJob>& jobs,
               Time end,
               uint32_t totalGpus,
               MergedParts& merged)
{
    std::map<uint32_t, JobRecord> recordOf;
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
                merged.stats.AddAllReduce(ar.job,
                                          ar.iteration,
                                          (TimeStep(ar.end) - TimeStep(ar.start)).GetSeconds());
            }
        }
    }
    // The tracker of a single-process run, rebuilt: jobs registered in run order, each job's
    // iterations in its own order.
    merged.tracker = CreateObject<GpuIntensityTracker>();
    merged.tracker->SetAttribute("TotalGpus", UintegerValue(totalGpus));
    for (const auto& job : jobs)
    {
        merged.tracker->RegisterJob(job.id, job.flopsPerIteration, job.NumGpus(), job.computeTime);
        for (const TrackerRecord& t : trackerOf[job.id])
        {
            merged.tracker->NotifyIterationComplete(t.job,
                                                    t.iteration,
                                                    TimeStep(t.start),
                                                    TimeStep(t.end),
                                                    t.flops);
        }
        merged.records.push_back(recordOf.at(job.id));
    }
}

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
    // a link's samples come from the rank of its sending device (the others' copies carry
    // nothing): the ranks' samples together, in the order of one process's
    r.linkThroughputInterval = std::max(r.linkThroughputInterval, part.linkThroughputInterval);
    r.linkThroughput.insert(r.linkThroughput.end(),
                            part.linkThroughput.begin(),
                            part.linkThroughput.end());
    std::stable_sort(r.linkThroughput.begin(),
                     r.linkThroughput.end(),
                     [](const LinkThroughputSample& a, const LinkThroughputSample& b) {
                         return std::tie(a.time, a.link, a.tc) < std::tie(b.time, b.link, b.tc);
                     });
}

/// Every \p interval, over all ranks (a collective inside a simulator event, at the same
/// simulation time on every rank): stop when every measured job of the run is done.
void
DistributedStopCheck(const RunStatistics* stats, bool anyMeasured, Time interval)
{
    if (CruxDistributed::AllTrue(stats->GetMeasuredRemaining() == 0) && anyMeasured)
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(interval, &DistributedStopCheck, stats, anyMeasured, interval);
}

} // namespace

/**
 * What one run sets up before its simulation, the same with and without MPI. Filled in place by
 * ScenarioRun::SetUp (the trace sinks point into \c stats, so it must not move).
 */
struct ScenarioRun::Setup
{
    ScenarioFabric fabric;                        //!< topology and transport
    std::optional<CruxTopologySteering> steering; //!< the fabric's path services (ECMP hash)
    std::vector<DltJob> jobs;                     //!< the run's jobs, in run order
    ClusterModel cm;                              //!< the cluster model the scheduler saw
    Decision decision;                            //!< the scheduler's decision
    DecisionInstall install;                      //!< what installing the decision did
    RunStatistics stats;                          //!< counters reached from trace sinks
    Ptr<GpuIntensityTracker> tracker;             //!< the run's tracker (TotalGpus set)
    uint32_t totalGpus{0};                        //!< GPUs of the cluster
};

ScenarioRun::ScenarioRun(const Scenario& scenario,
                         const ClusterTopology& cluster,
                         const std::vector<DltJob>& placed,
                         const ScenarioRunSpec& spec)
    : m_scenario(scenario),
      m_cluster(cluster),
      m_placed(placed),
      m_spec(spec)
{
}

void
ScenarioRun::SetProgressInterval(double seconds)
{
    m_progressSeconds = seconds;
}

void
ScenarioRun::SetDistributed(uint32_t ranks,
                            const std::map<uint32_t, uint32_t>& jobRank,
                            double stopCheckSeconds)
{
    m_distributed = true;
    m_ranks = ranks;
    m_jobRank = jobRank;
    m_stopCheckSeconds = stopCheckSeconds;
}

void
ScenarioRun::SetUp(uint32_t ranks, Setup& run) const
{
    const Scenario& s = m_scenario;
    RngSeedManager::SetSeed(static_cast<uint32_t>(m_spec.seed));
    RngSeedManager::SetRun(1);
    run.totalGpus = m_cluster.NumHosts() * m_cluster.gpusPerHost;
    run.fabric = InstallScenarioFabric(s,
                                       m_cluster,
                                       m_spec.ecmpSeed != 0 ? m_spec.ecmpSeed : m_spec.seed,
                                       ranks);
    run.steering.emplace(run.fabric.topo);
    run.jobs = JobsOfRun(s, m_placed, m_spec.jobIds, m_spec.iterationsOverride);
    if (m_spec.stopAt > 0)
    {
        for (DltJob& job : run.jobs)
        {
            job.iterations = 0; // runs until stopAt
        }
    }
    run.decision = Decide(s,
                          run.fabric.topo,
                          run.jobs,
                          m_spec.measuredComm,
                          m_spec.scheduler,
                          m_spec.seed,
                          run.cm);
    if (m_spec.oneClass)
    {
        // the scheduler's paths, nothing else of its decision: one class, no time shift
        run.decision.uniquePriorities = false;
        for (auto& [id, jd] : run.decision.jobs)
        {
            jd.level = 0;
            jd.rank = 0;
            jd.timeShift = 0;
        }
    }
    run.install = InstallRunDecision(s, run.cm, run.decision, run.jobs, *run.steering);
    run.stats.ConnectFabric(run.fabric);
    run.tracker = CreateObject<GpuIntensityTracker>();
    run.tracker->SetAttribute("TotalGpus", UintegerValue(run.totalGpus));
}

ExperimentRunResult
ScenarioRun::Run() const
{
    return m_distributed ? RunDistributed() : RunLocal();
}

ExperimentRunResult
ScenarioRun::RunLocal() const
{
    const Scenario& s = m_scenario;
    NS_LOG_INFO("run " << m_spec.label << " with scheduler " << m_spec.scheduler);
    ProgressReporter progress("crux-experiment", m_progressSeconds);
    DagBuildProgress building(progress, m_spec.label); // the scheduler's view builds DAGs too
    Setup run;
    SetUp(1, run);
    const std::vector<Ptr<DltJobApplication>> apps =
        InstallJobApps(run.jobs, run.fabric, run.tracker, run.stats);
    NameJobApps(s, run.jobs, apps);
    const auto poll = ConnectProgress(run.jobs, apps, m_spec.label, progress);

    Simulator::Stop(Seconds(StopTime()));
    const auto wall0 = std::chrono::steady_clock::now();
    try
    {
        Simulator::Run();
    }
    catch (const CruxRunError& e)
    {
        // the NIC's watchdog sees its own queue pair only: on a fabric that dropped packets
        // (PFC off, buffers too small) the drops so far are the cause it cannot name
        const uint64_t dropped = run.stats.GetDropsSoFar();
        if (dropped == 0 || e.GetLines().size() != 1)
        {
            throw;
        }
        std::string line = e.GetLines().front();
        const std::string deadlock = "a lost link or a PFC deadlock";
        if (const size_t at = line.find(deadlock); !s.topology.pfc && at != std::string::npos)
        {
            line.replace(at, deadlock.size(), "a lost link or dropped frames"); // no PFC
        }
        throw CruxRunError(line + "; the fabric had dropped " + std::to_string(dropped) +
                           " frames by then" +
                           (s.topology.pfc ? std::string()
                                           : " (PFC off: a lossy fabric, each drop a "
                                             "go-back-N resend; more switch buffer or PFC on)"));
    }
    const auto wall1 = std::chrono::steady_clock::now();
    // not stopped by the measured jobs' end: a job that can never finish is an error, one line
    // per job (a job only cut short by stopTime is INCOMPLETE in the results)
    ThrowIfStuck(run.stats, apps, StopTime());

    ExperimentRunResult r;
    r.run = m_spec.label;
    r.scheduler = m_spec.scheduler;
    r.simulatedTime = Simulator::Now().GetSeconds();
    r.wallSeconds = std::chrono::duration<double>(wall1 - wall0).count();
    r.events = Simulator::GetEventCount() - (poll ? poll->polls : 0); // the model's events
    r.complete = run.stats.GetMeasuredRemaining() == 0;
    run.stats.Measure(s,
                      run.jobs,
                      JobRecordsOf(apps),
                      run.decision,
                      run.install,
                      run.tracker,
                      run.totalGpus,
                      Simulator::Now(),
                      r);
    run.stats.CollectFabricCounters(run.fabric, r);
    Finish(run, r);
    Simulator::Destroy();
    return r;
}

ExperimentRunResult
ScenarioRun::RunDistributed() const
{
    const Scenario& s = m_scenario;
    const uint32_t rank = CruxDistributed::GetRank();
    NS_LOG_INFO("rank " << rank << ": run " << m_spec.label << " with scheduler "
                        << m_spec.scheduler);
    // Every rank builds the whole fabric (nodes of other ranks stay idle) and takes the same
    // decision; it installs only the applications of its own jobs.
    Setup run;
    SetUp(m_ranks, run);
    std::vector<DltJob> local;
    bool anyMeasured = false;
    for (const auto& job : run.jobs)
    {
        anyMeasured = anyMeasured || job.iterations > 0;
        if (m_jobRank.at(job.id) == rank)
        {
            local.push_back(job);
        }
    }
    const std::vector<Ptr<DltJobApplication>> apps =
        InstallJobApps(local, run.fabric, run.tracker, run.stats, false);
    NameJobApps(s, local, apps);
    RankPart part;
    ConnectRankRecords(apps, part);
    ProgressReporter progress("crux-experiment", rank == 0 ? m_progressSeconds : 0.0);
    const auto poll = ConnectProgress(local, apps, m_spec.label, progress);

    Simulator::Stop(Seconds(StopTime()));
    const Time interval = Seconds(m_stopCheckSeconds);
    Simulator::Schedule(interval, &DistributedStopCheck, &run.stats, anyMeasured, interval);
    const auto wall0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto wall1 = std::chrono::steady_clock::now();
    // this rank's jobs that can never finish (RunLocal); the program ends every rank
    ThrowIfStuck(run.stats, apps, StopTime());

    // This rank's part, then every rank's, merged in rank order (the same on every rank).
    for (const auto& job : local)
    {
        part.jobIds.push_back(job.id);
    }
    part.records = JobRecordsOf(apps);
    part.lastDone = run.stats.GetLastDone();
    ExperimentRunResult counters;
    run.stats.CollectFabricCounters(run.fabric, counters);
    part.counters = ExperimentRunResultToBytes(counters);
    part.events = Simulator::GetEventCount() - (poll ? poll->polls : 0); // the model's events
    part.measuredRemaining = run.stats.GetMeasuredRemaining();
    const std::vector<RankPart> parts = GatherRankParts(part);

    ExperimentRunResult r;
    r.run = m_spec.label;
    r.scheduler = m_spec.scheduler;
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
    // on to the next stop check); what ended after it is left out of the job records.
    const Time end =
        anyMeasured && r.complete && lastDone >= 0 ? TimeStep(lastDone) : Simulator::Now();
    r.simulatedTime = end.GetSeconds();
    MergedParts merged;
    MergeRankParts(parts, run.jobs, end, run.totalGpus, merged);
    merged.stats.Measure(s,
                         run.jobs,
                         merged.records,
                         run.decision,
                         run.install,
                         merged.tracker,
                         run.totalGpus,
                         end,
                         r);
    for (const RankPart& p : parts)
    {
        AddRankCounters(ExperimentRunResultFromBytes(p.counters), r);
    }
    Finish(run, r);
    Simulator::Destroy();
    CruxDistributed::EndRun();
    return r;
}

double
ScenarioRun::StopTime() const
{
    return m_spec.stopAt > 0 ? std::min(m_spec.stopAt, m_scenario.stopTime) : m_scenario.stopTime;
}

std::string
ScenarioRun::Signature(const Setup& run) const
{
    std::ostringstream os;
    os << std::setprecision(17) << "stop " << StopTime() << " unique "
       << run.decision.uniquePriorities;
    for (const DltJob& job : run.jobs)
    {
        const JobDecision& jd = run.decision.jobs.at(job.id);
        os << "\njob " << job.id << " iterations " << job.iterations << " start " << job.startTime
           << " level " << jd.level << " rank " << jd.rank << " dscp " << uint32_t(job.dscp);
    }
    for (const auto& [key, path] : run.install.flowPaths)
    {
        os << "\nflow " << key.first << "/" << key.second << ": " << path;
    }
    return os.str();
}

std::string
ScenarioRun::Plan() const
{
    Setup run;
    SetUp(1, run);
    std::string signature = Signature(run);
    Simulator::Destroy();
    // under MPI every rank plans the same runs alike (no message between the ranks); ns-3's
    // interface is renewed after Destroy as after a run
    CruxDistributed::EndRun();
    return signature;
}

void
ScenarioRun::Finish(const Setup& run, ExperimentRunResult& r) const
{
    r.roles = m_spec.roles;
    r.seeds = m_spec.seeds;
    r.ecmpSeed = m_spec.ecmpSeed != 0 ? m_spec.ecmpSeed : m_spec.seed;
    r.signature = Signature(run);
    if (r.jobs.size() != 1 || r.jobs.front().iterEnd.empty())
    {
        return;
    }
    // A job alone: its profiled t_j (Crux §5) by the one definition, from the bytes it put on
    // every link (data classes) per completed iteration. Its bytes after the last completed
    // iteration (a run stopped at stopAt) would count too: only a run whose job completed.
    ExperimentJobResult& jr = r.jobs.front();
    if (!r.complete || m_spec.stopAt > 0)
    {
        return;
    }
    Ptr<GpuIntensityTracker> profile = CreateObject<GpuIntensityTracker>();
    profile->RegisterJob(jr.id, jr.flopsPerIteration, std::max<uint32_t>(1, jr.gpus), 0);
    for (const auto& [link, perTc] : r.linkTcBytes)
    {
        uint64_t bytes = 0;
        for (uint64_t b : perTc)
        {
            bytes += b;
        }
        profile->SetLinkBandwidth(link, m_cluster.links.at(link).bandwidth);
        profile->RecordLinkBytes(jr.id, link, bytes, Seconds(r.simulatedTime));
    }
    jr.profiledCommTime = profile->FinalizeProfile(jr.id, static_cast<uint32_t>(jr.iterEnd.size()));
}

} // namespace ns3
