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

#include "optimal-scheduler.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/union-find.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxOptimalScheduler");

namespace
{

/// A later candidate must beat the best by more than this relative margin.
constexpr double TIE_TOLERANCE = 1e-9;
/// Largest assignment list EnumerateLevelAssignments builds.
constexpr double MAX_ENUMERATED_ASSIGNMENTS = 1e7;

/// \return true if v beats best beyond the tie tolerance
bool
Better(double v, double best)
{
    return v > best + TIE_TOLERANCE * std::abs(best);
}

/// Recursive helper of EnumerateLevelAssignments.
void
Enumerate(uint32_t i,
          uint32_t n,
          uint32_t base,
          std::vector<uint32_t>& cur,
          uint32_t usedMask,
          std::vector<std::vector<uint32_t>>& out)
{
    // Blocks below the highest used one that are still empty must be fillable by the rest.
    const uint32_t highest =
        usedMask == 0 ? 0 : 32 - static_cast<uint32_t>(__builtin_clz(usedMask));
    const uint32_t missing =
        highest - static_cast<uint32_t>(__builtin_popcount(usedMask)); // empty blocks below top
    if (missing > n - i)
    {
        return;
    }
    if (i == n)
    {
        out.push_back(cur);
        return;
    }
    for (uint32_t b = 0; b < base; ++b)
    {
        cur[i] = b;
        Enumerate(i + 1, n, base, cur, usedMask | (1u << b), out);
    }
}

/// \return "x" rendered compactly (%g style)
std::string
Num(double x)
{
    std::ostringstream os;
    os << x;
    return os.str();
}

/// \return a count rendered in full (up to 15 significant digits)
std::string
Count(double x)
{
    std::ostringstream os;
    os << std::setprecision(15) << x;
    return os.str();
}

} // namespace

double
CountPathChoices(const ClusterModel& model)
{
    double n = 1;
    for (const SchedJob& job : model.jobs)
    {
        for (const SchedFlow& flow : job.flows)
        {
            n *= static_cast<double>(flow.candidatePaths.size());
        }
    }
    return n;
}

double
ObjectiveValue(const FlowEvaluation& evaluation, OptimalObjective objective)
{
    return objective == OptimalObjective::STEADY_FLOPS_RATE ? evaluation.flopsRate
                                                            : evaluation.completedFlops;
}

double
CountLevelAssignments(uint32_t n, uint32_t k)
{
    if (n == 0 || k == 0)
    {
        return n == 0 ? 1 : 0;
    }
    // S(n, b) by the usual recurrence, in doubles.
    const uint32_t bMax = std::min(n, k);
    std::vector<double> s(bMax + 1, 0.0); // S(i, b) for the current i
    s[0] = 1;
    for (uint32_t i = 1; i <= n; ++i)
    {
        for (uint32_t b = std::min(i, bMax); b >= 1; --b)
        {
            s[b] = b * s[b] + s[b - 1];
        }
        s[0] = 0;
    }
    double total = 0;
    double fact = 1;
    for (uint32_t b = 1; b <= bMax; ++b)
    {
        fact *= b;
        total += fact * s[b];
    }
    return total;
}

std::vector<std::vector<uint32_t>>
EnumerateLevelAssignments(uint32_t n, uint32_t k)
{
    if (k == 0)
    {
        throw std::invalid_argument("EnumerateLevelAssignments: k (levels) must be >= 1");
    }
    const double count = CountLevelAssignments(n, k);
    if (count > MAX_ENUMERATED_ASSIGNMENTS || n > 31)
    {
        throw std::invalid_argument("EnumerateLevelAssignments: " + Num(count) +
                                    " assignments of " + std::to_string(n) + " jobs onto " +
                                    std::to_string(k) + " levels exceed the limit of 1e7");
    }
    std::vector<std::vector<uint32_t>> out;
    out.reserve(static_cast<std::size_t>(count));
    std::vector<uint32_t> cur(n, 0);
    Enumerate(0, n, std::min(n, k), cur, 0, out);
    return out;
}

