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

// System tests of the trace-driven cluster runner (ClusterRun, engine "epoch"): a short window
// of a generated trace gives identical files twice with the same seed and different ones with
// another seed; every arrival and completion re-runs the scheduler and a more intensive arrival
// changes the installed levels; two jobs sharing a ToR-aggregation link slow each other under
// ECMP and Crux does at least as well; GPUs and jobs are conserved; bad config names the field;
// the contention decomposition (utilization with every job alone on its ECMP default / installed
// paths) bounds the real utilization and is exact for a job alone; zero-duration trace jobs are
// left out and counted; progress lines change no output file.

#include "ns3/cluster-run.h"
#include "ns3/crux-experiment.h"
#include "ns3/rfc4180-csv.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// \return the whole file
std::string
Slurp(const std::filesystem::path& p)
{
    std::ifstream in(p);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

/// A fresh temporary directory.
std::filesystem::path
TempDir(const std::string& tag)
{
    auto p = std::filesystem::temp_directory_path() /
             ("crux-cluster-run-" + tag + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(p);
    return p;
}

/// 8 ToRs x 4 hosts x 8 GPUs = 256 GPUs, 2 aggregation switches; 6 h of a one-day trace.
ClusterRunConfig
SmallWindowConfig(uint64_t seed, const std::string& out)
{
    ClusterRunConfig c;
    c.topology = "clos";
    c.clos.tors = 8;
    c.clos.aggs = 2;
    c.clos.hostsPerTor = 4;
    c.traceDays = 1;
    c.windowStart = 0;
    c.windowEnd = 6 * 3600.0;
    c.drainSeconds = 12 * 3600.0;
    c.schedulers = {"crux", "ecmp"};
    c.seed = seed;
    c.outputDir = out;
    return c;
}

/// Two 16-GPU jobs on hosts {0, 2} and {1, 3} of a 2-ToR, 1-aggregation Clos (every
/// inter-ToR flow crosses the single ToR-agg link of its direction): A arrives at 0 and runs
/// 600 s of trace time, B arrives at 100 s and runs 200 s.
ClusterRunConfig
TwoJobConfig(const std::string& modelA, const std::string& modelB)
{
    ClusterRunConfig c;
    c.topology = "clos";
    c.clos.tors = 2;
    c.clos.aggs = 1;
    c.clos.hostsPerTor = 2;
    c.clos.torAggBps = 25e9;
    c.placement = "trace";
    c.windowEnd = 1000;
    TraceJob a;
    a.name = "A";
    a.modelLabel = modelA;
    a.submit = 0;
    a.start = 0;
    a.end = 600;
    a.gpus = 16;
    a.hosts = {0, 2};
    a.gpusPerHost = {8, 8};
    TraceJob b = a;
    b.name = "B";
    b.modelLabel = modelB;
    b.submit = 100;
    b.start = 100;
    b.end = 300;
    b.hosts = {1, 3};
    c.jobs = {a, b};
    return c;
}

/// \return summary.json of a scheduler directory
nlohmann::json
ReadSummary(const std::filesystem::path& dir)
{
    return nlohmann::json::parse(Slurp(dir / "summary.json"));
}

/// \return the time-weighted mean over [lo, hi] of one column of utilization.csv (a row holds
/// until the next; the last row until hi)
double
CsvStepMean(const std::filesystem::path& file, const std::string& column, double lo, double hi)
{
    std::istringstream in(Slurp(file));
    std::string line;
    std::getline(in, line);
    std::vector<std::string> header;
    {
        std::istringstream hs(line);
        std::string h;
        while (std::getline(hs, h, ','))
        {
            header.push_back(h);
        }
    }
    const size_t col = std::find(header.begin(), header.end(), column) - header.begin();
    std::vector<std::pair<double, double>> rows;
    while (std::getline(in, line))
    {
        std::istringstream ls(line);
        std::string cell;
        std::vector<double> v;
        while (std::getline(ls, cell, ','))
        {
            v.push_back(std::stod(cell));
        }
        if (col < v.size())
        {
            rows.emplace_back(v.at(0), v.at(col));
        }
    }
    double area = 0;
    for (size_t k = 0; k < rows.size(); ++k)
    {
        const double a = std::max(lo, rows[k].first);
        const double b = std::min(hi, k + 1 < rows.size() ? rows[k + 1].first : hi);
        if (b > a)
        {
            area += rows[k].second * (b - a);
        }
    }
    return hi > lo ? area / (hi - lo) : 0.0;
}

} // namespace

/**
 * \ingroup crux-tests
 * \brief Same seed -> identical jobs.csv / utilization.csv / decisions.csv; another seed ->
 * different jobs.csv; conservation of GPUs and jobs.
 */
class ClusterRunDeterminismTestCase : public TestCase
{
  public:
    ClusterRunDeterminismTestCase()
        : TestCase("6 h window twice with the same seed: identical files; other seed differs; "
                   "busy GPUs <= total; every job finished or reported")
    {
    }

  private:
    void DoRun() override
    {
        const auto d1 = TempDir("a");
        const auto d2 = TempDir("b");
        const auto d3 = TempDir("c");
        ClusterRun r1(SmallWindowConfig(1, d1.string()));
        const auto res1 = r1.RunAll();
        r1.WriteResults(res1);
        ClusterRun r2(SmallWindowConfig(1, d2.string()));
        r2.WriteResults(r2.RunAll());
        ClusterRun r3(SmallWindowConfig(2, d3.string()));
        r3.WriteResults(r3.RunAll());

        NS_TEST_ASSERT_MSG_GT(r1.GetWindowJobs().size(), 20, "the window holds real work");
        for (const char* f : {"jobs.csv", "utilization.csv", "decisions.csv", "link-intensity.csv"})
        {
            const std::string a = Slurp(d1 / "crux" / f);
            NS_TEST_ASSERT_MSG_GT(a.size(), 100, std::string(f) + " has content");
            NS_TEST_ASSERT_MSG_EQ(a, Slurp(d2 / "crux" / f), std::string(f) + " same seed");
        }
        NS_TEST_ASSERT_MSG_NE(Slurp(d1 / "crux" / "jobs.csv"),
                              Slurp(d3 / "crux" / "jobs.csv"),
                              "another seed gives another trace");

        // Conservation, on the ECMP run (index 1).
        const ClusterRunResult& r = res1.at(1);
        NS_TEST_ASSERT_MSG_EQ(r.scheduler, "ecmp", "second run");
        const uint32_t total = r1.GetTopology().NumGpus();
        NS_TEST_ASSERT_MSG_EQ(total, 256, "8 x 4 x 8 GPUs");
        bool sawBusy = false;
        for (const auto& u : r.util)
        {
            NS_TEST_ASSERT_MSG_LT_OR_EQ(u.busyGpus, total, "busy GPUs <= total at " << u.time);
            NS_TEST_ASSERT_MSG_LT_OR_EQ(u.utilization, 1.0 + 1e-9, "utilization <= 1");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(u.utilization, 0.0, "utilization >= 0");
            sawBusy = sawBusy || u.busyGpus > 0;
        }
        NS_TEST_ASSERT_MSG_EQ(sawBusy, true, "GPUs were busy");
        NS_TEST_ASSERT_MSG_EQ(r.jobs.size(), r1.GetWindowJobs().size(), "one row per window job");
        NS_TEST_ASSERT_MSG_EQ(r.jobsFinished + r.jobsUnfinished + r.jobsUnplaceable,
                              r.jobs.size(),
                              "every job finished, unfinished or unplaceable");
        NS_TEST_ASSERT_MSG_GT(r.jobsFinished, 10, "most jobs finish");
        for (const auto& j : r.jobs)
        {
            if (j.end >= 0)
            {
                NS_TEST_ASSERT_MSG_GT_OR_EQ(j.start, j.arrival - 1e-9, "placed after arrival");
                NS_TEST_ASSERT_MSG_GT_OR_EQ(j.end, j.start, "ends after start");
                NS_TEST_ASSERT_MSG_EQ_TOL(j.done, j.work, 1e-9 * (1 + j.work), "all work done");
                // Under ECMP (the paths the stand-alone rate was measured on) contention can
                // only slow a job: it needs at least its trace duration. (Under crux a job can
                // beat its ECMP stand-alone rate: path selection also removes the collisions
                // of the job's own flows.)
                const double duration = j.aloneIter * j.work;
                NS_TEST_ASSERT_MSG_GT_OR_EQ(j.end - j.start,
                                            duration * (1 - 1e-6) - 1e-6,
                                            "job " << j.name << " not faster than alone");
            }
            else if (!j.unplaceable)
            {
                NS_TEST_ASSERT_MSG_LT(j.done, j.work, "an unfinished job has work left");
            }
        }
        std::filesystem::remove_all(d1);
        std::filesystem::remove_all(d2);
        std::filesystem::remove_all(d3);
    }
};

/**
 * \ingroup crux-tests
 * \brief Rescheduling on every arrival and completion; contention on a shared ToR-agg link.
 */
class ClusterRunReschedulingTestCase : public TestCase
{
  public:
    ClusterRunReschedulingTestCase()
        : TestCase("two jobs: decision at each arrival and completion, the more intensive "
                   "arrival gets the higher level; ECMP sharing slows A, crux >= ecmp")
    {
    }

  private:
    void DoRun() override
    {
        // The communication-bound MIND job (A) shares with the compute-heavy GPT job (B).
        ClusterRunConfig c = TwoJobConfig("multi-interests", "gpt");
        c.schedulers = {"crux", "ecmp"};
        ClusterRun run(c);
        const auto runs = run.RunAll();
        const ClusterRunResult& crux = runs.at(0);
        const ClusterRunResult& ecmp = runs.at(1);
        const ClusterJobResult& a = crux.jobs.at(0);
        const ClusterJobResult& b = crux.jobs.at(1);
        NS_TEST_ASSERT_MSG_EQ(a.name, "A", "job order");
        NS_TEST_ASSERT_MSG_GT(b.intensity, a.intensity, "B is the more intensive job");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(b.end, 0.0, "B finished");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(a.end, 0.0, "A finished");
        NS_TEST_ASSERT_MSG_LT(b.end, a.end, "B finishes first");

        // Decision times: A's arrival, B's arrival, B's completion (A's completion leaves no
        // running job, so nothing to decide).
        std::map<double, std::map<uint32_t, uint32_t>> levels; // time -> job -> level
        for (const auto& d : crux.decisions)
        {
            levels[d.time][d.job] = d.level;
        }
        NS_TEST_ASSERT_MSG_EQ(crux.decisionsMade,
                              3,
                              "one decision per arrival/completion (at distinct instants)");
        NS_TEST_ASSERT_MSG_EQ(levels.size(), 3, "three decision times");
        auto it = levels.begin();
        NS_TEST_ASSERT_MSG_EQ_TOL(it->first, 0.0, 1e-9, "decision at A's arrival");
        NS_TEST_ASSERT_MSG_EQ(it->second.size(), 1, "only A");
        const uint32_t aAlone = it->second.at(0);
        ++it;
        NS_TEST_ASSERT_MSG_EQ_TOL(it->first, 100.0, 1e-9, "decision at B's arrival");
        NS_TEST_ASSERT_MSG_EQ(it->second.size(), 2, "A and B");
        NS_TEST_ASSERT_MSG_GT(it->second.at(1), it->second.at(0), "B above A");
        const bool changed = it->second.at(0) != aAlone || it->second.at(1) != aAlone;
        NS_TEST_ASSERT_MSG_EQ(changed, true, "installed levels changed at B's arrival");
        ++it;
        NS_TEST_ASSERT_MSG_EQ_TOL(it->first, b.end, 1e-6, "decision at B's completion");
        NS_TEST_ASSERT_MSG_EQ(it->second.size(), 1, "only A left");

        // link-intensity.csv's bins partition time: a bin width whose multiples a / bin rounds
        // below (10.1 s: 13 x 10.1 / 10.1 < 13) once hung the run; the bytes are the same.
        {
            ClusterRunConfig fine = c;
            fine.schedulers = {"ecmp"};
            fine.binSeconds = 10.1;
            ClusterRun finer(fine);
            const auto fr = finer.RunAll();
            auto total = [](const ClusterRunResult& r) {
                double bytes = 0;
                for (const auto& [key, cell] : r.linkBins)
                {
                    bytes += cell.first;
                }
                return bytes;
            };
            const double wide = total(ecmp);
            NS_TEST_ASSERT_MSG_GT(wide, 0.0, "ECMP's run put bytes on links");
            NS_TEST_ASSERT_MSG_EQ_TOL(total(fr.at(0)) / wide,
                                      1.0,
                                      1e-9,
                                      "10.1 s bins hold the bytes of 3600 s bins");
            NS_TEST_ASSERT_MSG_GT(fr.at(0).linkBins.size(),
                                  ecmp.linkBins.size(),
                                  "more bins with traffic");
        }

        // Contention under ECMP: A's mean iteration time exceeds its stand-alone one.
        const ClusterJobResult& ea = ecmp.jobs.at(0);
        const double meanIter = (ea.end - ea.start) / ea.done;
        NS_TEST_ASSERT_MSG_GT(meanIter, ea.aloneIter * 1.01, "sharing the ToR-agg link slows A");
        NS_TEST_ASSERT_MSG_GT(ecmp.jobs.at(1).end - 100.0, 200.0 * 1.01, "and B");
        // Crux gives the intensive job priority: cluster utilization at least ECMP's.
        NS_TEST_ASSERT_MSG_GT_OR_EQ(crux.meanUtilization,
                                    ecmp.meanUtilization - 1e-12,
                                    "crux utilization >= ecmp");
        // B (prioritised) runs close to its stand-alone speed under crux.
        NS_TEST_ASSERT_MSG_LT(b.end - 100.0, ecmp.jobs.at(1).end - 100.0, "B faster under crux");

        // Work model "duration": jobs end at arrival + trace duration; the scheduler's effect
        // shows in the GPU utilization (B's extra GPT iterations under crux).
        c.workModel = "duration";
        ClusterRun fixed(c);
        const auto fr = fixed.RunAll();
        NS_TEST_ASSERT_MSG_EQ_TOL(fr.at(0).jobs.at(1).end, 300.0, 1e-6, "B ends at 300 s");
        NS_TEST_ASSERT_MSG_EQ_TOL(fr.at(1).jobs.at(0).end, 600.0, 1e-6, "A ends at 600 s");
        NS_TEST_ASSERT_MSG_GT(fr.at(0).jobs.at(1).done,
                              fr.at(1).jobs.at(1).done,
                              "B completes more iterations under crux");
        NS_TEST_ASSERT_MSG_GT(fr.at(0).meanUtilization,
                              fr.at(1).meanUtilization,
                              "duration model: crux utilization > ecmp");
    }
};

/**
 * \ingroup crux-tests
 * \brief Engine "flow" (jobs as DltJobApplications on a LiveClusterFabric, decisions installed
 * on the running fabric) against engine "epoch" on the two-job case.
 */
class ClusterRunFlowEngineTestCase : public TestCase
{
  public:
    ClusterRunFlowEngineTestCase()
        : TestCase("two jobs: engine flow agrees with engine epoch on completion times, and "
                   "installs a decision at each arrival and completion")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string sched : {"ecmp", "crux"})
        {
            ClusterRunConfig c = TwoJobConfig("multi-interests", "gpt");
            c.schedulers = {sched};
            ClusterRun epochRun(c);
            const ClusterRunResult e = epochRun.Run(sched);
            c.engine = "flow";
            ClusterRun flowRun(c);
            const ClusterRunResult f = flowRun.Run(sched);
            NS_TEST_ASSERT_MSG_EQ(f.decisionsMade, 3, sched << ": three decisions (flow)");
            NS_TEST_ASSERT_MSG_EQ(f.jobsFinished, 2, sched << ": both finish (flow)");
            for (uint32_t k = 0; k < 2; ++k)
            {
                const double je = e.jobs[k].end - e.jobs[k].start;
                const double jf = f.jobs[k].end - f.jobs[k].start;
                NS_TEST_EXPECT_MSG_EQ_TOL(jf / je,
                                          1.0,
                                          0.05,
                                          sched << " job " << e.jobs[k].name << ": flow " << jf
                                                << " s vs epoch " << je << " s");
            }
            for (const auto& u : f.util)
            {
                NS_TEST_ASSERT_MSG_LT_OR_EQ(u.utilization, 1.0 + 1e-9, "flow utilization <= 1");
            }
            // The decomposition in the flow engine: the stand-alone series come from the same
            // evaluator as in the epoch engine; only the running intervals differ (JCTs agree
            // within 5 %), so the window means agree within that too.
            NS_TEST_ASSERT_MSG_GT(f.meanUtilAloneDefault, 0.0, sched << ": flow alone@ECMP");
            NS_TEST_EXPECT_MSG_EQ_TOL(f.meanUtilAloneDefault / e.meanUtilAloneDefault,
                                      1.0,
                                      0.05,
                                      sched << ": alone@ECMP flow vs epoch");
            if (sched == "ecmp")
            {
                NS_TEST_ASSERT_MSG_EQ_TOL(f.meanUtilAloneInstalled,
                                          f.meanUtilAloneDefault,
                                          1e-12 * f.meanUtilAloneDefault,
                                          "flow ecmp: alone@paths == alone@ECMP");
            }
        }
    }
};

