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

#include "experiment-summary.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

namespace
{

/// The runs of an experiment indexed by role and seed.
class RunIndex
{
  public:
    explicit RunIndex(const std::vector<ExperimentRunResult>& runs)
        : m_runs(runs)
    {
    }

    /// \return the run with role \p role that stands for \p seed and has job \p id (any job
    /// if \p id is NO_JOB), or nullptr
    const ExperimentRunResult* Find(const std::string& role,
                                    uint64_t seed,
                                    uint32_t id = NO_JOB) const
    {
        for (const auto& r : m_runs)
        {
            if (std::find(r.roles.begin(), r.roles.end(), role) != r.roles.end() &&
                std::find(r.seeds.begin(), r.seeds.end(), seed) != r.seeds.end() &&
                (id == NO_JOB ||
                 std::any_of(r.jobs.begin(), r.jobs.end(), [id](const ExperimentJobResult& j) {
                     return j.id == id;
                 })))
            {
                return &r;
            }
        }
        return nullptr;
    }

    /// \return job \p id's result in the run of \p role for \p seed, or nullptr
    const ExperimentJobResult* Job(const std::string& role, uint64_t seed, uint32_t id) const
    {
        const ExperimentRunResult* r = Find(role, seed, id);
        if (r == nullptr)
        {
            return nullptr;
        }
        for (const auto& j : r->jobs)
        {
            if (j.id == id)
            {
                return &j;
            }
        }
        return nullptr;
    }

    /// "any job" for Find()
    static constexpr uint32_t NO_JOB = std::numeric_limits<uint32_t>::max();

    /// \return distinct runs that have role \p role
    uint32_t Count(const std::string& role) const
    {
        uint32_t n = 0;
        for (const auto& r : m_runs)
        {
            n += std::count(r.roles.begin(), r.roles.end(), role) > 0 ? 1 : 0;
        }
        return n;
    }

