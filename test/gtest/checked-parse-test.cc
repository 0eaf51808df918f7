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

// The checked parsers (model/util/checked-parse.h) against ns-3's own conversions, and the
// scenario reader's 64-bit range checks before narrowing.

#include "ns3/checked-parse.h"
#include "ns3/crux-run-error.h"
#include "ns3/crux-scenario.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <limits>
#include <string>

using namespace ns3;

namespace
{

/// \return the InputError message of \p f ("" if it did not throw)
template <typename F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        return e.what();
    }
    return "";
}

/// \return the ScenarioError message of a scenario whose first job gets \p jobFields
std::string
ScenarioErrorOf(const std::string& top, const std::string& jobFields = "")
{
    return ErrorOf([&] {
        Scenario::Parse("{" + top + (top.empty() ? "" : ",") +
                            R"("jobs":[{"model":"gpt","gpus":8)" + jobFields + "}]}",
                        "t.json");
    });
}

} // namespace

TEST(CheckedParse, TimeEqualsNs3AndRefusesWhatNs3AbortsOn)
{
    for (const std::string t : {"1us", "2.5ms", "1e-6s", "3", "+4ns", "1.5min", "0s", ".5us"})
    {
        EXPECT_EQ(ParseTime(t, "f"), Time(t)) << t;
    }
    EXPECT_EQ(ParseTime("1us", "f"), MicroSeconds(1));
    for (const std::string t : {"abc",
                                "1usx",
                                "NaNs",
                                "1 us",
                                " 1us",
                                "1us ",
                                "",
                                "us",
                                "1e",
                                "1e400s",
                                "1e300y",
                                "1..5s"})
    {
        const std::string e = ErrorOf([&] { ParseTime(t, "topology.linkDelay"); });
        EXPECT_EQ(e.rfind("topology.linkDelay: ", 0), 0u) << t << " -> " << e;
    }
    EXPECT_NE(ErrorOf([] { ParseTime("-1us", "f"); }).find("negative"), std::string::npos);
    EXPECT_EQ(ParseTime("-1us", "f", true), MicroSeconds(-1));
    EXPECT_NE(ErrorOf([] { ParseTime("1fs", "f"); }).find("resolution"), std::string::npos);
}

TEST(CheckedParse, DataRateEqualsNs3AndRefusesSpacesAndZero)
{
    for (const std::string r : {"100Gbps", "12.5GB/s", "1000000", "1Kib/s", "3MiB/s", "1bps"})
    {
        EXPECT_EQ(ParseDataRate(r, "f"), DataRate(r)) << r;
    }
    for (const std::string r : {"100 Gbps",
                                "100Gbps ",
                                "abc",
                                "",
                                "1.5",
                                "-1Gbps",
                                "1e9bps",
                                "0Gbps",
                                "0.1bps",
                                "99999999999999999999Gbps",
                                "100gbps"})
    {
        const std::string e = ErrorOf([&] { ParseDataRate(r, "--hostLinkRate"); });
        EXPECT_EQ(e.rfind("--hostLinkRate: ", 0), 0u) << r << " -> " << e;
    }
}

TEST(CheckedParse, IntegersAreRangeCheckedOn64BitsBeforeNarrowing)
{
    EXPECT_EQ(ParseUint64("18446744073709551615", "f"), std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(ParseUint32("4294967295", "f"), 4294967295u);
    EXPECT_NE(ErrorOf([] { ParseUint32("4294967296", "--numLevels"); }).find("out of range"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseUint64("18446744073709551616", "f"); }).find("out of range"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseUint32("9", "f", 1, 8); }).find("out of range (1..8)"),
              std::string::npos);
    for (const std::string t : {"-1", "1.5", "abc", "", " 1", "1 ", "0x10", "1e3", "+1"})
    {
        EXPECT_EQ(ErrorOf([&] { ParseUint64(t, "--seed"); }),
                  "--seed: " + QuoteInput(t) + " is not a non-negative integer")
            << t;
    }
}

TEST(CheckedParse, DoublesAreFiniteAndWhole)
{
    EXPECT_EQ(ParseDouble("-2.5e3", "f"), -2500.0);
    for (const std::string t : {"nan", "inf", "-inf", "1e400", "", "1.5x", " 1", "0x1p3"})
    {
        EXPECT_EQ(ErrorOf([&] { ParseDouble(t, "--days"); }).rfind("--days: ", 0), 0u) << t;
    }
    // no upper bound: said in words, not as the largest double (1.79769e+308)
    EXPECT_EQ(ErrorOf([] { ParseDouble("-1", "f", 0); }), "f: -1 is out of range (must be >= 0)");
    EXPECT_EQ(ErrorOf([] { ParseDouble("9", "f", -std::numeric_limits<double>::max(), 5); }),
              "f: 9 is out of range (must be <= 5)");
    EXPECT_EQ(ErrorOf([] { ParseDouble("9", "f", 1, 8); }), "f: 9 is out of range (1..8)");
    EXPECT_EQ(ParseDurationSeconds("1.5d", "f"), 1.5 * 86400);
    EXPECT_EQ(ParseDurationSeconds("-1", "f"), -1.0);
    EXPECT_NE(ErrorOf([] { ParseDurationSeconds("6 h", "f"); }), "");
}

