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

#include "cluster-model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

uint32_t
Decision::LevelOf(uint32_t jobId) const
{
    auto it = jobs.find(jobId);
    if (it == jobs.end())
    {
        throw std::out_of_range("Decision::LevelOf: unknown job id " + std::to_string(jobId));
    }
    return it->second.level;
}

uint32_t
Decision::PathOf(uint32_t jobId, uint32_t flowId) const
{
    auto it = jobs.find(jobId);
    if (it == jobs.end())
    {
        throw std::out_of_range("Decision::PathOf: unknown job id " + std::to_string(jobId));
    }
    auto f = it->second.flowPath.find(flowId);
    if (f == it->second.flowPath.end())
    {
        throw std::out_of_range("Decision::PathOf: job " + std::to_string(jobId) +
                                " has no flow id " + std::to_string(flowId));
    }
    return f->second;
}

std::vector<uint32_t>
Decision::PriorityOrder() const
{
    std::vector<uint32_t> ids;
    ids.reserve(jobs.size());
    for (const auto& [id, jd] : jobs)
    {
        ids.push_back(id);
    }
    std::stable_sort(ids.begin(), ids.end(), [this](uint32_t a, uint32_t b) {
        return jobs.at(a).rank < jobs.at(b).rank;
    });
    return ids;
}

bool
operator==(const JobDecision& a, const JobDecision& b)
{
    return a.level == b.level && a.rank == b.rank && a.priorityScore == b.priorityScore &&
           a.intensity == b.intensity && a.k == b.k && a.commTime == b.commTime &&
           a.flowPath == b.flowPath && a.timeShift == b.timeShift;
}

bool
operator==(const Decision& a, const Decision& b)
{
    return a.scheduler == b.scheduler && a.numLevels == b.numLevels &&
           a.uniquePriorities == b.uniquePriorities && a.referenceJob == b.referenceJob &&
           a.compressionCut == b.compressionCut && a.jobs == b.jobs;
}

PathChoice
DefaultPathChoice(const SchedJob& job)
{
    PathChoice choice;
    choice.reserve(job.flows.size());
    for (const auto& f : job.flows)
    {
        choice.push_back(f.defaultPath);
    }
    return choice;
}

LinkLoad
JobLinkBytes(const SchedJob& job, const PathChoice& choice)
{
    if (choice.size() != job.flows.size())
    {
        throw std::invalid_argument("JobLinkBytes: job " + std::to_string(job.id) + " has " +
                                    std::to_string(job.flows.size()) +
                                    " flows but the path choice has " +
                                    std::to_string(choice.size()) + " entries");
    }
    LinkLoad load;
    for (std::size_t f = 0; f < job.flows.size(); ++f)
    {
        const SchedFlow& flow = job.flows[f];
        if (choice[f] >= flow.candidatePaths.size())
        {
            throw std::invalid_argument("JobLinkBytes: job " + std::to_string(job.id) + " flow " +
                                        std::to_string(flow.id) + ": path index " +
                                        std::to_string(choice[f]) + " out of range");
        }
        for (uint32_t link : flow.candidatePaths[choice[f]])
        {
            load[link] += flow.bytesPerIteration;
        }
    }
    return load;
}

double
AnalyticCommTime(const ClusterModel& model, const LinkLoad& load)
{
    return BusiestLinkTime(load,
                           [&model](uint32_t link) { return model.links.at(link).bandwidth; });
}

double
JobCommTime(const ClusterModel& model, const SchedJob& job, const PathChoice& choice)
{
    if (job.measuredCommTime > 0)
    {
        return job.measuredCommTime;
    }
    return AnalyticCommTime(model, JobLinkBytes(job, choice));
}

std::vector<SchedPhase>
EffectivePhases(const SchedJob& job)
{
    if (!job.phases.empty())
    {
        return job.phases;
    }
    SchedPhase p;
    p.release = job.overlapStart * job.computeTime;
    for (std::size_t f = 0; f < job.flows.size(); ++f)
    {
        p.flows.push_back(static_cast<uint32_t>(f));
        p.bytes.push_back(job.flows[f].bytesPerIteration);
    }
    return {p};
}

std::vector<SchedPhaseDep>
EffectiveEndDeps(const SchedJob& job)
{
    if (!job.phases.empty())
    {
        return job.endDeps;
    }
    return {SchedPhaseDep{0, 0}};
}

double
StandaloneIterationTime(const SchedJob& job, double commTime)
{
    if (job.phases.empty())
    {
        return std::max(job.computeTime, job.overlapStart * job.computeTime + commTime);
    }
    double total = 0;
    for (const SchedFlow& f : job.flows)
    {
        total += f.bytesPerIteration;
    }
    std::vector<double> end(job.phases.size(), 0.0);
    double iteration = std::max(job.computeTime, job.span);
    for (std::size_t p = 0; p < job.phases.size(); ++p)
    {
        const SchedPhase& ph = job.phases[p];
        double start = ph.release;
        for (const SchedPhaseDep& d : ph.deps)
        {
            start = std::max(start, end[d.phase] + d.lag);
        }
        double bytes = 0;
        for (double b : ph.bytes)
        {
            bytes += b;
        }
        end[p] = start + (total > 0 ? commTime * bytes / total : 0.0);
        iteration = std::max(iteration, end[p]);
    }
    for (const SchedPhaseDep& d : job.endDeps)
    {
        iteration = std::max(iteration, end[d.phase] + d.lag);
    }
    return iteration;
}

