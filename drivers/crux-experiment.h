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

#ifndef CRUX_EXPERIMENT_H
#define CRUX_EXPERIMENT_H

#include "experiment-result.h"
#include "scenario-run.h"

#include "ns3/cluster-topology.h"
#include "ns3/crux-scenario.h"
#include "ns3/dlt-job.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

class ProgressReporter;

/**
 * \ingroup crux
 * \brief Runs a scenario (Scenario) end to end: topology, lossless RoCEv2 fabric (or the
 * flow-level fabric), DLT jobs, a communication scheduler's decision installed as UDP source
 * ports / pinned routes and DSCP, and the measurements (Crux §2.2, §6).
 *
 * Modes (RunMode):
 *  - "alone": every job runs by itself on the same topology (ECMP, one traffic class); gives
 *    the reference iteration times and, when Scenario::profileIterations > 0, the measured
 *    per-iteration communication time t_j of each job (Crux §5 profiling: the job alone, so at
 *    the top priority, averaged over its first profileIterations iterations after the first);
 *  - any scheduler name of KnownCommSchedulers() ("ecmp", "crux", ...): all jobs together.
 *
 * Measurement window of a run: from the last job start to the first completion of a measured
 * (non-background) job. A job's iteration time is the mean over its iterations that lie inside
 * the window, skipping its first iteration (connection set-up). Alone runs use all iterations
 * but the first.
 *
 * Input checks (constructor): models, scheduler names, placement (explicit hosts exist and
 * have the GPUs; automatic placement finds free hosts), priority levels; failures raise
 * ExperimentError naming the scenario file and the field. Nothing is simulated or written then.
 *
 * CruxExperiment orchestrates the modes; the named parts do the work: BuildScenarioTopology
 * (the topology builder, scenario-topology.h), ScenarioJobBuilder (placement and jobs,
 * scenario-jobs.h), ScenarioRun (one simulation of a ScenarioRunSpec, scenario-run.h),
 * RunStatistics (the statistics of a run, run-statistics.h) and ExperimentOutput (the table and
 * the result files, experiment-output.h).
 */
class CruxExperiment
{
  public:
    /**
     * \brief Check the scenario and place the jobs.
     * \param scenario a scenario (Scenario::Validate() is called again)
     * \throws ExperimentError (or ScenarioError) naming the field on bad input
     */
    explicit CruxExperiment(const Scenario& scenario);

    /// \return the scenario
    const Scenario& GetScenario() const;

    /// \return the placed jobs (id = index in the scenario; GPUs assigned)
    const std::vector<DltJob>& GetJobs() const;

    /// \return number of hosts of the scenario's topology
    uint32_t GetNHosts() const;

    /// \return GPUs per host of the scenario's topology
    uint32_t GetGpusPerHost() const;

    /**
     * \brief Check a list of run modes ("alone" or scheduler names).
     * \param modes the modes
     * \throws ExperimentError naming the unknown mode and the known ones
     */
    static void CheckModes(const std::vector<std::string>& modes);

    /**
     * \brief Everything Run() checks before it simulates: the modes, the output directory
     * (ResultDirectory::Problem) and, for "optimal", the size of its search space.
     * \param modes the modes
     * \throws ExperimentError naming the field (one line); nothing is simulated or written
     */
    void Check(const std::vector<std::string>& modes) const;

    /**
     * \brief Run one mode.
     * \param mode "alone" (one run per job) or a scheduler name
     * \return the runs (one per job for "alone", else one)
     * \throws ExperimentError if the mode is unknown or the decision cannot be installed
     */
    std::vector<ExperimentRunResult> RunMode(const std::string& mode);

    /**
     * \brief Run several modes in order ("alone" first if present so that the profiled t_j
     * are available to the schedulers), after Check().
     *
     * Every mode is an independent simulation; with SetParallelRuns(N > 1) they run in N forked
     * child processes at a time (RunParallel). The t_j measured alone (profileIterations > 0)
     * are an input of the scheduler runs, so then the alone (or profiling) runs go first, in
     * parallel, and the scheduler runs after them, in parallel. The results, hence the table
     * and the result files, are the same as one after another.
     * \param modes the modes
     * \return all runs in order
     * \throws ParallelRunError "run <name>: ..." if a run failed in its child process
     */
    std::vector<ExperimentRunResult> Run(const std::vector<std::string>& modes);

