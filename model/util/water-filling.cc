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

#include "water-filling.h"

#include "ns3/log.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxWaterFilling");

namespace
{

/// Residual capacity below this fraction of a link's capacity counts as zero.
constexpr double STARVED_FRACTION = 1e-9;
/// Up to this many constraints in a class, the water filling finds each bottleneck by a linear
/// scan; above it, by a binary heap with lazy deletion (measured: the heap costs ~20 % more on
/// the §4.4 microbenchmark's 5-job cases and saves ~3x on 2,000-GPU trace runs).
constexpr std::size_t LINEAR_SCAN_MAX = 64;

} // namespace

PriorityWaterFilling::PriorityWaterFilling(const std::vector<double>& linkCapacity,
                                           const std::vector<std::vector<uint32_t>>& paths,
                                           const std::vector<uint32_t>& classes,
                                           std::size_t numClasses)
    : m_class(classes)
{
    if (classes.size() != paths.size())
    {
        throw std::invalid_argument("PriorityWaterFilling: " + std::to_string(paths.size()) +
                                    " paths but " + std::to_string(classes.size()) + " classes");
    }
    // Links in order of first use, and the flows on each (ascending, each flow once).
    std::vector<uint32_t> links;
    std::vector<std::vector<uint32_t>> onLink(linkCapacity.size());
    for (uint32_t f = 0; f < paths.size(); ++f)
    {
        if (classes[f] >= numClasses)
        {
            throw std::invalid_argument("PriorityWaterFilling: flow " + std::to_string(f) +
                                        " has class " + std::to_string(classes[f]) + " of " +
                                        std::to_string(numClasses));
        }
        for (uint32_t l : paths[f])
        {
            if (l >= linkCapacity.size())
            {
                throw std::invalid_argument("PriorityWaterFilling: flow " + std::to_string(f) +
                                            " crosses link " + std::to_string(l) + " of " +
                                            std::to_string(linkCapacity.size()));
            }
            if (onLink[l].empty())
            {
                links.push_back(l);
            }
            if (onLink[l].empty() || onLink[l].back() != f)
            {
                onLink[l].push_back(f);
            }
        }
    }
    std::vector<Constraint> all;
    for (uint32_t l : links)
    {
        all.push_back({linkCapacity[l], std::move(onLink[l])});
    }
    const std::size_t usedLinks = all.size();
    std::vector<Constraint> cons = NonDominated(std::move(all));
    NS_LOG_DEBUG(paths.size() << " flows in " << numClasses << " classes on " << usedLinks
                              << " links: " << cons.size()
                              << " constraints kept, the others dominated");

    std::vector<std::vector<uint32_t>> per(paths.size());
    for (uint32_t k = 0; k < cons.size(); ++k)
    {
        for (uint32_t f : cons[k].flows)
        {
            per[f].push_back(k);
        }
    }
    for (uint32_t f = 0; f < paths.size(); ++f)
    {
        m_consStart.push_back(static_cast<uint32_t>(m_consOfFlow.size()));
        m_consOfFlow.insert(m_consOfFlow.end(), per[f].begin(), per[f].end());
    }
    m_consStart.push_back(static_cast<uint32_t>(m_consOfFlow.size()));

    const std::size_t nCons = cons.size();
    m_capacity.resize(nCons);
    m_threshold.resize(nCons);
    for (std::size_t k = 0; k < nCons; ++k)
    {
        m_capacity[k] = cons[k].cap;
        m_threshold[k] = STARVED_FRACTION * cons[k].cap;
    }
    m_residual.assign(nCons, 0.0);
    m_count.assign(nCons, 0);
    m_classFlowsOn.resize(nCons);
    m_activeOn.resize(nCons);
    m_slotPos.assign(m_consOfFlow.size(), 0);
    m_dirtyClass.assign(nCons, NO_CLASS);
    m_reach.assign(nCons, NO_CLASS);
    m_queued.assign(nCons, 0);
    m_after.assign(nCons * numClasses, 0.0);
    m_activeCount.assign(nCons * numClasses, 0);
    m_classWords = (numClasses + 63) / 64;
    m_activeClasses.assign(nCons * m_classWords, 0);
    m_share.assign(nCons, 0.0);
    m_seenCons.assign(nCons, 0);
    m_seenFlow.assign(paths.size(), 0);
    m_version.assign(nCons, 0);
    m_touchedMark.assign(nCons, 0);
    m_pendingMark.assign(paths.size(), 0);
    m_byClass.resize(numClasses);
}