/// Memo table of one component: value per restricted ordered partition.
struct ComponentTable
{
    std::vector<uint32_t> jobs;                     //!< model job indices, ascending
    std::unordered_map<std::string, double> values; //!< dense ranks -> objective value
    bool complete{false};                           //!< every restricted partition evaluated
    double best{0};                                 //!< best value (when complete)
    std::vector<uint32_t> bestBlocks;               //!< best restricted partition (dense blocks)
};

/// Analysis of one path choice: its components.
struct PathAnalysis
{
    std::vector<ComponentTable*> components; //!< memo tables of the components
};

struct OptimalSearch::Impl
{
    ClusterModel model;                               //!< the model
    uint32_t numLevels{1};                            //!< K
    OptimalSearchOptions options;                     //!< knobs
    FlowEvaluator evaluator;                          //!< the simulator
    std::vector<std::pair<uint32_t, uint32_t>> flows; //!< global flow -> (job, flow)
    std::vector<std::vector<uint32_t>> globalFlow;    //!< [job][flow] -> global flow
    std::vector<uint32_t> radix;                      //!< candidates per global flow
    std::vector<uint32_t> defaults;                   //!< default candidate per global flow
    uint64_t numPaths{1};                             //!< Π radix
    std::vector<std::vector<uint32_t>> assignments;   //!< all level assignments
    std::unordered_map<std::string, std::unique_ptr<ComponentTable>> memo; //!< by key
    std::unordered_map<uint64_t, PathAnalysis> analyses;                   //!< by natural path code
    std::map<uint32_t, std::vector<std::vector<uint32_t>>> restricted;     //!< size -> partitions
    uint64_t simulations{0};                   //!< component simulations run
    std::vector<std::vector<uint32_t>> onLink; //!< scratch: flows per link

    Impl(const ClusterModel& m, uint32_t k, const OptimalSearchOptions& o)
        : model(m),
          numLevels(k),
          options(o),
          evaluator(m, o.evaluator)
    {
    }

    /// \return the natural mixed-radix code of a path choice (validates it)
    uint64_t Code(const std::vector<PathChoice>& paths) const
    {
        if (paths.size() != model.jobs.size())
        {
            throw std::invalid_argument("OptimalSearch: need one path choice per job (" +
                                        std::to_string(model.jobs.size()) + ")");
        }
        uint64_t code = 0;
        uint64_t stride = 1;
        for (std::size_t j = 0; j < model.jobs.size(); ++j)
        {
            if (paths[j].size() != model.jobs[j].flows.size())
            {
                throw std::invalid_argument("OptimalSearch: job id " +
                                            std::to_string(model.jobs[j].id) +
                                            ": path choice has the wrong number of flows");
            }
            for (std::size_t f = 0; f < paths[j].size(); ++f)
            {
                const uint32_t g = globalFlow[j][f];
                if (paths[j][f] >= radix[g])
                {
                    throw std::invalid_argument("OptimalSearch: job id " +
                                                std::to_string(model.jobs[j].id) + " flow " +
                                                std::to_string(f) + ": path index out of range");
                }
                code += paths[j][f] * stride;
                stride *= radix[g];
            }
        }
        return code;
    }

