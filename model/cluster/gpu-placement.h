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

#ifndef CRUX_GPU_PLACEMENT_H
#define CRUX_GPU_PLACEMENT_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include "cluster-topology.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

/*
 * GPU placement (the cluster's job scheduler) for trace-driven runs (Crux §6.3, Fig. 25).
 * Jobs ask for a JobShape (numHosts hosts x gpusPerHost GPUs each); the placer hands out GPUs of
 * distinct hosts or answers "not now" (std::nullopt; the caller queues the job).
 *
 * Policies:
 *  - LOCALITY_FIRST: one host if the job fits on one (best fit: the host with the fewest free
 *    GPUs that suffice); else the fewest ToRs: one ToR if one has enough eligible hosts (best
 *    fit: the ToR with the fewest eligible hosts that suffice), else within one aggregation
 *    group (the group needing the fewest ToRs, ToRs taken in descending eligible-host count),
 *    else anywhere (the same greedy over all ToRs). Inside a ToR, hosts are taken best fit.
 *  - RANDOM: numHosts hosts drawn uniformly among the eligible hosts (partial Fisher-Yates on
 *    a seeded std::mt19937_64 with modulo reduction, reproducible across platforms) -- the
 *    fragmented placement of a locality-unaware scheduler.
 *  - BUDDY: HiveD-like (Zhao et al., OSDI'20) buddy cells. Simplifications: (1) one virtual
 *    cluster (no tenants, no priorities, no preemption); (2) cell hierarchy GPU buddies inside
 *    a host (aligned power-of-two cells 1, 2, 4, ... up to the host), then host, ToR, group,
 *    cluster; (3) a request of k GPUs per host takes an aligned free cell of size
 *    2^ceil(log2 k) (the whole host if that exceeds it) and uses its first k GPUs -- the rest
 *    of the cell stays free for smaller requests (buddy splitting); (4) a multi-host request
 *    is served from the smallest level (host, ToR, group, cluster) with a cell that can hold it
 *    now, choosing among such cells the most used one (fewest free GPUs), and inside it hosts
 *    and GPU cells whose enclosing buddy cells are most used ("prefer partly used cells", which
 *    keeps large cells whole). No reservation of a cell for a job that does not fit yet.
 * All policies are deterministic for a seed (ties broken by the lowest index).
 */

namespace ns3
{

/// \ingroup crux-scheduling
/// \brief Placement policy of a GpuPlacer.
enum class PlacementPolicy
{
    LOCALITY_FIRST, //!< same host, then same ToR, then same aggregation group, else anywhere
    RANDOM,         //!< uniformly random eligible hosts (fragmented)
    BUDDY           //!< HiveD-like buddy cells
};

/**
 * \ingroup crux-scheduling
 * \param name "locality" (or "locality-first"), "random" or "buddy" (or "hived")
 * \return the policy; throws std::invalid_argument naming the field "placement" otherwise
 */
PlacementPolicy ParsePlacementPolicy(const std::string& name);

/// \return "locality", "random" or "buddy"
std::string ToString(PlacementPolicy policy);

/// \ingroup crux-scheduling
/// \brief A host as the placer sees it: capacity and location.
struct PlacementHost
{
    uint32_t gpus{0};  //!< GPUs of the host (capacity)
    uint32_t tor{0};   //!< ToR index (cluster-wide, not per group)
    uint32_t group{0}; //!< aggregation group (pod) index
};

/// \ingroup crux-scheduling
/// \brief The GPUs a job got on one host.
struct HostShare
{
    uint32_t host{0};                //!< host index
    std::vector<uint32_t> localGpus; //!< GPU indices on that host (0..gpus-1), ascending
};

/// \ingroup crux-scheduling
/// \brief Job shape: numHosts hosts with gpusPerHost GPUs each (DltJob needs equal GPUs per
/// host).
struct JobShape
{
    uint32_t numHosts{1};    //!< distinct hosts
    uint32_t gpusPerHost{1}; //!< GPUs on each of them
};

/**
 * \ingroup crux-scheduling
 * \brief Shape for a job of g GPUs on hosts of G GPUs.
 *
 * g <= G -> {1, g}; else s = the largest divisor of g that is <= G, {g / s, s}.
 * Examples (G = 8): 8 -> {1, 8}, 12 -> {2, 6}, 32 -> {4, 8}, 11 -> {11, 1}.
 * Throws std::invalid_argument for g == 0 or G == 0.
 */
JobShape ShapeFor(uint32_t g, uint32_t G);

/**
 * \ingroup crux-scheduling
 * \brief Allocates GPUs of a cluster to jobs under a PlacementPolicy (see the file comment).
 */
class GpuPlacer
{
  public:
    /**
     * \param hosts host capacities and locations (host index = position); non-empty, every
     *        host with >= 1 GPU
     * \param policy placement policy
     * \param seed seed of the RANDOM policy's std::mt19937_64 (unused by the others)
     * Throws std::invalid_argument naming the bad field.
     */
    GpuPlacer(std::vector<PlacementHost> hosts, PlacementPolicy policy, uint64_t seed);

