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
    m_nHosts = m_cluster.NumHosts();
    m_gpusPerHost = m_cluster.gpusPerHost;
    m_jobs = ScenarioJobBuilder(m_scenario, m_cluster).Build();
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
    spec.seed = m_scenario.seed;
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
                                       return ExperimentRunResultToBytes(RunJobs(spec));
                                   }});
    }
    // a distributed run is one simulation over all ranks: one after another
    const std::vector<std::string> bytes =
        RunParallel(runs, m_distributed ? 1 : m_parallelRuns, &progress);
    const uint32_t p = m_scenario.profileIterations;
    for (size_t i = 0; i < batch.size(); ++i)
    {
        const RunSpec& spec = batch[i];
        const ExperimentRunResult r = ExperimentRunResultFromBytes(bytes[i]);
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
    return ExperimentOutput(m_scenario,
                            m_nHosts,
                            m_gpusPerHost,
                            m_jobs,
                            m_aloneIter,
                            m_measuredComm)
        .FormatTable(runs);
}

void
CruxExperiment::WriteResults(const std::vector<ExperimentRunResult>& runs) const
{
    ExperimentOutput(m_scenario, m_nHosts, m_gpusPerHost, m_jobs, m_aloneIter, m_measuredComm)
        .Write(runs);
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