/**
 * \ingroup crux-tests
 * \brief --placement=trace replays the recorded hosts: no FIFO (a job whose recorded GPUs are
 * free starts although an earlier one waits), pods without GPUs hold no host, and unequal
 * GPUs per host are unplaceable with the reason.
 */
class ClusterRunRecordedPlacementTestCase : public TestCase
{
  public:
    ClusterRunRecordedPlacementTestCase()
        : TestCase("recorded placement: each job starts when its own GPUs are free, a pod "
                   "without GPUs holds no host, unequal GPUs per host are unplaceable")
    {
    }

  private:
    void DoRun() override
    {
        // A on hosts 0 and 2 (0..600 s); B on hosts 0 and 1 arrives at 100 s: host 0 is A's
        // until A ends; C on host 3 with a master pod (0 GPUs) on host 0 arrives at 150 s;
        // D on hosts 1 and 3 with 8 and 2 GPUs arrives at 200 s.
        ClusterRunConfig c = TwoJobConfig("multi-interests", "multi-interests");
        c.schedulers = {"ecmp"};
        // a job like B, recorded from start to end on hosts with gpusPerHost each
        auto recorded = [&c](const std::string& name,
                             double start,
                             double end,
                             std::vector<uint32_t> hosts,
                             std::vector<uint32_t> gpusPerHost) {
            TraceJob j = c.jobs[1];
            j.name = name;
            j.submit = j.start = start;
            j.end = end;
            j.gpus = 0;
            for (uint32_t g : gpusPerHost)
            {
                j.gpus += g;
            }
            j.hosts = std::move(hosts);
            j.gpusPerHost = std::move(gpusPerHost);
            return j;
        };
        c.jobs = {c.jobs[0],
                  recorded("B", 100, 300, {0, 1}, {8, 8}),
                  recorded("C", 150, 250, {0, 3}, {0, 8}),
                  recorded("D", 200, 400, {1, 3}, {8, 2})};
        ClusterRun run(c);
        const ClusterRunResult r = run.Run("ecmp");
        std::map<std::string, ClusterJobResult> by;
        for (const auto& j : r.jobs)
        {
            by[j.name] = j;
        }
        NS_TEST_ASSERT_MSG_EQ(by.size(), 4u, "four window jobs");
        NS_TEST_ASSERT_MSG_GT(by["A"].end, 0.0, "A finished");
        NS_TEST_EXPECT_MSG_EQ_TOL(by["B"].start,
                                  by["A"].end,
                                  1e-9,
                                  "B starts when A frees host 0, not at its arrival");
        NS_TEST_EXPECT_MSG_EQ_TOL(by["C"].start, 150.0, 1e-9, "C starts at its arrival");
        NS_TEST_ASSERT_MSG_EQ(by["C"].hosts, 1u, "C holds host 3 only (its master pod none)");
        NS_TEST_ASSERT_MSG_EQ(by["D"].unplaceable, true, "D is unplaceable");
        NS_TEST_ASSERT_MSG_NE(by["D"].unplaceableReason.find("unequal (8, 2)"),
                              std::string::npos,
                              "D's reason: " << by["D"].unplaceableReason);
        NS_TEST_ASSERT_MSG_EQ(r.jobsUnplaceable, 1u, "one unplaceable job");
        NS_TEST_ASSERT_MSG_EQ(r.jobsFinished, 3u, "A, B and C finish");
    }
};

