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

#include "cassini-scheduler.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/kruskal_min_spanning_tree.hpp>
#include <boost/pending/queue.hpp>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxCassiniScheduler");

namespace
{

/// Costs within this fraction of P × B are equal ([C4]).
constexpr double COST_TOLERANCE = 1e-9;
/// Scores within this absolute difference are equal ([C4]).
constexpr double SCORE_TOLERANCE = 1e-12;

/// A pattern on the unified circle of a link, in ticks ([C3]).
struct TickPattern
{
    uint64_t period; //!< p_j, ticks
    uint64_t start;  //!< arc start within the period, ticks
    uint64_t length; //!< arc length, ticks (1..period)
    double demand;   //!< bit/s during the arc
};

/// \throws std::invalid_argument if the options are unusable
void
CheckOptions(const CassiniOptions& options)
{
    if (options.binsPerIteration == 0)
    {
        throw std::invalid_argument("CassiniOptions.binsPerIteration must be >= 1 (got 0)");
    }
    if (options.maxPerimeterBins < options.binsPerIteration)
    {
        throw std::invalid_argument(
            "CassiniOptions.maxPerimeterBins (" + std::to_string(options.maxPerimeterBins) +
            ") must be >= binsPerIteration (" + std::to_string(options.binsPerIteration) + ")");
    }
}

/// \return x mod m in [0, m) for m > 0
double
PositiveMod(double x, double m)
{
    double r = std::fmod(x, m);
    if (r < 0)
    {
        r += m;
    }
    return r >= m ? 0.0 : r;
}

/// \return lcm of the periods, or cap + 1 as soon as it exceeds cap
uint64_t
CappedLcm(const std::vector<TickPattern>& patterns, uint64_t cap)
{
    uint64_t l = 1;
    for (const TickPattern& p : patterns)
    {
        l = l / std::gcd(l, p.period) * p.period;
        if (l > cap)
        {
            return cap + 1;
        }
    }
    return l;
}

/// Adds a pattern at shift s to the demand on the circle.
void
AddPattern(std::vector<double>& demand, const TickPattern& p, uint64_t s)
{
    const uint64_t perimeter = demand.size();
    for (uint64_t base = 0; base < perimeter; base += p.period)
    {
        for (uint64_t k = 0; k < p.length; ++k)
        {
            demand[(base + s + p.start + k) % perimeter] += p.demand;
        }
    }
}

/// \return Σ_α max(0, demand(α) - capacity)
double
TotalExcess(const std::vector<double>& demand, double capacity)
{
    double e = 0;
    for (double d : demand)
    {
        e += std::max(0.0, d - capacity);
    }
    return e;
}

/// \return the shift in [0, p.period) adding the least excess (ties: smallest shift)
uint64_t
BestShift(const std::vector<double>& demand, const TickPattern& p, double capacity)
{
    const uint64_t perimeter = demand.size();
    // g(α): excess added at α if the pattern is active there; W(x): sum of g over the arc
    // starting at x (circular prefix sums).
    std::vector<double> prefix(perimeter + p.length + 1, 0.0);
    for (uint64_t i = 0; i < perimeter + p.length; ++i)
    {
        const double d = demand[i % perimeter];
        const double g = std::max(0.0, d + p.demand - capacity) - std::max(0.0, d - capacity);
        prefix[i + 1] = prefix[i] + g;
    }
    std::vector<double> cost(p.period, 0.0);
    for (uint64_t s = 0; s < p.period; ++s)
    {
        for (uint64_t base = 0; base < perimeter; base += p.period)
        {
            const uint64_t x = (base + s + p.start) % perimeter;
            cost[s] += prefix[x + p.length] - prefix[x];
        }
    }
    const double best = *std::min_element(cost.begin(), cost.end());
    const double eps = COST_TOLERANCE * static_cast<double>(perimeter) * capacity;
    for (uint64_t s = 0; s < p.period; ++s)
    {
        if (cost[s] <= best + eps)
        {
            return s;
        }
    }
    return 0;
}

/// Vertex/edge types of the affinity graph ([C5]).
using AffinityGraph = boost::adjacency_list<boost::vecS,
                                            boost::vecS,
                                            boost::undirectedS,
                                            boost::no_property,
                                            boost::property<boost::edge_weight_t, uint64_t>>;
/// The spanning forest of the affinity graph.
using Forest = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
/// Vertex descriptor of the forest.
using ForestVertex = boost::graph_traits<Forest>::vertex_descriptor;

/// Propagates shifts along the tree edges of the breadth-first traversal ([C6]).
class ShiftPropagator : public boost::default_bfs_visitor
{
  public:
    /**
     * \param numJobs job vertices are 0..numJobs-1, link vertices numJobs..
     * \param periods T of each job vertex, seconds
     * \param linkShifts per link vertex (index - numJobs): job vertex -> t^l, seconds
     * \param shift per job vertex, updated (the root must be set before)
     * \param entry per link vertex (index - numJobs), the job vertex it was entered from
     */
    ShiftPropagator(std::size_t numJobs,
                    const std::vector<double>& periods,
                    const std::vector<std::map<std::size_t, double>>& linkShifts,
                    std::vector<double>& shift,
                    std::vector<std::size_t>& entry)
        : m_numJobs(numJobs),
          m_periods(periods),
          m_linkShifts(linkShifts),
          m_shift(shift),
          m_entry(entry)
    {
    }