PriorityWaterFilling::PriorityWaterFilling(std::size_t numClasses)
    : m_dynamic(true)
{
    m_consStart.push_back(0);
    m_byClass.resize(numClasses);
    m_classWords = (numClasses + 63) / 64;
}

uint32_t
PriorityWaterFilling::AddLink(double capacity)
{
    if (!m_dynamic)
    {
        throw std::invalid_argument("PriorityWaterFilling::AddLink: the reduced form is fixed");
    }
    if (!(capacity > 0))
    {
        throw std::invalid_argument("PriorityWaterFilling::AddLink: link " +
                                    std::to_string(m_capacity.size()) + " has capacity " +
                                    std::to_string(capacity));
    }
    m_capacity.push_back(capacity);
    m_threshold.push_back(STARVED_FRACTION * capacity);
    m_residual.push_back(0.0);
    m_count.push_back(0);
    m_classFlowsOn.emplace_back();
    m_activeOn.emplace_back();
    m_dirtyClass.push_back(NO_CLASS);
    m_reach.push_back(NO_CLASS);
    m_queued.push_back(0);
    m_after.resize(m_after.size() + m_byClass.size(), 0.0);
    m_activeCount.resize(m_activeCount.size() + m_byClass.size(), 0);
    m_activeClasses.resize(m_activeClasses.size() + m_classWords, 0);
    m_share.push_back(0.0);
    m_seenCons.push_back(0);
    m_version.push_back(0);
    m_touchedMark.push_back(0);
    return static_cast<uint32_t>(m_capacity.size() - 1);
}

uint32_t
PriorityWaterFilling::AddFlow(const std::vector<uint32_t>& path, uint32_t cls)
{
    const uint32_t f = static_cast<uint32_t>(m_class.size());
    if (!m_dynamic)
    {
        throw std::invalid_argument("PriorityWaterFilling::AddFlow: the reduced form is fixed");
    }
    if (path.empty())
    {
        throw std::invalid_argument("PriorityWaterFilling::AddFlow: flow " + std::to_string(f) +
                                    " crosses no link");
    }
    if (cls >= m_byClass.size())
    {
        throw std::invalid_argument("PriorityWaterFilling::AddFlow: flow " + std::to_string(f) +
                                    " has class " + std::to_string(cls) + " of " +
                                    std::to_string(m_byClass.size()));
    }
    const std::size_t first = m_consOfFlow.size();
    for (uint32_t l : path)
    {
        if (l >= m_capacity.size())
        {
            m_consOfFlow.resize(first);
            throw std::invalid_argument("PriorityWaterFilling::AddFlow: flow " + std::to_string(f) +
                                        " crosses link " + std::to_string(l) + " of " +
                                        std::to_string(m_capacity.size()));
        }
        if (std::find(m_consOfFlow.begin() + static_cast<std::ptrdiff_t>(first),
                      m_consOfFlow.end(),
                      l) == m_consOfFlow.end())
        {
            m_consOfFlow.push_back(l);
        }
    }
    m_consStart.push_back(static_cast<uint32_t>(m_consOfFlow.size()));
    m_class.push_back(cls);
    m_slotPos.resize(m_consOfFlow.size(), 0);
    m_seenFlow.push_back(0);
    m_pendingMark.push_back(0);
    return f;
}

std::size_t
PriorityWaterFilling::NumFlows() const
{
    return m_class.size();
}

std::size_t
PriorityWaterFilling::NumConstraints() const
{
    return m_capacity.size();
}

