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

#include "crux-scheduler.h"

#include "path-selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

namespace
{

/// Δ_x below this fraction of t_x counts as vanished ([D5]).
constexpr double DELTA_VANISH_FRACTION = 0.01;
/// The horizon covers at most this many iterations of the shorter job ([D3]).
constexpr double MAX_HORIZON_ITERATIONS = 1e5;

/// \return the timeline view of a job with communication time t
TimelineJob
ToTimelineJob(const SchedJob& job, double commTime)
{
    TimelineJob t;
    t.computeTime = job.computeTime;
    t.commTime = commTime;
    t.overlapStart = job.overlapStart;
    t.numGpus = job.numGpus;
    t.flopsPerIteration = job.flopsPerIteration;
    return t;
}

/// \return stand-alone iteration time of a timeline job
double
IterationTime(const TimelineJob& j)
{
    return std::max(j.computeTime, j.overlapStart * j.computeTime + j.commTime);
}

} // namespace

double
CorrectionHorizon(const TimelineJob& ref, const TimelineJob& job, double horizonIterations)
{
    const double tRef = IterationTime(ref);
    const double tJob = IterationTime(job);
    const double h = horizonIterations * std::max(tRef, tJob);
    return std::min(h, MAX_HORIZON_ITERATIONS * std::min(tRef, tJob));
}

CorrectionFactor
ComputeCorrectionFactor(const TimelineJob& ref,
                        const TimelineJob& job,
                        double horizon,
                        double kBound)
{
    if (!(ref.commTime > 0) || !(job.commTime > 0))
    {
        throw std::invalid_argument("ComputeCorrectionFactor: both jobs need commTime > 0");
    }
    CorrectionFactor cf;
    cf.horizon = horizon;
    cf.refFirst = SimulateSharedLink({ref, job}, 0, horizon);
    cf.jobFirst = SimulateSharedLink({ref, job}, 1, horizon);
    cf.deltaRef = cf.refFirst.sendTime[0] - cf.jobFirst.sendTime[0];
    cf.deltaJob = cf.jobFirst.sendTime[1] - cf.refFirst.sendTime[1];
    auto extra = [](uint64_t a, uint64_t b) { return a > b ? static_cast<double>(a - b) : 0.0; };
    cf.gainRef = ref.flopsPerIteration *
                 extra(cf.refFirst.completedIterations[0], cf.jobFirst.completedIterations[0]);
    cf.gainJob = job.flopsPerIteration *
                 extra(cf.jobFirst.completedIterations[1], cf.refFirst.completedIterations[1]);

    const bool refDelta = cf.deltaRef >= DELTA_VANISH_FRACTION * ref.commTime;
    const bool jobDelta = cf.deltaJob >= DELTA_VANISH_FRACTION * job.commTime;
    const bool refGain = cf.gainRef > 0;
    const bool jobGain = cf.gainJob > 0;
    double k = 1;
    if (refDelta && jobDelta)
    {
        cf.method = CorrectionMethod::DELTA_RATIO;
        k = cf.deltaJob / cf.deltaRef;
    }
    else if (refGain && jobGain)
    {
        cf.method = CorrectionMethod::GAIN_RATIO;
        const double iRef = GpuIntensity(ref.flopsPerIteration, ref.commTime);
        const double iJob = GpuIntensity(job.flopsPerIteration, job.commTime);
        k = (cf.gainJob / cf.gainRef) * (iRef / iJob);
    }
    else if (!(refDelta || refGain) && !(jobDelta || jobGain))
    {
        cf.method = CorrectionMethod::INDIFFERENT;
        k = 1;
    }
    else if (jobDelta || jobGain)
    {
        cf.method = CorrectionMethod::ONLY_JOB_GAINS;
        k = kBound;
    }
    else
    {
        cf.method = CorrectionMethod::ONLY_REF_GAINS;
        k = 1 / kBound;
    }
    cf.k = std::clamp(k, 1 / kBound, kBound);
    return cf;
}

void
CruxSelectPaths(const ClusterModel& model, Decision& decision)
{
    std::vector<const SchedJob*> jobs;
    for (const SchedJob& job : model.jobs)
    {
        jobs.push_back(&job);
    }
    std::sort(jobs.begin(), jobs.end(), [&decision](const SchedJob* a, const SchedJob* b) {
        const double ia = decision.jobs.at(a->id).intensity;
        const double ib = decision.jobs.at(b->id).intensity;
        if (ia != ib)
        {
            return ia > ib;
        }
        return a->id < b->id;
    });

    SelectLeastCongestedPaths(model, jobs, decision);
}

uint32_t
SelectReferenceJob(const ClusterModel& model, const Decision& decision)
{
    uint32_t refId = std::numeric_limits<uint32_t>::max();
    double refRate = -1;
    for (const SchedJob& job : model.jobs)
    {
        const JobDecision& jd = decision.jobs.at(job.id);
        const LinkLoad load = JobLinkBytes(job, ChoiceOf(job, jd));
        double bytes = 0;
        for (const auto& [link, b] : load)
        {
            bytes += b;
        }
        const double iter = StandaloneIterationTime(job, jd.commTime);
        const double rate = iter > 0 ? bytes / iter : 0;
        if (rate > refRate || (rate == refRate && job.id < refId))
        {
            refRate = rate;
            refId = job.id;
        }
    }
    return refId;
}

