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
#include "experiment-output.h"
#include "experiment-summary.h"
#include "parallel-runs.h"
#include "progress-reporter.h"
#include "result-directory.h"
#include "scenario-jobs.h"
#include "scenario-topology.h"

#include "ns3/comm-scheduler.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/optimal-scheduler.h"
#include "ns3/sched-job-builder.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxExperiment");

CruxExperiment::CruxExperiment(const Scenario& scenario)
    : m_scenario(scenario)
{
    m_scenario.Validate();
    try
    {
        CheckModes({m_scenario.scheduler});
        // The one cluster description of this scenario: placement, the scheduler's cluster
        // model and both fabrics are built from it.
        m_cluster = BuildScenarioTopology(m_scenario.topology);
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
    // The packet fabric gives level L's data DSCP 8 x L; a ControlDscp among those would put
    // data into the control class, which RdmaNic refuses mid-run with a fatal error.
    if (m_scenario.fabric == "packet")
    {
        TypeId::AttributeInformation info;
        TypeId::LookupByName("ns3::QbbNetDevice").LookupAttributeByName("ControlDscp", &info);
        const auto control = DynamicCast<const UintegerValue>(info.initialValue);
        const uint64_t dscp = control ? control->Get() : 64;
        if (dscp < 64 && dscp % 8 == 0 && dscp / 8 < m_scenario.priorityLevels)
        {
            throw ExperimentError("--ns3::QbbNetDevice::ControlDscp",
                                  "DSCP " + std::to_string(dscp) +
                                      " is the DSCP of priority level " + std::to_string(dscp / 8) +
                                      " (level L sends with DSCP 8 x L, levels 0.." +
                                      std::to_string(m_scenario.priorityLevels - 1) +
                                      "): use one no level uses, e.g. 46 (the default), or 64 "
                                      "for no control class");
        }
    }
    m_nHosts = m_cluster.NumHosts();
    m_gpusPerHost = m_cluster.gpusPerHost;
    m_jobs = ScenarioJobBuilder(m_scenario, m_cluster).Build();
    // a stopTime before any measured job can finish one iteration (its compute alone, from its
    // start) would leave every run INCOMPLETE with nothing measured
    const Scenario& s = m_scenario;
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
                                  "unknown scheduler '" + m + "' (known: alone, " +
                                      JoinNames(known) + ")");
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
    std::string why =
        m_distributed && CruxDistributed::GetRank() != 0
            ? std::string()
            : ResultDirectory::Problem(m_scenario.outputDir, {}, ExperimentOutput::ResultFiles());
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
                         uint64_t ecmpSeed,
                         const std::string& role) const
{
    RunSpec spec;
    spec.kind = kind;
    spec.label = label;
    spec.jobIds = jobIds;
    spec.scheduler = scheduler;
    spec.seed = m_scenario.seed;
    spec.ecmpSeed = ecmpSeed;
    spec.roles = {role};
    spec.seeds = {ecmpSeed};
    // a job alone: its paths only (one class), whatever the scheduler would give it beside others
    spec.oneClass = kind != RunSpec::MODE;
    auto known = m_measuredCommBySeed.find(ecmpSeed);
    for (uint32_t id : jobIds)
    {
        if (known == m_measuredCommBySeed.end())
        {
            break;
        }
        auto it = known->second.find(id);
        if (it != known->second.end())
        {
            spec.measuredComm.insert(*it);
        }
    }
    return spec;
}

std::vector<uint64_t>
CruxExperiment::Seeds() const
{
    std::vector<uint64_t> seeds;
    for (uint32_t i = 0; i < m_scenario.seeds; ++i)
    {
        seeds.push_back(m_scenario.seed + i);
    }
    return seeds;
}

std::string
CruxExperiment::JobName(uint32_t id) const
{
    return m_scenario.jobs[id].name;
}

