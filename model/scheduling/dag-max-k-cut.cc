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

#include "dag-max-k-cut.h"

#include "ns3/log.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>
#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxDagMaxKCut");

namespace
{

/**
 * Splits topological orders of one graph into K blocks by dynamic programming, reusing its
 * buffers across orders (the exhaustive mode evaluates many thousands of orders).
 */
class OrderSplitter
{
  public:
    /// \param dag the graph  \param numBlocks K
    OrderSplitter(const WeightedDag& dag, uint32_t numBlocks)
        : m_n(dag.numNodes),
          m_k(std::min(numBlocks, dag.numNodes)),
          m_w(static_cast<std::size_t>(m_n) * m_n, 0.0),
          m_s(static_cast<std::size_t>(m_n + 1) * (m_n + 1), 0.0),
          m_f(static_cast<std::size_t>(m_k + 1) * (m_n + 1), 0.0),
          m_g(static_cast<std::size_t>(m_k + 1) * (m_n + 1), 0)
    {
        for (const auto& e : dag.edges)
        {
            m_w[static_cast<std::size_t>(e.from) * m_n + e.to] += e.weight;
        }
    }

    /**
     * \param order a topological order
     * \param cut receives block (per node) and value when \p onlyIfBetter is false or the value
     *        beats cut->value
     * \param onlyIfBetter keep \p cut unless strictly improved
     */
    void Split(const std::vector<uint32_t>& order, DagCut* cut, bool onlyIfBetter)
    {
        const uint32_t n = m_n;
        const std::size_t stride = n + 1;
        if (n == 0)
        {
            if (!onlyIfBetter)
            {
                *cut = DagCut();
            }
            return;
        }
        // S[i][j] = total weight of edges a_p -> a_q with p < i and q < j.
        for (uint32_t i = 1; i <= n; ++i)
        {
            const double* wrow = &m_w[static_cast<std::size_t>(order[i - 1]) * n];
            for (uint32_t j = 1; j <= n; ++j)
            {
                m_s[i * stride + j] = m_s[(i - 1) * stride + j] + m_s[i * stride + j - 1] -
                                      m_s[(i - 1) * stride + j - 1] + wrow[order[j - 1]];
            }
        }
        auto cost = [&](uint32_t j, uint32_t i) {
            // edges from positions [0, j) into positions [j, i)
            return m_s[j * stride + i] - m_s[j * stride + j];
        };
        const double negInf = -std::numeric_limits<double>::infinity();
        for (uint32_t i = 0; i <= n; ++i)
        {
            m_f[1 * stride + i] = i >= 1 ? 0.0 : negInf;
            m_g[1 * stride + i] = 0;
        }
        for (uint32_t k = 2; k <= m_k; ++k)
        {
            for (uint32_t i = 0; i <= n; ++i)
            {
                double best = negInf;
                uint32_t arg = 0;
                if (i >= k)
                {
                    for (uint32_t j = k - 1; j < i; ++j)
                    {
                        double v = m_f[(k - 1) * stride + j] + cost(j, i);
                        if (v > best)
                        {
                            best = v;
                            arg = j;
                        }
                    }
                }
                m_f[k * stride + i] = best;
                m_g[k * stride + i] = arg;
            }
        }
        const double value = m_f[m_k * stride + n];
        // Equal-valued cuts from different orders may differ in the last bits of their prefix
        // sums: only a clear improvement replaces the earlier cut.
        if (onlyIfBetter && std::isfinite(cut->value) &&
            !(value > cut->value + 1e-12 * std::abs(cut->value)))
        {
            return;
        }
        cut->value = value;
        cut->numBlocks = m_k;
        cut->order = order;
        cut->block.assign(n, 0);
        uint32_t i = n;
        for (uint32_t k = m_k; k >= 1; --k)
        {
            uint32_t j = k == 1 ? 0 : m_g[k * stride + i];
            for (uint32_t p = j; p < i; ++p)
            {
                cut->block[order[p]] = k - 1;
            }
            i = j;
        }
    }

