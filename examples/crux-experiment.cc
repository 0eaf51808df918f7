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
 * Runs a crux scenario file: each job alone, then all jobs under each requested scheduler
 * (default: ecmp and the scenario's scheduler), prints the result table and writes the result
 * files (doc/crux.rst, "Output") into the scenario's output directory.
 *
 *   crux-experiment --scenario=scenarios/sec22-gpt-bert.json
 *   crux-experiment --scenario=scenarios/testbed-gpt-bert.json --modes=alone,ecmp,crux,crux-pa
 *   crux-experiment --scenario=scenarios/sec22-gpt-bert.json --congestionControl=hpcc
 *   crux-experiment --scenario=scenarios/sec22-gpt-bert.json --jobs=1   # one run at a time
 *
 * The runs (each job alone, each scheduler) are independent simulations: they run in parallel,
 * each in its own child process, --jobs at a time (default: all cores); the files and the table
 * are the same as with --jobs=1. Runs longer than --progress seconds show progress on stderr.
 *
 * One packet-level simulation split over MPI ranks (ns-3's distributed simulator; only in an
 * ns-3 tree built with --enable-mpi, see doc/crux.rst, "Distributed packet simulation (MPI)"):
 *
 *   mpirun -np 2 crux-experiment --mpi --scenario=scenarios/mpi-two-pods.json
 *
 * Every command-line value overrides the scenario file's field of the same name. Bad input
 * (missing or malformed file, unknown model or scheduler, too many GPUs, 0 priority levels)
 * prints one line naming the file and field and exits with status 1 before anything is written.
 */

#include "ns3/crux-experiment.h"

#include "ns3/checked-command-line.h"
#include "ns3/crux-run-error.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/distributed-run.h"
#include "ns3/experiment-output.h"
#include "ns3/parallel-runs.h"
#include "ns3/result-directory.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

using namespace ns3;

namespace
{

/// The program's options.
struct ExperimentOptions
{
    std::string scenarioPath;      //!< scenario file
    std::string modes;             //!< comma-separated runs
    std::string outputDir;         //!< override
    std::string scheduler;         //!< override
    std::string fabric;            //!< override
    std::string pathEnforcement;   //!< override
    std::string congestionControl; //!< override
    // Overrides: unset unless given (the scenario's value stays then).
    std::optional<uint64_t> seed;              //!< override
    std::optional<uint64_t> priorityLevels;    //!< override
    std::optional<double> stopTime;            //!< override
    std::optional<uint64_t> profileIterations; //!< override
    std::optional<uint64_t> seeds;             //!< override
    std::optional<uint64_t> warmupIterations;  //!< override
    std::optional<uint64_t> minMeasured;       //!< override (minMeasuredIterations)
    bool quiet{false};                         //!< no table
    bool dryRun{false};                        //!< check and exit
    bool mpi{false};                           //!< split each simulation over MPI ranks
    uint32_t jobs{DefaultParallelJobs()};      //!< runs at a time
    std::string progress;                      //!< empty: 10 s, or 0 (none) with --quiet
};

/// Register every option of the program.
void
AddOptions(CheckedCommandLine& cmd, ExperimentOptions& o)
{
    cmd.Usage("Runs a crux scenario (JSON) alone / under ECMP / under a scheduler and writes "
              "the results.");
    cmd.AddValue("scenario", "Scenario file (JSON, see doc/crux.rst)", o.scenarioPath);
    cmd.AddValue("modes",
                 "Comma-separated runs: alone and/or scheduler names (default: "
                 "alone,ecmp,<scenario scheduler>)",
                 o.modes);
    cmd.AddValue("outputDir", "Override the scenario's outputDir", o.outputDir);
    cmd.AddValue("scheduler", "Override the scenario's scheduler", o.scheduler);
    cmd.AddValue("fabric", "Override the scenario's fabric (packet or flow)", o.fabric);
    cmd.AddValue("pathEnforcement",
                 "Override the scenario's pathEnforcement (source-port or pinned)",
                 o.pathEnforcement);
    cmd.AddValue("congestionControl",
                 "Override the scenario's congestionControl (dcqcn, hpcc or none; packet fabric)",
                 o.congestionControl);
    cmd.AddOptional("seed",
                    "Override the scenario's seed (1..4294944442, the seeds of ns-3's RNG)",
                    o.seed);
    cmd.AddOptional("priorityLevels",
                    "Override the scenario's priorityLevels (1..8)",
                    o.priorityLevels);
    cmd.AddOptional("stopTime", "Override the scenario's stopTime (seconds, > 0)", o.stopTime);
    cmd.AddOptional("profileIterations",
                    "Override the scenario's profileIterations (0 = analytic t_j)",
                    o.profileIterations);
    cmd.AddOptional("seeds",
                    "Override the scenario's seeds: ECMP hash seeds every seed-dependent run is "
                    "repeated over, for means and 95 % intervals (1..100)",
                    o.seeds);
    cmd.AddOptional("warmupIterations",
                    "Override the scenario's warmupIterations (iterations not measured, 0..1000)",
                    o.warmupIterations);
    cmd.AddOptional("minMeasuredIterations",
                    "Override the scenario's minMeasuredIterations (fewer measured iterations "
                    "are flagged, 1..1000)",
                    o.minMeasured);
    cmd.AddValue("quiet",
                 "Do not print the table (and no progress lines unless --progress)",
                 o.quiet);
    cmd.AddValue("jobs",
                 "Simulations at a time, each in its own process (default: all cores; 1 = one "
                 "after another in this process); the results do not depend on it",
                 o.jobs,
                 1,
                 4096);
    cmd.AddValue("progress",
                 "Wall seconds between progress lines on stderr; 0 = none (default 10, 0 with "
                 "--quiet)",
                 o.progress);
    cmd.AddValue("dryRun",
                 "Check the scenario, the options, the modes and the output directory, print the "
                 "scenario as it would run (JSON) and exit without simulating",
                 o.dryRun);
    cmd.AddValue("mpi",
                 "Split each packet-level simulation over the ranks of mpirun (ns-3's "
                 "distributed simulator; needs ns-3 built with --enable-mpi); the runs go one "
                 "after another and rank 0 writes the results",
                 o.mpi);
}

/// Put the text overrides of the command line into the scenario (noted in its source).
void
ApplyTextOverrides(const ExperimentOptions& o, Scenario& s)
{
    auto overrideField = [&s](const std::string& field) { s.source += " + --" + field; };
    if (!o.outputDir.empty())
    {
        s.outputDir = o.outputDir; // checked in main(): a bad one is the option's
    }
    if (!o.scheduler.empty())
    {
        s.scheduler = o.scheduler;
        overrideField("scheduler");
    }
    if (!o.fabric.empty())
    {
        s.fabric = o.fabric;
        overrideField("fabric");
    }
    if (!o.pathEnforcement.empty())
    {
        s.pathEnforcement = o.pathEnforcement;
        overrideField("pathEnforcement");
    }
    if (!o.congestionControl.empty())
    {
        s.congestionControl = o.congestionControl;
        overrideField("congestionControl");
    }
}

/// Put the number overrides of the command line into the scenario (noted in its source).
/// \throws ExperimentError naming the option for a value out of range
void
ApplyNumberOverrides(const ExperimentOptions& o, Scenario& s)
{
    auto overrideField = [&s](const std::string& field) { s.source += " + --" + field; };
    if (o.seed)
    {
        s.seed = *o.seed;
        overrideField("seed");
    }
    if (o.priorityLevels)
    {
        // range-checked by Validate() on 64 bits before it is narrowed
        if (*o.priorityLevels > 8)
        {
            throw ExperimentError("--priorityLevels",
                                  "must be 1..8 (hardware traffic classes), got " +
                                      std::to_string(*o.priorityLevels));
        }
        s.priorityLevels = static_cast<uint32_t>(*o.priorityLevels);
        overrideField("priorityLevels");
    }
    if (o.stopTime)
    {
        if (!(*o.stopTime > 0))
        {
            throw ExperimentError("--stopTime: must be a positive number of seconds");
        }
        s.stopTime = *o.stopTime;
        overrideField("stopTime");
    }
    if (o.profileIterations)
    {
        s.profileIterations = static_cast<uint32_t>(
            CheckRange(*o.profileIterations, "--profileIterations", 0, UINT32_MAX));
        overrideField("profileIterations");
    }
    // the ranges of the scenario fields (Scenario::Validate), so that the message gives them
    auto count = [&](const std::optional<uint64_t>& v,
                     const char* option,
                     uint32_t& field,
                     uint64_t lo,
                     uint64_t hi) {
        if (v)
        {
            field = static_cast<uint32_t>(CheckRange(*v, std::string("--") + option, lo, hi));
            overrideField(option);
        }
    };
    count(o.seeds, "seeds", s.seeds, 1, Scenario::MAX_SEEDS);
    count(o.warmupIterations,
          "warmupIterations",
          s.warmupIterations,
          0,
          Scenario::MAX_ITERATION_COUNT);
    count(o.minMeasured,
          "minMeasuredIterations",
          s.minMeasuredIterations,
          1,
          Scenario::MAX_ITERATION_COUNT);
}

/// The runs of --modes (default: alone, ecmp and the scenario's scheduler), checked.
/// \throws ExperimentError "--modes: ..."
std::vector<std::string>
ModeList(const ExperimentOptions& o, const Scenario& s)
{
    std::vector<std::string> modeList = SplitCommaList(o.modes, "--modes");
    for (size_t i = 0; i < modeList.size(); ++i)
    {
        if (std::find(modeList.begin(), modeList.begin() + i, modeList[i]) != modeList.begin() + i)
        {
            // as crux-trace-run's --schedulers: a repeated run is a typo, not a request
            throw ExperimentError("--modes: '" + OneLine(modeList[i]) + "' given twice");
        }
    }
    if (modeList.empty())
    {
        modeList = {"alone", "ecmp", s.scheduler}; // the runs dedupe ecmp given twice here
    }
    try
    {
        CruxExperiment::CheckModes(modeList);
    }
    catch (const ExperimentError& e)
    {
        throw ExperimentError(std::string("--modes: ") + e.what());
    }
    return modeList;
}

} // namespace

int
main(int argc, char* argv[])
{
    ExperimentOptions o;
    // ns-3's heap scheduler: the same results, faster on the packet fabric (--SchedulerType=...
    // overrides it)
    CruxTopologyHelper::PreferFastScheduler();
    CheckedCommandLine cmd(__FILE__);
    AddOptions(cmd, o);
    bool simulating = false; // an error from now on may be one rank's alone
    try
    {
        cmd.Parse(argc, argv);
        if (o.mpi)
        {
            try
            {
                CruxDistributed::Enable(&argc, &argv);
            }
            catch (const std::runtime_error& e)
            {
                throw ExperimentError(std::string("--mpi: ") + e.what()); // no mpi module
            }
        }
        else if (CruxDistributed::LauncherSize() > 1)
        {
            throw ExperimentError("--mpi: started by mpirun with " +
                                  std::to_string(CruxDistributed::LauncherSize()) +
                                  " processes but without --mpi (every process would run the "
                                  "whole experiment and write the same files)");
        }
        const double progressSeconds =
            o.progress.empty() ? (o.quiet ? 0.0 : 10.0) : ParseDouble(o.progress, "--progress", 0);
        if (o.scenarioPath.empty())
        {
            throw ExperimentError("--scenario: missing (give a scenario file, e.g. "
                                  "--scenario=scenarios/sec22-gpt-bert.json)");
        }
        Scenario s = Scenario::Load(o.scenarioPath);
        ApplyTextOverrides(o, s);
        ApplyNumberOverrides(o, s);
        CruxExperiment exp(s);
        const std::vector<std::string> modeList = ModeList(o, s);
        if (!o.outputDir.empty() && !o.mpi)
        {
            // the option, not the scenario's outputDir, names a bad directory (with --mpi the
            // run's own check probes it on rank 0 alone)
            if (const std::string why =
                    ResultDirectory::Problem(o.outputDir, {}, ExperimentOutput::ResultFiles());
                !why.empty())
            {
                throw InputError("--outputDir", why);
            }
        }
        exp.SetDistributed(o.mpi); // checks the rank rule and the jobs' ranks (also --dryRun)
        if (o.dryRun)
        {
            exp.Check(modeList);
            if (CruxDistributed::GetRank() == 0)
            {
                std::cout << s.ToJson() << "\n";
            }
            CruxDistributed::Disable();
            return 0;
        }
        exp.SetParallelRuns(o.jobs);
        exp.SetProgressInterval(progressSeconds);
        simulating = true;
        auto runs = exp.Run(modeList);
        if (o.mpi)
        {
            // what crossed between the ranks (stderr; the result files do not depend on it)
            const auto sent =
                CruxDistributed::AllGather(std::to_string(CruxDistributed::GetRemoteFramesSent()));
            if (CruxDistributed::GetRank() == 0)
            {
                std::cerr << "crux-experiment: MPI: " << sent.size()
                          << " ranks; frames sent to another rank:";
                for (size_t r = 0; r < sent.size(); ++r)
                {
                    std::cerr << " rank " << r << " " << sent[r];
                }
                std::cerr << std::endl;
            }
        }
        // distributed: every rank has the merged results; rank 0 writes them
        if (CruxDistributed::GetRank() == 0)
        {
            exp.WriteResults(runs);
            if (!o.quiet)
            {
                std::cout << exp.FormatTable(runs);
                std::cout << "results written to " << s.outputDir << "/\n";
            }
        }
    }
    catch (const std::exception& e)
    {
        // Bad input is found by every rank alike: rank 0 says it. An error during a distributed
        // simulation may be one rank's: that rank says it and ends all ranks.
        const uint32_t rank = CruxDistributed::IsEnabled() ? CruxDistributed::GetRank()
                                                           : CruxDistributed::LauncherRank();
        if (simulating || rank == 0)
        {
            std::cerr << CruxRunError::Format(
                "crux-experiment",
                e,
                simulating && CruxDistributed::GetSize() > 1
                    ? "rank " + std::to_string(CruxDistributed::GetRank()) + ": "
                    : std::string());
        }
        if (simulating && CruxDistributed::GetSize() > 1)
        {
            CruxDistributed::Abort(1);
        }
        CruxDistributed::Disable();
        return 1;
    }
    CruxDistributed::Disable();
    return 0;
}