/**
 * \ingroup crux-tests
 * \brief Bad configuration: one std::invalid_argument naming the field.
 */
class ClusterRunBadConfigTestCase : public TestCase
{
  public:
    ClusterRunBadConfigTestCase()
        : TestCase("bad config -> invalid_argument naming the field")
    {
    }

  private:
    void DoRun() override
    {
        auto expect = [this](ClusterRunConfig c, const std::string& field) {
            std::string what;
            try
            {
                ClusterRun run(c);
            }
            catch (const std::invalid_argument& e)
            {
                what = e.what();
            }
            NS_TEST_EXPECT_MSG_NE(what.find("ClusterRunConfig." + field),
                                  std::string::npos,
                                  "error names " << field << ": '" << what << "'");
        };
        ClusterRunConfig c = TwoJobConfig("gpt", "gpt");
        auto bad = c;
        bad.topology = "torus";
        expect(bad, "topology");
        bad = c;
        bad.schedulers = {"crux", "fifo"};
        expect(bad, "schedulers");
        bad = c;
        bad.schedulers = {"optimal"};
        expect(bad, "schedulers");
        bad = c;
        bad.schedulers = {"crux", "ecmp", "crux"};
        expect(bad, "schedulers");
        bad = c;
        bad.traceDays = 1e5;
        expect(bad, "traceDays");
        bad = c;
        bad.windowEnd = -2;
        expect(bad, "windowEnd");
        bad = c;
        bad.jobsPerDay = 0;
        expect(bad, "jobsPerDay");
        bad = c;
        bad.placement = "anywhere";
        expect(bad, "placement");
        bad = c;
        bad.evaluator = "fast";
        expect(bad, "evaluator");
        bad = c;
        bad.timescaleRatio = 1.5;
        expect(bad, "timescaleRatio");
        for (double b : {-0.01, 1.0, std::nan("")})
        {
            bad = c;
            bad.weakLinkBound = b;
            expect(bad, "weakLinkBound");
        }
        bad = c;
        bad.weakLinkRule = "expected";
        expect(bad, "weakLinkRule");
        bad = c;
        bad.alignRatio = 0.5;
        expect(bad, "alignRatio");
        bad = c;
        bad.timeline = "ring";
        expect(bad, "timeline");
        bad = c;
        bad.binSeconds = 0;
        expect(bad, "binSeconds");
        bad = c;
        bad.windowStart = 500;
        bad.windowEnd = 400;
        expect(bad, "windowEnd");
        bad = c;
        bad.topology = "lingjun";
        expect(bad, "topoCsv");
        bad = c;
        bad.clos.aggs = 0;
        expect(bad, "clos");
        bad = c;
        bad.progressSeconds = -1;
        expect(bad, "progressSeconds");
        bad = c;
        bad.progressSeconds = std::nan("");
        expect(bad, "progressSeconds");
        bad = c;
        bad.progressSeconds = std::numeric_limits<double>::infinity();
        expect(bad, "progressSeconds");

        // The command-line list of schedulers: spaces dropped, empty items are an error.
        const auto items = SplitCommaList(" ecmp , crux", "--schedulers");
        NS_TEST_EXPECT_MSG_EQ(items.size(), 2, "two items");
        NS_TEST_EXPECT_MSG_EQ(items.at(1), "crux", "spaces dropped");
        NS_TEST_EXPECT_MSG_EQ(SplitCommaList("", "--modes").empty(), true, "empty list");
        for (const char* text : {"ecmp,,crux", "ecmp,", ",crux"})
        {
            std::string what;
            try
            {
                SplitCommaList(text, "--schedulers");
            }
            catch (const ExperimentError& e)
            {
                what = e.what();
            }
            NS_TEST_EXPECT_MSG_EQ(what,
                                  std::string("--schedulers: empty item in '") + text + "'",
                                  "empty item in '" << text << "'");
        }

        // Output directory problems are found before anything runs, and nothing is written.
        const auto dir = TempDir("badout");
        std::filesystem::create_directories(dir);
        const auto file = dir / "a-file";
        std::ofstream(file) << "x";
        bad = c;
        bad.outputDir = file.string(); // a file, not a directory
        expect(bad, "outputDir");
        bad.outputDir = (file / "sub").string(); // below a file
        expect(bad, "outputDir");
        std::filesystem::create_directories(dir / "out");
        std::ofstream(dir / "out" / "ecmp") << "x"; // a scheduler's directory is a file
        bad = c;
        bad.schedulers = {"crux", "ecmp"};
        bad.outputDir = (dir / "out").string();
        expect(bad, "outputDir");
        NS_TEST_EXPECT_MSG_EQ(std::filesystem::exists(dir / "out" / "crux"),
                              false,
                              "nothing written for the other scheduler");
        NS_TEST_EXPECT_MSG_EQ(std::filesystem::exists(file.string() + "/sub"),
                              false,
                              "nothing created below the file");
        std::filesystem::remove_all(dir);
    }
};

