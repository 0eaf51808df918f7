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

#ifndef CRUX_SCENARIO_JOBS_H
#define CRUX_SCENARIO_JOBS_H

#include "experiment-result.h"

#include "ns3/cluster-topology.h"
#include "ns3/crux-scenario.h"
#include "ns3/dlt-job.h"
#include "ns3/gpu-placement.h"

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup crux
 * The job builder of a scenario: its jobs placed on the cluster's GPUs and built as DltJobs
 * (ScenarioJobBuilder), and the jobs of one run (JobsOfRun).
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief Places a scenario's jobs on its cluster and builds them: listed hosts as given, the
 * other jobs locality-first (GpuPlacer, same ToR, then same group; the scenario's seed breaks
 * ties), in scenario order; a zoo model's job (DltJob::FromModel with the scenario's overrides
 * and plan) or a Chakra trace's (DltJob::FromChakra).
 */
class ScenarioJobBuilder
{
  public:
    /**
     * \param scenario the scenario (validated); kept by reference, must outlive the builder
     * \param cluster its cluster description (BuildScenarioTopology); kept by reference
     */
    ScenarioJobBuilder(const Scenario& scenario, const ClusterTopology& cluster);

    /**
     * \brief Check every job's model, place the jobs and build them.
     * \return the jobs, id = index in the scenario's job list, GPUs assigned
     * \throws ExperimentError "<scenario file>: jobs[i].<field>: <what>" (unknown model, hosts
     *         that do not exist or lack free GPUs, GPU counts that do not fit, bad plan or
     *         overrides, a Chakra trace that cannot be loaded)
     */
    std::vector<DltJob> Build() const;

  private:
    /// Allocate scenario job i on its listed hosts ("hosts", "gpusPerHost").
    /// \param placer the allocator \param i the job \return its GPUs per host
    /// \throws ExperimentError naming jobs[i].hosts, .gpus or .gpusPerHost
    std::vector<HostShare> PlaceOnListedHosts(GpuPlacer& placer, uint32_t i) const;
    /// Allocate scenario job i's "gpus" locality-first.
    /// \param placer the allocator \param i the job \return its GPUs per host
    /// \throws ExperimentError naming jobs[i].gpus when they do not fit
    std::vector<HostShare> PlaceByCount(GpuPlacer& placer, uint32_t i) const;
    /// The job of scenario job i from the model zoo (DltJob::FromModel) with the scenario's
    /// overrides and plan, on the GPUs placed for it. \param i the job \param gpus its GPUs
    /// \return the job \throws ExperimentError naming the job's field
    DltJob MakeZooJob(uint32_t i, const std::vector<GpuId>& gpus) const;
    /// The job of scenario job i that runs a Chakra trace (ChakraTrace::Load, DltJob::FromChakra)
    /// on the GPUs placed for it. \param i the job \param gpus its GPUs \return the job
    /// \throws ExperimentError naming the file and field, the trace's file and node
    DltJob MakeChakraJob(uint32_t i, const std::vector<GpuId>& gpus) const;
    /// \param field the field \param what what is wrong
    /// \throws ExperimentError "<scenario file>: <field>: <what>", always
    [[noreturn]] void Fail(const std::string& field, const std::string& what) const;

    const Scenario& m_scenario;       //!< the scenario
    const ClusterTopology& m_cluster; //!< its cluster description
    uint32_t m_nHosts;                //!< hosts of the cluster
    uint32_t m_gpusPerHost;           //!< GPUs per host
};

/**
 * \ingroup crux
 * \brief The jobs of one run: the placed jobs \p jobIds; in a run of several jobs, background
 * jobs run until the measured ones are done (iterations 0); \p iterationsOverride > 0 replaces
 * the others' iteration count.
 * \param s the scenario (its jobs' "background" flags)
 * \param placed the placed jobs (ScenarioJobBuilder::Build)
 * \param jobIds the run's jobs (indices into \p placed)
 * \param iterationsOverride 0 = the scenario's iterations
 * \return the jobs, in the order of \p jobIds
 */
std::vector<DltJob> JobsOfRun(const Scenario& s,
                              const std::vector<DltJob>& placed,
                              const std::vector<uint32_t>& jobIds,
                              uint32_t iterationsOverride);

/**
 * \ingroup crux
 * \brief Join strings with ", " (the lists of known names in error messages).
 * \param items the strings
 * \return "a, b, c" ("" for none)
 */
std::string JoinNames(const std::vector<std::string>& items);

} // namespace ns3

#endif // CRUX_SCENARIO_JOBS_H