namespace
{

/// \return true if x is finite and >= 0
bool
IsNonNegative(double x)
{
    return std::isfinite(x) && x >= 0;
}

/// \return "jobs[i] (id N)" for error messages
std::string
JobName(std::size_t index, const SchedJob& job)
{
    return "jobs[" + std::to_string(index) + "] (id " + std::to_string(job.id) + ")";
}

/// \throws std::invalid_argument with \p what
[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument("crux scheduling input: " + what);
}

/// \return the decimal rendering of \p x
std::string
Num(double x)
{
    std::ostringstream os;
    os << x;
    return os.str();
}

/// Buffers Validate() reuses from job to job (no allocation per job once they have grown).
struct ValidateScratch
{
    std::vector<double> sum;       //!< ValidatePhases: [flow] bytes over the phases
    std::vector<std::size_t> seen; //!< ValidatePhases: [flow] last phase listing it + 1
    std::vector<uint32_t> ids;     //!< flow ids of a job, sorted
};

/// Checks the job's phases, endDeps and span (see Validate()).
/// \param nameOf () -> the job's name for an error message (built only for one)
/// \param job the job \param scratch reused buffers
template <typename NameOf>
void
ValidatePhases(const NameOf& nameOf, const SchedJob& job, ValidateScratch& scratch)
{
    if (job.phases.empty())
    {
        if (!job.endDeps.empty() || job.span != 0)
        {
            Fail(nameOf() + ": endDeps and span need phases");
        }
        return;
    }
    if (!IsNonNegative(job.span))
    {
        Fail(nameOf() + ".span must be >= 0 s (got " + Num(job.span) + ")");
    }
    std::vector<double>& sum = scratch.sum;
    sum.assign(job.flows.size(), 0.0);
    // what() names the phase (built only for an error message)
    auto checkDeps = [&](auto what, const std::vector<SchedPhaseDep>& deps, std::size_t limit) {
        for (std::size_t d = 0; d < deps.size(); ++d)
        {
            if (deps[d].phase >= limit)
            {
                Fail(what() + ".deps[" + std::to_string(d) + "].phase " +
                     std::to_string(deps[d].phase) + " must be < " + std::to_string(limit) +
                     " (an earlier phase)");
            }
            if (!IsNonNegative(deps[d].lag))
            {
                Fail(what() + ".deps[" + std::to_string(d) + "].lag must be >= 0 s (got " +
                     Num(deps[d].lag) + ")");
            }
        }
    };
    // seen[f] == p + 1: flow f already listed in phase p
    std::vector<std::size_t>& seen = scratch.seen;
    seen.assign(job.flows.size(), 0);
    for (std::size_t p = 0; p < job.phases.size(); ++p)
    {
        const SchedPhase& ph = job.phases[p];
        auto pname = [&nameOf, p]() { return nameOf() + ".phases[" + std::to_string(p) + "]"; };
        if (!IsNonNegative(ph.release))
        {
            Fail(pname() + ".release must be >= 0 s (got " + Num(ph.release) + ")");
        }
        checkDeps(pname, ph.deps, p);
        if (ph.flows.size() != ph.bytes.size())
        {
            Fail(pname() + ": flows and bytes differ in size");
        }
        for (std::size_t i = 0; i < ph.flows.size(); ++i)
        {
            if (ph.flows[i] >= job.flows.size() || seen[ph.flows[i]] == p + 1)
            {
                Fail(pname() + ".flows[" + std::to_string(i) +
                     "] = " + std::to_string(ph.flows[i]) + " is out of range or repeated");
            }
            seen[ph.flows[i]] = p + 1;
            if (!IsNonNegative(ph.bytes[i]))
            {
                Fail(pname() + ".bytes[" + std::to_string(i) + "] must be >= 0 (got " +
                     Num(ph.bytes[i]) + ")");
            }
            sum[ph.flows[i]] += ph.bytes[i];
        }
    }
    checkDeps([&nameOf]() { return nameOf() + ".endDeps"; }, job.endDeps, job.phases.size());
    for (std::size_t f = 0; f < job.flows.size(); ++f)
    {
        const double want = job.flows[f].bytesPerIteration;
        if (std::abs(sum[f] - want) > 1e-6 * std::max(1.0, want))
        {
            Fail(nameOf() + ".flows[" + std::to_string(f) + "]: its phase bytes add up to " +
                 Num(sum[f]) + ", not its bytesPerIteration " + Num(want));
        }
    }
}

} // namespace