std::vector<PriorityWaterFilling::Constraint>
PriorityWaterFilling::NonDominated(std::vector<Constraint> all)
{
    std::sort(all.begin(), all.end(), [](const Constraint& a, const Constraint& b) {
        if (a.flows.size() != b.flows.size())
        {
            return a.flows.size() > b.flows.size();
        }
        return a.cap != b.cap ? a.cap < b.cap : a.flows < b.flows;
    });
    // A constraint that dominates k carries k's first flow: only the kept constraints on that
    // flow (a flow crosses a few links) are candidates, not every kept constraint.
    uint32_t numFlows = 0;
    for (const Constraint& k : all)
    {
        numFlows = std::max(numFlows, k.flows.back() + 1); // flows are ascending, not empty
    }
    std::vector<std::vector<uint32_t>> keptOn(numFlows); // [flow] kept constraints crossed
    std::vector<Constraint> cons;
    for (Constraint& k : all)
    {
        bool dominated = false;
        for (uint32_t i : keptOn[k.flows.front()])
        {
            const Constraint& d = cons[i];
            if (d.cap <= k.cap &&
                std::includes(d.flows.begin(), d.flows.end(), k.flows.begin(), k.flows.end()))
            {
                dominated = true;
                break;
            }
        }
        if (!dominated)
        {
            for (uint32_t f : k.flows)
            {
                keptOn[f].push_back(static_cast<uint32_t>(cons.size()));
            }
            cons.push_back(std::move(k));
        }
    }
    return cons;
}

void
PriorityWaterFilling::Compute(const std::vector<uint32_t>& active, std::vector<double>& rate)
{
    std::copy(m_capacity.begin(), m_capacity.end(), m_residual.begin());
    for (auto& bucket : m_byClass)
    {
        bucket.clear();
    }
    for (uint32_t f : active)
    {
        m_byClass[m_class[f]].push_back(f);
    }
    for (const auto& unfixed : m_byClass)
    {
        if (!unfixed.empty())
        {
            FillClass(unfixed, rate);
        }
    }
    // The filling overwrote the residuals that Update() keeps per constraint and class: the next
    // Update() refills every flow made active by Activate().
    for (uint32_t k = 0; k < m_activeOn.size(); ++k)
    {
        if (!m_activeOn[k].empty())
        {
            MarkDirty(k, 0);
        }
    }
}

void
PriorityWaterFilling::Activate(uint32_t f)
{
    for (uint32_t i = m_consStart[f]; i < m_consStart[f + 1]; ++i)
    {
        const uint32_t k = m_consOfFlow[i];
        m_slotPos[i] = static_cast<uint32_t>(m_activeOn[k].size());
        m_activeOn[k].push_back(ActiveEntry{f, i, m_class[f]});
        const uint32_t c = m_class[f];
        if (m_activeCount[k * m_byClass.size() + c]++ == 0)
        {
            m_activeClasses[k * m_classWords + c / 64] |= uint64_t{1} << (c % 64);
        }
        MarkDirty(k, m_class[f]);
    }
}

void
PriorityWaterFilling::Deactivate(uint32_t f)
{
    for (uint32_t i = m_consStart[f]; i < m_consStart[f + 1]; ++i)
    {
        const uint32_t k = m_consOfFlow[i];
        auto& on = m_activeOn[k];
        const uint32_t pos = m_slotPos[i];
        on[pos] = on.back();
        m_slotPos[on[pos].entry] = pos;
        on.pop_back();
        const uint32_t c = m_class[f];
        if (--m_activeCount[k * m_byClass.size() + c] == 0)
        {
            m_activeClasses[k * m_classWords + c / 64] &= ~(uint64_t{1} << (c % 64));
        }
        MarkDirty(k, m_class[f]);
    }
}

void
PriorityWaterFilling::MarkDirty(uint32_t k, uint32_t cls)
{
    if (m_dirtyClass[k] == NO_CLASS)
    {
        m_dirty.push_back(k);
    }
    m_dirtyClass[k] = std::min(m_dirtyClass[k], cls);
}

