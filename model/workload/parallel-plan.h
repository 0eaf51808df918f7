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

#ifndef CRUX_PARALLEL_PLAN_H
#define CRUX_PARALLEL_PLAN_H

// Pure C++ (no ns-3 includes): used by the scenario reader, the model mapping and DltJob.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

struct ModelSpec;

/**
 * \ingroup crux
 * \brief All-to-all algorithms of the collectives library.
 */
enum class AllToAllAlgorithm
{
    PAIRWISE //!< N−1 rounds of pairwise exchange
};

/**
 * \ingroup crux
 * \brief The all-reduce algorithms a plan may name (ParallelismRequest::allReduce, scenario
 * field "collectives.allReduce"): the built-in ones, then those registered with
 * RegisterCollectiveAlgorithm (collective-algorithm.h), in registration order. Each name stands
 * for an ns3::CollectiveAlgorithm TypeId (AllReduceAlgorithmTypeId). Built in: "nccl" (NCCL's
 * choice), "ring", "ring-flow", "hierarchical", "tree", "halving-doubling", "classic-ring",
 * "classic-hierarchical", "classic-tree" (doc/crux.rst, "Collectives").
 * \return the names
 */
std::vector<std::string> AllReduceAlgorithmNames();

/**
 * \ingroup crux
 * \brief The TypeId name behind an all-reduce algorithm's name.
 * \param name an algorithm name; "" = "nccl"
 * \return its TypeId name (e.g. "ns3::NcclRingAllReduce"), or "" for an unknown name
 */
std::string AllReduceAlgorithmTypeId(const std::string& name);

/**
 * \ingroup crux
 * \brief Add an all-reduce algorithm's name (the name-table half of RegisterCollectiveAlgorithm,
 * which checks the TypeId; this layer knows names only). Thread-safe.
 * \param name letters, digits, '.', '_', '-', starting with a letter or digit
 * \param typeIdName the TypeId name of its ns3::CollectiveAlgorithm subclass
 * \throws std::invalid_argument for a malformed or already known name, or an empty TypeId name
 */
void AddAllReduceAlgorithmName(const std::string& name, const std::string& typeIdName);

/// \return the scenario names of the all-to-all algorithms
inline const std::vector<std::string>&
AllToAllAlgorithmNames()
{
    static const std::vector<std::string> names{"pairwise"};
    return names;
}

/**
 * \param name a scenario name (AllReduceAlgorithmNames()); "" = "nccl"
 * \param out the algorithm's name ("nccl" for "")
 * \return false if the name is unknown
 */
inline bool
ParseAllReduceAlgorithm(const std::string& name, std::string& out)
{
    out = name.empty() ? std::string("nccl") : name;
    return !AllReduceAlgorithmTypeId(out).empty();
}

/**
 * \param name a scenario name ("pairwise"); "" = the default (pairwise)
 * \param out the algorithm
 * \return false if the name is unknown
 */
inline bool
ParseAllToAllAlgorithm(const std::string& name, AllToAllAlgorithm& out)
{
    if (name.empty() || name == "pairwise")
    {
        out = AllToAllAlgorithm::PAIRWISE;
        return true;
    }
    return false;
}

/**
 * \ingroup crux
 * \brief A job's parallelism plan as a scenario gives it (scenario fields "parallelism" and
 * "collectives"); 0 or "" = take the default (ResolvePlan()).
 */
struct ParallelismRequest
{
    uint32_t tp{0};               //!< tensor-parallel degree
    uint32_t pp{0};               //!< pipeline-parallel degree (stages)
    uint32_t dp{0};               //!< data-parallel degree (replicas)
    uint32_t ep{0};               //!< expert-parallel degree (MoE models)
    uint32_t microBatches{0};     //!< micro-batches per iteration and replica
    uint32_t layersPerBlock{0};   //!< layers merged into one compute + collective block
    bool sequenceParallel{false}; //!< TP with reduce-scatter/all-gather instead of all-reduce
    std::string allReduce;        //!< AllReduceAlgorithmNames(); "" = "nccl" (NCCL's choice)
    std::string allToAll;         //!< "pairwise"; "" = pairwise
    uint32_t channels{0};         //!< NCCL channels (CollectiveConfig::channels); 0 = NCCL's
    std::string protocol;         //!< "simple", "ll", "ll128"; "" / "auto" = NCCL's choice
    uint32_t virtualStages{0};    //!< model chunks per pipeline stage (interleaved 1F1B); 0 = 1
};

/// Most micro-batches per iteration a plan may have (an assumption, see parallel-plan.cc).
constexpr uint32_t MAX_MICRO_BATCHES = 1024;