std::vector<CruxExperiment::RunSpec>
CruxExperiment::FirstPhase(bool alone, const std::vector<std::string>& schedulers) const
{
    // Phase 1: what needs no t_j (every seed): the measured jobs alone under ECMP (they give
    // their t_j and the length of a background job's alone run), the background jobs'
    // profiling runs, and the ECMP mixes.
    const uint32_t p = m_scenario.profileIterations;
    const bool needT = p > 0 && std::any_of(schedulers.begin(),
                                            schedulers.end(),
                                            [](const std::string& m) { return m != "ecmp"; });
    std::vector<uint32_t> all;
    for (const auto& job : m_jobs)
    {
        all.push_back(job.id);
    }
    std::vector<RunSpec> out;
    for (uint64_t seed : Seeds())
    {
        for (const auto& job : m_jobs)
        {
            const bool background = m_scenario.jobs[job.id].background;
            if (alone && !background)
            {
                out.push_back(MakeSpec(RunSpec::ALONE,
                                       "alone:" + JobName(job.id),
                                       {job.id},
                                       "ecmp",
                                       seed,
                                       RunRole::ALONE_ECMP));
            }
            else if (needT)
            {
                RunSpec spec = MakeSpec(RunSpec::PROFILE,
                                        "profile:" + JobName(job.id),
                                        {job.id},
                                        "ecmp",
                                        seed,
                                        RunRole::PROFILE);
                spec.iterationsOverride = p + 1;
                out.push_back(spec);
            }
        }
        if (std::find(schedulers.begin(), schedulers.end(), "ecmp") != schedulers.end())
        {
            out.push_back(MakeSpec(RunSpec::MODE,
                                   "ecmp",
                                   all,
                                   "ecmp",
                                   seed,
                                   std::string(RunRole::MIX) + ":ecmp"));
        }
    }
    return out;
}

std::vector<CruxExperiment::RunSpec>
CruxExperiment::SecondPhase(bool alone,
                            const std::vector<std::string>& schedulers,
                            double aloneEnd) const
{
    // Phase 2: everything else, with the t_j of phase 1: the background jobs alone under ECMP
    // (as long as the measured jobs alone), every job alone on collision-free paths and on each
    // scheduler's paths, the mixes, and each mix on its paths in one class.
    std::vector<uint32_t> all;
    for (const auto& job : m_jobs)
    {
        all.push_back(job.id);
    }
    std::vector<RunSpec> out;
    for (uint64_t seed : Seeds())
    {
        auto aloneSpec = [&](const std::string& label,
                             uint32_t id,
                             const std::string& scheduler,
                             const std::string& role) {
            RunSpec spec = MakeSpec(RunSpec::ALONE, label, {id}, scheduler, seed, role);
            if (m_scenario.jobs[id].background)
            {
                spec.stopAt = aloneEnd > 0 ? aloneEnd : m_scenario.stopTime;
            }
            out.push_back(spec);
        };
        if (alone)
        {
            for (const auto& job : m_jobs)
            {
                if (m_scenario.jobs[job.id].background)
                {
                    aloneSpec("alone:" + JobName(job.id), job.id, "ecmp", RunRole::ALONE_ECMP);
                }
            }
            for (const auto& job : m_jobs)
            {
                // the least-congested path selection of Crux and TACCL* with the job alone
                aloneSpec("alone@free:" + JobName(job.id), job.id, "taccl", RunRole::ALONE_FREE);
            }
        }
        for (const auto& sched : schedulers)
        {
            if (sched != "ecmp")
            {
                out.push_back(MakeSpec(RunSpec::MODE,
                                       sched,
                                       all,
                                       sched,
                                       seed,
                                       std::string(RunRole::MIX) + ":" + sched));
            }
            if (alone)
            {
                for (const auto& job : m_jobs)
                {
                    aloneSpec("alone@paths(" + sched + "):" + JobName(job.id),
                              job.id,
                              sched,
                              std::string(RunRole::ALONE_PATHS) + ":" + sched);
                }
            }
            if (alone)
            {
                // the decomposition's U_1 (it needs the alone references too)
                RunSpec one = MakeSpec(RunSpec::MODE,
                                       sched + "/one-class",
                                       all,
                                       sched,
                                       seed,
                                       std::string(RunRole::MIX_ONE_CLASS) + ":" + sched);
                one.oneClass = true;
                out.push_back(one);
            }
        }
    }
    return out;
}

namespace
{

/// \return the scheduler of a "mix:<scheduler>" role among \p roles, or ""
std::string
MixScheduler(const std::vector<std::string>& roles)
{
    const std::string prefix = std::string(RunRole::MIX) + ":";
    for (const auto& r : roles)
    {
        if (r.rfind(prefix, 0) == 0)
        {
            return r.substr(prefix.size());
        }
    }
    return "";
}

} // namespace