  private:
    uint32_t m_n;              //!< number of nodes
    uint32_t m_k;              //!< number of blocks, min(K, n)
    std::vector<double> m_w;   //!< weight matrix, row-major n × n
    std::vector<double> m_s;   //!< 2-D prefix sums, (n+1) × (n+1)
    std::vector<double> m_f;   //!< DP values, (K+1) × (n+1)
    std::vector<uint32_t> m_g; //!< DP arg-max, (K+1) × (n+1)
};

/// \throws std::invalid_argument unless the graph is well formed and acyclic
void
CheckDag(const WeightedDag& dag)
{
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    Graph g(dag.numNodes);
    for (std::size_t i = 0; i < dag.edges.size(); ++i)
    {
        const auto& e = dag.edges[i];
        if (e.from >= dag.numNodes || e.to >= dag.numNodes)
        {
            throw std::invalid_argument("WeightedDag.edges[" + std::to_string(i) +
                                        "] references a node >= numNodes (" +
                                        std::to_string(dag.numNodes) + ")");
        }
        if (!(std::isfinite(e.weight) && e.weight >= 0))
        {
            throw std::invalid_argument("WeightedDag.edges[" + std::to_string(i) +
                                        "].weight must be finite and >= 0");
        }
        if (e.from == e.to)
        {
            throw std::invalid_argument("WeightedDag.edges[" + std::to_string(i) +
                                        "] is a self-loop (the graph must be acyclic)");
        }
        boost::add_edge(e.from, e.to, g);
    }
    std::vector<Graph::vertex_descriptor> sorted;
    try
    {
        boost::topological_sort(g, std::back_inserter(sorted));
    }
    catch (const boost::not_a_dag&)
    {
        throw std::invalid_argument("WeightedDag has a cycle (the contention graph must be a "
                                    "DAG)");
    }
}

/// Out-neighbour lists (with multiplicity) and in-degrees of a graph.
struct Adjacency
{
    std::vector<std::vector<uint32_t>> out; //!< out[u] = heads of u's edges
    std::vector<uint32_t> indegree;         //!< number of edges into each node
};

/// \return the adjacency of \p dag
Adjacency
MakeAdjacency(const WeightedDag& dag)
{
    Adjacency a;
    a.out.resize(dag.numNodes);
    a.indegree.assign(dag.numNodes, 0);
    for (const auto& e : dag.edges)
    {
        a.out[e.from].push_back(e.to);
        a.indegree[e.to]++;
    }
    return a;
}

/// \return a random topological order (Kahn's algorithm, uniform pick among ready nodes)
std::vector<uint32_t>
RandomTopologicalOrder(const Adjacency& adj, std::mt19937_64& rng)
{
    const std::size_t n = adj.indegree.size();
    std::vector<uint32_t> indeg = adj.indegree;
    std::vector<uint32_t> ready;
    for (uint32_t v = 0; v < n; ++v)
    {
        if (indeg[v] == 0)
        {
            ready.push_back(v);
        }
    }
    std::vector<uint32_t> order;
    order.reserve(n);
    while (!ready.empty())
    {
        std::size_t pick = static_cast<std::size_t>(rng() % ready.size());
        uint32_t u = ready[pick];
        ready[pick] = ready.back();
        ready.pop_back();
        order.push_back(u);
        for (uint32_t v : adj.out[u])
        {
            if (--indeg[v] == 0)
            {
                ready.push_back(v);
            }
        }
    }
    return order;
}

/// Calls \p visit on every topological order (backtracking over the ready sets).
template <typename Visit>
void
ForEachTopologicalOrder(const Adjacency& adj,
                        std::vector<uint32_t>& indeg,
                        std::vector<bool>& used,
                        std::vector<uint32_t>& prefix,
                        Visit& visit)
{
    const uint32_t n = static_cast<uint32_t>(indeg.size());
    if (prefix.size() == n)
    {
        visit(prefix);
        return;
    }
    for (uint32_t u = 0; u < n; ++u)
    {
        if (used[u] || indeg[u] != 0)
        {
            continue;
        }
        used[u] = true;
        prefix.push_back(u);
        for (uint32_t v : adj.out[u])
        {
            --indeg[v];
        }
        ForEachTopologicalOrder(adj, indeg, used, prefix, visit);
        for (uint32_t v : adj.out[u])
        {
            ++indeg[v];
        }
        prefix.pop_back();
        used[u] = false;
    }
}

} // namespace

bool
IsTopologicalOrder(const WeightedDag& dag, const std::vector<uint32_t>& order)
{
    if (order.size() != dag.numNodes)
    {
        return false;
    }
    std::vector<uint32_t> pos(dag.numNodes, dag.numNodes);
    for (uint32_t p = 0; p < order.size(); ++p)
    {
        if (order[p] >= dag.numNodes || pos[order[p]] != dag.numNodes)
        {
            return false;
        }
        pos[order[p]] = p;
    }
    for (const auto& e : dag.edges)
    {
        if (e.from >= dag.numNodes || e.to >= dag.numNodes || pos[e.from] >= pos[e.to])
        {
            return false;
        }
    }
    return true;
}