  private:
    const std::vector<ExperimentRunResult>& m_runs; //!< the runs
};

/// \return true if \p j measured at least one iteration
bool
Measured(const ExperimentJobResult* j)
{
    return j != nullptr && j->measuredIterations > 0 && j->meanIterationTime > 0;
}

/// Σ over \p ids of the utilization of each job's alone run of \p role for \p seed; false if
/// one is missing or measured nothing.
bool
AloneUtilization(const RunIndex& index,
                 const std::string& role,
                 uint64_t seed,
                 const std::vector<uint32_t>& ids,
                 double& out)
{
    out = 0;
    for (uint32_t id : ids)
    {
        const ExperimentRunResult* r = index.Find(role, seed, id);
        const ExperimentJobResult* j = index.Job(role, seed, id);
        if (r == nullptr || !Measured(j))
        {
            return false;
        }
        out += r->utilization;
    }
    return true;
}

/// The schedulers of the mix runs and the jobs (id, name), in the order of the runs; jobs then
/// sorted by id.
void
ListSchedulersAndJobs(const std::vector<ExperimentRunResult>& runs,
                      std::vector<std::string>& schedulers,
                      std::vector<std::pair<uint32_t, std::string>>& jobs)
{
    for (const auto& r : runs)
    {
        const std::string prefix = std::string(RunRole::MIX) + ":";
        for (const auto& role : r.roles)
        {
            if (role.rfind(prefix, 0) != 0)
            {
                continue;
            }
            const std::string sched = role.substr(prefix.size());
            if (std::find(schedulers.begin(), schedulers.end(), sched) == schedulers.end())
            {
                schedulers.push_back(sched);
            }
        }
        for (const auto& j : r.jobs)
        {
            if (std::none_of(jobs.begin(), jobs.end(), [&j](const auto& p) {
                    return p.first == j.id;
                }))
            {
                jobs.emplace_back(j.id, j.name);
            }
        }
    }
    std::sort(jobs.begin(), jobs.end());
}

/// One job's alone references over the seeds (fewIterations is left to the caller).
ReferenceSummary
SummarizeReferences(const RunIndex& index,
                    const std::vector<uint64_t>& seeds,
                    const std::vector<std::string>& schedulers,
                    uint32_t id,
                    const std::string& name)
{
    ReferenceSummary ref;
    ref.id = id;
    ref.name = name;
    ref.minMeasured = std::numeric_limits<uint32_t>::max();
    std::vector<double> ecmp;
    std::vector<double> free;
    std::map<std::string, std::vector<double>> paths;
    auto note = [&ref](const ExperimentJobResult* j, std::vector<double>& v) {
        if (j != nullptr)
        {
            ref.minMeasured = std::min(ref.minMeasured, j->measuredIterations);
        }
        if (Measured(j))
        {
            v.push_back(j->meanIterationTime);
        }
    };
    for (uint64_t seed : seeds)
    {
        note(index.Job(RunRole::ALONE_ECMP, seed, id), ecmp);
        note(index.Job(RunRole::ALONE_FREE, seed, id), free);
        for (const auto& s : schedulers)
        {
            const ExperimentJobResult* j =
                index.Job(std::string(RunRole::ALONE_PATHS) + ":" + s, seed, id);
            if (j != nullptr)
            {
                note(j, paths[s]);
            }
        }
    }
    if (ref.minMeasured == std::numeric_limits<uint32_t>::max())
    {
        ref.minMeasured = 0;
    }
    ref.aloneEcmp = Summarize(ecmp);
    ref.aloneFree = Summarize(free);
    for (const auto& [s, v] : paths)
    {
        ref.alonePaths[s] = Summarize(v);
    }
    return ref;
}

/// One job of scheduler \p s's mix over the seeds, against its alone references; false if no
/// seed's mix ran the job.
bool
SummarizeMixJob(const RunIndex& index,
                const std::vector<uint64_t>& seeds,
                const std::string& s,
                uint32_t id,
                const std::string& name,
                uint32_t minMeasuredIterations,
                JobSummary& js)
{
    const std::string mixRole = std::string(RunRole::MIX) + ":" + s;
    const std::string pathsRole = std::string(RunRole::ALONE_PATHS) + ":" + s;
    js.id = id;
    js.name = name;
    js.scheduler = s;
    js.minMeasured = std::numeric_limits<uint32_t>::max();
    std::vector<double> t;
    std::vector<double> vsEcmp;
    std::vector<double> vsPaths;
    bool any = false;
    for (uint64_t seed : seeds)
    {
        const ExperimentJobResult* j = index.Job(mixRole, seed, id);
        if (j == nullptr)
        {
            continue;
        }
        if (!any)
        {
            js.level = j->level;
            any = true;
        }
        if (std::find(js.levels.begin(), js.levels.end(), j->level) == js.levels.end())
        {
            js.levels.push_back(j->level);
        }
        js.minMeasured = std::min(js.minMeasured, j->measuredIterations);
        if (!Measured(j))
        {
            ++js.seedsWithout;
            continue;
        }
        t.push_back(j->meanIterationTime);
        const ExperimentJobResult* a = index.Job(RunRole::ALONE_ECMP, seed, id);
        if (Measured(a))
        {
            vsEcmp.push_back(j->meanIterationTime / a->meanIterationTime - 1);
        }
        const ExperimentJobResult* p = index.Job(pathsRole, seed, id);
        if (Measured(p))
        {
            vsPaths.push_back(j->meanIterationTime / p->meanIterationTime - 1);
        }
    }
    if (!any)
    {
        return false;
    }
    js.iterationTime = Summarize(t);
    js.vsAloneEcmp = Summarize(vsEcmp);
    js.vsAlonePaths = Summarize(vsPaths);
    js.fewIterations = js.minMeasured < minMeasuredIterations;
    return true;
}

/// Scheduler \p s's cluster utilization and its contention decomposition, seed by seed, over
/// the jobs \p ids.
SchedulerSummary
SummarizeCluster(const RunIndex& index,
                 const std::vector<uint64_t>& seeds,
                 const std::string& s,
                 const std::vector<uint32_t>& ids)
{
    const std::string mixRole = std::string(RunRole::MIX) + ":" + s;
    const std::string pathsRole = std::string(RunRole::ALONE_PATHS) + ":" + s;
    const std::string oneRole = std::string(RunRole::MIX_ONE_CLASS) + ":" + s;
    SchedulerSummary cs;
    cs.scheduler = s;
    cs.distinctRuns = index.Count(mixRole);
    std::vector<double> mix, ecmp, freeV, paths, own, gain, inter, prio, vs;
    for (uint64_t seed : seeds)
    {
        const ExperimentRunResult* m = index.Find(mixRole, seed);
        if (m == nullptr)
        {
            continue;
        }
        mix.push_back(m->utilization);
        if (!m->jobsOutsideWindow.empty())
        {
            // its utilization counts the other jobs only (printed, marked INCOMPLETE); no
            // comparison with the jobs alone, which count every job
            cs.incomplete = true;
            for (const auto& name : m->jobsOutsideWindow)
            {
                if (std::find(cs.jobsOutside.begin(), cs.jobsOutside.end(), name) ==
                    cs.jobsOutside.end())
                {
                    cs.jobsOutside.push_back(name);
                }
            }
            continue;
        }
        ContentionDecomposition d;
        d.mix = m->utilization;
        if (!AloneUtilization(index, RunRole::ALONE_ECMP, seed, ids, d.aloneEcmp))
        {
            continue;
        }
        ecmp.push_back(d.aloneEcmp);
        vs.push_back(d.mix / d.aloneEcmp - 1);
        double u = 0;
        if (AloneUtilization(index, RunRole::ALONE_FREE, seed, ids, u))
        {
            d.aloneFree = u;
            freeV.push_back(u);
            own.push_back(d.OwnFlowLoss());
        }
        if (!AloneUtilization(index, pathsRole, seed, ids, d.alonePaths))
        {
            continue;
        }
        if (const ExperimentRunResult* one = index.Find(oneRole, seed))
        {
            if (one->jobsOutsideWindow.empty())
            {
                d.mixOneClass = one->utilization;
                prio.push_back(d.PriorityRecovery());
            }
        }
        paths.push_back(d.alonePaths);
        gain.push_back(d.PathGain());
        inter.push_back(d.InterJobLoss());
        cs.maxResidual = std::max(cs.maxResidual, std::fabs(d.Residual()));
    }
    cs.mix = Summarize(mix);
    cs.aloneEcmp = Summarize(ecmp);
    cs.aloneFree = Summarize(freeV);
    cs.alonePaths = Summarize(paths);
    cs.ownFlowLoss = Summarize(own);
    cs.pathGain = Summarize(gain);
    cs.interJobLoss = Summarize(inter);
    cs.priorityRecovery = Summarize(prio);
    cs.vsAloneEcmp = Summarize(vs);
    return cs;
}

/// Scheduler \p s's mix against ECMP's, seed by seed: U_mix(s) / U_mix(ecmp) − 1 over the
/// seeds where both ran every job inside their windows.
SampleSummary
VersusEcmp(const RunIndex& index, const std::vector<uint64_t>& seeds, const std::string& s)
{
    const std::string ecmpRole = std::string(RunRole::MIX) + ":ecmp";
    const std::string mixRole = std::string(RunRole::MIX) + ":" + s;
    std::vector<double> vs;
    for (uint64_t seed : seeds)
    {
        const ExperimentRunResult* m = index.Find(mixRole, seed);
        const ExperimentRunResult* e = index.Find(ecmpRole, seed);
        if (s != "ecmp" && m != nullptr && e != nullptr && m->jobsOutsideWindow.empty() &&
            e->jobsOutsideWindow.empty() && e->utilization > 0)
        {
            vs.push_back(m->utilization / e->utilization - 1);
        }
    }
    return Summarize(vs);
}

} // namespace

