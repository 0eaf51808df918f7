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

// PriorityWaterFilling (the FlowEvaluator's rate allocation): max-min fair rates on hand-worked
// cases, strict priority and starvation, the reduction to non-dominated links, and the heap and
// linear-scan bottleneck searches against the closed-form water level of one shared link.

#include "ns3/water-filling.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <stdexcept>

using namespace ns3;

namespace
{

/// \return the rates of the given active flows (other entries -1)
std::vector<double>
Rates(PriorityWaterFilling& w, std::size_t flows, const std::vector<uint32_t>& active)
{
    std::vector<double> rate(flows, -1.0);
    w.Compute(active, rate);
    return rate;
}

/// Flows i = 0..n-1 on a private link of capacity i + 1 and a shared link of capacity shared;
/// \return the max-min fair rates from the water level L with Σ min(i + 1, L) = shared.
std::vector<double>
SharedLinkLevels(uint32_t n, double shared)
{
    // Private capacities ascending: flows below the level get their own capacity.
    double left = shared;
    std::vector<double> rate(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const double level = left / (n - i);
        if (i + 1.0 <= level)
        {
            rate[i] = i + 1.0;
            left -= i + 1.0;
            continue;
        }
        for (uint32_t r = i; r < n; ++r)
        {
            rate[r] = level;
        }
        break;
    }
    return rate;
}

/// Checks PriorityWaterFilling against SharedLinkLevels for n flows.
void
CheckSharedLink(uint32_t n, double shared)
{
    std::vector<double> caps;
    std::vector<std::vector<uint32_t>> paths;
    for (uint32_t i = 0; i < n; ++i)
    {
        caps.push_back(i + 1.0);
        paths.push_back({i, n}); // private link, then the shared one
    }
    caps.push_back(shared);
    PriorityWaterFilling w(caps, paths, std::vector<uint32_t>(n, 0), 1);
    EXPECT_EQ(w.NumConstraints(), n + 1); // no private link is dominated (shared > every cap)
    std::vector<uint32_t> active(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        active[i] = n - 1 - i; // any order
    }
    const std::vector<double> got = Rates(w, n, active);
    const std::vector<double> want = SharedLinkLevels(n, shared);
    double sum = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        EXPECT_NEAR(got[i], want[i], 1e-9 * shared) << "flow " << i;
        sum += got[i];
    }
    EXPECT_NEAR(sum, shared, 1e-9 * shared); // the shared link is full
}

} // namespace

TEST(WaterFilling, MaxMinFairOnTwoLinks)
{
    // Link 0 (10) carries flows 0 and 1, link 1 (4) flows 1 and 2: link 1 is the bottleneck
    // (share 2 < 5), then flow 0 takes what is left of link 0: 10 - 2 = 8.
    PriorityWaterFilling w({10.0, 4.0}, {{0}, {0, 1}, {1}}, {0, 0, 0}, 1);
    const std::vector<double> r = Rates(w, 3, {0, 1, 2});
    EXPECT_DOUBLE_EQ(r[0], 8.0);
    EXPECT_DOUBLE_EQ(r[1], 2.0);
    EXPECT_DOUBLE_EQ(r[2], 2.0);
    // Only flows 0 and 1 active: flow 1 alone on link 1 (share 4 < 5 on link 0) gets 4, flow
    // 0 the 6 left on link 0; flow 2's entry is left alone.
    const std::vector<double> r2 = Rates(w, 3, {1, 0});
    EXPECT_DOUBLE_EQ(r2[0], 6.0);
    EXPECT_DOUBLE_EQ(r2[1], 4.0);
    EXPECT_EQ(r2[2], -1.0);
}

