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

#include "flow-evaluator.h"

#include "ns3/comm-scheduler.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

/// Residual capacity below this fraction of a link's capacity counts as zero.
constexpr double STARVED_FRACTION = 1e-9;
/// Iterations finishing within this relative tolerance of H still count.
constexpr double HORIZON_TOLERANCE = 1e-9;
/// A transfer whose projected end lies within this fraction of H after the next event ends at
/// that event: the projected end is a sum of floating-point steps, so a transfer that ends
/// exactly when another job's transfers start (a tie, common with round numbers) would
/// otherwise be left with a rounding remainder and be preempted by them for a whole period.
constexpr double TIE_FRACTION = 1e-12;
/// Up to this many constraints in a class, the water filling finds each bottleneck by a linear
/// scan; above it, by a binary heap with lazy deletion (measured: the heap costs ~20 % more on
/// the §4.4 microbenchmark's 5-job cases and saves ~3x on 2,000-GPU trace runs).
constexpr std::size_t LINEAR_SCAN_MAX = 64;

/// State of one transfer (one flow of one included job).
struct FlowState
{
    uint32_t job{0};                            //!< index into the job states
    const std::vector<uint32_t>* path{nullptr}; //!< chosen links
    uint32_t consBegin{0};                      //!< first constraint in the flat list
    uint32_t consEnd{0};                        //!< one past the last constraint
    double bits{0};                             //!< bits per iteration
    uint32_t cls{0};                            //!< class index, 0 = highest priority
    double remaining{0};                        //!< bits still to send
    double rate{0};                             //!< bit/s
    double finish{0};                           //!< projected end at the current rate
    bool active{false};                         //!< in transfer
};

/// State of one included job.
struct JobState
{
    uint32_t model{0};           //!< index into ClusterModel::jobs
    double compute{0};           //!< c_j
    double ready{0};             //!< ov_j c_j
    double iterStart{0};         //!< current iteration start
    double computeEnd{0};        //!< iterStart + c_j
    double readyAt{0};           //!< iterStart + ov_j c_j
    bool computeDone{false};     //!< computation of the iteration finished
    bool commStarted{false};     //!< transfers of the iteration started
    uint32_t left{0};            //!< transfers of the iteration still running
    std::vector<uint32_t> flows; //!< indices into the flow states
    uint64_t completed{0};       //!< iterations completed in [0, H]
    bool sawWarm{false};         //!< a completion at/after the warm-up was seen
    double firstWarm{0};         //!< t_a
    double lastWarm{0};          //!< t_b
    uint64_t warmCount{0};       //!< completions in (t_a, t_b]
};

/// \return the decimal rendering of x
std::string
Num(double x)
{
    return std::to_string(x);
}

} // namespace

FlowEvaluator::FlowEvaluator(const ClusterModel& model, const FlowEvaluatorOptions& options)
    : m_model(model),
      m_options(options)
{
    SchedulerConfig config;
    config.numLevels = 1;
    Validate(m_model, config);
    if (!(std::isfinite(options.horizon) && options.horizon >= 0))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.horizon must be >= 0 s (got " +
                                    Num(options.horizon) + ")");
    }
    if (!(std::isfinite(options.horizonIterations) && options.horizonIterations > 0))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.horizonIterations must be > 0 (got " +
                                    Num(options.horizonIterations) + ")");
    }
    if (!(options.warmupFraction >= 0 && options.warmupFraction < 1))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.warmupFraction must be in [0, 1) (got " +
                                    Num(options.warmupFraction) + ")");
    }
    for (const SchedLink& link : m_model.links)
    {
        m_capacity.push_back(link.bandwidth);
    }
    double longest = 0;
    for (const SchedJob& job : m_model.jobs)
    {
        std::vector<FlatFlow> flows;
        bool traffic = false;
        for (const SchedFlow& flow : job.flows)
        {
            FlatFlow f;
            f.bits = flow.bytesPerIteration * 8.0;
            f.candidates = flow.candidatePaths;
            for (const auto& p : flow.candidatePaths)
            {
                traffic = traffic || (f.bits > 0 && !p.empty());
            }
            flows.push_back(std::move(f));
        }
        if (job.computeTime == 0 && !traffic)
        {
            throw std::invalid_argument(
                "FlowEvaluator: job id " + std::to_string(job.id) +
                " has computeTime 0 and no traffic on any link (zero-length iterations)");
        }
        m_flows.push_back(std::move(flows));
        longest = std::max(
            longest,
            StandaloneIterationTime(job, JobCommTime(m_model, job, DefaultPathChoice(job))));
    }
    m_horizon = options.horizon > 0 ? options.horizon : options.horizonIterations * longest;
    if (!(m_horizon > 0))
    {
        throw std::invalid_argument(
            "FlowEvaluator: automatic horizon is 0 (every job has a zero "
            "stand-alone iteration time); set FlowEvaluatorOptions.horizon");
    }
}