/**
 * \ingroup crux-tests
 * \brief Contention decomposition: utilization with every running job at its stand-alone rate
 * on its ECMP default paths (utilization_alone_default) and on its installed paths
 * (utilization_alone_installed), against the real mean GPU utilization.
 */
class ClusterRunDecompositionTestCase : public TestCase
{
  public:
    ClusterRunDecompositionTestCase()
        : TestCase("contention decomposition: ECMP alone@paths == alone@ECMP >= real; a job "
                   "alone: real == alone@paths; two jobs sharing a link: positive inter-job "
                   "loss under ECMP, real <= alone@paths under crux")
    {
    }

  private:
    void DoRun() override
    {
        // (a) 6 h of a generated trace, ECMP and crux; results written and read back.
        {
            const auto dir = TempDir("decomp");
            ClusterRunConfig c = SmallWindowConfig(1, dir.string());
            c.schedulers = {"ecmp", "crux"};
            ClusterRun run(c);
            const auto runs = run.RunAll();
            run.WriteResults(runs);
            const ClusterRunResult& ecmp = runs.at(0);
            const ClusterRunResult& crux = runs.at(1);
            NS_TEST_ASSERT_MSG_GT(ecmp.meanUtilization, 0.01, "the window holds real work");
            NS_TEST_ASSERT_MSG_EQ_TOL(ecmp.meanUtilAloneInstalled,
                                      ecmp.meanUtilAloneDefault,
                                      1e-12 * ecmp.meanUtilAloneDefault,
                                      "ECMP installs the default paths: alone@paths == alone@ECMP");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(ecmp.meanUtilization,
                                        ecmp.meanUtilAloneInstalled + 1e-9,
                                        "ECMP: contention never raises utilization");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(crux.meanUtilization,
                                        crux.meanUtilAloneInstalled + 1e-9,
                                        "crux: real <= alone on its paths");
            for (const auto& u : ecmp.util)
            {
                NS_TEST_ASSERT_MSG_EQ_TOL(u.aloneInstalled,
                                          u.aloneDefault,
                                          1e-12 * u.aloneDefault,
                                          "ECMP row at " << u.time);
                NS_TEST_ASSERT_MSG_LT_OR_EQ(u.utilization,
                                            u.aloneInstalled + 1e-9,
                                            "ECMP row at " << u.time);
                NS_TEST_ASSERT_MSG_LT_OR_EQ(u.aloneDefault, 1.0 + 1e-9, "alone@ECMP <= 1");
            }
            // The files: summary.json carries the window means; utilization.csv's two new
            // columns give them back (9 digits written).
            for (const ClusterRunResult& r : runs)
            {
                const auto sdir = dir / r.scheduler;
                const nlohmann::json s = ReadSummary(sdir);
                NS_TEST_ASSERT_MSG_EQ(s.at("utilization_alone_default").get<double>(),
                                      r.meanUtilAloneDefault,
                                      r.scheduler << ": summary.json alone_default");
                NS_TEST_ASSERT_MSG_EQ(s.at("utilization_alone_installed").get<double>(),
                                      r.meanUtilAloneInstalled,
                                      r.scheduler << ": summary.json alone_installed");
                const double lo = s.at("window").at("start_s").get<double>();
                const double hi = s.at("window").at("end_s").get<double>();
                // The ceiling: allocated GPUs, each running job compute-bound.
                NS_TEST_ASSERT_MSG_EQ(s.at("busy_gpu_fraction").get<double>(),
                                      r.meanBusyFraction,
                                      r.scheduler << ": summary.json busy_gpu_fraction");
                NS_TEST_ASSERT_MSG_EQ_TOL(
                    CsvStepMean(sdir / "utilization.csv", "busy_gpus", lo, hi) /
                        run.GetTopology().NumGpus(),
                    r.meanBusyFraction,
                    1e-6 * r.meanBusyFraction,
                    r.scheduler << ": busy_gpus column gives the busy fraction back");
                NS_TEST_ASSERT_MSG_GT_OR_EQ(r.meanBusyFraction + 1e-12,
                                            r.meanUtilAloneInstalled,
                                            r.scheduler << ": busy >= alone@paths");
                NS_TEST_ASSERT_MSG_GT_OR_EQ(r.meanBusyFraction + 1e-12,
                                            r.meanUtilAloneDefault,
                                            r.scheduler << ": busy >= alone@ECMP");

                const struct
                {
                    const char* column;
                    double want;
                } cols[] = {{"gpu_utilization", r.meanUtilization},
                            {"utilization_alone_default", r.meanUtilAloneDefault},
                            {"utilization_alone_installed", r.meanUtilAloneInstalled}};

                for (const auto& col : cols)
                {
                    NS_TEST_ASSERT_MSG_EQ_TOL(
                        CsvStepMean(sdir / "utilization.csv", col.column, lo, hi),
                        col.want,
                        1e-6 * col.want,
                        r.scheduler << ": utilization.csv " << col.column << " window mean");
                }
            }
            std::filesystem::remove_all(dir);
        }

        // (b) One job alone (two aggregation switches: crux may choose other paths than the
        // ECMP hash): the real utilization is exactly the alone-on-installed-paths one.
        for (const std::string sched : {"ecmp", "crux"})
        {
            ClusterRunConfig c = TwoJobConfig("multi-interests", "gpt");
            c.clos.aggs = 2;
            c.jobs.resize(1);
            c.schedulers = {sched};
            ClusterRun run(c);
            const ClusterRunResult r = run.Run(sched);
            NS_TEST_ASSERT_MSG_EQ(r.jobsFinished, 1, sched << ": the job finished");
            NS_TEST_ASSERT_MSG_GT(r.meanUtilization, 0.0, sched << ": it did work");
            NS_TEST_ASSERT_MSG_EQ_TOL(r.meanUtilization,
                                      r.meanUtilAloneInstalled,
                                      1e-9 * r.meanUtilAloneInstalled,
                                      sched << ": a job alone: real == alone@paths");
            if (sched == "ecmp")
            {
                NS_TEST_ASSERT_MSG_EQ_TOL(r.meanUtilAloneInstalled,
                                          r.meanUtilAloneDefault,
                                          1e-12 * r.meanUtilAloneDefault,
                                          "ecmp: alone@paths == alone@ECMP");
            }
            else
            {
                // Crux's paths for a lone job are no worse than the ECMP hash (seed 1: its
                // ring flows collide on an uplink under ECMP, measured alone@ECMP 0.0182 vs
                // alone@paths 0.0261).
                NS_TEST_ASSERT_MSG_GT_OR_EQ(r.meanUtilAloneInstalled,
                                            r.meanUtilAloneDefault * (1 - 1e-9),
                                            "crux: path gain >= 0 for a lone job");
            }
        }

        // (c) Two jobs sharing the single ToR-aggregation link (the rescheduling case).
        {
            ClusterRunConfig c = TwoJobConfig("multi-interests", "gpt");
            c.schedulers = {"ecmp", "crux"};
            ClusterRun run(c);
            const auto runs = run.RunAll();
            const ClusterRunResult& ecmp = runs.at(0);
            const ClusterRunResult& crux = runs.at(1);
            NS_TEST_ASSERT_MSG_EQ_TOL(ecmp.meanUtilAloneInstalled,
                                      ecmp.meanUtilAloneDefault,
                                      1e-12 * ecmp.meanUtilAloneDefault,
                                      "ECMP: alone@paths == alone@ECMP");
            const double loss = ecmp.meanUtilAloneInstalled - ecmp.meanUtilization;
            NS_TEST_ASSERT_MSG_GT(loss,
                                  1e-3 * ecmp.meanUtilAloneInstalled,
                                  "ECMP: a real inter-job loss (" << loss << ")");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(crux.meanUtilization,
                                        crux.meanUtilAloneInstalled + 1e-9,
                                        "crux: real <= alone@paths");
            // One aggregation switch: one path per flow, nothing for path selection to gain.
            NS_TEST_ASSERT_MSG_EQ_TOL(crux.meanUtilAloneInstalled,
                                      crux.meanUtilAloneDefault,
                                      1e-12 * crux.meanUtilAloneDefault,
                                      "crux with one path per flow: alone@paths == alone@ECMP");
        }
    }
};