    /// [O1] + [O2]: reduced constraints, components and their memo tables.
    const PathAnalysis& Analyze(const std::vector<PathChoice>& paths)
    {
        const uint64_t code = Code(paths);
        auto found = analyses.find(code);
        if (found != analyses.end())
        {
            return found->second;
        }
        // Flows on each link.
        std::vector<uint32_t> touched;
        for (std::size_t g = 0; g < flows.size(); ++g)
        {
            const auto [j, f] = flows[g];
            const SchedFlow& flow = model.jobs[j].flows[f];
            if (flow.bytesPerIteration <= 0)
            {
                continue;
            }
            for (uint32_t l : flow.candidatePaths[paths[j][f]])
            {
                if (onLink[l].empty())
                {
                    touched.push_back(l);
                }
                if (onLink[l].empty() || onLink[l].back() != g)
                {
                    onLink[l].push_back(static_cast<uint32_t>(g));
                }
            }
        }

        struct Constraint
        {
            double cap;
            std::vector<uint32_t> set;
        };

        std::vector<Constraint> all;
        all.reserve(touched.size());
        for (uint32_t l : touched)
        {
            all.push_back({model.links[l].bandwidth, onLink[l]});
            onLink[l].clear();
        }
        std::sort(all.begin(), all.end(), [](const Constraint& a, const Constraint& b) {
            if (a.set.size() != b.set.size())
            {
                return a.set.size() > b.set.size();
            }
            if (a.cap != b.cap)
            {
                return a.cap < b.cap;
            }
            return a.set < b.set;
        });
        std::vector<Constraint> kept;
        for (Constraint& c : all)
        {
            bool dominated = false;
            for (const Constraint& d : kept)
            {
                if (d.cap <= c.cap &&
                    std::includes(d.set.begin(), d.set.end(), c.set.begin(), c.set.end()))
                {
                    dominated = true;
                    break;
                }
            }
            if (!dominated)
            {
                kept.push_back(std::move(c));
            }
        }
        std::sort(kept.begin(), kept.end(), [](const Constraint& a, const Constraint& b) {
            return a.set != b.set ? a.set < b.set : a.cap < b.cap;
        });

        // Components of the job contention graph.
        const std::size_t n = model.jobs.size();
        UnionFind uf(static_cast<uint32_t>(n));
        for (const Constraint& c : kept)
        {
            for (uint32_t g : c.set)
            {
                uf.Join(flows[g].first, flows[c.set.front()].first);
            }
        }
        std::map<uint32_t, std::vector<uint32_t>> groups; // root -> jobs (ascending)
        for (uint32_t j = 0; j < n; ++j)
        {
            groups[uf.Find(j)].push_back(j);
        }
        PathAnalysis analysis;
        for (auto& [root, jobs] : groups)
        {
            std::string key;
            auto put = [&key](const void* p, std::size_t size) {
                key.append(static_cast<const char*>(p), size);
            };
            const uint32_t m = static_cast<uint32_t>(jobs.size());
            put(&m, sizeof m);
            for (uint32_t j : jobs)
            {
                put(&j, sizeof j);
            }
            for (const Constraint& c : kept)
            {
                if (uf.Find(flows[c.set.front()].first) != root)
                {
                    continue;
                }
                const uint32_t size = static_cast<uint32_t>(c.set.size());
                put(&c.cap, sizeof c.cap);
                put(&size, sizeof size);
                put(c.set.data(), c.set.size() * sizeof(uint32_t));
            }
            auto& slot = memo[key];
            if (!slot)
            {
                slot = std::make_unique<ComponentTable>();
                slot->jobs = jobs;
            }
            analysis.components.push_back(slot.get());
        }
        return analyses.emplace(code, std::move(analysis)).first->second;
    }

    /// \return the dense ranks of the component's jobs' blocks (0 = highest), as a byte key
    std::string RestrictedKey(const ComponentTable& t,
                              const std::vector<uint32_t>& blocks,
                              std::vector<uint32_t>* dense) const
    {
        const uint32_t m = static_cast<uint32_t>(t.jobs.size());
        std::vector<uint32_t> values;
        values.reserve(m);
        for (uint32_t j : t.jobs)
        {
            values.push_back(blocks[j]);
        }
        std::vector<uint32_t> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
        dense->assign(m, 0);
        std::string key(m * sizeof(uint32_t), '\0');
        for (uint32_t i = 0; i < m; ++i)
        {
            const auto r = static_cast<uint32_t>(
                std::lower_bound(sorted.begin(), sorted.end(), values[i]) - sorted.begin());
            (*dense)[i] = r;
            std::memcpy(&key[i * sizeof(uint32_t)], &r, sizeof r);
        }
        return key;
    }

