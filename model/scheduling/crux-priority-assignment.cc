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
 * Crux's priority assignment (Crux §4.2, [D3]-[D6]): the correction factor k_j of the
 * two-timeline comparison against the reference job (ComputeCorrectionFactor, its memo and its
 * threads), the reference job, and ns3::CruxIntensityPriorities (P_j = k_j I_j). The path
 * selection, compression and the scheduler that runs the three stages are in other files
 * (crux-scheduler.cc for the compression and the scheduler).
 */

#include "crux-scheduler.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/hash-mix.h"
#include "ns3/log.h"
#include "ns3/parallel-tasks.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxPriorityAssignment");

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
    if (!job.phases.empty())
    {
        // The job's communication timeline on the shared link: each phase takes its share of
        // t_j in proportion to its bytes.
        double total = 0;
        for (const SchedFlow& f : job.flows)
        {
            total += f.bytesPerIteration;
        }
        for (const SchedPhase& p : job.phases)
        {
            TimelinePhase tp;
            tp.release = p.release;
            tp.deps = p.deps;
            double bytes = 0;
            for (double b : p.bytes)
            {
                bytes += b;
            }
            tp.linkTime = total > 0 ? commTime * bytes / total : 0.0;
            t.phases.push_back(std::move(tp));
        }
        t.endDeps = job.endDeps;
        t.span = job.span;
    }
    return t;
}

/// \return stand-alone iteration time of a timeline job
double
IterationTime(const TimelineJob& j)
{
    if (j.phases.empty())
    {
        return std::max(j.computeTime, j.overlapStart * j.computeTime + j.commTime);
    }
    std::vector<double> end(j.phases.size(), 0.0);
    double iteration = std::max(j.computeTime, j.span);
    for (std::size_t p = 0; p < j.phases.size(); ++p)
    {
        double start = j.phases[p].release;
        for (const SchedPhaseDep& d : j.phases[p].deps)
        {
            start = std::max(start, end[d.phase] + d.lag);
        }
        end[p] = start + j.phases[p].linkTime;
        iteration = std::max(iteration, end[p]);
    }
    for (const SchedPhaseDep& d : j.endDeps)
    {
        iteration = std::max(iteration, end[d.phase] + d.lag);
    }
    return iteration;
}

/// \return the bits of \p x (equal bits: the same number to every computation; -0.0 and 0.0,
/// and NaNs, kept apart as a byte comparison would)
uint64_t
Bits(double x)
{
    uint64_t b;
    std::memcpy(&b, &x, sizeof(b));
    return b;
}

/// Phases and end dependencies a TimelineHash samples at most (besides the last one).
constexpr std::size_t HASH_SAMPLES = 16;

/**
 * Hash of a timeline job, consistent with TimelineEqual (equal timelines, equal hashes): every
 * scalar, the counts, and at most HASH_SAMPLES + 1 evenly spaced phases and end dependencies
 * (the last included), each with every number it holds; a chain of crux::Mix64, no
 * allocation. Sampling keeps the per-decision cost of the memo lookups of large timelines (up
 * to thousands of phases) low; timelines that differ only between the samples share a hash and
 * are told apart by TimelineEqual, which compares everything.
 */
struct TimelineHash
{
    /// \param t the timeline \return its hash
    std::size_t operator()(const TimelineJob& t) const
    {
        uint64_t h = 0;
        auto add = [&h](uint64_t v) { h = crux::Mix64(h ^ v); };
        auto addDep = [&add](const SchedPhaseDep& d) {
            add(d.phase);
            add(Bits(d.lag));
        };
        add(Bits(t.computeTime));
        add(Bits(t.commTime));
        add(Bits(t.overlapStart));
        add(t.numGpus);
        add(Bits(t.flopsPerIteration));
        add(Bits(t.span));
        add(t.phases.size());
        add(t.endDeps.size());
        auto sampled = [](std::size_t n, auto&& visit) {
            const std::size_t stride =
                std::max<std::size_t>(1, (n + HASH_SAMPLES - 1) / HASH_SAMPLES);
            for (std::size_t i = 0; i < n; i += stride)
            {
                visit(i);
            }
            if (n > 0 && (n - 1) % stride != 0)
            {
                visit(n - 1);
            }
        };
        sampled(t.phases.size(), [&](std::size_t i) {
            const TimelinePhase& p = t.phases[i];
            add(Bits(p.release));
            add(Bits(p.linkTime));
            add(p.deps.size());
            for (const SchedPhaseDep& d : p.deps)
            {
                addDep(d);
            }
        });
        sampled(t.endDeps.size(), [&](std::size_t i) { addDep(t.endDeps[i]); });
        return static_cast<std::size_t>(h);
    }
};