const ClusterModel&
FlowEvaluator::Model() const
{
    return m_model;
}

const FlowEvaluatorOptions&
FlowEvaluator::Options() const
{
    return m_options;
}

double
FlowEvaluator::Horizon() const
{
    return m_horizon;
}

FlowEvaluation
FlowEvaluator::Evaluate(const Decision& decision) const
{
    EvaluationInput in;
    for (const SchedJob& job : m_model.jobs)
    {
        auto it = decision.jobs.find(job.id);
        if (it == decision.jobs.end())
        {
            throw std::out_of_range("FlowEvaluator::Evaluate: the decision has no job id " +
                                    std::to_string(job.id));
        }
        const JobDecision& jd = it->second;
        in.paths.push_back(ChoiceOf(job, jd));
        in.priority.push_back(m_options.priority == EvaluationPriority::LEVEL
                                  ? static_cast<int64_t>(jd.level)
                                  : -static_cast<int64_t>(jd.rank));
        in.timeShift.push_back(jd.timeShift);
    }
    return Evaluate(in);
}

FlowEvaluation
FlowEvaluator::Evaluate(const EvaluationInput& input) const
{
    const std::size_t nJobs = m_model.jobs.size();
    if (input.paths.size() != nJobs || input.priority.size() != nJobs ||
        (!input.timeShift.empty() && input.timeShift.size() != nJobs) ||
        (!input.include.empty() && input.include.size() != nJobs))
    {
        throw std::invalid_argument("FlowEvaluator::Evaluate: EvaluationInput vectors must have "
                                    "one entry per job (" +
                                    std::to_string(nJobs) + ")");
    }

    // Distinct classes of the included jobs, highest first.
    std::vector<int64_t> classes;
    for (std::size_t j = 0; j < nJobs; ++j)
    {
        if (input.include.empty() || input.include[j])
        {
            classes.push_back(input.priority[j]);
        }
    }
    std::sort(classes.begin(), classes.end(), std::greater<>());
    classes.erase(std::unique(classes.begin(), classes.end()), classes.end());

    std::vector<JobState> js;
    std::vector<FlowState> fs;
    std::vector<bool> usedLink(m_capacity.size(), false);
    std::vector<uint32_t> links; // links on some chosen path
    for (std::size_t j = 0; j < nJobs; ++j)
    {
        if (!(input.include.empty() || input.include[j]))
        {
            continue;
        }
        const SchedJob& job = m_model.jobs[j];
        const PathChoice& choice = input.paths[j];
        if (choice.size() != job.flows.size())
        {
            throw std::invalid_argument(
                "FlowEvaluator::Evaluate: job id " + std::to_string(job.id) + " has " +
                std::to_string(job.flows.size()) + " flows but the path choice has " +
                std::to_string(choice.size()) + " entries");
        }
        const double shift = input.timeShift.empty() ? 0.0 : input.timeShift[j];
        if (!(std::isfinite(shift) && shift >= 0))
        {
            throw std::invalid_argument("FlowEvaluator::Evaluate: job id " +
                                        std::to_string(job.id) + " has a time shift of " +
                                        Num(shift) + " s (must be finite, >= 0)");
        }
        JobState s;
        s.model = static_cast<uint32_t>(j);
        s.compute = job.computeTime;
        s.ready = job.overlapStart * job.computeTime;
        s.iterStart = shift;
        s.computeEnd = shift + s.compute;
        s.readyAt = shift + s.ready;
        const uint32_t cls = static_cast<uint32_t>(
            std::find(classes.begin(), classes.end(), input.priority[j]) - classes.begin());
        for (std::size_t f = 0; f < job.flows.size(); ++f)
        {
            const FlatFlow& flat = m_flows[j][f];
            if (choice[f] >= flat.candidates.size())
            {
                throw std::invalid_argument("FlowEvaluator::Evaluate: job id " +
                                            std::to_string(job.id) + " flow id " +
                                            std::to_string(job.flows[f].id) + ": path index " +
                                            std::to_string(choice[f]) + " out of range");
            }
            const std::vector<uint32_t>& path = flat.candidates[choice[f]];
            if (flat.bits <= 0 || path.empty())
            {
                continue; // finishes the moment it starts
            }
            FlowState st;
            st.job = static_cast<uint32_t>(js.size());
            st.path = &path;
            st.bits = flat.bits;
            st.cls = cls;
            s.flows.push_back(static_cast<uint32_t>(fs.size()));
            fs.push_back(st);
            for (uint32_t l : path)
            {
                if (!usedLink[l])
                {
                    usedLink[l] = true;
                    links.push_back(l);
                }
            }
        }
        js.push_back(std::move(s));
    }

    // Link constraints (capacity, flows crossing the link), reduced to the non-dominated ones:
    // a link whose flow set is a subset of another link's with at least that capacity can
    // never be the strict bottleneck (for any active subset and any higher-class load its
    // residual share is at least the other link's), so progressive filling gives the same
    // rates without it (up to the 1e-9 starvation threshold); duplicates are kept once.
    struct Constraint
    {
        double cap;                  //!< bit/s
        std::vector<uint32_t> flows; //!< flow-state indices, ascending
    };

    std::vector<Constraint> all;
    {
        std::vector<std::vector<uint32_t>> onLink(m_capacity.size());
        for (uint32_t f = 0; f < fs.size(); ++f)
        {
            for (uint32_t l : *fs[f].path)
            {
                if (onLink[l].empty() || onLink[l].back() != f)
                {
                    onLink[l].push_back(f);
                }
            }
        }
        for (uint32_t l : links)
        {
            all.push_back({m_capacity[l], std::move(onLink[l])});
        }
    }
    std::sort(all.begin(), all.end(), [](const Constraint& a, const Constraint& b) {
        if (a.flows.size() != b.flows.size())
        {
            return a.flows.size() > b.flows.size();
        }
        return a.cap != b.cap ? a.cap < b.cap : a.flows < b.flows;
    });
    std::vector<Constraint> cons;
    for (Constraint& k : all)
    {
        bool dominated = false;
        for (const Constraint& d : cons)
        {
            if (d.cap <= k.cap &&
                std::includes(d.flows.begin(), d.flows.end(), k.flows.begin(), k.flows.end()))
            {
                dominated = true;
                break;
            }
        }
        if (!dominated)
        {
            cons.push_back(std::move(k));
        }
    }
    std::vector<uint32_t> consOfFlow; // flat: constraints of flow 0, of flow 1, ...
    {
        std::vector<std::vector<uint32_t>> per(fs.size());
        for (uint32_t k = 0; k < cons.size(); ++k)
        {
            for (uint32_t f : cons[k].flows)
            {
                per[f].push_back(k);
            }
        }
        for (uint32_t f = 0; f < fs.size(); ++f)
        {
            fs[f].consBegin = static_cast<uint32_t>(consOfFlow.size());
            consOfFlow.insert(consOfFlow.end(), per[f].begin(), per[f].end());
            fs[f].consEnd = static_cast<uint32_t>(consOfFlow.size());
        }
    }
    const std::size_t nCons = cons.size();
    std::vector<double> capacity(nCons);
    std::vector<double> threshold(nCons);
    for (std::size_t k = 0; k < nCons; ++k)
    {
        capacity[k] = cons[k].cap;
        threshold[k] = STARVED_FRACTION * cons[k].cap;
    }

    FlowEvaluation result;
    result.horizon = m_horizon;
    const double end = m_horizon * (1 + HORIZON_TOLERANCE);
    const double warm = m_options.warmupFraction * m_horizon;
    const double tieSlack = TIE_FRACTION * m_horizon;

    // Scratch of the water filling (indexed by constraint or flow state).
    std::vector<double> residual(nCons, 0.0);
    std::vector<uint32_t> count(nCons, 0);
    std::vector<uint32_t> version(nCons, 0); // bumped whenever residual or count changes
    std::vector<uint32_t> touchedMark(nCons, 0);
    std::vector<uint32_t> classCons;
    std::vector<uint32_t> touched;
    std::vector<uint32_t> pendingMark(fs.size(), 0); // == stamp: unfixed flow of this class
    uint32_t stamp = 0;
    std::vector<std::vector<uint32_t>> byClass(classes.size()); // active flows per class
    std::vector<uint32_t> active;
    active.reserve(fs.size());

    // Candidate bottlenecks: (fair share residual / count, constraint, version). The smallest
    // share is the next bottleneck; an entry whose version is out of date is skipped (lazy
    // deletion), ties go to the lower constraint index (deterministic).
    struct Candidate
    {
        double share;
        uint32_t k;
        uint32_t version;

        bool operator>(const Candidate& o) const
        {
            return share != o.share ? share > o.share : k > o.k;
        }
    };

    std::vector<Candidate> heap;
    auto push = [&](uint32_t k) {
        const double r = residual[k] < threshold[k] ? 0.0 : residual[k];
        heap.push_back({r / count[k], k, version[k]});
        std::push_heap(heap.begin(), heap.end(), std::greater<>());
    };

    // Progressive filling, one class after the other (strict priority): repeatedly take the
    // constraint with the smallest fair share among the class's unfixed flows, give that share
    // to its unfixed flows and take it off the residual of every constraint they cross. Cost
    // O(F c log(F c)) per class for F flows crossing c constraints each, instead of a scan of
    // all constraints and flows per bottleneck.
    auto computeRates = [&]() {
        ++result.rateComputations;
        std::copy(capacity.begin(), capacity.end(), residual.begin());
        for (auto& bucket : byClass)
        {
            bucket.clear();
        }
        for (uint32_t f : active)
        {
            byClass[fs[f].cls].push_back(f);
        }
        for (auto& unfixed : byClass)
        {
            if (unfixed.empty())
            {
                continue;
            }
            if (++stamp == 0)
            {
                std::fill(pendingMark.begin(), pendingMark.end(), 0);
                std::fill(touchedMark.begin(), touchedMark.end(), 0);
                stamp = 1;
            }
            classCons.clear();
            for (uint32_t f : unfixed)
            {
                pendingMark[f] = stamp;
                for (uint32_t i = fs[f].consBegin; i < fs[f].consEnd; ++i)
                {
                    if (count[consOfFlow[i]]++ == 0)
                    {
                        classCons.push_back(consOfFlow[i]);
                    }
                }
            }
            // Few constraints: a linear scan for the bottleneck is cheaper than heap upkeep.
            // Both pick the smallest share, ties to the lower constraint index, so they give
            // bit-identical rates.
            const bool useHeap = classCons.size() > LINEAR_SCAN_MAX;
            heap.clear();
            if (useHeap)
            {
                for (uint32_t k : classCons)
                {
                    ++version[k];
                    push(k);
                }
            }
            std::size_t open = unfixed.size();
            while (open > 0)
            {
                Candidate top{0, UINT32_MAX, 0};
                if (useHeap)
                {
                    if (heap.empty())
                    {
                        break;
                    }
                    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
                    top = heap.back();
                    heap.pop_back();
                    if (top.version != version[top.k] || count[top.k] == 0)
                    {
                        continue;
                    }
                }
                else
                {
                    for (std::size_t i = 0; i < classCons.size();)
                    {
                        const uint32_t k = classCons[i];
                        if (count[k] == 0)
                        {
                            classCons[i] = classCons.back();
                            classCons.pop_back();
                            continue;
                        }
                        const double r = residual[k] < threshold[k] ? 0.0 : residual[k];
                        const Candidate c{r / count[k], k, 0};
                        if (top.k == UINT32_MAX || top > c)
                        {
                            top = c;
                        }
                        ++i;
                    }
                    if (top.k == UINT32_MAX)
                    {
                        break;
                    }
                }
                touched.clear();
                for (uint32_t f : cons[top.k].flows)
                {
                    if (pendingMark[f] != stamp)
                    {
                        continue;
                    }
                    pendingMark[f] = 0;
                    fs[f].rate = top.share;
                    for (uint32_t i = fs[f].consBegin; i < fs[f].consEnd; ++i)
                    {
                        const uint32_t k = consOfFlow[i];
                        residual[k] = std::max(0.0, residual[k] - top.share);
                        --count[k];
                        if (touchedMark[k] != stamp)
                        {
                            touchedMark[k] = stamp;
                            touched.push_back(k);
                        }
                    }
                    --open;
                }
                for (uint32_t k : touched)
                {
                    touchedMark[k] = 0;
                    ++version[k];
                    if (useHeap && count[k] > 0)
                    {
                        push(k);
                    }
                }
            }
        }
    };

    double now = 0;
    double lastUpdate = 0; // time the remaining bytes of the active transfers refer to
    bool changed = false;
    while (true)
    {
        // Settle every state change due at 'now'.
        for (JobState& s : js)
        {
            while (true)
            {
                if (!s.computeDone && now >= s.computeEnd)
                {
                    s.computeDone = true;
                }
                if (!s.commStarted && now >= s.readyAt)
                {
                    s.commStarted = true;
                    for (uint32_t f : s.flows)
                    {
                        fs[f].active = true;
                        fs[f].remaining = fs[f].bits;
                        fs[f].rate = 0;
                        active.push_back(f);
                        ++s.left;
                        changed = true;
                    }
                }
                if (s.computeDone && s.commStarted && s.left == 0)
                {
                    if (now <= end)
                    {
                        ++s.completed;
                        if (now >= warm)
                        {
                            if (!s.sawWarm)
                            {
                                s.sawWarm = true;
                                s.firstWarm = now;
                            }
                            else
                            {
                                ++s.warmCount;
                            }
                            s.lastWarm = now;
                        }
                    }
                    s.iterStart = now;
                    s.computeEnd = now + s.compute;
                    s.readyAt = now + s.ready;
                    s.computeDone = false;
                    s.commStarted = false;
                    continue;
                }
                break;
            }
        }
        if (now >= end)
        {
            break;
        }
        if (++result.events > m_options.maxEvents)
        {
            throw std::runtime_error("FlowEvaluator::Evaluate: more than " +
                                     std::to_string(m_options.maxEvents) +
                                     " events; horizon too long for the iteration times");
        }
        if (changed)
        {
            // Bring every transfer to 'now' at its old rate, then new rates and projected ends
            // (both stay valid until the next change of the active set).
            for (uint32_t f : active)
            {
                fs[f].remaining -= fs[f].rate * (now - lastUpdate);
            }
            lastUpdate = now;
            computeRates();
            for (uint32_t f : active)
            {
                FlowState& st = fs[f];
                st.finish = st.rate > 0 ? now + std::max(0.0, st.remaining) / st.rate
                                        : std::numeric_limits<double>::infinity();
            }
            changed = false;
        }

        double next = end;
        for (const JobState& s : js)
        {
            if (!s.computeDone)
            {
                next = std::min(next, s.computeEnd);
            }
            if (!s.commStarted)
            {
                next = std::min(next, s.readyAt);
            }
        }
        for (uint32_t f : active)
        {
            next = std::min(next, fs[f].finish);
        }
        for (std::size_t i = 0; i < active.size();)
        {
            FlowState& st = fs[active[i]];
            if (st.finish <= next + tieSlack)
            {
                st.remaining = 0;
                st.rate = 0;
                st.active = false;
                --js[st.job].left;
                active[i] = active.back();
                active.pop_back();
                changed = true;
                continue;
            }
            ++i;
        }
        now = next;
    }

    double gpus = 0;
    double busy = 0;
    double steadyBusy = 0;
    for (const JobState& s : js)
    {
        const SchedJob& job = m_model.jobs[s.model];
        JobEvaluation e;
        e.jobId = job.id;
        e.completedIterations = s.completed;
        e.completedFlops = job.flopsPerIteration * static_cast<double>(s.completed);
        e.gpuBusySeconds = job.numGpus * job.computeTime * static_cast<double>(s.completed);
        e.iterationRate = (s.warmCount > 0 && s.lastWarm > s.firstWarm)
                              ? static_cast<double>(s.warmCount) / (s.lastWarm - s.firstWarm)
                              : static_cast<double>(s.completed) / m_horizon;
        e.standaloneIterationTime =
            StandaloneIterationTime(job, JobCommTime(m_model, job, input.paths[s.model]));
        result.completedFlops += e.completedFlops;
        result.flopsRate += job.flopsPerIteration * e.iterationRate;
        gpus += job.numGpus;
        busy += e.gpuBusySeconds;
        steadyBusy += job.numGpus * job.computeTime * e.iterationRate;
        result.jobs.push_back(e);
    }
    result.gpuUtilization = gpus > 0 ? busy / (gpus * m_horizon) : 0;
    result.steadyGpuUtilization = gpus > 0 ? steadyBusy / gpus : 0;
    return result;
}

FlowEvaluation
EvaluateDecision(const ClusterModel& model,
                 const Decision& decision,
                 const FlowEvaluatorOptions& options)
{
    return FlowEvaluator(model, options).Evaluate(decision);
}

} // namespace ns3
