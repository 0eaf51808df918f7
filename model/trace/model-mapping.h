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

#ifndef CRUX_MODEL_MAPPING_H
#define CRUX_MODEL_MAPPING_H

// Pure C++ (no ns-3 includes).

#include "ns3/parallel-plan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief How one job.csv model label was mapped onto the model zoo.
 */
struct ModelAssignment
{
    std::string zooModel; //!< ModelZoo key the job runs
    /// true if the label matched a rule; false if zooModel was drawn at random
    bool fromLabel{false};
    /// Parameter count written in the label ("GPT-13b" -> 13e9, "llama_30b" -> 30e9, "65b" ->
    /// 65e9); the zoo entry nearest to it is zooModel.
    std::optional<double> labelParameters;
    /// true for the zoo's large language models (ModelMapper::IsLlm): the job runs with the
    /// default parallelism plan for its GPUs (DltJob::ApplyPlan with an empty request).
    bool withPlan{false};
};

/**
 * \ingroup crux
 * \brief Maps the free-text model labels of the Lingjun trace onto ModelZoo entries.
 *
 * The labels are free text with inconsistent case (SOURCE.md: unknown 2793, cognitive 1067,
 * llama 266, GPT-13b 205, ResNet 118, GPT-3b 98, rl 93, GPT-7b 83, preprocess 66, 65b 57,
 * mnist 39, GPT-13B 33, llama_30b 32, DLM 30, GPT 28, dota 28, ...). Rules, on the label
 * lower-cased, first match wins (the size is LabelParameters(); "nearest" = the family member
 * whose parameter count is nearest by ratio):
 *  - contains "mixtral" -> "mixtral-8x7b";
 *  - contains "llama": "llama2" / "llama-2" / "llama_2" / "llama 2" -> the Llama 2 entry nearest
 *    to the size, else the LLaMA entry nearest to it (7B, 13B, 33B, 65B; 70B -> "llama2-70b");
 *    no size -> 7B (an assumption: the label does not say);
 *  - contains "gpt": with a size, the nearest GPT-3 entry (1.3B, 2.7B, 6.7B, 13B, 175B: "GPT-3b"
 *    -> "gpt3-2.7b", "GPT-7b" -> "gpt3-6.7b", "GPT-13b" -> "gpt3-13b"); without one "gpt" (the
 *    paper's §2.2 GPT);
 *  - a bare size such as "65b" / "7B" -> the nearest LLaMA entry;
 *  - contains "bert" or "electra" -> "bert-large";
 *  - contains "resnet", "mnist" or "vision" -> "resnet50" (image classification);
 *  - contains "nmt", "translat" or "transformer" -> "nmt-transformer-big";
 *  - contains "mind" or "multi-interest" / "multi_interest" / "multiinterest" -> "multi-interests";
 *  - contains "ctr", "dlrm", "deepfm" or "recommend" -> "ctr-dlrm".
 * Every other label (unknown, cognitive, rl, preprocess, DLM, dota, empty, ...) gets a seeded
 * draw, as the paper assigned models to trace jobs at random (§6.3 lists the models but not the
 * rule): uniform over the candidate list (default: DefaultCandidates(), the six models of the
 * paper's §6.3), using a std::mt19937_64
 * seeded by std::seed_seq{seed (2 × 32 bit), FNV-1a-64(job name) (2 × 32 bit)} and
 * std::uniform_int_distribution. The draw depends only on (seed, job name), not on the order of
 * calls; it is reproducible with the same standard library (the distribution's algorithm is
 * implementation-defined in C++).
 */
class ModelMapper
{
  public:
    /**
     * \return the default candidates of the draw: the models Crux §6.3 lists, as zoo keys
     *         ("bert-large", "ctr-dlrm", "gpt", "multi-interests", "nmt-transformer-big",
     *         "resnet50")
     */
    static std::vector<std::string> DefaultCandidates();

    /**
     * \param seed seed of the draws for unmatched labels
     * \param candidates zoo keys the draw chooses from; empty = DefaultCandidates()
     * \throws std::invalid_argument if a candidate is not a zoo key
     */
    explicit ModelMapper(uint64_t seed, std::vector<std::string> candidates = {});

    /**
     * \param label the job's model label (job.csv "model"), verbatim
     * \param jobName the job's name (keys the random draw)
     * \return the assignment
     */
    ModelAssignment Map(const std::string& label, const std::string& jobName) const;

    /**
     * \param label a model label
     * \return the zoo key its rule gives, or std::nullopt if no rule matches
     */
    static std::optional<std::string> MatchLabel(const std::string& label);

    /**
     * \param zooModel a zoo key
     * \return true for the large language models (the GPT-3, LLaMA, Llama 2 entries and
     *         Mixtral): trace jobs of these run with their default parallelism plan
     */
    static bool IsLlm(const std::string& zooModel);

    /**
     * \return the plan request of a trace job of an LLM (ModelAssignment::withPlan): every
     *         degree, the micro-batches and the algorithms at their defaults for the job's
     *         GPUs (ResolvePlan()); layersPerBlock = 1000, i.e. one block per pipeline stage
     *         (the same bytes per iteration as per-layer blocks, with a DAG small enough for the
     *         trace-driven flow engine); allReduce "classic-ring": crux's one ring per
     *         communicator (the trace records no NCCL settings, and NCCL's channels would
     *         multiply the flows the trace engines and the schedulers handle; the paper's
     *         Fig. 23 runs keep their numbers)
     */
    static ParallelismRequest TracePlanRequest();

    /**
     * \param label a model label
     * \return the size written in it ("GPT-13b" -> 13e9, "llama-7B" -> 7e9, "350m" -> 350e6),
     *         or std::nullopt
     */
    static std::optional<double> LabelParameters(const std::string& label);

    /// \return the candidate list of the random draw
    const std::vector<std::string>& Candidates() const;

  private:
    uint64_t m_seed;                       //!< seed of the draws
    std::vector<std::string> m_candidates; //!< zoo keys to draw from
};

} // namespace ns3

#endif // CRUX_MODEL_MAPPING_H