/// \return true if the two dependency lists hold the same numbers bit for bit
bool
SameDeps(const std::vector<SchedPhaseDep>& a, const std::vector<SchedPhaseDep>& b)
{
    if (a.size() != b.size())
    {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        if (a[i].phase != b[i].phase || Bits(a[i].lag) != Bits(b[i].lag))
        {
            return false;
        }
    }
    return true;
}

/// Equality of two timeline jobs: every number bit for bit (equal jobs give equal
/// SimulateSharedLink runs).
struct TimelineEqual
{
    /// \param a a timeline \param b another \return true if every number is the same
    bool operator()(const TimelineJob& a, const TimelineJob& b) const
    {
        if (Bits(a.computeTime) != Bits(b.computeTime) || Bits(a.commTime) != Bits(b.commTime) ||
            Bits(a.overlapStart) != Bits(b.overlapStart) || a.numGpus != b.numGpus ||
            Bits(a.flopsPerIteration) != Bits(b.flopsPerIteration) ||
            Bits(a.span) != Bits(b.span) || a.phases.size() != b.phases.size() ||
            !SameDeps(a.endDeps, b.endDeps))
        {
            return false;
        }
        for (std::size_t i = 0; i < a.phases.size(); ++i)
        {
            const TimelinePhase& p = a.phases[i];
            const TimelinePhase& q = b.phases[i];
            if (Bits(p.release) != Bits(q.release) || Bits(p.linkTime) != Bits(q.linkTime) ||
                !SameDeps(p.deps, q.deps))
            {
                return false;
            }
        }
        return true;
    }
};

/// \return the bytes a stored copy of \p t holds (for the memo's bound)
std::size_t
TimelineBytes(const TimelineJob& t)
{
    std::size_t bytes = sizeof(TimelineJob) + t.endDeps.size() * sizeof(SchedPhaseDep);
    for (const TimelinePhase& p : t.phases)
    {
        bytes += sizeof(TimelinePhase) + p.deps.size() * sizeof(SchedPhaseDep);
    }
    return bytes;
}

/**
 * The correction factor of Crux §4.2 from the two shared-link runs (ref first, job first) over
 * \p horizon; ComputeCorrectionFactor makes the runs and calls it.
 * \param ref the reference job \param job the other job \param horizon H, s
 * \param kBound clamp of k \param refFirst the run with ref at high priority
 * \param jobFirst the run with job at high priority \return k and what it came from
 */
CorrectionFactor CorrectionFactorOf(const TimelineJob& ref,
                                    const TimelineJob& job,
                                    double horizon,
                                    double kBound,
                                    TimelineResult refFirst,
                                    TimelineResult jobFirst);

/// Throws std::invalid_argument unless both jobs communicate (ComputeCorrectionFactor's
/// precondition). \param ref the reference job \param job the other job
void
CheckCorrectionInputs(const TimelineJob& ref, const TimelineJob& job)
{
    if (!(ref.commTime > 0) || !(job.commTime > 0))
    {
        throw std::invalid_argument("ComputeCorrectionFactor: both jobs need commTime > 0");
    }
}

/// Memo key of one k_x: the interned timelines of the reference and the job
/// (CorrectionMemo::Intern()), the horizon's and the bound's bits, the run mode.
struct PairKey
{
    uint64_t ref;    //!< the reference's timeline number
    uint64_t job;    //!< the job's timeline number
    uint64_t h;      //!< Bits() of the horizon
    uint64_t kBound; //!< Bits() of the bound of k
    uint32_t run;    //!< SharedLinkRun

    /// \param o another key \return true if every field is equal
    bool operator==(const PairKey& o) const
    {
        return ref == o.ref && job == o.job && h == o.h && kBound == o.kBound && run == o.run;
    }
};