void
PriorityWaterFilling::Reach(uint32_t k, uint32_t cls)
{
    if (m_seenCons[k] != m_gen)
    {
        m_seenCons[k] = m_gen;
        m_reach[k] = NO_CLASS;
        m_touched.push_back(k); // every constraint reached, for the residuals below
    }
    if (cls < m_reach[k])
    {
        m_reach[k] = cls;
        if (!m_queued[k])
        {
            m_queued[k] = 1;
            m_queue.push_back(k);
        }
    }
}

std::size_t
PriorityWaterFilling::Update(std::vector<double>& rate)
{
    if (m_dirty.empty())
    {
        return 0;
    }
    if (++m_gen == 0)
    {
        std::fill(m_seenCons.begin(), m_seenCons.end(), 0);
        std::fill(m_seenFlow.begin(), m_seenFlow.end(), 0);
        m_gen = 1;
    }
    // The flows a change can move (breadth-first): on a constraint reached at class t, every
    // active flow of class >= t; each such flow of class c reaches its other constraints at c.
    // A constraint reached again at a higher-priority class is visited again.
    m_group.clear();
    m_touched.clear();
    m_queue.clear();
    for (uint32_t k : m_dirty)
    {
        Reach(k, m_dirtyClass[k]);
        m_dirtyClass[k] = NO_CLASS;
    }
    m_dirty.clear();
    for (std::size_t q = 0; q < m_queue.size(); ++q)
    {
        const uint32_t k = m_queue[q];
        m_queued[k] = 0;
        const uint32_t reach = m_reach[k];
        for (const ActiveEntry& entry : m_activeOn[k])
        {
            const uint32_t f = entry.flow;
            if (entry.cls < reach || m_seenFlow[f] == m_gen)
            {
                continue;
            }
            m_seenFlow[f] = m_gen;
            m_group.push_back(f);
            for (uint32_t i = m_consStart[f]; i < m_consStart[f + 1]; ++i)
            {
                Reach(m_consOfFlow[i], entry.cls);
            }
        }
    }
    // Each constraint reached enters the filling with what the classes above its reach left:
    // the residual after the last of them with an active flow on it (none: the capacity).
    const std::size_t nClasses = m_byClass.size();
    for (uint32_t k : m_touched)
    {
        const uint32_t c = LastActiveClassBelow(k, std::min<uint32_t>(m_reach[k], nClasses));
        m_residual[k] = c == NO_CLASS ? m_capacity[k] : m_after[k * nClasses + c];
    }
    m_touched.clear();
    for (auto& bucket : m_byClass)
    {
        bucket.clear();
    }
    for (uint32_t f : m_group)
    {
        m_byClass[m_class[f]].push_back(f);
    }
    for (const auto& unfixed : m_byClass)
    {
        if (!unfixed.empty())
        {
            FillClass(unfixed, rate);
        }
    }
    return m_group.size();
}

void
PriorityWaterFilling::FillClass(const std::vector<uint32_t>& unfixed, std::vector<double>& rate)
{
    if (++m_stamp == 0)
    {
        std::fill(m_pendingMark.begin(), m_pendingMark.end(), 0);
        std::fill(m_touchedMark.begin(), m_touchedMark.end(), 0);
        m_stamp = 1;
    }
    m_classCons.clear();
    m_fillClass = m_class[unfixed.front()];
    for (uint32_t f : unfixed)
    {
        m_pendingMark[f] = m_stamp;
        for (uint32_t i = m_consStart[f]; i < m_consStart[f + 1]; ++i)
        {
            const uint32_t k = m_consOfFlow[i];
            if (m_count[k]++ == 0)
            {
                m_classCons.push_back(k);
                m_classFlowsOn[k].clear();
            }
            m_classFlowsOn[k].push_back(f);
        }
    }
    // Few constraints: a linear scan for the bottleneck is cheaper than heap upkeep. Both pick
    // the smallest share, ties to the lower constraint index, so they give bit-identical rates.
    const bool useHeap = m_classCons.size() > LINEAR_SCAN_MAX;
    m_heap.clear();
    for (uint32_t k : m_classCons)
    {
        if (useHeap)
        {
            ++m_version[k];
            PushCandidate(k);
        }
        else
        {
            m_share[k] = ShareOf(k);
        }
    }
    std::size_t open = unfixed.size();
    Candidate top{0, UINT32_MAX, 0};
    while (open > 0 && (useHeap ? PopBottleneck(top) : ScanBottleneck(top)))
    {
        open -= FixBottleneck(top, useHeap, rate);
    }
}