/**
 * \ingroup crux-tests
 * \brief Crux-PA (Decision::uniquePriorities) is evaluated with one class per job (its rank)
 * unless ClusterRunConfig::uniquePriorities is false, in which case its K hardware levels count.
 */
class ClusterRunUniquePrioritiesTestCase : public TestCase
{
  public:
    ClusterRunUniquePrioritiesTestCase()
        : TestCase("crux-pa with K = 1: rank classes give priority to the intensive job; "
                   "hardware levels put both jobs in one class (= ECMP)")
    {
    }

  private:
    void DoRun() override
    {
        ClusterRunConfig c = TwoJobConfig("multi-interests", "gpt");
        c.workModel = "duration";
        c.schedulers = {"crux-pa", "ecmp"};
        c.numLevels = 8;
        const auto eight = ClusterRun(c).RunAll();
        c.numLevels = 1;
        const auto rank = ClusterRun(c).RunAll();
        c.uniquePriorities = false;
        const auto level = ClusterRun(c).RunAll();

        const ClusterRunResult& ecmp = level.at(1);
        NS_TEST_ASSERT_MSG_EQ(rank.at(0).rankClasses, true, "crux-pa evaluated by rank");
        NS_TEST_ASSERT_MSG_EQ(level.at(0).rankClasses, false, "hardware levels asked for");
        NS_TEST_ASSERT_MSG_EQ(ecmp.rankClasses, false, "ecmp has no unique priorities");
        // Two jobs: with 8 levels they get distinct levels, the same order as the ranks.
        NS_TEST_ASSERT_MSG_EQ_TOL(rank.at(0).meanUtilization,
                                  eight.at(0).meanUtilization,
                                  1e-12 * eight.at(0).meanUtilization,
                                  "K = 1 by rank == K = 8");
        // Priority to the intensive GPT job (B) raises utilization over fair sharing.
        NS_TEST_ASSERT_MSG_GT(rank.at(0).meanUtilization,
                              ecmp.meanUtilization * 1.001,
                              "rank classes: crux-pa > ecmp");
        NS_TEST_ASSERT_MSG_GT(rank.at(0).jobs.at(1).done,
                              ecmp.jobs.at(1).done,
                              "B completes more iterations with priority");
        // One hardware level: both jobs share one class on the same ECMP paths.
        NS_TEST_ASSERT_MSG_EQ_TOL(level.at(0).meanUtilization,
                                  ecmp.meanUtilization,
                                  1e-12 * ecmp.meanUtilization,
                                  "K = 1 on levels: crux-pa == ecmp");
    }
};

