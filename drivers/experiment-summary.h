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

#ifndef CRUX_EXPERIMENT_SUMMARY_H
#define CRUX_EXPERIMENT_SUMMARY_H

#include "ns3/contention-decomposition.h"
#include "ns3/experiment-result.h"
#include "ns3/sample-statistics.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief The roles a run plays in a scenario experiment (ExperimentRunResult::role; doc/crux.rst,
 * "Measurement methodology").
 */
namespace RunRole
{
/// a job alone, plain ECMP paths of one hash seed (the "alone" mode)
constexpr const char* ALONE_ECMP = "alone@ECMP";
/// a job alone on collision-free paths (least-congested path selection with the job alone)
constexpr const char* ALONE_FREE = "alone@free";
/// a job alone on the paths the scheduler of ExperimentRunResult::reference gives it alone
constexpr const char* ALONE_PATHS = "alone@paths";
/// all jobs under a scheduler
constexpr const char* MIX = "mix";
/// all jobs on the paths of the scheduler of ExperimentRunResult::reference, in one class
constexpr const char* MIX_ONE_CLASS = "mix/one-class";
/// a job alone for its profiled t_j only (no row of the table)
constexpr const char* PROFILE = "profile";
} // namespace RunRole

/**
 * \ingroup crux
 * \brief One job under one scheduler, over the seeds: its iteration time and its change against
 * the two alone references of the same seed.
 */
struct JobSummary
{
    uint32_t id{0};        //!< job id
    std::string name;      //!< job name
    std::string scheduler; //!< the scheduler of the mix
    uint32_t level{0};     //!< priority level (of the first seed's run)
    /// its distinct priority levels over the seeds, in seed order (one entry unless the
    /// scheduler's decision depends on the seed's ECMP paths, e.g. Crux's profiled t_j)
    std::vector<uint32_t> levels;
    SampleSummary iterationTime; //!< mean iteration time in the window, seconds
    SampleSummary vsAloneEcmp;   //!< iteration time / alone@ECMP − 1 (same seed), fraction
    SampleSummary vsAlonePaths;  //!< iteration time / alone@paths − 1 (same seed), fraction
    uint32_t minMeasured{0};     //!< fewest measured iterations over the seeds
    bool fewIterations{false};   //!< minMeasured < the scenario's minMeasuredIterations
    uint32_t seedsWithout{0};    //!< seeds in which the job had no measured iteration
};

/**
 * \ingroup crux
 * \brief One job's alone references over the seeds.
 */
struct ReferenceSummary
{
    uint32_t id{0};          //!< job id
    std::string name;        //!< job name
    SampleSummary aloneEcmp; //!< alone@ECMP iteration time, seconds, over the seeds
    SampleSummary aloneFree; //!< alone@free iteration time, seconds (n = 0: not measured)
    /// scheduler → alone@paths iteration time, seconds
    std::map<std::string, SampleSummary> alonePaths;
    uint32_t minMeasured{0};   //!< fewest measured iterations of any of its alone runs
    bool fewIterations{false}; //!< minMeasured < minMeasuredIterations
};

/**
 * \ingroup crux
 * \brief One scheduler's cluster GPU utilization over the seeds, with its references and the
 * contention decomposition (ContentionDecomposition) computed seed by seed and summarized.
 */
struct SchedulerSummary
{
    std::string scheduler;          //!< scheduler name
    uint32_t distinctRuns{0};       //!< simulations of its mix (1: seed-independent decision)
    SampleSummary mix;              //!< U_mix (of the jobs it counts, see incomplete)
    SampleSummary aloneEcmp;        //!< U_ecmp (Σ of the jobs' alone@ECMP utilizations)
    SampleSummary aloneFree;        //!< U_free (n = 0: not measured)
    SampleSummary alonePaths;       //!< U_paths
    SampleSummary ownFlowLoss;      //!< U_free − U_ecmp (n = 0: U_free not measured)
    SampleSummary pathGain;         //!< U_paths − U_ecmp
    SampleSummary interJobLoss;     //!< U_paths − U_1
    SampleSummary priorityRecovery; //!< U_mix − U_1 (n = 0: no one-class run)
    SampleSummary vsAloneEcmp;      //!< U_mix / U_ecmp − 1, fraction
    /// U_mix / U_mix(ECMP) − 1 seed by seed (paired: both mixes under the same seed's ECMP
    /// hashes), fraction; n = 0 for ECMP itself, without an ECMP mix, or where a mix left a job
    /// outside its window
    SampleSummary vsEcmp;
    double maxResidual{0}; //!< largest |ContentionDecomposition::Residual()| of a seed
    /// a seed's mix left a job outside its window: its utilization counts the other jobs only,
    /// and that seed is left out of every comparison with the jobs alone
    bool incomplete{false};
    std::vector<std::string> jobsOutside; //!< the jobs left out (any seed)
};

/**
 * \ingroup crux
 * \brief Everything the table and summary.json print about a scenario experiment.
 */
struct ExperimentSummary
{
    uint32_t seeds{1};                      //!< ECMP hash seeds
    bool references{false};                 //!< alone runs present ("alone" among the modes)
    std::vector<ReferenceSummary> jobs;     //!< per job: its alone references
    std::vector<JobSummary> jobRows;        //!< per scheduler and job (scheduler order)
    std::vector<SchedulerSummary> clusters; //!< per scheduler (mode order)
};

/**
 * \ingroup crux
 * \brief Summarize the runs of a scenario experiment seed by seed: every run stands for the
 * seeds of ExperimentRunResult::seeds; for seed k the references and mixes are the runs that
 * stand for k, and every number of the summary is a SampleSummary over k (Student t, 95 %).
 * \param runs the runs (CruxExperiment::Run), in order
 * \param seeds the ECMP seed values, in order (Scenario::seed, seed + 1, ...)
 * \param minMeasuredIterations Scenario::minMeasuredIterations
 * \return the summary
 */
ExperimentSummary SummarizeExperiment(const std::vector<ExperimentRunResult>& runs,
                                      const std::vector<uint64_t>& seeds,
                                      uint32_t minMeasuredIterations);

} // namespace ns3

#endif // CRUX_EXPERIMENT_SUMMARY_H
