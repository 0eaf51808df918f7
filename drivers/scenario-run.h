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

#ifndef CRUX_SCENARIO_RUN_H
#define CRUX_SCENARIO_RUN_H

#include "experiment-result.h"

#include "ns3/cluster-topology.h"
#include "ns3/crux-scenario.h"
#include "ns3/dlt-job.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup crux
 * One simulation of a scenario (ScenarioRun): the fabric, the scheduler's decision installed on
 * it, the jobs' applications and the statistics, in one process or split over MPI ranks; and
 * the description of such a run (ScenarioRunSpec).
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief What one simulation of a scenario is: its jobs, the scheduler, the seed and the t_j
 * it sees. Everything a run depends on besides the scenario, its cluster and the placed jobs.
 */
struct ScenarioRunSpec
{
    /// what the run is for
    enum Kind
    {
        ALONE,   //!< a job alone (a result row; gives its t_j and alone iteration time)
        PROFILE, //!< profiling a job alone for its t_j (no result row)
        MODE     //!< all jobs under a scheduler (a result row)
    };

    Kind kind{MODE};              //!< what the run is for
    std::string label;            //!< run label ("alone:<job>", "profile:<job>", mode)
    std::vector<uint32_t> jobIds; //!< the jobs of the run (indices of the placed jobs)
    std::string scheduler;        //!< scheduler name (KnownCommSchedulers())
    /// The run's seed: ns-3's RNG (RngSeedManager::SetSeed, run 1), the switches' ECMP hash
    /// (InstallScenarioFabric) and the scheduler's random choices (SchedulerConfig::seed).
    /// CruxExperiment gives every run the scenario's seed; placement always uses the
    /// scenario's.
    uint64_t seed{1};
    uint32_t iterationsOverride{0}; //!< 0 = the scenario's iterations
    /// ECMP hash seed of the switches (0 = seed): the one thing the experiment's seeds vary
    /// (Scenario::seeds; ns-3's RNG and the scheduler keep \c seed)
    uint64_t ecmpSeed{0};
    /// every job in one traffic class (level 0, rank 0) on the paths the scheduler chose: the
    /// "mix/one-class" run of the contention decomposition (ContentionDecomposition)
    bool oneClass{false};
    /// > 0: every job of the run runs until this simulated time (seconds) instead of its
    /// iterations: a background job's alone run, as long as the measured jobs' alone runs
    double stopAt{0};
    std::vector<std::string> roles; //!< ExperimentRunResult::roles of the run
    std::vector<uint64_t> seeds;    //!< ExperimentRunResult::seeds of the run
    /// t_j measured alone of the run's jobs that were known when the run started in
    /// sequence (job id → seconds): the run's only input from other runs
    std::map<uint32_t, double> measuredComm;
};

/**
 * \ingroup crux
 * \brief One simulation of a scenario: the fabric (InstallScenarioFabric) with the run's seed,
 * the jobs of the run (JobsOfRun), the scheduler's decision on the scheduler's view of that
 * fabric (MakeClusterModel, CommScheduler::Schedule) installed through CruxHelper (DSCP, source
 * ports or pinned routes), one DltJobApplication per job, the statistics (RunStatistics), and
 * the result (Crux §2.2, §6).
 *
 * The run ends when every measured (non-background) job is done, or at the scenario's
 * stopTime. With SetDistributed it is split over the ranks of ns-3's distributed simulator:
 * every rank builds the whole fabric and takes the same decision, installs the applications of
 * its own jobs, and the ranks exchange what they measured (CruxDistributed::AllGather), so that
 * every rank returns the same result, the one a single process gives.
 */
class ScenarioRun
{
  public:
    /**
     * \param scenario the scenario (validated); kept by reference
     * \param cluster its cluster description (BuildScenarioTopology); kept by reference
     * \param placed its placed jobs (ScenarioJobBuilder::Build); kept by reference
     * \param spec what to run
     */
    ScenarioRun(const Scenario& scenario,
                const ClusterTopology& cluster,
                const std::vector<DltJob>& placed,
                const ScenarioRunSpec& spec);

    /**
     * \brief Progress lines on stderr while the run simulates (ProgressReporter).
     * \param seconds wall seconds between two lines; 0 (default) = none
     */
    void SetProgressInterval(double seconds);

    /**
     * \brief Split the run over the MPI ranks (CruxDistributed; see CruxExperiment::SetDistributed,
     * which checks the job ranks).
     * \param ranks the ranks (CruxDistributed::GetSize())
     * \param jobRank job id → rank that simulates it (every job of the run)
     * \param stopCheckSeconds period of the collective end-of-run check, s
     */
    void SetDistributed(uint32_t ranks,
                        const std::map<uint32_t, uint32_t>& jobRank,
                        double stopCheckSeconds);

    /**
     * \brief Simulate (Simulator::Run, then Simulator::Destroy).
     * \return the result (the same on every rank when distributed)
     * \throws ExperimentError naming the scenario file or the scheduler if the scheduler's view
     *         cannot be built, the scheduler refuses, or the decision cannot be installed
     */
    ExperimentRunResult Run() const;

    /**
     * \brief Build the run's fabric, jobs and decision and install it, without simulating
     * (Simulator::Destroy after), and describe what the simulation would depend on: per job
     * its iterations, level, rank, DSCP and time shift, per flow its links, and the stop time.
     * Two runs of one scenario with equal signatures are the same simulation (the ECMP seed
     * enters only through the flows' links; ns-3's RNG uses the spec's seed).
     * \return the signature (also ExperimentRunResult::signature of Run())
     * \throws ExperimentError as Run()
     */
    std::string Plan() const;

  private:
    struct Setup;

    /// Set up the run on \p ranks ranks (1 without MPI): the RNG seed, the fabric, the jobs,
    /// the decision installed, the link counters, a GPU-intensity tracker. \param ranks the
    /// ranks \param run filled in place (its trace sinks point into it)
    void SetUp(uint32_t ranks, Setup& run) const;
    /// Run() in this process. \return the result
    ExperimentRunResult RunLocal() const;
    /// Run() split over the MPI ranks. \return the result, the same on every rank
    ExperimentRunResult RunDistributed() const;
    /// \return the run's simulated-time limit: stopAt if set (and below the scenario's), else
    /// the scenario's stopTime, seconds
    double StopTime() const;
    /// The signature of a set-up run (Plan()). \param run the run \return the signature
    std::string Signature(const Setup& run) const;
    /// The spec's fields and the profiled t_j into \p r after the run. \param run the run
    /// \param r the result
    void Finish(const Setup& run, ExperimentRunResult& r) const;

    const Scenario& m_scenario;             //!< the scenario
    const ClusterTopology& m_cluster;       //!< its cluster description
    const std::vector<DltJob>& m_placed;    //!< the placed jobs
    ScenarioRunSpec m_spec;                 //!< the run
    double m_progressSeconds{0};            //!< wall seconds between progress lines
    uint32_t m_ranks{1};                    //!< MPI ranks (1: not distributed)
    std::map<uint32_t, uint32_t> m_jobRank; //!< job id → rank simulating it
    double m_stopCheckSeconds{100e-6};      //!< end-of-run check period, s
    bool m_distributed{false};              //!< split over MPI ranks
};

} // namespace ns3

#endif // CRUX_SCENARIO_RUN_H