TEST(WaterFilling, StrictPriorityAndStarvation)
{
    // Flow 0 (class 0) fills link 1 (4); flow 1 (class 1, links 0 and 1) is starved at 0, and
    // flow 2 (class 1, link 0) then has link 0 (10) to itself.
    PriorityWaterFilling w({10.0, 4.0}, {{1}, {0, 1}, {0}}, {0, 1, 1}, 2);
    const std::vector<double> r = Rates(w, 3, {0, 1, 2});
    EXPECT_DOUBLE_EQ(r[0], 4.0);
    EXPECT_EQ(r[1], 0.0);
    EXPECT_DOUBLE_EQ(r[2], 10.0);

    // Three class-0 flows share a link of capacity 1 (1/3 each); whatever rounding leaves of
    // the capacity is below 1e-9 of it, so the class-1 flow gets exactly 0.
    PriorityWaterFilling s({1.0}, {{0}, {0}, {0}, {0}}, {0, 0, 0, 1}, 2);
    const std::vector<double> rs = Rates(s, 4, {0, 1, 2, 3});
    EXPECT_DOUBLE_EQ(rs[0], 1.0 / 3.0);
    EXPECT_EQ(rs[3], 0.0);
}

TEST(WaterFilling, DominatedLinksAreDropped)
{
    // Link 1 carries a subset of link 0's flows with more capacity: never the bottleneck.
    // Link 2 is a duplicate of link 0 (same capacity, same flows): kept once.
    PriorityWaterFilling w({10.0, 20.0, 10.0}, {{0, 1, 2}, {0, 2}}, {0, 0}, 1);
    EXPECT_EQ(w.NumConstraints(), 1u);
    const std::vector<double> r = Rates(w, 2, {0, 1});
    EXPECT_DOUBLE_EQ(r[0], 5.0);
    EXPECT_DOUBLE_EQ(r[1], 5.0);
    // A smaller link with a subset of the flows stays (it can be the bottleneck).
    PriorityWaterFilling v({10.0, 2.0}, {{0, 1}, {0}}, {0, 0}, 1);
    EXPECT_EQ(v.NumConstraints(), 2u);
    const std::vector<double> rv = Rates(v, 2, {0, 1});
    EXPECT_DOUBLE_EQ(rv[0], 2.0);
    EXPECT_DOUBLE_EQ(rv[1], 8.0);
}

TEST(WaterFilling, LinearScanMatchesClosedForm)
{
    CheckSharedLink(30, 300.0); // 31 constraints: linear scan
}

TEST(WaterFilling, HeapMatchesClosedForm)
{
    CheckSharedLink(100, 1000.0); // 101 constraints: binary heap
    CheckSharedLink(200, 15000.0);
}

TEST(WaterFilling, RejectsBadInput)
{
    EXPECT_THROW(PriorityWaterFilling({1.0}, {{0}}, {0, 0}, 1), std::invalid_argument);
    EXPECT_THROW(PriorityWaterFilling({1.0}, {{0}}, {1}, 1), std::invalid_argument);
    EXPECT_THROW(PriorityWaterFilling({1.0}, {{1}}, {0}, 1), std::invalid_argument);
}

TEST(WaterFilling, IncrementalUpdateIsBitIdenticalToCompute)
{
    // Random flows (1-3 links of 12-120, capacities 1-10, 3-12 classes) switched on and off at
    // random: after every step, Update() must give every active flow exactly (bit for bit) the
    // rate a full Compute() of the active set gives, although it refills only the flows the
    // changes can move (their groups, from the changed class down); more than 64 links in use
    // exercises the heap as well as the linear scan.
    std::mt19937 rng(7);
    for (const auto& [links, numClasses] :
         std::vector<std::pair<uint32_t, uint32_t>>{{12, 3}, {40, 3}, {120, 3}, {40, 8}, {120, 12}})
    {
        std::vector<double> caps(links);
        for (double& c : caps)
        {
            c = 1.0 + std::uniform_int_distribution<int>(0, 90)(rng) / 10.0;
        }
        const std::size_t n = 400;
        std::vector<std::vector<uint32_t>> paths(n);
        std::vector<uint32_t> classes(n);
        for (std::size_t f = 0; f < n; ++f)
        {
            const int hops = std::uniform_int_distribution<int>(1, 3)(rng);
            for (int h = 0; h < hops; ++h)
            {
                paths[f].push_back(std::uniform_int_distribution<uint32_t>(0, links - 1)(rng));
            }
            classes[f] = std::uniform_int_distribution<uint32_t>(0, numClasses - 1)(rng);
        }
        PriorityWaterFilling inc(caps, paths, classes, numClasses);
        PriorityWaterFilling full(caps, paths, classes, numClasses);
        std::vector<bool> on(n, false);
        std::vector<double> rate(n, 0.0);
        std::size_t refilled = 0;
        std::size_t activeSum = 0;
        for (int step = 0; step < 300; ++step)
        {
            const int changes = std::uniform_int_distribution<int>(1, 4)(rng);
            for (int c = 0; c < changes; ++c)
            {
                const uint32_t f = std::uniform_int_distribution<uint32_t>(0, n - 1)(rng);
                if (on[f])
                {
                    inc.Deactivate(f);
                }
                else
                {
                    inc.Activate(f);
                }
                on[f] = !on[f];
            }
            refilled += inc.Update(rate);
            std::vector<uint32_t> active;
            for (uint32_t f = 0; f < n; ++f)
            {
                if (on[f])
                {
                    active.push_back(f);
                }
            }
            activeSum += active.size();
            std::vector<double> want(n, -1.0);
            full.Compute(active, want);
            for (uint32_t f : active)
            {
                ASSERT_EQ(rate[f], want[f])
                    << "links " << links << " step " << step << " flow " << f;
            }
        }
        if (links == 120 || numClasses > 3)
        {
            EXPECT_LT(refilled, activeSum); // groups from the changed class down, not everything
        }
    }
}

