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

#include "stage-ablation.h"

#include "ns3/crux-scheduler.h"
#include "ns3/sincronia-scheduler.h"
#include "ns3/taccl-scheduler.h"
#include "ns3/varys-scheduler.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

namespace ns3
{

namespace
{

/// Largest job count RunStageAblation accepts (n! orders for the optimal unique order).
constexpr std::size_t MAX_JOBS = 8;
/// A later order must beat the best by more than this relative margin.
constexpr double TIE_TOLERANCE = 1e-9;

/// \return the per-job path choices recorded in a decision (model order)
std::vector<PathChoice>
PathsOf(const ClusterModel& model, const Decision& d)
{
    std::vector<PathChoice> paths;
    for (const SchedJob& job : model.jobs)
    {
        paths.push_back(ChoiceOf(job, d.jobs.at(job.id)));
    }
    return paths;
}

/// \return the per-job blocks (0 = highest) of a decision's levels (model order)
std::vector<uint32_t>
BlocksOf(const ClusterModel& model, const Decision& d)
{
    std::vector<uint32_t> blocks;
    for (const SchedJob& job : model.jobs)
    {
        blocks.push_back(d.numLevels - 1 - d.jobs.at(job.id).level);
    }
    return blocks;
}

/// \return the decision's priority order as model job indices (rank 0 first)
std::vector<uint32_t>
OrderOf(const ClusterModel& model, const Decision& d)
{
    std::vector<uint32_t> order(model.jobs.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const uint32_t ra = d.jobs.at(model.jobs[a].id).rank;
        const uint32_t rb = d.jobs.at(model.jobs[b].id).rank;
        return ra != rb ? ra < rb : model.jobs[a].id < model.jobs[b].id;
    });
    return order;
}

/// \return every split of n positions into at most k consecutive non-empty blocks: element i
///         = block of position i (0, nondecreasing, steps of 0 or 1)
std::vector<std::vector<uint32_t>>
Splits(uint32_t n, uint32_t k)
{
    std::vector<std::vector<uint32_t>> out;
    if (n == 0)
    {
        return out;
    }
    std::vector<uint32_t> cur(n, 0);
    // Gap i (between positions i and i+1) is cut or not; at most k-1 cuts.
    for (uint64_t mask = 0; mask < (uint64_t{1} << (n - 1)); ++mask)
    {
        if (static_cast<uint32_t>(__builtin_popcountll(mask)) > k - 1)
        {
            continue;
        }
        for (uint32_t i = 1; i < n; ++i)
        {
            cur[i] = cur[i - 1] + ((mask >> (i - 1)) & 1);
        }
        out.push_back(cur);
    }
    return out;
}

/// \return a copy of the ECMP decision with the given paths and t_j, I_j on them
Decision
WithPaths(const ClusterModel& model, const Decision& base, const std::vector<PathChoice>& paths)
{
    Decision d = base;
    for (std::size_t j = 0; j < model.jobs.size(); ++j)
    {
        JobDecision& jd = d.jobs.at(model.jobs[j].id);
        for (std::size_t f = 0; f < model.jobs[j].flows.size(); ++f)
        {
            jd.flowPath[model.jobs[j].flows[f].id] = paths[j][f];
        }
    }
    UpdateIntensities(model, d);
    return d;
}

/// The complete schedulers every ablation scores end to end (columns "e2e.<name>").
const std::vector<std::string> BUILT_IN_END_TO_END =
    {"crux", "crux-ps-pa", "crux-pa", "sincronia", "varys", "taccl", "ecmp"};

} // namespace

std::vector<std::string>
StageAblationColumns(const StageAblationOptions& options)
{
    std::vector<std::string> columns = {"ps.crux",
                                        "ps.taccl",
                                        "ps.ecmp",
                                        "pa.crux",
                                        "pa.sincronia",
                                        "pa.varys",
                                        "pa.intensity",
                                        "comp.crux",
                                        "comp.sincronia",
                                        "comp.varys",
                                        "comp.best-split"};
    for (const auto& list : {BUILT_IN_END_TO_END, options.extraSchedulers})
    {
        for (const std::string& name : list)
        {
            columns.push_back("e2e." + name);
        }
    }
    return columns;
}

void
CheckStageAblationOptions(const StageAblationOptions& options)
{
    const auto known = KnownCommSchedulers();
    const auto columns = StageAblationColumns(options);
    for (const std::string& name : options.extraSchedulers)
    {
        if (std::find(known.begin(), known.end(), name) == known.end())
        {
            CreateCommScheduler(name); // throws "unknown scheduler 'x' (known: ...)"
        }
        if (std::count(columns.begin(), columns.end(), "e2e." + name) > 1)
        {
            throw std::invalid_argument("stage ablation: scheduler '" + name +
                                        "' is already a column (e2e." + name + ")");
        }
    }
}