void
CruxExperiment::Merge(std::vector<RunSpec>& specs,
                      std::vector<ExperimentRunResult>& done,
                      bool alone) const
{
    // Only runs of several seeds or the alone references can be the same simulation; without
    // them every run is its own (and the schedulers are not called once more to plan). The same
    // under MPI: every rank plans alike, so a distributed run keeps the runs of a local one.
    const bool plan = m_scenario.seeds > 1 || alone;
    // signature → where the simulation is: "d<i>" a run done, "s<i>" a spec kept
    std::map<std::string, std::string> where;
    for (size_t i = 0; i < done.size(); ++i)
    {
        where[done[i].signature] = "d" + std::to_string(i);
    }
    std::vector<RunSpec> kept;
    for (RunSpec& spec : specs)
    {
        const std::string sig = plan ? ScenarioRun(m_scenario, m_cluster, m_jobs, spec).Plan()
                                     : spec.label + "@" + std::to_string(spec.ecmpSeed);
        NS_LOG_DEBUG("run " << spec.label << " ECMP seed " << spec.ecmpSeed << ": " << sig);
        auto add =
            [](std::vector<std::string>& roles, std::vector<uint64_t>& seeds, const RunSpec& from) {
                for (const auto& r : from.roles)
                {
                    if (std::find(roles.begin(), roles.end(), r) == roles.end())
                    {
                        roles.push_back(r);
                    }
                }
                for (uint64_t sd : from.seeds)
                {
                    if (std::find(seeds.begin(), seeds.end(), sd) == seeds.end())
                    {
                        seeds.push_back(sd);
                    }
                }
            };
        auto w = where.find(sig);
        if (w != where.end())
        {
            // the mixes of two schedulers stay two rows even when their decisions are equal
            const std::vector<std::string>& roles =
                w->second[0] == 'd' ? done[std::stoul(w->second.substr(1))].roles
                                    : kept[std::stoul(w->second.substr(1))].roles;
            const std::string mine = MixScheduler(spec.roles);
            const std::string theirs = MixScheduler(roles);
            if (!mine.empty() && !theirs.empty() && mine != theirs)
            {
                w = where.end();
            }
        }
        if (w == where.end())
        {
            where[sig] = "s" + std::to_string(kept.size());
            kept.push_back(spec);
        }
        else if (w->second[0] == 'd')
        {
            ExperimentRunResult& r = done[std::stoul(w->second.substr(1))];
            add(r.roles, r.seeds, spec);
        }
        else
        {
            RunSpec& k = kept[std::stoul(w->second.substr(1))];
            add(k.roles, k.seeds, spec);
        }
    }
    specs = kept;
}