void
Validate(const ClusterModel& model, const SchedulerConfig& config)
{
    if (config.numLevels == 0)
    {
        Fail("SchedulerConfig.numLevels must be >= 1 (got 0)");
    }
    if (model.jobs.empty())
    {
        Fail("ClusterModel.jobs is empty (nothing to schedule)");
    }
    for (std::size_t l = 0; l < model.links.size(); ++l)
    {
        double b = model.links[l].bandwidth;
        if (!(std::isfinite(b) && b > 0))
        {
            Fail("links[" + std::to_string(l) + "].bandwidth must be > 0 bit/s (got " + Num(b) +
                 ")");
        }
    }
    // duplicate ids: a sorted copy tells whether there is one; only then is the first (the
    // element that a running set of the ids before it already holds) searched, and the loops
    // below fail there, in their order of checks
    ValidateScratch scratch;
    auto firstDuplicate = [&scratch](auto begin, auto end, auto idOf) -> std::size_t {
        scratch.ids.clear();
        for (auto it = begin; it != end; ++it)
        {
            scratch.ids.push_back(idOf(*it));
        }
        std::sort(scratch.ids.begin(), scratch.ids.end());
        if (std::adjacent_find(scratch.ids.begin(), scratch.ids.end()) == scratch.ids.end())
        {
            return std::numeric_limits<std::size_t>::max();
        }
        std::set<uint32_t> seen;
        std::size_t i = 0;
        for (auto it = begin; seen.insert(idOf(*it)).second; ++it)
        {
            ++i;
        }
        return i;
    };
    const std::size_t duplicateJob = firstDuplicate(model.jobs.begin(),
                                                    model.jobs.end(),
                                                    [](const SchedJob& job) { return job.id; });
    for (std::size_t j = 0; j < model.jobs.size(); ++j)
    {
        const SchedJob& job = model.jobs[j];
        // built only for an error message
        auto nameOf = [j, &job]() { return JobName(j, job); };
        if (j == duplicateJob)
        {
            Fail(nameOf() + ": duplicate job id " + std::to_string(job.id));
        }
        if (!IsNonNegative(job.flopsPerIteration))
        {
            Fail(nameOf() + ".flopsPerIteration must be >= 0 FLOPs (got " +
                 Num(job.flopsPerIteration) + ")");
        }
        if (!IsNonNegative(job.computeTime))
        {
            Fail(nameOf() + ".computeTime must be >= 0 s (got " + Num(job.computeTime) + ")");
        }
        if (!(job.overlapStart >= 0 && job.overlapStart <= 1))
        {
            Fail(nameOf() + ".overlapStart must be in [0, 1] (got " + Num(job.overlapStart) + ")");
        }
        if (!IsNonNegative(job.measuredCommTime))
        {
            Fail(nameOf() + ".measuredCommTime must be >= 0 s (got " + Num(job.measuredCommTime) +
                 ")");
        }
        if (job.numGpus == 0)
        {
            Fail(nameOf() + ".numGpus must be >= 1");
        }
        const std::size_t duplicateFlow = firstDuplicate(job.flows.begin(),
                                                         job.flows.end(),
                                                         [](const SchedFlow& f) { return f.id; });
        for (std::size_t f = 0; f < job.flows.size(); ++f)
        {
            const SchedFlow& flow = job.flows[f];
            // built only for an error message
            auto fname = [&nameOf, &flow, f]() {
                return nameOf() + ".flows[" + std::to_string(f) + "] (id " +
                       std::to_string(flow.id) + ")";
            };
            if (f == duplicateFlow)
            {
                Fail(fname() + ": duplicate flow id " + std::to_string(flow.id) + " in the job");
            }
            if (!IsNonNegative(flow.bytesPerIteration))
            {
                Fail(fname() + ".bytesPerIteration must be >= 0 bytes (got " +
                     Num(flow.bytesPerIteration) + ")");
            }
            if (flow.candidatePaths.empty())
            {
                Fail(fname() + ".candidatePaths is empty (a flow needs at least one path)");
            }
            for (std::size_t p = 0; p < flow.candidatePaths.size(); ++p)
            {
                for (std::size_t h = 0; h < flow.candidatePaths[p].size(); ++h)
                {
                    uint32_t link = flow.candidatePaths[p][h];
                    if (link >= model.links.size())
                    {
                        Fail(fname() + ".candidatePaths[" + std::to_string(p) + "][" +
                             std::to_string(h) + "] references unknown link id " +
                             std::to_string(link) + " (the model has " +
                             std::to_string(model.links.size()) + " links)");
                    }
                }
            }
            if (flow.defaultPath >= flow.candidatePaths.size())
            {
                Fail(fname() + ".defaultPath " + std::to_string(flow.defaultPath) +
                     " out of range (" + std::to_string(flow.candidatePaths.size()) +
                     " candidate paths)");
            }
        }
        ValidatePhases(nameOf, job, scratch);
    }
}

} // namespace ns3