    /**
     * \brief How many simulations Run() and RunMode() run at a time, each in its own child
     * process. Default 1: one after another in this process (as the Python bindings use it).
     * \param jobs runs at a time (0 is taken as 1)
     */
    void SetParallelRuns(uint32_t jobs);

    /**
     * \brief Progress lines on stderr (ProgressReporter): within each simulation (simulated
     * time, iterations done of the measured jobs' iterations, time left) and over the runs
     * (runs done k/N, time left).
     * \param seconds wall seconds between two lines; 0 (default) = none
     */
    void SetProgressInterval(double seconds);

    /**
     * \brief Split every simulation over the ranks of ns-3's distributed simulator (MPI; the
     * process must have called CruxDistributed::Enable()). Each rank builds the whole fabric
     * with the nodes of CruxTopologyHelper::AssignRanks() as its own, simulates only those (links
     * between ranks are QbbRemoteChannels) and the applications of the jobs whose hosts are its;
     * the ranks then exchange what they measured (CruxDistributed::AllGather), so that every rank
     * returns the same results. A run ends at the first multiple of \p stopCheckSeconds of
     * simulated time at which every measured job is done (a collective check; a single-process
     * run ends at the completion itself), or at stopTime. Runs go one after another
     * (SetParallelRuns does not apply).
     * \param on true to split \param stopCheckSeconds period of the end-of-run check, s
     * \throws ExperimentError if the scenario's fabric is not "packet", if the rank rule does
     * not support CruxDistributed::GetSize() ranks (more ranks than ToRs), or if a job has hosts
     * on two ranks (naming the job, its hosts and their ranks)
     */
    void SetDistributed(bool on, double stopCheckSeconds = 100e-6);

    /// \return the rank that simulates each job (job id → rank; empty unless distributed)
    const std::map<uint32_t, uint32_t>& GetJobRanks() const;

    /**
     * \brief Per-iteration communication time t_j measured alone (seconds), by job id; empty
     * until an "alone" mode ran (or profiling ran) with Scenario::profileIterations > 0.
     * \return job id → t_j
     */
    const std::map<uint32_t, double>& GetMeasuredCommTimes() const;

    /**
     * \brief The result table: per run and job the iteration time, throughput, level, and the
     * change against the job alone; per run the cluster GPU utilization and its change.
     * \param runs results of Run()
     * \return multi-line text
     */
    std::string FormatTable(const std::vector<ExperimentRunResult>& runs) const;

    /**
     * \brief Write the result files into Scenario::outputDir (created if missing): summary.json,
     * jobs.csv, iterations.csv, links.csv (IP bytes per link and TC), paths.csv, pfc.csv,
     * utilization.csv, drops.csv, table.txt, and timing.csv (wall-clock seconds: the only file
     * that differs between two runs with the same seed; with a row per simulation, the
     * profiling runs of background jobs this object made included, last). Files are
     * written into a temporary directory inside outputDir first and moved into place only when
     * all were written, so a failure leaves the previous contents untouched.
     * \param runs results of Run() (at least one)
     * \throws ExperimentError naming the path if a file cannot be written, or for no runs
     *         (nothing is written then)
     */
    void WriteResults(const std::vector<ExperimentRunResult>& runs) const;

  private:
    /// One simulation of Run(): the jobs, the scheduler, the seed and the t_j it sees.
    using RunSpec = ScenarioRunSpec;