double
PriorityWaterFilling::ShareOf(uint32_t k) const
{
    const double r = m_residual[k] < m_threshold[k] ? 0.0 : m_residual[k];
    return r / m_count[k];
}

uint32_t
PriorityWaterFilling::LastActiveClassBelow(uint32_t k, uint32_t below) const
{
    if (below == 0)
    {
        return NO_CLASS;
    }
    const uint64_t* words = m_activeClasses.data() + k * m_classWords;
    std::size_t w = (below - 1) / 64;
    const uint32_t inLast = below - 64 * static_cast<uint32_t>(w); // 1..64 bits of word w
    uint64_t bits = words[w] & (inLast == 64 ? ~uint64_t{0} : (uint64_t{1} << inLast) - 1);
    while (bits == 0)
    {
        if (w == 0)
        {
            return NO_CLASS;
        }
        bits = words[--w];
    }
    return static_cast<uint32_t>(64 * w + 63 - static_cast<std::size_t>(__builtin_clzll(bits)));
}

void
PriorityWaterFilling::PushCandidate(uint32_t k)
{
    m_heap.push_back({ShareOf(k), k, m_version[k]});
    std::push_heap(m_heap.begin(), m_heap.end(), std::greater<>());
}

bool
PriorityWaterFilling::PopBottleneck(Candidate& top)
{
    while (!m_heap.empty())
    {
        std::pop_heap(m_heap.begin(), m_heap.end(), std::greater<>());
        top = m_heap.back();
        m_heap.pop_back();
        if (top.version == m_version[top.k] && m_count[top.k] != 0)
        {
            return true;
        }
    }
    return false;
}

bool
PriorityWaterFilling::ScanBottleneck(Candidate& top)
{
    top = {0, UINT32_MAX, 0};
    for (std::size_t i = 0; i < m_classCons.size();)
    {
        const uint32_t k = m_classCons[i];
        if (m_count[k] == 0)
        {
            m_classCons[i] = m_classCons.back();
            m_classCons.pop_back();
            continue;
        }
        const Candidate c{m_share[k], k, 0};
        if (top.k == UINT32_MAX || top > c)
        {
            top = c;
        }
        ++i;
    }
    return top.k != UINT32_MAX;
}

std::size_t
PriorityWaterFilling::FixBottleneck(const Candidate& top, bool useHeap, std::vector<double>& rate)
{
    NS_LOG_LOGIC("bottleneck constraint " << top.k << ": fair share " << top.share);
    std::size_t fixed = 0;
    m_touched.clear();
    for (uint32_t f : m_classFlowsOn[top.k])
    {
        if (m_pendingMark[f] != m_stamp)
        {
            continue;
        }
        m_pendingMark[f] = 0;
        rate[f] = top.share;
        for (uint32_t i = m_consStart[f]; i < m_consStart[f + 1]; ++i)
        {
            const uint32_t k = m_consOfFlow[i];
            m_residual[k] = std::max(0.0, m_residual[k] - top.share);
            m_after[k * m_byClass.size() + m_fillClass] = m_residual[k];
            --m_count[k];
            if (m_touchedMark[k] != m_stamp)
            {
                m_touchedMark[k] = m_stamp;
                m_touched.push_back(k);
            }
        }
        ++fixed;
    }
    for (uint32_t k : m_touched)
    {
        m_touchedMark[k] = 0;
        ++m_version[k];
        if (m_count[k] > 0)
        {
            if (useHeap)
            {
                PushCandidate(k);
            }
            else
            {
                m_share[k] = ShareOf(k);
            }
        }
    }
    return fixed;
}

} // namespace ns3