/**
 * \ingroup crux-tests
 * \brief Trace jobs with zero run time are left out of the window and counted.
 */
class ClusterRunZeroDurationTestCase : public TestCase
{
  public:
    ClusterRunZeroDurationTestCase()
        : TestCase("a zero-duration job is left out: 1 finished, jobs_zero_duration 1, mean JCT "
                   "= the normal job's")
    {
    }

  private:
    void DoRun() override
    {
        const auto dir = TempDir("zero");
        ClusterRunConfig c = TwoJobConfig("multi-interests", "gpt");
        c.jobs.at(1).end = c.jobs.at(1).start; // B: start == end
        c.schedulers = {"ecmp"};
        c.outputDir = dir.string();
        c.weakLinkRule = "overlap"; // recorded in summary.json (one job: nothing to cut)
        // a trace name that CSV must quote (a comma, a quote, a line break): jobs.csv keeps it
        const std::string name = "A, \"the\"\nfirst";
        c.jobs.at(0).name = name;
        ClusterRun run(c);
        NS_TEST_ASSERT_MSG_EQ(run.GetZeroDurationJobs(), 1, "B counted");
        NS_TEST_ASSERT_MSG_EQ(run.GetWindowJobs().size(), 1, "only A in the window");
        const auto runs = run.RunAll();
        run.WriteResults(runs);
        const ClusterRunResult& r = runs.at(0);
        NS_TEST_ASSERT_MSG_EQ(r.jobsFinished, 1, "one job finished");
        NS_TEST_ASSERT_MSG_EQ(r.jobsZeroDuration, 1, "one zero-duration job");
        NS_TEST_ASSERT_MSG_EQ(r.jobs.size(), 1, "one jobs.csv row");
        const ClusterJobResult& a = r.jobs.at(0);
        NS_TEST_ASSERT_MSG_EQ(a.name, name, "the normal job");
        {
            std::ifstream in(dir / "ecmp" / "jobs.csv");
            Rfc4180Reader csv(in);
            std::vector<std::string> header;
            std::vector<std::string> row;
            NS_TEST_ASSERT_MSG_EQ((csv.Next(header) == Rfc4180Reader::Status::RECORD),
                                  true,
                                  "header");
            NS_TEST_ASSERT_MSG_EQ((csv.Next(row) == Rfc4180Reader::Status::RECORD),
                                  true,
                                  "one row");
            NS_TEST_ASSERT_MSG_EQ(row.size(), header.size(), "jobs.csv row: as many fields");
            NS_TEST_ASSERT_MSG_EQ(row.at(1), name, "jobs.csv name read back");
            NS_TEST_ASSERT_MSG_EQ((csv.Next(row) == Rfc4180Reader::Status::END),
                                  true,
                                  "no more rows");
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(r.meanJct, a.end - a.arrival, 1e-9, "mean JCT = A's JCT");
        // A runs alone under ECMP: its JCT is its trace duration.
        NS_TEST_ASSERT_MSG_EQ_TOL(r.meanJct, 600.0, 1e-6, "A alone takes its 600 s");
        const nlohmann::json s = ReadSummary(dir / "ecmp");
        NS_TEST_ASSERT_MSG_EQ(s.at("jobs_zero_duration").get<uint32_t>(), 1, "summary.json");
        NS_TEST_ASSERT_MSG_EQ(s.at("jobs_finished").get<uint32_t>(), 1, "summary.json");
        NS_TEST_ASSERT_MSG_EQ(s.at("jobs").get<uint32_t>(), 1, "summary.json");
        // All or nothing: a second run whose ecmp summary.json cannot be written (a directory
        // stands there) replaces none of the first run's files, crux's included.
        {
            ClusterRunConfig two = TwoJobConfig("multi-interests", "gpt");
            two.schedulers = {"crux", "ecmp"};
            two.outputDir = (dir / "two").string();
            ClusterRun first(two);
            first.WriteResults(first.RunAll());
            auto read = [](const std::filesystem::path& p) {
                std::ifstream in(p);
                std::stringstream ss;
                ss << in.rdbuf();
                return ss.str();
            };
            const std::string cruxJobs = read(dir / "two" / "crux" / "jobs.csv");
            const std::string ecmpJobs = read(dir / "two" / "ecmp" / "jobs.csv");
            two.jobs.at(0).start += 60; // another run: other times in every file
            ClusterRun second(two);
            const auto again = second.RunAll();
            std::filesystem::remove(dir / "two" / "ecmp" / "summary.json");
            std::filesystem::create_directories(dir / "two" / "ecmp" / "summary.json" / "x");
            bool threw = false;
            try
            {
                second.WriteResults(again);
            }
            catch (const std::runtime_error& e)
            {
                threw = std::string(e.what()).find("is a directory") != std::string::npos;
            }
            NS_TEST_ASSERT_MSG_EQ(threw, true, "the blocked file is named");
            NS_TEST_ASSERT_MSG_EQ(read(dir / "two" / "crux" / "jobs.csv"),
                                  cruxJobs,
                                  "crux's jobs.csv of the first run kept");
            NS_TEST_ASSERT_MSG_EQ(read(dir / "two" / "ecmp" / "jobs.csv"),
                                  ecmpJobs,
                                  "ecmp's jobs.csv of the first run kept");
            std::filesystem::remove_all(dir / "two" / "ecmp" / "summary.json");
            second.WriteResults(again);
            NS_TEST_ASSERT_MSG_NE(read(dir / "two" / "crux" / "jobs.csv"),
                                  cruxJobs,
                                  "the second run's files once nothing blocks them");
        }
        NS_TEST_ASSERT_MSG_EQ(s.at("weak_link_rule").get<std::string>(),
                              "overlap",
                              "summary.json weak_link_rule");
        std::filesystem::remove_all(dir);

        // Only zero-duration jobs in the window: the config error names it.
        c.jobs.at(0).end = c.jobs.at(0).start;
        c.outputDir.clear();
        std::string what;
        try
        {
            ClusterRun none(c);
        }
        catch (const std::invalid_argument& e)
        {
            what = e.what();
        }
        NS_TEST_ASSERT_MSG_NE(what.find("zero-duration"), std::string::npos, "error: " << what);
    }
};

/**
 * \ingroup crux-tests
 * \brief Progress lines go to stderr and change no output file.
 */
class ClusterRunProgressTestCase : public TestCase
{
  public:
    ClusterRunProgressTestCase()
        : TestCase("progress lines on stderr at events; output files identical to a run "
                   "without them")
    {
    }

