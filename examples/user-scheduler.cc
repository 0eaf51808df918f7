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

/**
 * \file
 * \ingroup crux
 * A scheduler of your own, in C++: "intensity" orders the jobs by GPU intensity alone
 * (I_j = W_j / t_j on the ECMP default paths, Crux §3; no correction factor, no path selection)
 * and maps the order onto the K levels by a rule chosen with its Attribute Grouping. It is
 * registered by short name and then runs beside ECMP and Crux in the three places the built-in
 * schedulers run:
 *
 *  1. a scenario run (CruxExperiment: packet or flow fabric), files in <outputDir>/scenario/;
 *  2. a trace run (ClusterRun, epoch engine) on a generated one-day trace, files in
 *     <outputDir>/trace/<scheduler>/;
 *  3. the §4.4 microbenchmark's end-to-end score (RunStageAblation, column e2e.intensity) on
 *     a few random cases.
 *
 *   user-scheduler                                   # results/user-scheduler
 *   user-scheduler --grouping=EqualGroups --cases=5 --outputDir=/tmp/us
 *   user-scheduler --ns3::IntensityOrderScheduler::Grouping=EqualGroups   # same, as a default
 */

#include "ns3/checked-command-line.h"
#include "ns3/cluster-run.h"
#include "ns3/config.h"
#include "ns3/crux-experiment.h"
#include "ns3/crux-run-error.h"
#include "ns3/enum.h"
#include "ns3/random-cluster.h"
#include "ns3/result-directory.h"
#include "ns3/stage-ablation.h"
#include "ns3/string.h"

#include <algorithm>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace ns3
{

/**
 * \brief Intensity order: ECMP default paths, jobs ranked by decreasing GPU intensity (ties:
 * smaller id), ranks mapped onto K levels by the attribute Grouping.
 */
class IntensityOrderScheduler : public CommScheduler
{
  public:
    /// How ranks become levels.
    enum Grouping
    {
        TOP_RANKS,   //!< the top K-1 jobs one level each, the rest level 0 (TopRankLevel)
        EQUAL_GROUPS //!< K contiguous groups of equal size (EqualGroupLevel)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::IntensityOrderScheduler")
                .SetParent<CommScheduler>()
                .SetGroupName("Crux")
                .AddConstructor<IntensityOrderScheduler>()
                .AddAttribute("Grouping",
                              "How the intensity order is mapped onto the K levels: TopRanks "
                              "(the top K-1 jobs one level each, as Sincronia) or EqualGroups "
                              "(K equal contiguous groups, as Varys).",
                              EnumValue(TOP_RANKS),
                              MakeEnumAccessor(&IntensityOrderScheduler::m_grouping),
                              MakeEnumChecker(TOP_RANKS, "TopRanks", EQUAL_GROUPS, "EqualGroups"));
        return tid;
    }

  protected:
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override
    {
        // Default paths, t_j and I_j on them (the template method validated the model).
        Decision d = MakeDefaultDecision(model, config, GetName());
        std::vector<std::pair<double, uint32_t>> keyed; // (-I_j, id): decreasing intensity
        for (const SchedJob& job : model.jobs)
        {
            keyed.emplace_back(-d.jobs.at(job.id).intensity, job.id);
        }
        std::sort(keyed.begin(), keyed.end());
        const auto n = static_cast<uint32_t>(keyed.size());
        for (uint32_t r = 0; r < n; ++r)
        {
            JobDecision& jd = d.jobs.at(keyed[r].second);
            jd.rank = r;
            jd.priorityScore = jd.intensity;
            jd.level = m_grouping == TOP_RANKS ? TopRankLevel(r, config.numLevels)
                                               : EqualGroupLevel(r, n, config.numLevels);
        }
        return d; // Schedule() checks it: every job and flow decided, levels < K, ...
    }

  private:
    Grouping m_grouping{TOP_RANKS}; //!< rank -> level rule
};

NS_OBJECT_ENSURE_REGISTERED(IntensityOrderScheduler);

} // namespace ns3

