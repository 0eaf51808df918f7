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

#ifndef CRUX_SCENARIO_H
#define CRUX_SCENARIO_H

#include "parallel-plan.h"
#include "training-step.h"

#include "ns3/checked-parse.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Error in a scenario file or in a command-line override of it.
 *
 * The message always starts with the file name (or "command line") and the JSON path of the
 * offending field, e.g. "sec22.json: jobs[1].model: unknown model 'gtp' (known: ...)". An
 * InputError (model/util/checked-parse.h), like every input error of crux.
 */
class ScenarioError : public InputError
{
  public:
    /// \param what complete, user-facing message
    explicit ScenarioError(const std::string& what)
        : InputError(what)
    {
    }
};

/**
 * \ingroup crux
 * \brief Topology section of a scenario.
 *
 * "clos": a two-layer Clos (every ToR to every aggregation switch). "testbed": the paper's
 * §6.1 testbed (12 hosts × 8 A100, 4 × 200 Gbit/s NICs per host, one NIC per GPU pair, each NIC
 * to a different ToR); the size fields are then ignored.
 */
struct ScenarioTopology
{
    std::string type{"clos"};              //!< "clos", "three-tier", "double-sided" or "testbed"
    uint32_t tors{2};                      //!< ToR switches
    uint32_t aggs{2};                      //!< aggregation switches
    uint32_t hostsPerTor{4};               //!< hosts under each ToR ("double-sided": ToR pair)
    uint32_t gpusPerHost{8};               //!< GPUs per host
    uint32_t nicsPerHost{1};               //!< RDMA NICs per host
    std::string hostLinkRate{"100Gbps"};   //!< NIC ↔ ToR rate (ns-3 DataRate string)
    std::string fabricLinkRate{"100Gbps"}; //!< ToR ↔ aggregation rate
    std::string linkDelay{"1us"};          //!< propagation delay of every link (ns-3 Time string)
    bool pfc{true};                        //!< PFC (IEEE 802.1Qbb) on every switch port
    std::string switchBuffer{"32MiB"};     //!< shared buffer per switch (bytes, e.g. "32MiB")
    /// How a multi-NIC host's NICs meet the ToRs of its group: "rail" = NIC n on ToR n (rail-
    /// aligned: same-index GPUs never cross the aggregation layer); "rotated" = NIC n of host h
    /// on ToR (n + h) mod nicsPerHost, so ring all-reduce traffic crosses the aggregation layer
    /// and jobs contend there, as in the paper's testbed (§6.2).
    std::string wiring{"rail"};
    /// "three-tier" only (BuildThreeTier()): ToRs per aggregation group (pod); tors must be a
    /// multiple of it. 0 = not given (required for "three-tier", refused for the other types).
    uint32_t torsPerGroup{0};
    /// "three-tier" and "double-sided" only: core switches, a multiple of the aggregation
    /// switches per group (aggs / groups; "double-sided": aggs / (tors / 2)); 0 = not given
    /// (required for those types, refused otherwise).
    uint32_t cores{0};
    /// "three-tier" and "double-sided" only: aggregation ↔ core rate ("" = fabricLinkRate;
    /// refused otherwise).
    std::string coreLinkRate;

    /// "intraHost": intra-host links (ClusterTopology::AddIntraHostLinks(); defaults and their
    /// sources: IntraHostConfig). Off by default.
    struct IntraHost
    {
        bool enabled{false};                //!< add PCIe and NVLink links to every host
        std::string pcieRate{"192Gbps"};    //!< each PCIe link (NCCL's Gen4 x16, 24 GB/s)
        std::string pcieLatency{"500ns"};   //!< each PCIe link's one-way latency (ASSUMPTION)
        std::string nvlinkRate{"2400Gbps"}; //!< each GPU <-> NVSwitch link (A100, 300 GB/s)
        std::string nvlinkLatency{"300ns"}; //!< each NVLink link's one-way latency (ASSUMPTION)
    } intraHost;                            //!< see IntraHost
};

/**
 * \ingroup crux
 * \brief One DLT job of a scenario.
 *
 * Either give "gpus" (placement picks hosts in order, filling each host) or an explicit
 * "hosts" list with "gpusPerHost". Unset numeric overrides are negative.
 */