TEST(WaterFilling, IncrementalUpdateLeavesHigherClassesAlone)
{
    // One 10-unit link; A of class 0, B and C of class 1. A change of class 1 cannot move A's
    // rate (strict priority), so Update() refills only class 1; a change of class 0 refills both.
    PriorityWaterFilling wf({10.0}, {{0}, {0}, {0}}, {0, 1, 1}, 2);
    std::vector<double> rate(3, -1.0);
    wf.Activate(0);
    wf.Activate(1);
    EXPECT_EQ(wf.Update(rate), 2U);
    EXPECT_EQ(rate[0], 10.0);
    EXPECT_EQ(rate[1], 0.0);
    wf.Activate(2);
    EXPECT_EQ(wf.Update(rate), 2U); // B and C, not A
    EXPECT_EQ(rate[0], 10.0);
    EXPECT_EQ(rate[2], 0.0);
    wf.Deactivate(0);
    EXPECT_EQ(wf.Update(rate), 2U);
    EXPECT_EQ(rate[1], 5.0);
    EXPECT_EQ(rate[2], 5.0);
    wf.Activate(0);
    EXPECT_EQ(wf.Update(rate), 3U);
    EXPECT_EQ(rate[0], 10.0);
    EXPECT_EQ(rate[1], 0.0);
    wf.Deactivate(1);
    EXPECT_EQ(wf.Update(rate), 1U); // C only, on the residual A left
    EXPECT_EQ(rate[2], 0.0);
    wf.Deactivate(0);
    EXPECT_EQ(wf.Update(rate), 1U);
    EXPECT_EQ(rate[2], 10.0);
}

TEST(WaterFilling, ComputeBetweenUpdatesLeavesTheIncrementalRatesRight)
{
    // Link 0 (10 units) carries A (class 0), B and C (class 1); D (class 0) crosses link 0 and
    // link 1 (4 units). Incrementally A and C are active: A 10, C 0. A Compute() of D alone
    // in between fills class 0 with another set (D 4, residual 6 on link 0); B's activation
    // after it must still see A's residual 0 on link 0, not D's 6.
    PriorityWaterFilling wf({10.0, 4.0}, {{0}, {0}, {0}, {0, 1}}, {0, 1, 1, 0}, 2);
    std::vector<double> rate(4, -1.0);
    wf.Activate(0);
    wf.Activate(2);
    wf.Update(rate);
    EXPECT_EQ(rate[0], 10.0);
    EXPECT_EQ(rate[2], 0.0);
    std::vector<double> other(4, -1.0);
    wf.Compute({3}, other);
    EXPECT_EQ(other[3], 4.0);
    wf.Activate(1);
    wf.Update(rate);
    EXPECT_EQ(rate[0], 10.0);
    EXPECT_EQ(rate[1], 0.0);
    EXPECT_EQ(rate[2], 0.0);
}