/// Hash of a PairKey: a chain of crux::Mix64 over its fields.
struct PairKeyHash
{
    /// \param k the key \return its hash
    std::size_t operator()(const PairKey& k) const
    {
        uint64_t h = crux::Mix64(k.ref);
        h = crux::Mix64(h ^ k.job);
        h = crux::Mix64(h ^ k.h);
        h = crux::Mix64(h ^ k.kBound);
        return static_cast<std::size_t>(crux::Mix64(h ^ k.run));
    }
};

/**
 * Memo of k_x: ComputeCorrectionFactor(ref, job, h, kBound).k is a pure function of the two
 * timelines (compared bit for bit: TimelineHash, TimelineEqual; each stored once and numbered),
 * h and kBound, and successive decisions of a trace run ask for the same pairs again and again;
 * each entry saves two SimulateSharedLink runs. Per thread (deterministic also when runs go in
 * parallel); cleared when it holds more than MEMO_MAX_BYTES of timelines.
 */
class CorrectionMemo
{
  public:
    /**
     * Starts a decision: empties the memo when it holds more than MEMO_MAX_BYTES of timelines
     * and interns the reference job's timeline once for all of the decision's requests (Ks()).
     * \param ref the reference job's timeline
     */
    void BeginDecision(const TimelineJob& ref)
    {
        if (m_bytes > MEMO_MAX_BYTES)
        {
            m_ids.clear();
            m_k.clear();
            m_bytes = 0;
        }
        m_refKey = Intern(ref);
    }

    /// One k a decision asks for: the job's timeline and the horizon.
    struct Request
    {
        const TimelineJob* job; //!< the job's timeline (outlives the call)
        double h;               //!< horizon, s
    };

    /**
     * The k of every request: from the memo, or computed and stored (each distinct pair once).
     * With \p threads >= 2 the misses are computed on up to that many threads (this one
     * included), each one's two SimulateSharedLink runs as two tasks; ComputeCorrectionFactor is
     * a pure function, so the memo's content, and every decision, do not depend on \p threads.
     * An exception of a computation is rethrown here, the first in request order (the one a
     * sequential run throws).
     * \param ref the decision's reference timeline (as given to BeginDecision)
     * \param requests the decision's pairs \param kBound clamp of k
     * \param threads threads to use (>= 1) \return [request] -> k
     */
    std::vector<double> Ks(const TimelineJob& ref,
                           const std::vector<Request>& requests,
                           double kBound,
                           uint32_t threads,
                           SharedLinkRun run)
    {
        std::vector<PairKey> keys; // of the misses
        std::vector<const Request*> misses;
        std::vector<PairKey> keyOf; // of every request
        std::unordered_set<PairKey, PairKeyHash> seen;
        for (const Request& r : requests)
        {
            keyOf.push_back(Key(*r.job, r.h, kBound, run));
            if (m_k.count(keyOf.back()) == 0 && seen.insert(keyOf.back()).second)
            {
                keys.push_back(keyOf.back());
                misses.push_back(&r);
            }
        }
        Compute(ref, keys, misses, kBound, threads, run);
        std::vector<double> k;
        for (const PairKey& key : keyOf)
        {
            k.push_back(m_k.at(key));
        }
        return k;
    }

