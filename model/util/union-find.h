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

#ifndef CRUX_UNION_FIND_H
#define CRUX_UNION_FIND_H

// Pure C++ (no ns-3 includes), header only.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief Disjoint sets of the elements 0..n-1 (union-find with path halving); the root of a set
 * is its smallest element, so the roots, and any order taken from them, do not depend on the
 * order of the joins. The connected components of jobs that share links: the trace runner's
 * components (epoch-rate-model.cc) and its dilation groups (epoch-coarsening.cc), the steady-rate
 * estimate's (steady-rate.h) and the optimal search's (optimal-scheduler.cc).
 */
struct UnionFind
{
    std::vector<uint32_t> parent; //!< parent per element

    /// \param n elements 0..n-1, each its own set
    explicit UnionFind(uint32_t n)
        : parent(n)
    {
        std::iota(parent.begin(), parent.end(), 0U);
    }

    /// \param x element (< n) \return its set's root, the set's smallest element
    uint32_t Find(uint32_t x)
    {
        while (parent[x] != x)
        {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    /// Join the sets of \p a and \p b (elements < n).
    void Join(uint32_t a, uint32_t b)
    {
        a = Find(a);
        b = Find(b);
        if (a != b)
        {
            parent[std::max(a, b)] = std::min(a, b);
        }
    }
};

} // namespace ns3

#endif // CRUX_UNION_FIND_H