    /**
     * \param e the tree edge (source = the vertex being examined)
     * \param g the forest
     */
    void tree_edge(boost::graph_traits<Forest>::edge_descriptor e, const Forest& g) const
    {
        const std::size_t u = boost::source(e, g);
        const std::size_t v = boost::target(e, g);
        if (v >= m_numJobs)
        {
            m_entry[v - m_numJobs] = u; // entering link v from job u
            return;
        }
        const std::size_t link = u - m_numJobs;
        const std::size_t from = m_entry[link];
        const auto& ls = m_linkShifts[link];
        m_shift[v] = PositiveMod(m_shift[from] - ls.at(from) + ls.at(v), m_periods[v]);
    }

  private:
    std::size_t m_numJobs;                                          //!< number of job vertices
    const std::vector<double>& m_periods;                           //!< T per job vertex
    const std::vector<std::map<std::size_t, double>>& m_linkShifts; //!< t^l per link vertex
    std::vector<double>& m_shift;                                   //!< result per job vertex
    std::vector<std::size_t>& m_entry;                              //!< entry job per link vertex
};

} // namespace

CassiniLinkResult
CassiniLinkCompatibility(const std::vector<CassiniPattern>& jobs,
                         double capacity,
                         const CassiniOptions& options)
{
    CheckOptions(options);
    if (jobs.empty())
    {
        throw std::invalid_argument("CassiniLinkCompatibility: no jobs on the link");
    }
    if (!(std::isfinite(capacity) && capacity > 0))
    {
        throw std::invalid_argument("CassiniLinkCompatibility: capacity must be > 0 bit/s");
    }
    std::vector<CassiniPattern> sorted = jobs;
    std::sort(sorted.begin(), sorted.end(), [](const CassiniPattern& a, const CassiniPattern& b) {
        return a.jobId < b.jobId;
    });
    double longest = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i)
    {
        const CassiniPattern& p = sorted[i];
        const std::string name = "CassiniLinkCompatibility: job " + std::to_string(p.jobId);
        if (i > 0 && sorted[i - 1].jobId == p.jobId)
        {
            throw std::invalid_argument(name + " appears twice");
        }
        if (!(std::isfinite(p.period) && p.period > 0))
        {
            throw std::invalid_argument(name + ": period must be > 0 s");
        }
        if (!(std::isfinite(p.commDuration) && p.commDuration > 0))
        {
            throw std::invalid_argument(name + ": commDuration must be > 0 s");
        }
        if (!(std::isfinite(p.commStart) && p.commStart >= 0))
        {
            throw std::invalid_argument(name + ": commStart must be >= 0 s");
        }
        if (!(std::isfinite(p.demand) && p.demand >= 0))
        {
            throw std::invalid_argument(name + ": demand must be >= 0 bit/s");
        }
        longest = std::max(longest, p.period);
    }

    // [C3] unified circle: coarsen the tick until lcm of the periods fits.
    CassiniLinkResult result;
    result.tick = longest / options.binsPerIteration;
    std::vector<TickPattern> ticks(sorted.size());
    for (;;)
    {
        for (std::size_t i = 0; i < sorted.size(); ++i)
        {
            const CassiniPattern& p = sorted[i];
            TickPattern& t = ticks[i];
            t.period = std::max<uint64_t>(1, std::llround(p.period / result.tick));
            t.start = static_cast<uint64_t>(std::llround(p.commStart / result.tick)) % t.period;
            t.length =
                std::clamp<uint64_t>(std::llround(p.commDuration / result.tick), 1, t.period);
            t.demand = p.demand;
        }
        result.perimeterBins = CappedLcm(ticks, options.maxPerimeterBins);
        if (result.perimeterBins <= options.maxPerimeterBins)
        {
            break;
        }
        result.tick *= 2;
    }

    // [C4] greedy placement for every base job; the highest score wins.
    const double norm = static_cast<double>(result.perimeterBins) * capacity;
    double bestScore = -std::numeric_limits<double>::infinity();
    std::vector<uint64_t> bestShift;
    for (std::size_t base = 0; base < sorted.size(); ++base)
    {
        std::vector<double> demand(result.perimeterBins, 0.0);
        std::vector<uint64_t> shift(sorted.size(), 0);
        AddPattern(demand, ticks[base], 0);
        for (std::size_t i = 0; i < sorted.size(); ++i)
        {
            if (i != base)
            {
                shift[i] = BestShift(demand, ticks[i], capacity);
                AddPattern(demand, ticks[i], shift[i]);
            }
        }
        const double score = 1.0 - TotalExcess(demand, capacity) / norm;
        if (score > bestScore + SCORE_TOLERANCE)
        {
            bestScore = score;
            bestShift = shift;
            result.baseJob = sorted[base].jobId;
        }
    }
    result.score = bestScore;
    for (std::size_t i = 0; i < sorted.size(); ++i)
    {
        result.shift[sorted[i].jobId] =
            PositiveMod(static_cast<double>(bestShift[i]) * result.tick, sorted[i].period);
    }
    return result;
}