    /// Run the modes, "alone" first (after CheckModes). \param ordered the modes
    /// \return the result rows in order
    std::vector<ExperimentRunResult> RunOrdered(const std::vector<std::string>& ordered);
    /// A run of \p jobIds under \p scheduler with ECMP seed \p ecmpSeed and the t_j known
    /// now for that seed. \param kind what for \param label its label \param jobIds its jobs
    /// \param scheduler scheduler name \param ecmpSeed the ECMP seed \param role its
    /// ExperimentRunResult::roles entry \return the run (one class for a job alone)
    RunSpec MakeSpec(RunSpec::Kind kind,
                     const std::string& label,
                     const std::vector<uint32_t>& jobIds,
                     const std::string& scheduler,
                     uint64_t ecmpSeed,
                     const std::string& role) const;
    /// \return the ECMP seeds: Scenario::seed, seed + 1, ..., seed + seeds − 1
    std::vector<uint64_t> Seeds() const;
    /// \param id a job \return its name in the scenario
    std::string JobName(uint32_t id) const;
    /// The runs that need no t_j, for every seed: measured jobs alone under ECMP, profiling
    /// runs, the ECMP mixes. \param alone "alone" among the modes \param schedulers the
    /// other modes \return the runs
    std::vector<RunSpec> FirstPhase(bool alone, const std::vector<std::string>& schedulers) const;
    /// The other runs, for every seed: background jobs alone under ECMP until \p aloneEnd,
    /// every job alone on collision-free paths and on each scheduler's paths, the mixes and
    /// their one-class runs. \param alone "alone" among the modes \param schedulers the other
    /// modes \param aloneEnd end of the longest alone run of a measured job over all seeds, s
    /// \return the runs
    std::vector<RunSpec> SecondPhase(bool alone,
                                     const std::vector<std::string>& schedulers,
                                     double aloneEnd) const;
    /// Set every run of \p specs up without simulating (ScenarioRun::Plan) and keep one run per
    /// simulation: a run equal to one of \p done or to an earlier spec adds its roles and
    /// seeds to it instead. \param specs the runs (reduced in place) \param done runs already
    /// simulated (their roles and seeds may grow)
    /// \param alone "alone" among the modes (without it and with one seed, nothing is planned:
    /// no two runs can be equal)
    void Merge(std::vector<RunSpec>& specs,
               std::vector<ExperimentRunResult>& done,
               bool alone) const;
    /// Run \p batch (in parallel, see SetParallelRuns), note what the alone and profiling runs
    /// measured, append the result rows to \p out and clear \p batch.
    /// \param batch the runs \param out the result rows \param progress counts the runs
    void RunBatch(std::vector<RunSpec>& batch,
                  std::vector<ExperimentRunResult>& out,
                  ProgressReporter& progress);
    /// Run one simulation (ScenarioRun; over the MPI ranks with SetDistributed).
    /// \param spec the run \return the result
    ExperimentRunResult RunJobs(const RunSpec& spec) const;
    /// \throws ExperimentError "<scenario file>: <field>: <what>", always
    [[noreturn]] void Fail(const std::string& field, const std::string& what) const;

    Scenario m_scenario;                       //!< the scenario
    std::vector<DltJob> m_jobs;                //!< placed jobs
    ClusterTopology m_cluster;                 //!< the scenario's cluster description
    uint32_t m_nHosts{0};                      //!< hosts of the topology
    uint32_t m_gpusPerHost{0};                 //!< GPUs per host
    std::map<uint32_t, double> m_measuredComm; //!< job id → t_j measured alone, s
    /// the profiling runs made so far (no result row; their timing.csv rows), one per name
    std::vector<ExperimentRunResult> m_profileRuns;
    /// ECMP seed → job id → t_j profiled alone under that seed's ECMP paths, s
    std::map<uint64_t, std::map<uint32_t, double>> m_measuredCommBySeed;
    uint32_t m_parallelRuns{1};             //!< simulations at a time
    double m_progressSeconds{0};            //!< wall seconds between progress lines
    bool m_distributed{false};              //!< split over MPI ranks (SetDistributed)
    uint32_t m_ranks{1};                    //!< MPI ranks
    double m_stopCheckSeconds{100e-6};      //!< end-of-run check period, s
    std::map<uint32_t, uint32_t> m_jobRank; //!< job id → rank simulating it
};

/**
 * \ingroup crux
 * \brief Split a comma-separated command-line list ("alone,ecmp,crux") into its items.
 * \param text the list; spaces around an item are dropped ("ecmp, crux" = "ecmp,crux")
 * \param field the option named in the error (e.g. "--modes")
 * \return the items, in order (empty for an empty or all-space text)
 * \throws ExperimentError "<field>: empty item in '<text>'" for an empty item ("ecmp,,crux",
 *         "ecmp,")
 */
std::vector<std::string> SplitCommaList(const std::string& text, const std::string& field);

} // namespace ns3

#endif // CRUX_EXPERIMENT_H