TEST(WaterFilling, GrowingFormMatchesTheReducedForm)
{
    // The form FlowTransport uses (links and flows added as they come, no reduction, a tie to
    // the lower link id) against the reduced form on the same random flows: the same rates up to
    // rounding (the two fill in another order of equal-share bottlenecks), and its incremental
    // Update() bit for bit equal to its own full Compute(). Flows are added in the middle of the
    // run, as connections appear.
    std::mt19937 rng(11);
    for (uint32_t links : {10U, 90U})
    {
        std::vector<double> caps(links);
        for (double& c : caps)
        {
            c = 1.0 + std::uniform_int_distribution<int>(0, 90)(rng) / 10.0;
        }
        const std::size_t n = 300;
        std::vector<std::vector<uint32_t>> paths(n);
        std::vector<uint32_t> classes(n);
        for (std::size_t f = 0; f < n; ++f)
        {
            const int hops = std::uniform_int_distribution<int>(1, 3)(rng);
            for (int h = 0; h < hops; ++h)
            {
                paths[f].push_back(std::uniform_int_distribution<uint32_t>(0, links - 1)(rng));
            }
            classes[f] = std::uniform_int_distribution<uint32_t>(0, 2)(rng);
        }
        PriorityWaterFilling reduced(caps, paths, classes, 3);
        PriorityWaterFilling grow(3);
        PriorityWaterFilling growFull(3);
        for (double c : caps)
        {
            EXPECT_EQ(grow.AddLink(c), growFull.AddLink(c));
        }
        EXPECT_EQ(grow.NumConstraints(), links);
        std::vector<bool> on(n, false);
        std::vector<double> rate(n, 0.0);
        std::size_t added = 0;
        double worst = 0;
        for (int step = 0; step < 200; ++step)
        {
            // ten more flows every ten steps
            if (step % 10 == 0)
            {
                for (std::size_t k = 0; k < 15 && added < n; ++k, ++added)
                {
                    EXPECT_EQ(grow.AddFlow(paths[added], classes[added]), added);
                    EXPECT_EQ(growFull.AddFlow(paths[added], classes[added]), added);
                }
            }
            const int changes = std::uniform_int_distribution<int>(1, 4)(rng);
            for (int c = 0; c < changes; ++c)
            {
                const uint32_t f = std::uniform_int_distribution<uint32_t>(0, added - 1)(rng);
                if (on[f])
                {
                    grow.Deactivate(f);
                }
                else
                {
                    grow.Activate(f);
                }
                on[f] = !on[f];
            }
            grow.Update(rate);
            std::vector<uint32_t> active;
            for (uint32_t f = 0; f < added; ++f)
            {
                if (on[f])
                {
                    active.push_back(f);
                }
            }
            std::vector<double> full(n, -1.0);
            growFull.Compute(active, full);
            std::vector<double> want(n, -1.0);
            reduced.Compute(active, want);
            for (uint32_t f : active)
            {
                ASSERT_EQ(rate[f], full[f]) << "flow " << f << " step " << step;
                ASSERT_NEAR(rate[f], want[f], 1e-9 * 10.0) << "flow " << f << " step " << step;
                worst = std::max(worst, std::abs(rate[f] - want[f]));
            }
        }
        EXPECT_EQ(grow.NumFlows(), n);
        EXPECT_LT(worst, 1e-9);
    }
}

TEST(WaterFilling, GrowingFormRejectsBadInput)
{
    PriorityWaterFilling grow(2);
    EXPECT_THROW(grow.AddLink(0.0), std::invalid_argument);
    EXPECT_EQ(grow.AddLink(5.0), 0U);
    EXPECT_THROW(grow.AddFlow({}, 0), std::invalid_argument);
    EXPECT_THROW(grow.AddFlow({1}, 0), std::invalid_argument);
    EXPECT_THROW(grow.AddFlow({0}, 2), std::invalid_argument);
    EXPECT_EQ(grow.NumFlows(), 0U);
    EXPECT_EQ(grow.AddFlow({0, 0}, 1), 0U); // a link listed twice counts once
    std::vector<double> rate(1, 0.0);
    grow.Activate(0);
    EXPECT_EQ(grow.Update(rate), 1U);
    EXPECT_EQ(rate[0], 5.0);
    PriorityWaterFilling reduced({1.0}, {{0}}, {0}, 1);
    EXPECT_THROW(reduced.AddLink(1.0), std::invalid_argument);
    EXPECT_THROW(reduced.AddFlow({0}, 0), std::invalid_argument);
}