void
CassiniAssignTimeShifts(const ClusterModel& model,
                        const CassiniOptions& options,
                        Decision& decision,
                        std::map<uint32_t, CassiniLinkResult>* links)
{
    CheckOptions(options);
    // Job vertices in ascending id.
    std::vector<const SchedJob*> jobs;
    for (const SchedJob& job : model.jobs)
    {
        jobs.push_back(&job);
    }
    std::sort(jobs.begin(), jobs.end(), [](const SchedJob* a, const SchedJob* b) {
        return a->id < b->id;
    });
    const std::size_t numJobs = jobs.size();

    // [C1] patterns per link.
    std::vector<double> periods(numJobs, 0.0);
    std::map<uint32_t, std::vector<std::pair<std::size_t, CassiniPattern>>> onLink;
    for (std::size_t v = 0; v < numJobs; ++v)
    {
        const SchedJob& job = *jobs[v];
        JobDecision& jd = decision.jobs.at(job.id);
        jd.timeShift = 0;
        const double t = jd.commTime;
        const double period = StandaloneIterationTime(job, t);
        periods[v] = period;
        if (!(t > 0 && period > 0))
        {
            continue;
        }
        for (const auto& [link, bytes] : JobLinkBytes(job, ChoiceOf(job, jd)))
        {
            if (bytes > 0)
            {
                const double b = model.links.at(link).bandwidth;
                CassiniPattern p;
                p.jobId = job.id;
                p.period = period;
                p.commStart = job.overlapStart * job.computeTime;
                p.commDuration = t;
                p.demand = std::min(b, bytes * 8.0 / t);
                onLink[link].emplace_back(v, p);
            }
        }
    }

    // [C2], [C4] shared links and their per-link shifts.
    std::vector<uint32_t> sharedLinks;
    std::vector<double> scores;
    std::vector<std::map<std::size_t, double>> linkShifts; // job vertex -> t^l
    for (const auto& [link, list] : onLink)
    {
        const double b = model.links[link].bandwidth;
        double peak = 0;
        for (const auto& entry : list)
        {
            peak += entry.second.demand;
        }
        if (list.size() < 2 || peak <= b * (1 + 1e-12))
        {
            continue;
        }
        std::vector<CassiniPattern> patterns;
        for (const auto& entry : list)
        {
            patterns.push_back(entry.second);
        }
        const CassiniLinkResult r = CassiniLinkCompatibility(patterns, b, options);
        std::map<std::size_t, double> byVertex;
        for (const auto& entry : list)
        {
            byVertex[entry.first] = r.shift.at(entry.second.jobId);
        }
        sharedLinks.push_back(link);
        scores.push_back(r.score);
        linkShifts.push_back(byVertex);
        if (links)
        {
            (*links)[link] = r;
        }
    }

    // [C5] affinity graph, edges ranked by (score, link id, job id); spanning forest.
    struct RankedEdge
    {
        double score;
        uint32_t link;
        uint32_t jobId;
        std::size_t jobVertex;
        std::size_t linkVertex;
    };

    std::vector<RankedEdge> ranked;
    for (std::size_t l = 0; l < sharedLinks.size(); ++l)
    {
        for (const auto& [v, s] : linkShifts[l])
        {
            ranked.push_back({scores[l], sharedLinks[l], jobs[v]->id, v, numJobs + l});
        }
    }
    std::sort(ranked.begin(), ranked.end(), [](const RankedEdge& a, const RankedEdge& b) {
        return std::tie(a.score, a.link, a.jobId) < std::tie(b.score, b.link, b.jobId);
    });
    const std::size_t numVertices = numJobs + sharedLinks.size();
    AffinityGraph graph(numVertices);
    for (std::size_t i = 0; i < ranked.size(); ++i)
    {
        boost::add_edge(ranked[i].jobVertex, ranked[i].linkVertex, uint64_t{i}, graph);
    }
    std::vector<boost::graph_traits<AffinityGraph>::edge_descriptor> treeEdges;
    boost::kruskal_minimum_spanning_tree(graph, std::back_inserter(treeEdges));
    Forest forest(numVertices);
    for (const auto& e : treeEdges)
    {
        boost::add_edge(boost::source(e, graph), boost::target(e, graph), forest);
    }

    // [C6] breadth-first traversal from the smallest job id of each component.
    std::vector<double> shift(numJobs, 0.0);
    std::vector<std::size_t> entry(sharedLinks.size(), 0);
    std::vector<boost::default_color_type> color(numVertices, boost::white_color);
    auto colorMap =
        boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, forest));
    ShiftPropagator visitor(numJobs, periods, linkShifts, shift, entry);
    for (std::size_t v = 0; v < numJobs; ++v)
    {
        if (color[v] == boost::white_color)
        {
            shift[v] = 0;
            boost::queue<ForestVertex> queue;
            boost::breadth_first_visit(forest, v, queue, visitor, colorMap);
        }
    }
    for (std::size_t v = 0; v < numJobs; ++v)
    {
        decision.jobs.at(jobs[v]->id).timeShift = shift[v];
        NS_LOG_DEBUG("job " << jobs[v]->id << ": time shift " << shift[v] << " s");
    }
    NS_LOG_INFO(sharedLinks.size() << " oversubscribed shared links, " << treeEdges.size()
                                   << " edges in the affinity forest");
}