/**
 * \ingroup crux
 * \brief A job's resolved parallelism plan (Megatron-LM terms; workloads-fabric-facts.md §6).
 *
 * tp × pp × dp = the job's GPUs. Ranks follow Megatron's default order (TP fastest, then DP,
 * then PP): job rank = tpRank + tp × (dpRank + dp × stage), job ranks numbered host by host
 * (DltJob::RankGpus()). The expert-parallel group is ep consecutive data-parallel replicas
 * (ep divides dp and the model's experts).
 */
struct ParallelPlan
{
    uint32_t tp{1};                //!< tensor-parallel degree
    uint32_t pp{1};                //!< pipeline stages
    uint32_t dp{1};                //!< data-parallel replicas
    uint32_t ep{1};                //!< expert-parallel degree
    uint32_t microBatches{1};      //!< micro-batches per iteration
    uint32_t layersPerBlock{1};    //!< layers per simulated block
    bool sequenceParallel{false};  //!< TP uses RS/AG
    std::string allReduce{"nccl"}; //!< all-reduce algorithm (AllReduceAlgorithmNames())
    AllToAllAlgorithm allToAll{AllToAllAlgorithm::PAIRWISE}; //!< all-to-all algorithm
    /// Model chunks per stage (Megatron's virtual pipeline stages): stage s holds chunks j =
    /// 0..v−1, chunk j being virtual stage j × pp + s of pp × v; 1 = non-interleaved 1F1B.
    uint32_t virtualStages{1};

    /// \return a one-line description, e.g. "tp 8 x pp 2 x dp 4, ep 1, 16 micro-batches"
    std::string ToString() const;
};

/**
 * \ingroup crux
 * \brief An invalid or inconsistent parallelism plan; names the field (relative to the job,
 * e.g. "parallelism.tp" or "collectives.allReduce").
 */
class PlanError : public std::invalid_argument
{
  public:
    /// \param field the field, e.g. "parallelism.pp" \param detail what is wrong
    PlanError(const std::string& field, const std::string& detail)
        : std::invalid_argument(field + ": " + detail),
          m_field(field),
          m_detail(detail)
    {
    }

    /// \return the field, e.g. "parallelism.pp"
    const std::string& Field() const
    {
        return m_field;
    }

    /// \return what is wrong with it
    const std::string& Detail() const
    {
        return m_detail;
    }

  private:
    std::string m_field;  //!< field name
    std::string m_detail; //!< message
};

/**
 * \ingroup crux
 * \brief Complete a requested plan with the defaults and check it.
 *
 * Defaults (documented in doc/crux.rst, "Parallelism plans"):
 *  - tp: the zoo's tensorParallel, lowered to the largest value that divides the job's GPUs
 *    per host, the job's GPUs and the model's attention heads;
 *  - pp: N / (tp × dp) if dp is given; else the zoo's pipelineParallel, lowered to the largest
 *    value that divides N / tp and is at most the layer count;
 *  - dp: N / (tp × pp);
 *  - ep: the zoo's expertParallel (1 for dense models), lowered to the largest value dividing
 *    the model's experts and dp;
 *  - microBatches: the replica's samples per iteration (ModelSpec::SamplesPerIteration(N) / dp)
 *    over the zoo's microBatchSize, rounded, at least 1;
 *  - layersPerBlock 1, sequenceParallel false, allReduce AUTO, allToAll PAIRWISE,
 *    virtualStages 1.
 * \param req the request
 * \param model the job's model
 * \param numGpus N, the job's GPUs
 * \param gpusPerHost the job's GPUs on each of its hosts
 * \return the plan
 * \throws PlanError naming the field: tp not dividing the job's GPUs per host (nor a multiple
 *         of it), tp not dividing the heads, tp × pp × dp ≠ N, pp > layers, ep not dividing the
 *         experts or dp, TP/PP/EP > 1 for a model without transformer layers, EP > 1 for a
 *         dense model, an unknown algorithm, virtual stages that do not fit
 *         (CheckVirtualStages())
 */
ParallelPlan ResolvePlan(const ParallelismRequest& req,
                         const ModelSpec& model,
                         uint32_t numGpus,
                         uint32_t gpusPerHost);

/**
 * \ingroup crux
 * \brief Check a plan's virtual stages (interleaved 1F1B, Megatron-LM's schedule).
 *
 * virtualStages v > 1 needs a transformer model, pp >= 2, the layers split evenly over the
 * stages and the stage's layers over its v chunks (L mod pp = 0, (L / pp) mod v = 0), and the
 * micro-batches in whole groups of pp (m mod pp = 0: Megatron's schedule runs the chunks of pp
 * consecutive micro-batches in turn and refuses a last group smaller than pp).
 * \param model the job's model \param plan the plan
 * \throws PlanError naming "parallelism.virtualStages"
 */
void CheckVirtualStages(const ModelSpec& model, const ParallelPlan& plan);

} // namespace ns3

#endif // CRUX_PARALLEL_PLAN_H