void
CruxAssignPriorities(const ClusterModel& model, const SchedulerConfig& config, Decision& decision)
{
    const uint32_t refId = SelectReferenceJob(model, decision);
    decision.referenceJob = refId;
    const SchedJob* ref = nullptr;
    for (const SchedJob& job : model.jobs)
    {
        if (job.id == refId)
        {
            ref = &job;
        }
    }
    const double refComm = decision.jobs.at(refId).commTime;
    const TimelineJob refTimeline = ToTimelineJob(*ref, refComm);

    for (const SchedJob& job : model.jobs)
    {
        JobDecision& jd = decision.jobs.at(job.id);
        jd.k = 1;
        if (job.id != refId && refComm > 0 && jd.commTime > 0)
        {
            const TimelineJob jt = ToTimelineJob(job, jd.commTime);
            const double h = CorrectionHorizon(refTimeline, jt, config.kHorizonIterations);
            jd.k = ComputeCorrectionFactor(refTimeline, jt, h, config.kBound).k;
        }
        jd.priorityScore = jd.k * jd.intensity;
    }

    std::vector<uint32_t> ids;
    for (const SchedJob& job : model.jobs)
    {
        ids.push_back(job.id);
    }
    std::sort(ids.begin(), ids.end(), [&decision](uint32_t a, uint32_t b) {
        const double pa = decision.jobs.at(a).priorityScore;
        const double pb = decision.jobs.at(b).priorityScore;
        if (pa != pb)
        {
            return pa > pb;
        }
        return a < b;
    });
    for (uint32_t r = 0; r < ids.size(); ++r)
    {
        decision.jobs.at(ids[r]).rank = r;
    }
}

WeightedDag
BuildContentionDag(const ClusterModel& model,
                   const Decision& decision,
                   std::vector<uint32_t>* nodeJobs)
{
    const std::vector<uint32_t> order = decision.PriorityOrder();
    const uint32_t n = static_cast<uint32_t>(order.size());
    std::map<uint32_t, uint32_t> nodeOf; // job id -> node
    for (uint32_t i = 0; i < n; ++i)
    {
        nodeOf[order[i]] = i;
    }
    // users[e] = nodes that put > 0 bytes on link e
    std::vector<std::vector<uint32_t>> users(model.links.size());
    for (const SchedJob& job : model.jobs)
    {
        const uint32_t node = nodeOf.at(job.id);
        for (const auto& [link, bytes] : JobLinkBytes(job, ChoiceOf(job, decision.jobs.at(job.id))))
        {
            if (bytes > 0)
            {
                users[link].push_back(node);
            }
        }
    }
    std::vector<bool> shared(static_cast<std::size_t>(n) * n, false);
    WeightedDag dag;
    dag.numNodes = n;
    for (const auto& u : users)
    {
        for (std::size_t a = 0; a < u.size(); ++a)
        {
            for (std::size_t b = a + 1; b < u.size(); ++b)
            {
                const uint32_t hi = std::min(u[a], u[b]);
                const uint32_t lo = std::max(u[a], u[b]);
                if (hi == lo || shared[static_cast<std::size_t>(hi) * n + lo])
                {
                    continue;
                }
                shared[static_cast<std::size_t>(hi) * n + lo] = true;
                dag.edges.push_back({hi, lo, decision.jobs.at(order[hi]).intensity});
            }
        }
    }
    if (nodeJobs)
    {
        *nodeJobs = order;
    }
    return dag;
}

void
CruxCompressPriorities(const ClusterModel& model, const SchedulerConfig& config, Decision& decision)
{
    std::vector<uint32_t> nodeJobs;
    const WeightedDag dag = BuildContentionDag(model, decision, &nodeJobs);
    DagMaxKCutOptions options;
    if (config.topoOrderSamples == 0 && dag.numNodes > options.maxExhaustiveNodes)
    {
        throw std::invalid_argument(
            "SchedulerConfig.topoOrderSamples = 0 (exhaustive compression) supports at most " +
            std::to_string(options.maxExhaustiveNodes) + " jobs (got " +
            std::to_string(dag.numNodes) + ")");
    }
    options.samples = config.topoOrderSamples;
    options.seed = config.seed;
    if (config.includePriorityOrder)
    {
        options.firstOrder.resize(dag.numNodes);
        std::iota(options.firstOrder.begin(), options.firstOrder.end(), 0u);
    }
    const DagCut cut = SolveDagMaxKCut(dag, config.numLevels, options);
    for (uint32_t v = 0; v < dag.numNodes; ++v)
    {
        decision.jobs.at(nodeJobs[v]).level = config.numLevels - 1 - cut.block[v];
    }
    decision.compressionCut = cut.value;
    decision.uniquePriorities = false;
}

CruxScheduler::CruxScheduler(std::string name)
    : m_name(std::move(name))
{
}

std::string
CruxScheduler::Name() const
{
    return m_name;
}

Decision
CruxScheduler::Schedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    Decision d = MakeDefaultDecision(model, config, Name());
    CruxSelectPaths(model, d);
    CruxAssignPriorities(model, config, d);
    CruxCompressPriorities(model, config, d);
    return d;
}

std::string
CruxPaScheduler::Name() const
{
    return "crux-pa";
}

Decision
CruxPaScheduler::Schedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    Decision d = MakeDefaultDecision(model, config, Name());
    CruxAssignPriorities(model, config, d);
    AssignLevelsByRank(d);
    return d;
}

std::string
CruxPsPaScheduler::Name() const
{
    return "crux-ps-pa";
}

Decision
CruxPsPaScheduler::Schedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    Decision d = MakeDefaultDecision(model, config, Name());
    CruxSelectPaths(model, d);
    CruxAssignPriorities(model, config, d);
    AssignLevelsByRank(d);
    return d;
}

} // namespace ns3