  private:
    void DoRun() override
    {
        const auto quiet = TempDir("quiet");
        const auto loud = TempDir("loud");
        ClusterRunConfig c = TwoJobConfig("multi-interests", "gpt");
        c.schedulers = {"ecmp", "crux"};
        c.outputDir = quiet.string();
        ClusterRun r1(c);
        r1.WriteResults(r1.RunAll());
        c.outputDir = loud.string();
        c.progressSeconds = 1e-9; // (nearly) every event
        std::ostringstream err;
        std::streambuf* old = std::cerr.rdbuf(err.rdbuf());
        uint64_t events = 0;
        try
        {
            ClusterRun r2(c);
            const auto runs = r2.RunAll();
            r2.WriteResults(runs);
            for (const auto& r : runs)
            {
                events += r.events;
            }
        }
        catch (...)
        {
            std::cerr.rdbuf(old);
            throw;
        }
        std::cerr.rdbuf(old);
        std::istringstream lines(err.str());
        std::string line;
        uint32_t n = 0;
        uint32_t ecmpLines = 0;
        std::vector<std::string> runLines; // over the runs: "runs done k/2, wall ..."
        while (std::getline(lines, line))
        {
            NS_TEST_EXPECT_MSG_EQ(line.rfind("crux-trace-run: ", 0), 0, "prefix: " << line);
            if (line.rfind("crux-trace-run: runs done ", 0) == 0)
            {
                runLines.push_back(line);
                continue;
            }
            ++n;
            NS_TEST_EXPECT_MSG_NE(line.find(" d of 0.01 d, "), std::string::npos, line);
            NS_TEST_EXPECT_MSG_NE(line.find(" running, "), std::string::npos, line);
            NS_TEST_EXPECT_MSG_NE(line.find(" queued, wall "), std::string::npos, line);
            ecmpLines += line.rfind("crux-trace-run: ecmp: sim ", 0) == 0 ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_GT_OR_EQ(n, 2, "progress lines printed");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(ecmpLines, 1, "a line of the ecmp run");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(n, events, "at most one line per event");
        // one line per finished run (the interval is shorter than any run)
        NS_TEST_ASSERT_MSG_EQ(runLines.size(), 2, "a 'runs done' line per run");
        NS_TEST_EXPECT_MSG_EQ(runLines[0].rfind("crux-trace-run: runs done 1/2, wall ", 0),
                              0,
                              runLines[0]);
        NS_TEST_EXPECT_MSG_EQ(runLines[1].rfind("crux-trace-run: runs done 2/2, wall ", 0),
                              0,
                              runLines[1]);
        for (const char* s : {"ecmp", "crux"})
        {
            for (const char* f :
                 {"jobs.csv", "utilization.csv", "decisions.csv", "link-intensity.csv"})
            {
                const std::string a = Slurp(quiet / s / f);
                NS_TEST_ASSERT_MSG_GT(a.size(), 10, f << " has content");
                NS_TEST_ASSERT_MSG_EQ(a, Slurp(loud / s / f), s << "/" << f << " unchanged");
            }
            nlohmann::json a = ReadSummary(quiet / s);
            nlohmann::json b = ReadSummary(loud / s);
            a.erase("timing");
            b.erase("timing");
            NS_TEST_ASSERT_MSG_EQ(a.dump(), b.dump(), s << "/summary.json unchanged");
        }
        std::filesystem::remove_all(quiet);
        std::filesystem::remove_all(loud);
    }
};

/**
 * \ingroup crux-tests
 * \brief Suite of the trace-driven cluster runner.
 */
class ClusterRunTestSuite : public TestSuite
{
  public:
    ClusterRunTestSuite()
        : TestSuite("crux-cluster-run", UNIT)
    {
        AddTestCase(new ClusterRunBadConfigTestCase, TestCase::QUICK);
        AddTestCase(new ClusterRunReschedulingTestCase, TestCase::QUICK);
        AddTestCase(new ClusterRunRecordedPlacementTestCase, TestCase::QUICK);
        AddTestCase(new ClusterRunDeterminismTestCase, TestCase::QUICK);
        AddTestCase(new ClusterRunFlowEngineTestCase, TestCase::QUICK);
        AddTestCase(new ClusterRunDecompositionTestCase, TestCase::QUICK);
        AddTestCase(new ClusterRunUniquePrioritiesTestCase, TestCase::QUICK);
        AddTestCase(new ClusterRunZeroDurationTestCase, TestCase::QUICK);
        AddTestCase(new ClusterRunProgressTestCase, TestCase::QUICK);
    }
};

static ClusterRunTestSuite g_clusterRunTestSuite; //!< static instance