    /// \return the hosts of a topology: gpus = gpusPerHost, tor = hostTor[h],
    ///         group = torGroup[hostTor[h]]
    static std::vector<PlacementHost> HostsOf(const ClusterTopology& topo);

    /**
     * \brief Place a job.
     * \param jobId job id (must not be placed already)
     * \param shape requested shape
     * \return numHosts shares on distinct hosts, each with gpusPerHost GPUs, ordered by host
     *         index; std::nullopt if it does not fit now (nothing changes; the caller queues
     *         the job). Throws std::invalid_argument for a duplicate jobId, a zero field of
     *         shape, or a shape that can never fit (more GPUs per host than any host has, more
     *         hosts than there are hosts with that many GPUs).
     */
    std::optional<std::vector<HostShare>> Allocate(uint32_t jobId, JobShape shape);

    /**
     * \brief Place a job on given hosts (a scenario's "hosts" list, a trace's recorded hosts):
     * the lowest free GPU indices of each host, whatever the policy.
     * \param jobId job id (must not be placed already)
     * \param hosts host indices in the job's order (kept: the ring order of a scenario)
     * \param gpusPerHost GPUs the job uses on each of them (>= 1)
     * \return one share per listed host, in the given order; std::nullopt if some host has
     *         fewer than gpusPerHost free GPUs now (nothing changes). Throws
     *         std::invalid_argument for a duplicate jobId, an empty list, gpusPerHost == 0, a
     *         host index out of range or listed twice, or more GPUs per host than it has.
     */
    std::optional<std::vector<HostShare>> AllocateOn(uint32_t jobId,
                                                     const std::vector<uint32_t>& hosts,
                                                     uint32_t gpusPerHost);

    /// \brief Free the GPUs of a job. Throws std::out_of_range for an unknown jobId.
    void Release(uint32_t jobId);

    /// \return free GPUs now
    uint32_t FreeGpus() const;
    /// \return GPUs of all hosts
    uint32_t TotalGpus() const;
    /// \return free GPUs of host h (throws std::out_of_range for a bad h)
    uint32_t FreeGpusOnHost(uint32_t h) const;
    /// \return whether GPU gpu of host h is in use (throws std::out_of_range for bad ids)
    bool IsBusy(uint32_t h, uint32_t gpu) const;
    /// \return the shares of a placed job, nullptr if jobId is not placed
    const std::vector<HostShare>* Find(uint32_t jobId) const;
    /// \return number of placed jobs
    uint32_t NumJobs() const;

    /// \return the hosts
    const std::vector<PlacementHost>& Hosts() const
    {
        return m_hosts;
    }

    /// \return the policy
    PlacementPolicy Policy() const
    {
        return m_policy;
    }

  private:
    /// Mark the shares' GPUs busy and record them as job jobId.
    void Commit(uint32_t jobId, const std::vector<HostShare>& shares);
    /// GPU indices for k GPUs on host h under the current policy, empty if impossible
    std::vector<uint32_t> PickGpus(uint32_t h, uint32_t k) const;
    /// hosts (ascending) for the job, empty if it does not fit now
    std::vector<uint32_t> PickLocality(JobShape shape) const;
    std::vector<uint32_t> PickRandom(JobShape shape);      //!< see PickLocality
    std::vector<uint32_t> PickBuddy(JobShape shape) const; //!< see PickLocality
    /// hosts with a usable GPU set for k GPUs (policy-aware), ascending
    std::vector<uint32_t> Eligible(uint32_t k) const;

    std::vector<PlacementHost> m_hosts;                //!< capacities and locations
    PlacementPolicy m_policy;                          //!< policy
    std::mt19937_64 m_rng;                             //!< RANDOM's generator
    std::vector<std::vector<bool>> m_busy;             //!< host -> GPU -> in use
    std::vector<uint32_t> m_free;                      //!< host -> free GPUs
    uint32_t m_totalFree{0};                           //!< sum of m_free
    uint32_t m_total{0};                               //!< sum of capacities
    uint32_t m_maxGpus{0};                             //!< largest host capacity
    std::map<uint32_t, std::vector<HostShare>> m_jobs; //!< placed jobs
};

} // namespace ns3

#endif // CRUX_GPU_PLACEMENT_H