    /// \return the component's value for the given (global) blocks, simulating if needed
    double ComponentValue(ComponentTable& t,
                          const std::vector<PathChoice>& paths,
                          const std::vector<uint32_t>& blocks)
    {
        std::vector<uint32_t> dense;
        const std::string code = RestrictedKey(t, blocks, &dense);
        auto it = t.values.find(code);
        if (it != t.values.end())
        {
            return it->second;
        }
        EvaluationInput in;
        in.paths = paths;
        in.priority.assign(model.jobs.size(), 0);
        in.include.assign(model.jobs.size(), false);
        for (std::size_t i = 0; i < t.jobs.size(); ++i)
        {
            in.include[t.jobs[i]] = true;
            in.priority[t.jobs[i]] = -static_cast<int64_t>(dense[i]);
        }
        const double v = ObjectiveValue(evaluator.Evaluate(in), options.objective);
        ++simulations;
        t.values.emplace(code, v);
        return v;
    }

    /// Evaluates every restricted partition of a component (once) and records the best.
    void Complete(ComponentTable& t, const std::vector<PathChoice>& paths)
    {
        if (t.complete)
        {
            return;
        }
        const uint32_t m = static_cast<uint32_t>(t.jobs.size());
        auto& parts = restricted[m];
        if (parts.empty())
        {
            parts = EnumerateLevelAssignments(m, numLevels);
        }
        std::vector<uint32_t> blocks(model.jobs.size(), 0);
        bool first = true;
        for (const auto& part : parts)
        {
            for (uint32_t i = 0; i < m; ++i)
            {
                blocks[t.jobs[i]] = part[i];
            }
            const double v = ComponentValue(t, paths, blocks);
            if (first || Better(v, t.best))
            {
                first = false;
                t.best = v;
                t.bestBlocks = part;
            }
        }
        t.complete = true;
    }
};

void
CheckOptimalSearchSize(const ClusterModel& model, uint32_t numLevels, double maxSearchSize)
{
    const double paths = CountPathChoices(model);
    const double assignments =
        CountLevelAssignments(static_cast<uint32_t>(model.jobs.size()), numLevels);
    const double size = paths * assignments;
    if (size > maxSearchSize || paths > 4e18)
    {
        throw std::invalid_argument(
            "optimal scheduler: search space too large: " + Count(paths) + " path choices x " +
            Count(assignments) + " level assignments (" + std::to_string(model.jobs.size()) +
            " jobs, " + std::to_string(numLevels) + " levels) = " + Num(size) +
            " exceeds the limit of " + Num(maxSearchSize) +
            " (OptimalSearchOptions.maxSearchSize; attribute "
            "ns3::OptimalScheduler::MaxSearchSize)");
    }
}

OptimalSearch::OptimalSearch(const ClusterModel& model,
                             uint32_t numLevels,
                             const OptimalSearchOptions& options)
{
    SchedulerConfig config;
    config.numLevels = numLevels;
    Validate(model, config);
    if (!(options.maxSearchSize > 0))
    {
        throw std::invalid_argument("OptimalSearchOptions.maxSearchSize must be > 0 (got " +
                                    Num(options.maxSearchSize) + ")");
    }
    if (options.evaluator.priority != EvaluationPriority::LEVEL)
    {
        throw std::invalid_argument("OptimalSearchOptions.evaluator.priority must be LEVEL (the "
                                    "search assigns levels)");
    }
    CheckOptimalSearchSize(model, numLevels, options.maxSearchSize);
    m_impl = std::make_unique<Impl>(model, numLevels, options);
    Impl& s = *m_impl;
    s.globalFlow.resize(model.jobs.size());
    for (uint32_t j = 0; j < model.jobs.size(); ++j)
    {
        for (uint32_t f = 0; f < model.jobs[j].flows.size(); ++f)
        {
            s.globalFlow[j].push_back(static_cast<uint32_t>(s.flows.size()));
            s.flows.emplace_back(j, f);
            s.radix.push_back(static_cast<uint32_t>(model.jobs[j].flows[f].candidatePaths.size()));
            s.defaults.push_back(model.jobs[j].flows[f].defaultPath);
            s.numPaths *= s.radix.back();
        }
    }
    s.assignments = EnumerateLevelAssignments(static_cast<uint32_t>(model.jobs.size()), numLevels);
    s.onLink.resize(model.links.size());
}

