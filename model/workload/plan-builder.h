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

#ifndef CRUX_PLAN_BUILDER_H
#define CRUX_PLAN_BUILDER_H

#include "comm-dag.h"
#include "dlt-job.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Builder of one planned training iteration (TP / PP / DP / EP, Megatron-LM's 1F1B
 * schedule) into a CommDag: the engine behind TrainingIteration::Build() for a job with a
 * ParallelPlan. Not a user API: use TrainingIteration::Build(), which validates the job first.
 *
 * Its parts live in two files: plan-builder.cc (the schedule: 1F1B op order, passes, blocks,
 * TP and EP collectives, pipeline messages), plan-builder-gradients.cc (the data-parallel
 * buckets: release during the last backward pass, all-reduce or reduce-scatter, the
 * distributed optimizer's parameter all-gathers).
 */
class PlanBuilder
{
  public:
    typedef CommDag::NodeId NodeId;               //!< a node of the DAG
    typedef CommDag::NodeList NodeList;           //!< nodes, e.g. one per replica
    static constexpr NodeId NONE = CommDag::NONE; //!< no node

    /**
     * \param job the job (with a plan; TrainingIteration::Build has validated it); kept by
     *        reference for the builder's lifetime
     * \param dag the job's DAG, one rank per GPU, filled by Build()
     */
    PlanBuilder(const DltJob& job, CommDag& dag)
        : m_job(job),
          m_dag(dag),
          m_plan(*job.plan),
          m_model(job.model)
    {
    }

    /// Emits the whole iteration into the DAG (TrainingIteration's class doc: 1F1B pipeline
    /// with virtual stages, TP / EP collectives per block, DP buckets released during the last
    /// backward pass, the distributed optimizer's all-gathers). Throws std::invalid_argument
    /// when the plan does not fit the job.
    void Build();

  private:
    /// Job rank of (TP rank, DP replica, stage).
    uint32_t Rank(uint32_t t, uint32_t d, uint32_t s) const
    {
        return t + m_plan.tp * (d + m_plan.dp * s);
    }

    /// One op of a stage's 1F1B sequence.
    struct Op
    {
        bool forward;      //!< forward or backward
        uint32_t micro;    //!< micro-batch
        uint32_t chunk{0}; //!< model chunk of the stage (virtual stages; 0 without)
    };

    /// A compute piece of `duration` after `deps` for every replica; during the last backward
    /// pass it is split at the bucket boundaries (release nodes recorded).
    NodeList Compute(const std::vector<NodeList>& deps, double seconds, bool track);

    /// A TP collective per replica (all-reduce, or all-gather / reduce-scatter).
    std::vector<NodeList> TpCollective(uint32_t s,
                                       const std::vector<NodeList>& ready,
                                       uint64_t bytes,
                                       int kind);

    /// The dispatch or combine all-to-all of every EP group of stage s.
    std::vector<NodeList> ExpertAllToAll(uint32_t s,
                                         const std::vector<NodeList>& ready,
                                         uint64_t bytes);

    /// One pass (forward or backward) of one micro-batch on stage s, all replicas.
    std::vector<NodeList> Pass(uint32_t s, const Op& op, const std::vector<NodeList>& start);

    /// The forward part of one block: [AG] attention [RS|AR] [dispatch] MLP/experts [combine]
    /// [AG..RS|AR]; compute t × a then t × (1 − a). Also the recomputation of a block.
    std::vector<NodeList> ForwardBlock(uint32_t s,
                                       std::vector<NodeList> cur,
                                       double t,
                                       uint64_t act,
                                       uint64_t a2a,
                                       bool track);

    /// The backward part of one block: MLP/experts then attention, AG <-> RS swapped.
    std::vector<NodeList> BackwardBlock(uint32_t s,
                                        std::vector<NodeList> cur,
                                        double t,
                                        uint64_t act,
                                        uint64_t a2a,
                                        bool track);

    /// Release the buckets not released yet at the last compute of the tracked pass.
    void ReleaseRest(bool track);

    /// Gradient bytes of stage s per (TP rank) group: the dense part over dp, the expert part
    /// over dp / ep (set), as the data-parallel buckets split them.
    void GroupBytes(uint32_t s, uint64_t& dense, uint64_t& expert) const;

    /// The data-parallel buckets of stage s (after the releases are known): all-reduce, or with
    /// the distributed optimizer reduce-scatter, of each bucket over its group.
    void Buckets(uint32_t s);

    /// The distributed optimizer's parameter all-gather of bucket b of stage s, every TP rank's
    /// group, member d starting at ready[d]. \return [replica] -> barrier after its gathers
    /// (and ready[d])
    NodeList ParamGather(uint32_t s, uint32_t b, const NodeList& ready);

    /// Before a block of the first forward of (stage s, chunk) whose layers end at hiLayers of
    /// the chunk's chunkLayers: wait for the all-gathers of the buckets holding its layers,
    /// dispatching each next all-gather when the previous one is waited for (Megatron's
    /// overlap_param_gather). \return the replicas' new start nodes
    std::vector<NodeList> WaitParams(uint32_t s,
                                     uint32_t chunk,
                                     uint32_t hiLayers,
                                     uint32_t chunkLayers,
                                     const std::vector<NodeList>& cur);

    /// Interleaved: dispatch every all-gather of (stage s, chunk), one after the other (front
    /// order), the first at ready[d] per replica (NONE = at once); m_chunkGather records them.
    void DispatchChunkGather(uint32_t s, uint32_t chunk, const NodeList& ready);

    /// The 1F1B op sequence of every stage: [stage] -> ops in issue order (Megatron's
    /// interleaved schedule with virtual stages).
    std::vector<std::vector<Op>> OneFOneB() const;

    /// The pipeline messages of op `op` of stage s to stage `to` (s + 1 forward, s − 1
    /// backward), one per replica and TP rank, after the op's last node of each replica.
    /// \return [replica] -> the tp messages
    std::vector<NodeList> PipelineSends(uint32_t s,
                                        uint32_t to,
                                        const Op& op,
                                        const std::vector<NodeList>& last,
                                        const std::vector<uint32_t>& ppStream);

    /// " stage s" when the job is pipelined, else "" (the watchdog's descriptions).
    std::string StageText(uint32_t s) const
    {
        return m_plan.pp > 1 ? "stage " + std::to_string(s) : std::string();
    }

    /// The buckets of chunk `chunk` of a stage: [first, end) of the stage's numBuckets (the
    /// chunk finishing its backward first, v − 1, gets the first ones).
    void ChunkBuckets(uint32_t chunk, uint32_t& first, uint32_t& end) const
    {
        const uint32_t v = m_plan.virtualStages;
        const uint32_t o = v - 1 - chunk;
        first = static_cast<uint32_t>(static_cast<uint64_t>(o) * m_job.numBuckets / v);
        end = static_cast<uint32_t>(static_cast<uint64_t>(o + 1) * m_job.numBuckets / v);
    }

    const DltJob& m_job;
    CommDag& m_dag;
    const ParallelPlan& m_plan;
    const ModelSpec& m_model;
    bool m_transformer{false};
    bool m_distOpt{false};               //!< distributed optimizer (reduce-scatter + all-gather)
    bool m_fullRecompute{false};         //!< full recomputation: the forward again, in backward
    std::vector<uint32_t> m_stageLayers; //!< L_s
    double m_tokensPerMicro{0};          //!< tokens of one micro-batch of one replica
    uint64_t m_actBytes{0};              //!< activations of one layer, one micro-batch
    // bucket release tracking (last backward of each chunk of a stage)
    std::vector<std::vector<std::vector<NodeId>>> m_release; //!< [stage][replica][bucket]
    uint32_t m_trackStage{0};                                //!< stage of the tracked pass
    uint32_t m_trackFirst{0}; //!< first bucket the tracked pass releases
    uint32_t m_trackEnd{0};   //!< end of the buckets the tracked pass releases
    int64_t m_trackTotal{0};  //!< backward compute of the tracked pass, steps
    int64_t m_trackDone{0};   //!< backward compute emitted so far, steps
    uint32_t m_nextBucket{0}; //!< next bucket to release
    NodeList m_lastCompute;   //!< last compute node per replica (tracked)
    uint32_t m_nextGather{0}; //!< WaitParams: next bucket (front order) to wait for
    NodeList m_gatherDone;    //!< WaitParams: per replica, the dispatched all-gather's end
    /// interleaved: [stage][chunk] -> per bucket in front order the all-gather's end per replica
    std::vector<std::vector<std::vector<NodeList>>> m_chunkGather;
    std::string m_passText; //!< the current pass in the user's words (CommDag::SetContext)
    uint64_t m_ppBytes{0};  //!< one pipeline message: a TP rank's share of the boundary tensor
};

} // namespace ns3

#endif // CRUX_PLAN_BUILDER_H
