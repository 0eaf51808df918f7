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

// Summarize (Student-t interval), the table number formats, the contention decomposition and
// the one definition of t_j / I_j (ns3/gpu-intensity.h), against hand-computed values.

#include "ns3/contention-decomposition.h"
#include "ns3/gpu-intensity.h"
#include "ns3/sample-statistics.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <stdexcept>

using namespace ns3;

TEST(SampleStatistics, StudentTIntervalOfKnownSamples)
{
    // 1, 2, 3, 4, 5: mean 3, s = sqrt(2.5); t_{0.975,4} = 2.776445 (tables)
    const SampleSummary s = Summarize({1, 2, 3, 4, 5});
    EXPECT_EQ(s.n, 5u);
    EXPECT_DOUBLE_EQ(s.mean, 3.0);
    EXPECT_NEAR(s.stddev, std::sqrt(2.5), 1e-12);
    EXPECT_NEAR(s.halfWidth, 2.776445 * std::sqrt(2.5) / std::sqrt(5.0), 1e-5);
    EXPECT_NEAR(s.Low(), 3 - s.halfWidth, 1e-15);
    // two samples: t_{0.975,1} = 12.7062
    const SampleSummary two = Summarize({0.2, 0.4});
    EXPECT_NEAR(two.halfWidth, 12.7062 * std::sqrt(0.02) / std::sqrt(2.0), 1e-4);
    // 90 %: t_{0.95,4} = 2.131847
    EXPECT_NEAR(Summarize({1, 2, 3, 4, 5}, 0.90).halfWidth,
                2.131847 * std::sqrt(2.5) / std::sqrt(5.0),
                1e-5);
}

TEST(SampleStatistics, NoIntervalBelowTwoSamples)
{
    EXPECT_EQ(Summarize({}).n, 0u);
    const SampleSummary one = Summarize({0.5});
    EXPECT_DOUBLE_EQ(one.mean, 0.5);
    EXPECT_EQ(one.halfWidth, 0.0);
    EXPECT_EQ(FormatInterval(one), "0.5000");
    EXPECT_THROW(Summarize({1, std::nan("")}), std::invalid_argument);
    // equal measurements (a run standing for every seed): that value, no interval
    const SampleSummary same = Summarize({0.1, 0.1, 0.1});
    EXPECT_EQ(same.mean, 0.1);
    EXPECT_EQ(same.halfWidth, 0.0);
    EXPECT_EQ(FormatInterval(same), "0.1000");
    EXPECT_THROW(Summarize({1, 2}, 1.0), std::invalid_argument);
}

TEST(SampleStatistics, IntervalShrinksWithMoreSamples)
{
    // the same spread, more samples: t and 1/sqrt(n) both fall
    const std::vector<double> three{0.9, 1.0, 1.1};
    std::vector<double> ten;
    for (int i = 0; i < 10; ++i)
    {
        ten.push_back(three[i % 3]);
    }
    EXPECT_LT(Summarize(ten).halfWidth, Summarize(three).halfWidth / 2);
}

TEST(SampleStatistics, Formats)
{
    EXPECT_EQ(FormatSignificant(0.27471), "0.2747");
    EXPECT_EQ(FormatSignificant(1284.4), "1284");
    EXPECT_EQ(FormatSignificant(12), "12.00");
    EXPECT_EQ(FormatSignificant(9.99996), "10.00");
    EXPECT_EQ(FormatSignificant(-0.00001, 2), "-0.000010");
    EXPECT_EQ(FormatSignificant(std::numeric_limits<double>::infinity()), "–");
    EXPECT_EQ(FormatSignificant(std::nan("")), "–");
    EXPECT_EQ(FormatDuration(1.28437), "1.284 s");
    EXPECT_EQ(FormatDuration(0.2747123), "274.7 ms");
    EXPECT_EQ(FormatDuration(0.0007), "700.0 us");
    EXPECT_EQ(FormatDuration(83.2e-6), "83.20 us");
    EXPECT_EQ(FormatDuration(12e-9), "12.00 ns");
    EXPECT_EQ(FormatDuration(0), "0.000 s");
    EXPECT_EQ(FormatDuration(-1), "–");
    SampleSummary s;
    s.n = 5;
    s.mean = 0.27471;
    s.halfWidth = 0.01234;
    EXPECT_EQ(FormatInterval(s), "0.275 ± 0.012");
    EXPECT_EQ(FormatInterval(s, 100), "27.5 ± 1.2");
    s.halfWidth = 0.0000123;
    EXPECT_EQ(FormatInterval(s), "0.2747 ± <0.0001"); // never more than 4 significant digits
    s.mean = 12345.6;
    s.halfWidth = 0.3;
    EXPECT_EQ(FormatInterval(s), "12346 ± <1"); // below the units digit of a 5-digit mean
    s.mean = 0.27471;
    // rounding noise of x / x - 1 prints as 0
    EXPECT_EQ(FormatSignificant(-2.22e-16 * 100), "0.000");
    s.mean = -8.9e-17;
    s.halfWidth = 8.2e-17;
    EXPECT_EQ(FormatInterval(s, 100), "0.000");
}

TEST(ContentionDecomposition, TermsAddUp)
{
    ContentionDecomposition d;
    d.aloneEcmp = 0.40;
    d.aloneFree = 0.50;
    d.alonePaths = 0.48;
    d.mixOneClass = 0.36;
    d.mix = 0.44;
    EXPECT_NEAR(d.OwnFlowLoss(), 0.10, 1e-15);
    EXPECT_NEAR(d.PathGain(), 0.08, 1e-15);
    EXPECT_NEAR(d.InterJobLoss(), 0.12, 1e-15);
    EXPECT_NEAR(d.PriorityRecovery(), 0.08, 1e-15);
    EXPECT_TRUE(d.HasOneClass());
    EXPECT_NEAR(d.Residual(), 0, 1e-15);
    EXPECT_NEAR(d.mix - d.aloneEcmp, d.PathGain() - d.InterJobLoss() + d.PriorityRecovery(), 1e-15);
    // one class: no priority term, the inter-job loss is all of alone@paths − mix
    d.mixOneClass.reset();
    d.aloneFree.reset();
    EXPECT_EQ(d.PriorityRecovery(), 0.0);
    EXPECT_NEAR(d.InterJobLoss(), 0.04, 1e-15);
    EXPECT_EQ(d.OwnFlowLoss(), 0.0);
    EXPECT_NEAR(d.Residual(), 0, 1e-15);
}

TEST(GpuIntensityDefinition, BusiestLinkAndDegenerateCases)
{
    auto bw = [](uint32_t link) { return link == 0 ? 100e9 : 800e9; };
    // 1 GB on a 100 Gbit/s link: 0.08 s; 4 GB on an 800 Gbit/s link: 0.04 s
    EXPECT_NEAR(BusiestLinkTime({{0, 1e9}, {1, 4e9}}, bw), 0.08, 1e-15);
    EXPECT_EQ(BusiestLinkTime({}, bw), 0.0);
    // a link without bytes is not asked for its bandwidth
    EXPECT_EQ(BusiestLinkTime({{7, 0.0}}, [](uint32_t) { return 0.0; }), 0.0);
    EXPECT_THROW(BusiestLinkTime({{7, 1.0}}, [](uint32_t) { return 0.0; }), std::invalid_argument);
    EXPECT_DOUBLE_EQ(GpuIntensity(1e12, 0.5), 2e12);
    EXPECT_EQ(GpuIntensity(0, 0), 0.0); // computes nothing: no intensity, whatever t_j is
    EXPECT_TRUE(std::isinf(GpuIntensity(1e12, 0)));
}