OptimalSearch::~OptimalSearch() = default;

uint64_t
OptimalSearch::NumPathChoices() const
{
    return m_impl->numPaths;
}

const std::vector<std::vector<uint32_t>>&
OptimalSearch::LevelAssignments() const
{
    return m_impl->assignments;
}

const FlowEvaluator&
OptimalSearch::Evaluator() const
{
    return m_impl->evaluator;
}

std::vector<PathChoice>
OptimalSearch::PathChoiceAt(uint64_t index) const
{
    const Impl& s = *m_impl;
    if (index >= s.numPaths)
    {
        throw std::out_of_range("OptimalSearch::PathChoiceAt: index " + std::to_string(index) +
                                " >= " + std::to_string(s.numPaths));
    }
    std::vector<PathChoice> paths(s.model.jobs.size());
    for (std::size_t g = 0; g < s.flows.size(); ++g)
    {
        const uint32_t digit = static_cast<uint32_t>(index % s.radix[g]);
        index /= s.radix[g];
        paths[s.flows[g].first].push_back((s.defaults[g] + digit) % s.radix[g]);
    }
    return paths;
}

double
OptimalSearch::Value(const std::vector<PathChoice>& paths, const std::vector<uint32_t>& blocks)
{
    Impl& s = *m_impl;
    if (blocks.size() != s.model.jobs.size())
    {
        throw std::invalid_argument("OptimalSearch::Value: need one block per job (" +
                                    std::to_string(s.model.jobs.size()) + ")");
    }
    const PathAnalysis& a = s.Analyze(paths);
    double v = 0;
    for (ComponentTable* t : a.components)
    {
        v += s.ComponentValue(*t, paths, blocks);
    }
    return v;
}

OptimalSearch::Solution
OptimalSearch::BestForPaths(const std::vector<PathChoice>& paths)
{
    Impl& s = *m_impl;
    const PathAnalysis& a = s.Analyze(paths);
    Solution sol;
    sol.paths = paths;
    sol.blocks.assign(s.model.jobs.size(), 0);
    for (ComponentTable* t : a.components)
    {
        s.Complete(*t, paths);
        sol.value += t->best;
        for (std::size_t i = 0; i < t->jobs.size(); ++i)
        {
            sol.blocks[t->jobs[i]] = t->bestBlocks[i];
        }
    }
    return sol;
}

OptimalSearch::Solution
OptimalSearch::Solve()
{
    Solution best;
    for (uint64_t i = 0; i < m_impl->numPaths; ++i)
    {
        Solution sol = BestForPaths(PathChoiceAt(i));
        if (i == 0 || Better(sol.value, best.value))
        {
            NS_LOG_DEBUG("path choice " << i << " of " << m_impl->numPaths << ": new best "
                                        << sol.value);
            best = std::move(sol);
        }
    }
    NS_LOG_INFO("optimum " << best.value << " after " << m_impl->simulations << " simulations over "
                           << m_impl->numPaths << " path choices");
    return best;
}

uint64_t
OptimalSearch::Simulations() const
{
    return m_impl->simulations;
}

