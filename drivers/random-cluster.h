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

#ifndef CRUX_RANDOM_CLUSTER_H
#define CRUX_RANDOM_CLUSTER_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include "ns3/cluster-model.h"

#include <cstdint>

/*
 * Random small clusters for the Crux §4.4 microbenchmark ("1,500 small cases: at most 20 hosts
 * with 8 GPUs each, a two-layer Clos with 2-4 ToR and 2 aggregation switches, 5 DLT jobs,
 * 3 priority levels"). The paper gives no more detail; everything else below is our choice [D].
 *
 * Topology: T ToRs (uniform in [minTors, maxTors]), hostsPerTor hosts under each (host h is under
 * ToR h / hostsPerTor), numAggs aggregation switches, every ToR wired to every aggregation switch.
 * Directed links, in this id order: per host h, "h<h>-up" (host -> ToR) then "h<h>-down";
 * then per ToR t and aggregation a, "t<t>-a<a>" (up) then "a<a>-t<t>" (down). Host links have
 * hostLinkBandwidth, ToR-aggregation links fabricLinkBandwidth (defaults: 100 Gbit/s both, so
 * a ToR with 5 hosts is 2.5:1 oversubscribed with 2 aggregation switches).
 *
 * Jobs (ids 1..numJobs): every host has slotsPerHost slots of gpusPerHost / slotsPerHost GPUs.
 * Job j wants h_j slots (uniform in [minHostsPerJob, maxHostsPerJob], lowered when needed so that
 * every later job still gets minHostsPerJob slots), each on a different host, drawn one by one
 * uniformly among the free slots on hosts the job does not use yet (if none is left the job gets
 * fewer hosts; a single-host job has no flows); GPUs = h_j × gpusPerHost / slotsPerHost. With
 * slotsPerHost > 1 two jobs may share a host, hence its host links. Its all-reduce is one ring over
 * its hosts in ascending host index (so ToR-local hosts are adjacent, as a topology-aware NCCL
 * ring): one flow per ring edge (2 flows for 2 hosts), flow ids 0..; each flow carries x_j bytes
 * per iteration. A flow inside one ToR has one candidate path [src up, dst down]; a flow between
 * ToRs has numAggs candidates [src up, ToR->agg a, agg a->ToR, dst down], a = 0..numAggs-1,
 * and a default (ECMP hash) drawn uniformly among them. Timing: c_j uniform in
 * [minComputeTime, maxComputeTime]; the stand-alone communication time r_j c_j with r_j uniform
 * in [minCommRatio, maxCommRatio] sets x_j = r_j c_j × hostLinkBandwidth / 8 (each host link
 * carries exactly one flow of the job, so t_j = r_j c_j when the fabric links are not slower);
 * overlapStart = 1 with probability noOverlapProbability, else uniform in [0, 1];
 * W_j = numGpus_j × c_j × gpuFlops (every GPU computes at the same rate, so FLOPs and GPU-busy
 * time are proportional).
 *
 * Determinism: one std::mt19937_64 seeded with the given seed; draws happen in a fixed order.
 * With maxPathChoices > 0, rejected cases consume draws of the same generator.
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief Parameters of GenerateRandomCluster (defaults: the Crux §4.4 setting).
 */
struct RandomClusterParams
{
    uint32_t minTors{2};     //!< fewest ToR switches (>= 1)
    uint32_t maxTors{4};     //!< most ToR switches (>= minTors)
    uint32_t numAggs{2};     //!< aggregation switches (>= 1)
    uint32_t hostsPerTor{5}; //!< hosts under each ToR (>= 1)
    uint32_t gpusPerHost{8}; //!< GPUs per host (>= 1)
    /// Jobs are placed in slots of gpusPerHost / slotsPerHost GPUs (must divide); 1 = whole
    /// hosts (a host link carries one job), 2 = half hosts (two jobs may share a host's links).
    uint32_t slotsPerHost{1};
    uint32_t numJobs{5};               //!< jobs (>= 1)
    uint32_t minHostsPerJob{2};        //!< fewest hosts per job (>= 1)
    uint32_t maxHostsPerJob{4};        //!< most hosts per job (>= minHostsPerJob)
    double hostLinkBandwidth{100e9};   //!< host <-> ToR, bit/s (> 0)
    double fabricLinkBandwidth{100e9}; //!< ToR <-> aggregation, bit/s (> 0)
    double minComputeTime{0.1};        //!< seconds (> 0)
    double maxComputeTime{0.4};        //!< seconds (>= minComputeTime)
    double minCommRatio{0.2};          //!< stand-alone comm time / compute time (> 0)
    double maxCommRatio{1.5};          //!< (>= minCommRatio)
    double noOverlapProbability{0.3};  //!< probability of overlapStart = 1 ([0, 1])
    double gpuFlops{100e12};           //!< FLOP/s of one computing GPU (> 0)
    /// Largest accepted path space Π_f |candidatePaths_f| (0 = no limit). A drawn case with
    /// more path choices is discarded and the next one is drawn from the same generator (so
    /// the result stays a deterministic function of the seed); this keeps the exhaustive
    /// optimum of the §4.4 microbenchmark affordable and biases the cases towards fewer
    /// inter-ToR flows (documented in crux-microbenchmark.cc).
    double maxPathChoices{0};
    /// Most draws before giving up when maxPathChoices rejects them (>= 1).
    uint32_t maxAttempts{10000};
};

/**
 * \ingroup crux-scheduling
 * \brief Draws one random cluster (see the comment at the top of random-cluster.h).
 * \param params the parameters
 * \param seed seed of the std::mt19937_64
 * \param attempts if not null, receives the number of cases drawn (1 + the rejected ones)
 * \return a model that passes Validate()
 * \throws std::invalid_argument naming the field if a parameter is out of range, or if
 *         numJobs × minHostsPerJob exceeds the hosts of the smallest topology
 *         (minTors × hostsPerTor)
 * \throws std::runtime_error if maxAttempts draws all exceed maxPathChoices
 */
ClusterModel GenerateRandomCluster(const RandomClusterParams& params,
                                   uint64_t seed,
                                   uint32_t* attempts = nullptr);

} // namespace ns3

#endif // CRUX_RANDOM_CLUSTER_H