std::vector<ExperimentRunResult>
CruxExperiment::RunOrdered(const std::vector<std::string>& ordered)
{
    // The experiment's runs for every ECMP seed (doc/crux.rst, "Measurement methodology"),
    // in two phases: the second needs the t_j profiled in the first (profileIterations > 0)
    // and the length of the measured jobs' alone runs. Before each phase every run is set up
    // without simulating (ScenarioRun::Plan) and runs that would be the same simulation run
    // once, standing for all their roles and seeds. The runs of a phase are independent of
    // each other (in parallel with SetParallelRuns).
    const bool alone = !ordered.empty() && ordered.front() == "alone";
    const std::vector<std::string> schedulers(ordered.begin() + (alone ? 1 : 0), ordered.end());
    // distributed: progress lines from rank 0 only
    ProgressReporter progress("crux-experiment",
                              m_distributed && CruxDistributed::GetRank() != 0 ? 0.0
                                                                               : m_progressSeconds);
    std::vector<ExperimentRunResult> out;
    std::vector<RunSpec> batch = FirstPhase(alone, schedulers);
    Merge(batch, out, alone);
    progress.StartRuns(static_cast<uint32_t>(batch.size()));
    // the second phase's runs are known after the first (their lengths, their merging): the
    // lines say which phase they count (the specs alone, unplanned, tell whether there is one)
    const bool second = !SecondPhase(alone, schedulers, 0).empty();
    progress.SetPhase(1, second ? 2 : 1);
    RunBatch(batch, out, progress);
    // a background job's alone run lasts as long as the longest alone run of a measured job
    // (over all seeds: one length for every seed, so that a run whose paths do not depend on the
    // seed runs once)
    double aloneEnd = 0;
    for (const auto& r : out)
    {
        if (std::find(r.roles.begin(), r.roles.end(), RunRole::ALONE_ECMP) != r.roles.end())
        {
            aloneEnd = std::max(aloneEnd, r.simulatedTime);
        }
    }
    batch = SecondPhase(alone, schedulers, aloneEnd);
    Merge(batch, out, alone);
    progress.AddRuns(static_cast<uint32_t>(batch.size()));
    progress.SetPhase(second ? 2 : 1, second ? 2 : 1);
    RunBatch(batch, out, progress);
    // a run standing for some of several seeds is labelled with its first seed
    const size_t nSeeds = m_scenario.seeds;
    for (auto& r : out)
    {
        std::sort(r.seeds.begin(), r.seeds.end());
        if (nSeeds > 1 && r.seeds.size() < nSeeds)
        {
            r.run += "@" + std::to_string(r.seeds.front());
        }
    }
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
        const std::string name =
            spec.label +
            (m_scenario.seeds > 1 ? "@" + std::to_string(spec.ecmpSeed) : std::string());
        runs.push_back(ParallelRun{name, [this, &spec]() {
                                       return ExperimentRunResultToBytes(RunJobs(spec));
                                   }});
    }
    // a distributed run is one simulation over all ranks: one after another
    const std::vector<std::string> bytes =
        RunParallel(runs, m_distributed ? 1 : m_parallelRuns, &progress);
    for (size_t i = 0; i < batch.size(); ++i)
    {
        const ExperimentRunResult r = ExperimentRunResultFromBytes(bytes[i]);
        const ExperimentJobResult& jr = r.jobs.front();
        if (batch[i].kind != RunSpec::MODE && m_scenario.profileIterations > 0 &&
            batch[i].stopAt == 0 && jr.profiledCommTime > 0 && batch[i].scheduler == "ecmp")
        {
            // Crux §5: t_j profiled alone (under ECMP), link time by the one definition
            for (uint64_t sd : r.seeds)
            {
                m_measuredCommBySeed[sd][jr.id] = jr.profiledCommTime;
            }
        }
        if (r.roles != std::vector<std::string>{RunRole::PROFILE})
        {
            out.push_back(r); // a profiling run alone gives no row: its t_j is in summary.json
        }
        else
        {
            // ... and its row of timing.csv, labelled as RunOrdered labels the rows (a repeated
            // RunMode() profiles again: the last one's row)
            ExperimentRunResult p = r;
            std::sort(p.seeds.begin(), p.seeds.end());
            if (m_scenario.seeds > 1 && !p.seeds.empty() && p.seeds.size() < m_scenario.seeds)
            {
                p.run += "@" + std::to_string(p.seeds.front());
            }
            auto same = std::find_if(m_profileRuns.begin(),
                                     m_profileRuns.end(),
                                     [&p](const ExperimentRunResult& q) { return q.run == p.run; });
            if (same != m_profileRuns.end())
            {
                *same = p;
            }
            else
            {
                m_profileRuns.push_back(p);
            }
        }
    }
    auto first = m_measuredCommBySeed.find(m_scenario.seed);
    if (first != m_measuredCommBySeed.end())
    {
        m_measuredComm = first->second;
    }
    batch.clear();
}

ExperimentRunResult
CruxExperiment::RunJobs(const RunSpec& spec) const
{
    ScenarioRun run(m_scenario, m_cluster, m_jobs, spec);
    run.SetProgressInterval(m_progressSeconds);
    if (m_distributed)
    {
        run.SetDistributed(m_ranks, m_jobRank, m_stopCheckSeconds);
    }
    return run.Run();
}

std::string
CruxExperiment::FormatTable(const std::vector<ExperimentRunResult>& runs) const
{
    return ExperimentOutput(m_scenario, m_nHosts, m_gpusPerHost, m_jobs, m_measuredComm)
        .FormatTable(runs);
}

void
CruxExperiment::WriteResults(const std::vector<ExperimentRunResult>& runs) const
{
    if (runs.empty())
    {
        throw ExperimentError("WriteResults: no runs to write (Run() returns them; " +
                              m_scenario.outputDir + " is left as it is)");
    }
    ExperimentOutput(m_scenario, m_nHosts, m_gpusPerHost, m_jobs, m_measuredComm)
        .Write(runs, m_profileRuns);
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