Decision
SolutionToDecision(const ClusterModel& model,
                   uint32_t numLevels,
                   const OptimalSearch::Solution& solution,
                   const std::string& name)
{
    Decision d;
    d.scheduler = name;
    d.numLevels = numLevels;
    std::vector<uint32_t> order(model.jobs.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (solution.blocks[a] != solution.blocks[b])
        {
            return solution.blocks[a] < solution.blocks[b];
        }
        return model.jobs[a].id < model.jobs[b].id;
    });
    for (uint32_t r = 0; r < order.size(); ++r)
    {
        const uint32_t j = order[r];
        const SchedJob& job = model.jobs[j];
        JobDecision& jd = d.jobs[job.id];
        jd.rank = r;
        jd.level = numLevels - 1 - solution.blocks[j];
        for (std::size_t f = 0; f < job.flows.size(); ++f)
        {
            jd.flowPath[job.flows[f].id] = solution.paths[j][f];
        }
    }
    UpdateIntensities(model, d);
    return d;
}

NS_OBJECT_ENSURE_REGISTERED(OptimalScheduler);

TypeId
OptimalScheduler::GetTypeId()
{
    const OptimalSearchOptions defaults;
    static TypeId tid =
        TypeId("ns3::OptimalScheduler")
            .SetParent<CommScheduler>()
            .SetGroupName("Crux")
            .AddConstructor<OptimalScheduler>()
            .AddAttribute("MaxSearchSize",
                          "Largest accepted nominal search space, path choices x level "
                          "assignments (> 0); larger cases are refused. 10^6: a cost bound "
                          "(assumption), far above the §4.4 cases (<= 256 x 181).",
                          DoubleValue(defaults.maxSearchSize),
                          MakeDoubleAccessor(&OptimalScheduler::m_maxSearchSize),
                          MakeDoubleChecker<double>(std::numeric_limits<double>::min()))
            .AddAttribute("Objective",
                          "What the search maximises: SteadyFlopsRate (sum of W_j x steady "
                          "iteration rate, FLOPs/s; GPU utilization per unit time) or "
                          "CompletedFlops (sum of W_j n_j over the horizon).",
                          EnumValue(static_cast<int>(defaults.objective)),
                          MakeEnumAccessor(&OptimalScheduler::m_objective),
                          MakeEnumChecker(static_cast<int>(OptimalObjective::STEADY_FLOPS_RATE),
                                          "SteadyFlopsRate",
                                          static_cast<int>(OptimalObjective::COMPLETED_FLOPS),
                                          "CompletedFlops"))
            .AddAttribute("HorizonIterations",
                          "Evaluation horizon of the flow-level evaluator, in longest "
                          "stand-alone iterations of the case (> 0). Default: the evaluator's "
                          "(FlowEvaluatorOptions, an assumption: many iterations of every job; "
                          "crux-microbenchmark uses 30).",
                          DoubleValue(defaults.evaluator.horizonIterations),
                          MakeDoubleAccessor(&OptimalScheduler::m_horizonIterations),
                          MakeDoubleChecker<double>(std::numeric_limits<double>::min()))
            .AddAttribute("WarmupFraction",
                          "Fraction [0, 1) of the horizon whose completed iterations the "
                          "steady-state rate ignores. Default: the evaluator's "
                          "(FlowEvaluatorOptions, an assumption: the start-up transient of "
                          "jobs that all start at t = 0).",
                          DoubleValue(defaults.evaluator.warmupFraction),
                          MakeDoubleAccessor(&OptimalScheduler::m_warmupFraction),
                          MakeDoubleChecker<double>(0, std::nextafter(1.0, 0.0)));
    return tid;
}

OptimalScheduler::OptimalScheduler()
{
    SetName("optimal");
}

OptimalSearchOptions
OptimalScheduler::GetOptions() const
{
    OptimalSearchOptions options;
    options.maxSearchSize = m_maxSearchSize;
    options.objective = static_cast<OptimalObjective>(m_objective);
    options.evaluator.horizonIterations = m_horizonIterations;
    options.evaluator.warmupFraction = m_warmupFraction;
    return options;
}

Decision
OptimalScheduler::DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    NS_LOG_FUNCTION(this << model.jobs.size() << config.numLevels);
    OptimalSearch search(model, config.numLevels, GetOptions());
    return SolutionToDecision(model, config.numLevels, search.Solve(), GetName());
}

} // namespace ns3