NS_OBJECT_ENSURE_REGISTERED(CassiniScheduler);

TypeId
CassiniScheduler::GetTypeId()
{
    const CassiniOptions defaults;
    static TypeId tid =
        TypeId("ns3::CassiniScheduler")
            .SetParent<CommScheduler>()
            .SetGroupName("Crux")
            .AddConstructor<CassiniScheduler>()
            .AddAttribute("BinsPerIteration",
                          "Ticks per iteration of the longest-iteration job of a link on its "
                          "unified circle (>= 1; 360 = one tick per degree, [C3] in "
                          "cassini-scheduler.h).",
                          UintegerValue(defaults.binsPerIteration),
                          MakeUintegerAccessor(&CassiniScheduler::m_binsPerIteration),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxPerimeterBins",
                          "Largest unified-circle perimeter in ticks (>= BinsPerIteration); the "
                          "tick is doubled until the lcm of the periods fits. Cost per link "
                          "O(jobs^2 x perimeter); 16 circles of 360 ticks by default (a cost "
                          "bound, assumption).",
                          UintegerValue(defaults.maxPerimeterBins),
                          MakeUintegerAccessor(&CassiniScheduler::m_maxPerimeterBins),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

CassiniScheduler::CassiniScheduler()
{
    SetName("cassini");
}

CassiniOptions
CassiniScheduler::GetOptions() const
{
    CassiniOptions options;
    options.binsPerIteration = m_binsPerIteration;
    options.maxPerimeterBins = m_maxPerimeterBins;
    return options;
}

void
CassiniScheduler::DoInitialize()
{
    CheckOptions(GetOptions());
    CommScheduler::DoInitialize();
}

Decision
CassiniScheduler::DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    NS_LOG_FUNCTION(this << model.jobs.size() << config.numLevels);
    Decision d = DefaultDecision(model, config);
    CassiniAssignTimeShifts(model, GetOptions(), d);
    return d;
}

} // namespace ns3