int
main(int argc, char* argv[])
{
    std::string scenario = "scenarios/smoke.json";
    std::string fabric = "flow";
    std::string outputDir = "results/user-scheduler";
    std::string grouping;
    uint32_t cases = 3;

    CheckedCommandLine cmd(__FILE__);
    cmd.Usage("A C++ scheduler of your own (GPU-intensity order), registered as 'intensity' and "
              "run beside ecmp and crux in a scenario run, a trace run and the microbenchmark.");
    cmd.AddValue("scenario", "Scenario file of the scenario run", scenario);
    cmd.AddValue("fabric", "Fabric of the scenario run (packet or flow)", fabric);
    cmd.AddValue("outputDir", "Output directory (scenario/ and trace/ below it)", outputDir);
    cmd.AddValue("grouping",
                 "Attribute Grouping of 'intensity' (TopRanks or EqualGroups)",
                 grouping);
    cmd.AddValue("cases", "Random microbenchmark cases (0 = skip)", cases);
    try
    {
        cmd.Parse(argc, argv);
        // Register once, by short name; attribute overrides are given at creation.
        RegisterCommScheduler("intensity", IntensityOrderScheduler::GetTypeId());
        const std::vector<std::string> schedulers = {"ecmp", "crux", "intensity"};
        if (!grouping.empty())
        {
            CreateCommScheduler("intensity", {{"Grouping", grouping}}); // checks the value
            Config::SetDefault("ns3::IntensityOrderScheduler::Grouping", StringValue(grouping));
        }

        // Both output directories before the first run (each run checks its own only).
        for (const char* sub : {"/scenario", "/trace"})
        {
            if (const std::string why = ResultDirectory::Problem(outputDir + sub); !why.empty())
            {
                throw InputError("--outputDir", why);
            }
        }

        // 1. Scenario run.
        Scenario s = Scenario::Load(scenario);
        s.fabric = fabric;
        s.outputDir = outputDir + "/scenario";
        CruxExperiment experiment(s);
        const auto runs = experiment.Run(schedulers);
        experiment.WriteResults(runs);
        std::cout << experiment.FormatTable(runs);

        // 2. Trace run: 6 h of a generated one-day trace on a 256-GPU Clos.
        ClusterRunConfig c;
        c.clos.tors = 8;
        c.clos.aggs = 2;
        c.clos.hostsPerTor = 4;
        c.traceDays = 1;
        c.windowEnd = 6 * 3600.0;
        c.drainSeconds = 12 * 3600.0;
        c.schedulers = schedulers;
        c.outputDir = outputDir + "/trace";
        ClusterRun trace(c);
        const auto traceRuns = trace.RunAll();
        trace.WriteResults(traceRuns);
        std::cout << ClusterRun::FormatTable(traceRuns);

        // 3. Microbenchmark (Crux §4.4): ratio to the exhaustive optimum, end to end.
        // Settings of crux-microbenchmark's defaults (at most 256 path choices, horizon 30).
        RandomClusterParams params;
        params.maxPathChoices = 256;
        StageAblationOptions options;
        options.search.evaluator.horizonIterations = 30;
        options.search.maxSearchSize = 1e12; // the path cap bounds the space
        options.extraSchedulers = {"intensity"};
        for (uint32_t i = 0; i < cases; ++i)
        {
            const StageAblationResult r =
                RunStageAblation(GenerateRandomCluster(params, i + 1), options);
            std::cout << "microbenchmark case " << i << ":" << std::fixed << std::setprecision(4);
            for (const auto& [column, ratio] : r.ratios)
            {
                if (column.rfind("e2e.", 0) == 0)
                {
                    std::cout << " " << column << "=" << ratio;
                }
            }
            std::cout << "\n";
        }
        std::cout << "results written to " << outputDir << "/\n";
    }
    catch (const std::exception& e)
    {
        std::cerr << CruxRunError::Format("user-scheduler", e);
        return 1;
    }
    return 0;
}