ExperimentSummary
SummarizeExperiment(const std::vector<ExperimentRunResult>& runs,
                    const std::vector<uint64_t>& seeds,
                    uint32_t minMeasuredIterations)
{
    ExperimentSummary out;
    out.seeds = static_cast<uint32_t>(seeds.size());
    const RunIndex index(runs);
    std::vector<std::string> schedulers;
    std::vector<std::pair<uint32_t, std::string>> jobs;
    ListSchedulersAndJobs(runs, schedulers, jobs);
    std::vector<uint32_t> ids;
    for (const auto& [id, name] : jobs)
    {
        ids.push_back(id);
    }
    out.references = index.Count(RunRole::ALONE_ECMP) > 0;
    for (const auto& [id, name] : jobs)
    {
        ReferenceSummary ref = SummarizeReferences(index, seeds, schedulers, id, name);
        ref.fewIterations = out.references && ref.minMeasured < minMeasuredIterations;
        out.jobs.push_back(ref);
    }
    for (const auto& s : schedulers)
    {
        for (const auto& [id, name] : jobs)
        {
            JobSummary js;
            if (SummarizeMixJob(index, seeds, s, id, name, minMeasuredIterations, js))
            {
                out.jobRows.push_back(js);
            }
        }
        out.clusters.push_back(SummarizeCluster(index, seeds, s, ids));
        out.clusters.back().vsEcmp = VersusEcmp(index, seeds, s);
    }
    return out;
}

} // namespace ns3