struct ScenarioJob
{
    std::string name;            //!< label used in result tables (default "job<i>")
    std::string model;           //!< model zoo name (e.g. "gpt", "bert-large", "resnet50")
    uint32_t gpus{0};            //!< number of GPUs (0 = derived from hosts × gpusPerHost)
    std::vector<uint32_t> hosts; //!< explicit host indices (empty = automatic placement)
    uint32_t gpusPerHost{0};     //!< GPUs used on each listed host (0 = all of the host)
    double start{0};             //!< start time, seconds
    uint32_t iterations{5};      //!< iterations to run
    /// Override of the compute seconds per iteration (< 0: the zoo's). W_j (FLOPs per iteration)
    /// is scaled by the same factor: the GPUs keep the zoo model's achieved FLOP/s.
    double computeTime{-1};
    double gradientBytes{-1}; //!< override of gradient bytes per iteration (< 0: zoo)
    /// true: the job runs until every non-background job has finished (iterations is then
    /// ignored); it provides the contention during the measured jobs' whole run.
    bool background{false};
    /// true if the job has a "parallelism" or a "collectives" object: it then runs a
    /// parallelism plan (DltJob::ApplyPlan) instead of crux's data-parallel ring per rail.
    bool hasPlan{false};
    /// Path prefix of a Chakra execution trace (files <chakra>.<rank>.et) the job runs instead of
    /// a zoo model ("" = a zoo model); Load() makes a relative prefix relative to the scenario
    /// file's directory (Parse() keeps it as given). Such a
    /// job has no "model" and no "parallelism"; "collectives.allReduce" picks its all-reduce
    /// algorithm.
    std::string chakra;
    /// The "parallelism" ({tp, pp, dp, ep, microBatches, layersPerBlock, sequenceParallel}) and
    /// "collectives" ({allReduce, allToAll}) fields; 0 / "" = the documented default.
    ParallelismRequest parallelism;
    /// "overlap.forwardFraction": the forward part of the compute (DltJob::overlapStart; the
    /// backward pass, which releases the gradient buckets, is the rest); < 0 = the zoo's.
    double overlapForward{-1};
    /// "overlap.buckets": gradient buckets released evenly through the (last) backward pass
    /// (DltJob::numBuckets, with a plan per data-parallel group); 0 = the zoo's / the plan's.
    uint32_t overlapBuckets{0};
    /// The training step as a paper gives it: "globalBatch", "microBatchSize",
    /// "sequenceLength", "gpu", "precision", "recompute", "optimizer" (DltJob::ApplyStep); all
    /// unset = the zoo's defaults. "microBatchSize" and "optimizer" make the job planned.
    TrainingStepRequest step;
};

/**
 * \ingroup crux
 * \brief A complete experiment description, read from a JSON scenario file.
 *
 * Unknown keys are errors (a misspelt key must not be silently ignored). See
 * doc/crux.rst, "Scenario files", for every field and its default.
 */
struct Scenario
{
    std::string source{"<defaults>"}; //!< file the scenario was read from (for messages)
    std::string name{"scenario"};     //!< experiment name
    ScenarioTopology topology;        //!< the fabric
    std::vector<ScenarioJob> jobs;    //!< the job mix (at least one)
    std::string scheduler{"crux"};    //!< communication scheduler name
    uint32_t priorityLevels{8};       //!< hardware priority levels (traffic classes), 1..8
    uint64_t seed{1};                 //!< ns-3 RNG seed (RngSeedManager::SetSeed)
    std::string outputDir{"results"}; //!< directory for result files (created if missing)
    std::string pathEnforcement{"source-port"}; //!< "source-port" (ECMP steering) or "pinned"
    double stopTime{120};                       //!< simulated-time limit, seconds (a watchdog)
    /// Fabric model carrying the messages: "packet" (QbbNetDevice/RDMA NIC, packet level) or
    /// "flow" (FlowTransport: max-min fair fluid flows, strict priority between classes).
    std::string fabric{"packet"};
    /// Congestion control of the packet fabric's RDMA NICs: "dcqcn" (DcqcnCongestionControl,
    /// receivers send CNPs), "hpcc" (HpccCongestionControl, switches stamp INT) or "none" (line
    /// rate, PFC alone). Ignored by the flow fabric, and then not written by ToJson().
    std::string congestionControl{"dcqcn"};
    uint32_t profileIterations{2}; //!< iterations each job runs alone to measure t_j (0 = analytic)
    /// ECMP hash seeds every seed-dependent run is repeated over (salts seed, seed + 1, ...,
    /// seed + seeds − 1; 1..100): results are means with 95 % Student-t intervals over them
    /// (doc/crux.rst, "Measurement methodology"). The ns-3 RNG (ECN marking) keeps "seed".
    uint32_t seeds{1};
    /// Iterations at the start of every job excluded from its mean (connection set-up, warm-up);
    /// 0..1000.
    uint32_t warmupIterations{1};
    /// A job with fewer measured iterations (after the warm-up, inside the window) is flagged
    /// in the table ("2 few" in its "iters" column) and in summary.json ("fewIterations");
    /// 1..1000.
    uint32_t minMeasuredIterations{3};
    /// Largest "seeds" (Validate(); the command line's --seeds range too)
    static constexpr uint32_t MAX_SEEDS = 100;
    /// Largest "seed": ns-3's RngStream (MRG32k3a, L'Ecuyer 1999) refuses with a fatal error
    /// a seed of 0 or one at or above its modulus m2 = 4294944443 (src/core/model/rng-stream.cc),
    /// so RngSeedManager::SetSeed takes 1..m2 - 1, not the whole 32 bits
    static constexpr uint64_t MAX_SEED = 4294944442;
    /// Largest "warmupIterations" and "minMeasuredIterations" (Validate(); the command line's
    /// ranges too)
    static constexpr uint32_t MAX_ITERATION_COUNT = 1000;

