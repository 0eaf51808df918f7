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

#ifndef CRUX_DAG_MAX_K_CUT_H
#define CRUX_DAG_MAX_K_CUT_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief A weighted directed acyclic graph on nodes 0..numNodes-1 (the contention DAG of
 * Crux §4.3: an edge u -> v means u has the higher priority and both share a link; its weight
 * is I_u, the GPU intensity of u, in FLOPs/s).
 */
struct WeightedDag
{
    /// One directed edge.
    struct Edge
    {
        uint32_t from{0}; //!< tail node (higher priority)
        uint32_t to{0};   //!< head node (lower priority)
        double weight{0}; //!< weight >= 0 (what is lost if both ends share a level)
    };

    uint32_t numNodes{0};    //!< number of nodes
    std::vector<Edge> edges; //!< edges (at most one per ordered pair is meaningful; duplicates add)
};

/**
 * \ingroup crux-scheduling
 * \brief A split of the nodes into ordered blocks (priority levels).
 */
struct DagCut
{
    /// block[v] = block of node v, 0 = first (highest) block; size numNodes
    std::vector<uint32_t> block;
    uint32_t numBlocks{0};       //!< number of blocks used (min(K, numNodes)), all non-empty
    double value{0};             //!< total weight of the edges whose ends are in different blocks
    std::vector<uint32_t> order; //!< the topological order the winning split was cut from
};

/**
 * \ingroup crux-scheduling
 * \brief Options of SolveDagMaxKCut.
 */
struct DagMaxKCutOptions
{
    /// m: number of random topological orders (Kahn's algorithm, uniformly random pick among
    /// the ready nodes); Crux §4.3 uses 10. 0 = exhaustive: every topological order (exact).
    uint32_t samples{10};
    /// Seed of the std::mt19937_64 drawing the random orders.
    uint64_t seed{1};
    /// Optional topological order evaluated before the random ones (e.g. the priority order);
    /// empty = none. Ties between orders keep the earlier one.
    std::vector<uint32_t> firstOrder;
    /// Largest graph the exhaustive mode accepts (the number of orders grows like n!).
    uint32_t maxExhaustiveNodes{10};
};

/**
 * \ingroup crux-scheduling
 * \brief Best split of one topological order into exactly min(K, n) non-empty consecutive
 * blocks (the O(K n^2) dynamic program of Crux Algorithm 1 with 2-D prefix sums).
 *
 * \param dag the graph
 * \param order a topological order of dag (a permutation of 0..n-1)
 * \param numBlocks K (>= 1)
 * \return the split (order is copied into DagCut::order)
 * \throws std::invalid_argument if order is not a topological order of dag or numBlocks is 0
 */
DagCut BestSplitOfOrder(const WeightedDag& dag,
                        const std::vector<uint32_t>& order,
                        uint32_t numBlocks);

/**
 * \ingroup crux-scheduling
 * \brief DAG max K-cut by sampling topological orders (Crux §4.3, Theorems 2-3, Algorithm 1).
 *
 * Evaluates options.firstOrder (if given), then options.samples random topological orders (or
 * all of them when samples = 0), splits each optimally with BestSplitOfOrder and keeps the
 * first best one (a later order must beat it by more than a relative 1e-12). With n <= K
 * every node gets its own block, in firstOrder (or, without it, the Kahn order that always
 * takes the smallest ready node), and no order is sampled.
 * \param dag the graph (must be acyclic, weights finite and >= 0)
 * \param numBlocks K (>= 1)
 * \param options sampling options
 * \return the best cut found; block 0 is the highest level; value = CutValue of its blocks
 * \throws std::invalid_argument for a cycle, a bad edge end or weight, numBlocks = 0, a
 *         firstOrder that is not topological, or exhaustive mode on more than
 *         maxExhaustiveNodes nodes
 */
DagCut SolveDagMaxKCut(const WeightedDag& dag,
                       uint32_t numBlocks,
                       const DagMaxKCutOptions& options);

/**
 * \param dag the graph
 * \param block block per node (0 = highest)
 * \return true if no edge goes from a later (lower) block to an earlier (higher) one
 */
bool IsValidCut(const WeightedDag& dag, const std::vector<uint32_t>& block);

/**
 * \param dag the graph
 * \param block block per node
 * \return total weight of the edges whose ends are in different blocks
 */
double CutValue(const WeightedDag& dag, const std::vector<uint32_t>& block);

/**
 * \param dag the graph
 * \param order a sequence of nodes
 * \return true if order is a permutation of the nodes and every edge goes forward in it
 */
bool IsTopologicalOrder(const WeightedDag& dag, const std::vector<uint32_t>& order);

} // namespace ns3

#endif // CRUX_DAG_MAX_K_CUT_H