TEST(CheckedParse, ByteSizesAndMessagesStayOneLine)
{
    EXPECT_EQ(ParseByteSize("32MiB", "f"), 33554432u);
    EXPECT_EQ(ParseByteSize("1.5KB", "f"), 1500u);
    for (const std::string t : {"32 MiB", "0", "-1MiB", "nan", "1e30GiB", "32mib", ""})
    {
        EXPECT_NE(ErrorOf([&] { ParseByteSize(t, "f"); }), "") << t;
    }
    EXPECT_EQ(OneLine("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
    EXPECT_EQ(QuoteInput(std::string(100, 'x')), "'" + std::string(60, 'x') + "...'");
    EXPECT_EQ(QuoteInput("\xc3\xbc"), "'\xc3\xbc'"); // UTF-8 kept
}

TEST(CheckedParse, ScenarioNarrowsOnlyAfterTheRangeCheck)
{
    // 32-bit fields: 2^32 + 3 was read as 3, 10^12 as 3,567,587,328 (issue 15)
    EXPECT_NE(ScenarioErrorOf("", R"(,"iterations":4294967299)")
                  .find("t.json: jobs[0].iterations: 4294967299 is out of range"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf("", R"(,"iterations":1000000000000)").find("out of range"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"("priorityLevels":4294967297)")
                  .find("t.json: priorityLevels: 4294967297 is out of range"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf("", R"(,"hosts":[0,4294967296])").find("jobs[0].hosts[1]"),
              std::string::npos);
    // a key given twice was silently the later value (issue 29)
    EXPECT_NE(
        ScenarioErrorOf("", R"(,"gpus":0)").find("t.json: jobs[0].gpus: given twice in one object"),
        std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"("seed":1,"seed":2)").find("t.json: seed: given twice"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"("topology":{"tors":2,"aggs":1,"tors":4})")
                  .find("t.json: topology.tors: given twice"),
              std::string::npos);
    // keys of different objects may repeat
    EXPECT_EQ(ScenarioErrorOf(R"("name":"a","topology":{"type":"clos"})").find("given twice"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"("seed":4294967296)").find("t.json: seed: must be 1..4294944442"),
              std::string::npos);
    // ns-3's MRG32k3a ends the program for a seed at or above its modulus m2 = 4294944443
    EXPECT_NE(ScenarioErrorOf(R"("seed":4294944443)").find("t.json: seed: must be 1..4294944442"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"("seed":9223372036854775808)").find("seed"), std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"("stopTime":1e300)").find("t.json: stopTime:"), std::string::npos);
    // a number beyond a double: nlohmann's message named no field (issue 29)
    EXPECT_NE(ScenarioErrorOf(R"("stopTime":1e400)")
                  .find("t.json: stopTime: a number beyond the range of a double"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf("", R"(,"hosts":[0,1e400])")
                  .find("t.json: jobs[0].hosts[1]: a number beyond the range of a double"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] {
                  Scenario::Parse("[]", "t.json");
              }).find("t.json: the top level: must be a JSON object, got an array"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"("topology":{"linkDelay":"1 us"})")
                  .find("t.json: topology.linkDelay: '1 us' is not a time"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"("topology":{"hostLinkRate":"100 Gbps"})")
                  .find("t.json: topology.hostLinkRate: '100 Gbps' is not a data rate"),
              std::string::npos);
    EXPECT_NE(ScenarioErrorOf(R"("topology":{"aggs":2147483648})").find("topology.aggs"),
              std::string::npos);
    EXPECT_EQ(ScenarioErrorOf(R"("seed":4294944442)"), ""); // the largest seed ns-3 takes
}

// How every program prints an error: one line per line, control characters escaped, and the
// memory running out said in words (std::bad_alloc's what() is only "std::bad_alloc").
TEST(CruxRunError, FormatsOneLineEachAndNamesOutOfMemory)
{
    EXPECT_EQ(CruxRunError::Format("p", std::runtime_error("a\nb")), "p: error: a\\x0ab\n");
    EXPECT_EQ(CruxRunError::Format("p", CruxRunError(std::vector<std::string>{"x", "y"}), "r: "),
              "p: error: r: x\np: error: r: y\n");
    const std::string oom = CruxRunError::Format("p", std::bad_alloc());
    EXPECT_EQ(oom.rfind("p: error: out of memory (std::bad_alloc): ", 0), 0u) << oom;
    EXPECT_EQ(std::count(oom.begin(), oom.end(), '\n'), 1);
    EXPECT_EQ(CruxRunError::What(std::logic_error("plain")), "plain");
}