    /**
     * \brief Read and validate a scenario file.
     * \param path JSON file
     * \return the scenario
     * \throws ScenarioError naming the file and field: missing file, malformed JSON, unknown
     *         key, wrong type, out-of-range value (zero priority levels, zero iterations, a zero
     *         parallelism degree, an unknown collective algorithm...).
     */
    static Scenario Load(const std::string& path);

    /**
     * \brief Parse a scenario from JSON text.
     * \param text JSON document
     * \param source name used in error messages
     * \return the scenario
     * \throws ScenarioError as Load()
     */
    static Scenario Parse(const std::string& text, const std::string& source);

    /**
     * \brief Check the values that need no model zoo or topology (ranges, names of enums).
     * \throws ScenarioError naming the field
     */
    void Validate() const;

    /**
     * \brief Check the fields of topology type "three-tier" (torsPerGroup divides tors, aggs a
     * multiple of the groups, cores a multiple of the aggregation switches per group, "rail"
     * wiring), and that the other types do not set them. Called by Validate().
     * \throws ScenarioError naming the field
     */
    void ValidateThreeTier() const;

    /**
     * \brief Check the sizes of a generated topology (every count > 0, tors, aggs and
     * hostsPerTor <= 65,536, gpusPerHost and nicsPerHost <= 1,024, a ToR per NIC for "clos");
     * nothing for "testbed". Called by Validate(). \throws ScenarioError naming the field
     */
    void ValidateTopologySizes() const;

    /**
     * \brief Check every job: iterations >= 1, start >= 0 s, finite times and byte counts,
     * a non-empty unique name, "gpus" or "hosts" given. Called by Validate().
     * \throws ScenarioError naming the field ("jobs[i].name", ...)
     */
    void ValidateJobs() const;

    /**
     * \brief Refuse the scenario.
     * \param field the field ("jobs[2].name"), \param what why, for the message
     * \throws ScenarioError "<source>: <field>: <what>", always
     */
    [[noreturn]] void Fail(const std::string& field, const std::string& what) const;

    /**
     * \brief Run a check of the checked-parse functions (ParseDataRate, CheckFinite, ...).
     * \param check the check, which throws InputError naming the field
     * \throws ScenarioError with the InputError's field and detail
     */
    void Checked(const std::function<void()>& check) const;

    /**
     * \brief Check the fields of topology type "double-sided" (BuildDoubleSided(): tors even,
     * aggs a multiple of the ToR pairs, cores a multiple of the aggregation switches per pair,
     * "rail" wiring, no torsPerGroup). Called by Validate().
     * \throws ScenarioError naming the field
     */
    void ValidateDoubleSided() const;

    /**
     * \brief The checks three-tier and double-sided share: hosts addressable, aggs a positive
     * multiple of the aggregation groups, cores a multiple of the aggregation switches per
     * group, "rail" wiring. Called by ValidateThreeTier() and ValidateDoubleSided().
     * \param hosts host count of the topology
     * \param hostsFormula how \p hosts is computed, for the message ("tors x hostsPerTor")
     * \param groups aggregation groups (> 0)
     * \param groupsName the groups in the messages ("groups (tors / torsPerGroup", ...)
     * \param perGroupName one group and its aggregation count ("group (aggs / groups", ...)
     * \param wiringWhy what the topology cables, for the wiring message
     * \throws ScenarioError naming the field
     */
    void ValidateAggregationGroups(uint64_t hosts,
                                   const std::string& hostsFormula,
                                   uint32_t groups,
                                   const std::string& groupsName,
                                   const std::string& perGroupName,
                                   const std::string& wiringWhy) const;

    /// \return the scenario as JSON text (all fields, defaults included), for the results dir
    std::string ToJson() const;
};

} // namespace ns3

#endif // CRUX_SCENARIO_H
