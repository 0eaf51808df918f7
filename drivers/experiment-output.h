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

#ifndef CRUX_EXPERIMENT_OUTPUT_H
#define CRUX_EXPERIMENT_OUTPUT_H

#include "experiment-result.h"
#include "experiment-summary.h"

#include "ns3/crux-scenario.h"
#include "ns3/dlt-job.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup crux
 * The output writer of a scenario's runs (ExperimentOutput): the result table and the result
 * files.
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief Writes the results of a scenario's runs: the table (FormatTable) and the result files
 * of Scenario::outputDir (Write, through ResultDirectory). Holds references to what it reads:
 * they must outlive it.
 */
class ExperimentOutput
{
  public:
    /**
     * \param scenario the scenario (name, file, fabric, seed, outputDir, job names)
     * \param nHosts hosts of its cluster
     * \param gpusPerHost GPUs per host
     * \param jobs the placed jobs (W_j of each, for the utilization of the jobs alone)
     * \param measuredComm job id → t_j measured alone, s (summary.json)
     */
    ExperimentOutput(const Scenario& scenario,
                     uint32_t nHosts,
                     uint32_t gpusPerHost,
                     const std::vector<DltJob>& jobs,
                     const std::map<uint32_t, double>& measuredComm);

    /**
     * \brief The result table: per run and job the iteration time, throughput, level, and the
     * change against the job alone; per run the cluster GPU utilization and its change; on the
     * packet fabric per run the PAUSE frames, drops, retransmissions and timeouts.
     * \param runs the results
     * \return multi-line text
     */
    std::string FormatTable(const std::vector<ExperimentRunResult>& runs) const;

    /**
     * \brief Write the result files into Scenario::outputDir (see CruxExperiment::WriteResults):
     * all into a temporary directory first, moved into place only when all were written.
     * \param runs the results
     * \param profileRuns the profiling runs of background jobs (Crux §5's t_j alone): they have
     *        no result row, only their row of timing.csv (after the runs' rows)
     * \throws ExperimentError naming the path if a file cannot be written
     */
    void Write(const std::vector<ExperimentRunResult>& runs,
               const std::vector<ExperimentRunResult>& profileRuns = {}) const;

    /**
     * \brief The names of the result files Write() may write (link_throughput.csv only when
     * sampled): checked before the simulations (ResultDirectory::Problem), so that a result file
     * that cannot be replaced (a directory in its place) is refused up front.
     * \return jobs.csv, iterations.csv, links.csv, link_throughput.csv, paths.csv, pfc.csv,
     *         drops.csv, utilization.csv, table.txt, summary.json, timing.csv
     */
    static const std::vector<std::string>& ResultFiles();

    /**
     * \brief The runs summarized seed by seed (SummarizeExperiment over the scenario's ECMP
     * seeds): what the table and summary.json print.
     * \param runs the results
     * \return the summary
     */
    ExperimentSummary Summary(const std::vector<ExperimentRunResult>& runs) const;

  private:
    /// The table's alone references per job. \param os the table \param sum the summary
    void FormatReferences(std::ostream& os, const ExperimentSummary& sum) const;
    /// The table's rows per scheduler and job. \param os the table \param sum the summary
    void FormatJobRows(std::ostream& os, const ExperimentSummary& sum) const;
    /// The table's utilization rows and their decomposition. \param os the table
    /// \param sum the summary
    void FormatUtilization(std::ostream& os, const ExperimentSummary& sum) const;
    /// The runs cut short by stopTime (ExperimentRunResult::complete false), if any: one line
    /// naming them. \param os the table \param runs the results
    void FormatCutShort(std::ostream& os, const std::vector<ExperimentRunResult>& runs) const;
    /// The table's packet-fabric counters (PAUSE frames, drops, retransmissions, timeouts).
    /// \param os the table \param runs the results
    void FormatPacketCounters(std::ostream& os, const std::vector<ExperimentRunResult>& runs) const;

    const Scenario& m_scenario;                       //!< the scenario
    uint32_t m_nHosts;                                //!< hosts of the cluster
    uint32_t m_gpusPerHost;                           //!< GPUs per host
    const std::vector<DltJob>& m_jobs;                //!< placed jobs
    const std::map<uint32_t, double>& m_measuredComm; //!< job id → t_j measured alone, s
};

} // namespace ns3

#endif // CRUX_EXPERIMENT_OUTPUT_H