bool
IsValidCut(const WeightedDag& dag, const std::vector<uint32_t>& block)
{
    if (block.size() != dag.numNodes)
    {
        return false;
    }
    for (const auto& e : dag.edges)
    {
        if (block[e.from] > block[e.to])
        {
            return false;
        }
    }
    return true;
}

double
CutValue(const WeightedDag& dag, const std::vector<uint32_t>& block)
{
    double value = 0;
    for (const auto& e : dag.edges)
    {
        if (block.at(e.from) != block.at(e.to))
        {
            value += e.weight;
        }
    }
    return value;
}

DagCut
BestSplitOfOrder(const WeightedDag& dag, const std::vector<uint32_t>& order, uint32_t numBlocks)
{
    if (numBlocks == 0)
    {
        throw std::invalid_argument("BestSplitOfOrder: numBlocks must be >= 1");
    }
    if (!IsTopologicalOrder(dag, order))
    {
        throw std::invalid_argument("BestSplitOfOrder: order is not a topological order");
    }
    OrderSplitter splitter(dag, numBlocks);
    DagCut cut;
    splitter.Split(order, &cut, false);
    return cut;
}

DagCut
SolveDagMaxKCut(const WeightedDag& dag, uint32_t numBlocks, const DagMaxKCutOptions& options)
{
    if (numBlocks == 0)
    {
        throw std::invalid_argument("SolveDagMaxKCut: numBlocks (number of levels) must be >= 1");
    }
    CheckDag(dag);
    if (!options.firstOrder.empty() && !IsTopologicalOrder(dag, options.firstOrder))
    {
        throw std::invalid_argument("DagMaxKCutOptions.firstOrder is not a topological order");
    }
    if (options.samples == 0 && dag.numNodes > options.maxExhaustiveNodes)
    {
        throw std::invalid_argument("DagMaxKCutOptions.samples = 0 (exhaustive) supports at most " +
                                    std::to_string(options.maxExhaustiveNodes) + " nodes (got " +
                                    std::to_string(dag.numNodes) + ")");
    }
    DagCut best;
    best.value = -std::numeric_limits<double>::infinity();
    if (dag.numNodes == 0)
    {
        return DagCut();
    }
    const Adjacency adj = MakeAdjacency(dag);
    NS_LOG_FUNCTION(dag.numNodes << dag.edges.size() << numBlocks << options.samples);
    if (dag.numNodes <= numBlocks)
    {
        NS_LOG_DEBUG(dag.numNodes << " nodes <= " << numBlocks << " blocks: one node per block");
        // One node per block, in firstOrder or else in the Kahn order that always takes the
        // smallest ready node: every edge is cut, no search needed.
        std::vector<uint32_t> order = options.firstOrder;
        if (order.empty())
        {
            std::vector<uint32_t> indeg = adj.indegree;
            std::vector<bool> done(dag.numNodes, false);
            while (order.size() < dag.numNodes)
            {
                uint32_t u = 0;
                while (done[u] || indeg[u] != 0)
                {
                    ++u;
                }
                done[u] = true;
                order.push_back(u);
                for (uint32_t v : adj.out[u])
                {
                    --indeg[v];
                }
            }
        }
        return BestSplitOfOrder(dag, order, numBlocks);
    }
    OrderSplitter splitter(dag, numBlocks);
    if (!options.firstOrder.empty())
    {
        splitter.Split(options.firstOrder, &best, true);
    }
    if (options.samples == 0)
    {
        std::vector<uint32_t> indeg = adj.indegree;
        std::vector<bool> used(dag.numNodes, false);
        std::vector<uint32_t> prefix;
        prefix.reserve(dag.numNodes);
        auto visit = [&](const std::vector<uint32_t>& order) {
            splitter.Split(order, &best, true);
        };
        ForEachTopologicalOrder(adj, indeg, used, prefix, visit);
    }
    else
    {
        std::mt19937_64 rng(options.seed);
        for (uint32_t s = 0; s < options.samples; ++s)
        {
            splitter.Split(RandomTopologicalOrder(adj, rng), &best, true);
        }
    }
    best.value = CutValue(dag, best.block); // exact sum, independent of the order's prefix sums
    NS_LOG_DEBUG("best cut " << best.value << " over "
                             << (options.samples == 0 ? "every topological order"
                                                      : std::to_string(options.samples) +
                                                            " sampled topological orders"));
    return best;
}

} // namespace ns3