StageAblationResult
RunStageAblation(const ClusterModel& model, const StageAblationOptions& options)
{
    if (model.jobs.size() > MAX_JOBS)
    {
        throw std::invalid_argument("RunStageAblation: at most " + std::to_string(MAX_JOBS) +
                                    " jobs (got " + std::to_string(model.jobs.size()) + ")");
    }
    CheckStageAblationOptions(options);
    const uint32_t k = options.numLevels;
    SchedulerConfig config;
    config.numLevels = k;
    config.seed = options.seed;
    OptimalSearch search(model, k, options.search); // validates
    const OptimalSearch::Solution opt = search.Solve();

    StageAblationResult result;
    result.optimum = opt.value;
    result.pathChoices = search.NumPathChoices();
    result.levelAssignments = search.LevelAssignments().size();
    result.optimumUtilization = search.Evaluator()
                                    .Evaluate(SolutionToDecision(model, k, opt, "optimal"))
                                    .steadyGpuUtilization;
    std::map<std::string, double> score;
    auto ratio = [&opt](double v) { return opt.value > 0 ? v / opt.value : 1.0; };

    // Crux's stages as the registry's "crux" scheduler has them (its stage objects with their
    // Attributes, incl. Config::SetDefault), and TACCL*'s path selection (the same stage object
    // class, jobs in arrival order).
    const Ptr<CruxScheduler> crux = DynamicCast<CruxScheduler>(CreateCommScheduler("crux"));
    const Ptr<TacclScheduler> taccl = DynamicCast<TacclScheduler>(CreateCommScheduler("taccl"));
    const Decision base = MakeDefaultDecision(model, config, "ablation");
    const uint32_t n = static_cast<uint32_t>(model.jobs.size());

    // ---- path selection
    {
        Decision d = base;
        crux->GetPathSelection()->SelectPaths(model, config, d);
        score["ps.crux"] = ratio(search.BestForPaths(PathsOf(model, d)).value);
        d = base;
        taccl->GetPathSelection()->SelectPaths(model, config, d);
        score["ps.taccl"] = ratio(search.BestForPaths(PathsOf(model, d)).value);
        score["ps.ecmp"] = ratio(search.BestForPaths(PathsOf(model, base)).value);
    }

    // ---- priority assignment on the optimum's paths P*, best split of the method's order
    const std::vector<std::vector<uint32_t>> splits = Splits(n, k);
    const Decision atOpt = WithPaths(model, base, opt.paths);
    auto bestSplit = [&](const std::vector<uint32_t>& order) {
        double best = 0;
        std::vector<uint32_t> blocks(n);
        for (const auto& split : splits)
        {
            for (uint32_t pos = 0; pos < n; ++pos)
            {
                blocks[order[pos]] = split[pos];
            }
            best = std::max(best, search.Value(opt.paths, blocks));
        }
        return best;
    };
    {
        Decision c = atOpt;
        crux->GetPriorityAssignment()->AssignPriorities(model, config, c);
        const std::vector<uint32_t> cruxOrder = OrderOf(model, c);
        score["pa.crux"] = ratio(bestSplit(cruxOrder));
        for (const SchedJob& job : model.jobs)
        {
            result.kNonUnit += c.jobs.at(job.id).k != 1.0 ? 1 : 0;
        }
        c = atOpt;
        SincroniaAssignPriorities(model, c);
        score["pa.sincronia"] = ratio(bestSplit(OrderOf(model, c)));
        c = atOpt;
        VarysAssignPriorities(model, c);
        score["pa.varys"] = ratio(bestSplit(OrderOf(model, c)));
        std::vector<uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            const double ia = atOpt.jobs.at(model.jobs[a].id).intensity;
            const double ib = atOpt.jobs.at(model.jobs[b].id).intensity;
            return ia != ib ? ia > ib : model.jobs[a].id < model.jobs[b].id;
        });
        score["pa.intensity"] = ratio(bestSplit(order));
        result.kReorders = order != cruxOrder;
        result.kChangesOrderHead = order.front() != cruxOrder.front();
    }

    // ---- compression of the optimal unique order σ* on P*
    std::vector<uint32_t> sigmaStar;
    {
        std::vector<uint32_t> sigma(n);
        std::iota(sigma.begin(), sigma.end(), 0u);
        std::vector<uint32_t> blocks(n);
        double best = 0;
        do
        {
            for (uint32_t pos = 0; pos < n; ++pos)
            {
                blocks[sigma[pos]] = pos;
            }
            const double v = search.Value(opt.paths, blocks);
            if (sigmaStar.empty() || v > best + TIE_TOLERANCE * best)
            {
                best = v;
                sigmaStar = sigma;
            }
        } while (std::next_permutation(sigma.begin(), sigma.end()));
        result.uniqueOptimum = best;
    }
    {
        Decision ranked = atOpt;
        for (uint32_t r = 0; r < n; ++r)
        {
            ranked.jobs.at(model.jobs[sigmaStar[r]].id).rank = r;
        }
        Decision c = ranked;
        crux->GetCompression()->Compress(model, config, c);
        score["comp.crux"] = ratio(search.Value(opt.paths, BlocksOf(model, c)));
        c = ranked;
        SincroniaCompressPriorities(c);
        score["comp.sincronia"] = ratio(search.Value(opt.paths, BlocksOf(model, c)));
        c = ranked;
        VarysCompressPriorities(c);
        score["comp.varys"] = ratio(search.Value(opt.paths, BlocksOf(model, c)));
        score["comp.best-split"] = ratio(bestSplit(sigmaStar));
    }

    // ---- end to end
    for (const auto& list : {BUILT_IN_END_TO_END, options.extraSchedulers})
    {
        for (const std::string& name : list)
        {
            const Decision d = CreateCommScheduler(name)->Schedule(model, config);
            score["e2e." + name] = ratio(search.Value(PathsOf(model, d), BlocksOf(model, d)));
        }
    }

    for (const std::string& column : StageAblationColumns(options))
    {
        result.ratios.emplace_back(column, score.at(column));
    }
    result.simulations = search.Simulations();
    return result;
}

} // namespace ns3