  private:
    /**
     * Computes the k of \p misses and stores them under \p keys (see Ks()).
     * \param ref the reference timeline \param keys memo keys of the misses
     * \param misses the requests not in the memo \param kBound clamp of k
     * \param threads threads to use
     */
    void Compute(const TimelineJob& ref,
                 std::vector<PairKey>& keys,
                 const std::vector<const Request*>& misses,
                 double kBound,
                 uint32_t threads,
                 SharedLinkRun run)
    {
        const std::size_t n = misses.size();
        if (threads < 2 || n == 0)
        {
            for (std::size_t i = 0; i < n; ++i)
            {
                const Request& r = *misses[i];
                m_k.emplace(std::move(keys[i]),
                            ComputeCorrectionFactor(ref, *r.job, r.h, kBound, run).k);
            }
            return;
        }
        // Two tasks per miss, each one shared-link run (ref first, job first): also a decision
        // with a single miss (a new job, the common case) uses two threads.
        const std::size_t tasks = 2 * n;
        std::vector<TimelineResult> runs(tasks);
        const std::vector<std::exception_ptr> error =
            RunParallelTasks(tasks, threads, [&](std::size_t t) {
                const Request& r = *misses[t / 2];
                runs[t] = SimulateSharedLink({ref, *r.job}, static_cast<uint32_t>(t % 2), r.h, run);
            });
        for (std::size_t i = 0; i < n; ++i)
        {
            CheckCorrectionInputs(ref, *misses[i]->job);
            for (std::size_t t : {2 * i, 2 * i + 1})
            {
                if (error[t])
                {
                    std::rethrow_exception(error[t]); // the first a sequential run would throw
                }
            }
            const Request& r = *misses[i];
            const double k = CorrectionFactorOf(ref,
                                                *r.job,
                                                r.h,
                                                kBound,
                                                std::move(runs[2 * i]),
                                                std::move(runs[2 * i + 1]))
                                 .k;
            m_k.emplace(std::move(keys[i]), k);
        }
    }

    static constexpr std::size_t MEMO_MAX_BYTES = 256u << 20; //!< timeline bytes kept at most

    /// \return the memo key of the pair (decision's reference, \p job) with \p h and \p kBound
    PairKey Key(const TimelineJob& job, double h, double kBound, SharedLinkRun run)
    {
        return PairKey{m_refKey, Intern(job), Bits(h), Bits(kBound), static_cast<uint32_t>(run)};
    }

    /// \return the number standing for the timeline's content (a copy is stored when new)
    uint64_t Intern(const TimelineJob& t)
    {
        const auto found = m_ids.find(t);
        if (found != m_ids.end())
        {
            return found->second;
        }
        m_bytes += TimelineBytes(t);
        const uint64_t id = m_ids.size();
        m_ids.emplace(t, id);
        return id;
    }

    uint64_t m_refKey{0}; //!< Intern() of the decision's reference
    /// timeline content (bit for bit) -> id
    std::unordered_map<TimelineJob, uint64_t, TimelineHash, TimelineEqual> m_ids;
    std::unordered_map<PairKey, double, PairKeyHash> m_k; //!< (ref, job, h, kBound, run) -> k
    std::size_t m_bytes{0};                               //!< bytes of the interned timelines
};

} // namespace

namespace
{

/// CorrectionHorizon() from the two stand-alone iteration times (IterationTime()), seconds
double
HorizonOf(double tRef, double tJob, double horizonIterations)
{
    const double h = horizonIterations * std::max(tRef, tJob);
    return std::min(h, MAX_HORIZON_ITERATIONS * std::min(tRef, tJob));
}

} // namespace

double
CorrectionHorizon(const TimelineJob& ref, const TimelineJob& job, double horizonIterations)
{
    return HorizonOf(IterationTime(ref), IterationTime(job), horizonIterations);
}

CorrectionFactor
ComputeCorrectionFactor(const TimelineJob& ref,
                        const TimelineJob& job,
                        double horizon,
                        double kBound,
                        SharedLinkRun run)
{
    CheckCorrectionInputs(ref, job);
    return CorrectionFactorOf(ref,
                              job,
                              horizon,
                              kBound,
                              SimulateSharedLink({ref, job}, 0, horizon, run),
                              SimulateSharedLink({ref, job}, 1, horizon, run));
}

namespace
{

CorrectionFactor
CorrectionFactorOf(const TimelineJob& ref,
                   const TimelineJob& job,
                   double horizon,
                   double kBound,
                   TimelineResult refFirst,
                   TimelineResult jobFirst)
{
    CorrectionFactor cf;
    cf.horizon = horizon;
    cf.refFirst = std::move(refFirst);
    cf.jobFirst = std::move(jobFirst);
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

} // namespace

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

NS_OBJECT_ENSURE_REGISTERED(CruxPriorityAssignment);

TypeId
CruxPriorityAssignment::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CruxPriorityAssignment").SetParent<Object>().SetGroupName("Crux");
    return tid;
}

CruxPriorityAssignment::~CruxPriorityAssignment() = default;

NS_OBJECT_ENSURE_REGISTERED(CruxIntensityPriorities);

TypeId
CruxIntensityPriorities::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CruxIntensityPriorities")
            .SetParent<CruxPriorityAssignment>()
            .SetGroupName("Crux")
            .AddConstructor<CruxIntensityPriorities>()
            .AddAttribute("HorizonIterations",
                          "Horizon of the two-timeline comparison of Crux §4.2 as a multiple of "
                          "the longer stand-alone iteration time of the two jobs (> 0). 48: "
                          "measured on 2,000 random job pairs ([D3] in crux-scheduler.h).",
                          DoubleValue(48),
                          MakeDoubleAccessor(&CruxIntensityPriorities::m_horizonIterations),
                          MakeDoubleChecker<double>(std::numeric_limits<double>::min()))
            .AddAttribute("KBound",
                          "Bound of the correction factor of Crux §4.2: k_j is clamped to "
                          "[1/KBound, KBound] (>= 1; assumption [D5] in crux-scheduler.h).",
                          DoubleValue(100),
                          MakeDoubleAccessor(&CruxIntensityPriorities::m_kBound),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("Threads",
                          "Threads on which the k_j of one decision that are not in the memo "
                          "are computed, each k_j's two shared-link runs as two tasks (1 = in "
                          "the caller's thread). Every result is the same for any value: the "
                          "two-timeline comparison is a pure function.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&CruxIntensityPriorities::m_threads),
                          MakeUintegerChecker<uint32_t>(1, 256))
            .AddAttribute("SharedLinkRun",
                          "How the two shared-link runs of a k_j cover the horizon: SkipPeriods "
                          "(event by event until the run repeats, then whole periods added; the "
                          "default) or Full (every event, for cross-checks; equal up to rounding).",
                          EnumValue(static_cast<int>(SharedLinkRun::SKIP_PERIODS)),
                          MakeEnumAccessor(&CruxIntensityPriorities::m_sharedLinkRun),
                          MakeEnumChecker(static_cast<int>(SharedLinkRun::SKIP_PERIODS),
                                          "SkipPeriods",
                                          static_cast<int>(SharedLinkRun::FULL),
                                          "Full"));
    return tid;
}

void
CruxIntensityPriorities::AssignPriorities(const ClusterModel& model,
                                          const SchedulerConfig& /* config */,
                                          Decision& decision) const
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
    NS_LOG_DEBUG("reference job " << refId << " (highest bytes per second alone), t_ref " << refComm
                                  << " s");

    const double refIteration = IterationTime(refTimeline); // once, not once per job
    static thread_local CorrectionMemo memo;
    memo.BeginDecision(refTimeline);
    // The pairs of this decision (every job but the reference, if both communicate).
    std::vector<TimelineJob> timelines(model.jobs.size());
    std::vector<CorrectionMemo::Request> requests;
    std::vector<int64_t> requestOf(model.jobs.size(), -1);
    for (std::size_t i = 0; i < model.jobs.size(); ++i)
    {
        const SchedJob& job = model.jobs[i];
        const JobDecision& jd = decision.jobs.at(job.id);
        if (job.id != refId && refComm > 0 && jd.commTime > 0)
        {
            timelines[i] = ToTimelineJob(job, jd.commTime);
            requestOf[i] = static_cast<int64_t>(requests.size());
            requests.push_back(CorrectionMemo::Request{
                &timelines[i],
                HorizonOf(refIteration, IterationTime(timelines[i]), m_horizonIterations)});
        }
    }
    const std::vector<double> ks = memo.Ks(refTimeline,
                                           requests,
                                           m_kBound,
                                           m_threads,
                                           static_cast<SharedLinkRun>(m_sharedLinkRun));
    for (std::size_t i = 0; i < model.jobs.size(); ++i)
    {
        JobDecision& jd = decision.jobs.at(model.jobs[i].id);
        jd.k = 1;
        if (requestOf[i] >= 0)
        {
            jd.k = ks[static_cast<std::size_t>(requestOf[i])];
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
        JobDecision& jd = decision.jobs.at(ids[r]);
        jd.rank = r;
        NS_LOG_DEBUG("job " << ids[r] << ": rank " << r << ", P = k " << jd.k << " x I "
                            << jd.intensity << " FLOP/s = " << jd.priorityScore);
    }
}

} // namespace ns3
