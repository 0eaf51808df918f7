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

// A training step as a paper writes it (issue 28 item 2): the micro-batch count and every
// message size of an iteration against Megatron's formulas, recomputation against Megatron's
// FLOP factors (and the MFU/HFU pairs Megatron-LM publishes), interleaved 1F1B's bubble with
// free communication, the distributed optimizer's reduce-scatter and all-gather, and the bad
// values, each refused naming its field.

#include "crux-test-util.h"

#include "ns3/collectives.h"
#include "ns3/comm-dag.h"
#include "ns3/dlt-job.h"
#include "ns3/model-zoo.h"
#include "ns3/test.h"
#include "ns3/training-iteration.h"
#include "ns3/training-step.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// The GPUs of `hosts` hosts x `gpus` GPUs.
std::vector<GpuId>
Gpus(uint32_t hosts, uint32_t gpus)
{
    std::vector<GpuId> g;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        for (uint32_t l = 0; l < gpus; ++l)
        {
            g.push_back(Gpu(h, l));
        }
    }
    return g;
}

/// A zoo job with a training step and a plan.
DltJob
SteppedJob(const std::string& model,
           uint32_t hosts,
           uint32_t gpus,
           const TrainingStepRequest& step,
           const ParallelismRequest& plan)
{
    DltJob job = DltJob::FromModel(7, model, Gpus(hosts, gpus));
    job.ApplyStep(step);
    job.ApplyPlan(plan);
    return job;
}

/// Messages of one iteration by kind (ranks: TP fastest, then DP, then PP).
struct Traffic
{
    std::map<uint64_t, uint64_t> tp; //!< message bytes -> count, within a TP group
    std::map<uint64_t, uint64_t> pp; //!< between stages
    std::map<uint64_t, uint64_t> dp; //!< within a data-parallel group
    uint64_t dpBytesRank0{0};        //!< DP bytes rank 0 sends
    uint64_t dpMessagesRank0{0};     //!< DP messages rank 0 sends
};

/// Build the job's iteration DAG and sort its messages.
Traffic
Classify(const DltJob& job)
{
    CommDag dag(TrainingIteration::RankGpus(job));
    TrainingIteration::Build(job, dag);
    dag.Finalize();
    const auto& p = *job.plan;
    Traffic t;
    for (uint32_t id = 0; id < dag.NumNodes(); ++id)
    {
        const auto& n = dag.GetNode(id);
        if (n.kind != CommDag::Kind::MESSAGE)
        {
            continue;
        }
        const uint32_t sa = n.src / (p.tp * p.dp);
        const uint32_t sb = n.dst / (p.tp * p.dp);
        const uint32_t da = n.src / p.tp % p.dp;
        const uint32_t db = n.dst / p.tp % p.dp;
        if (sa != sb)
        {
            t.pp[n.bytes]++;
        }
        else if (da == db)
        {
            t.tp[n.bytes]++;
        }
        else
        {
            t.dp[n.bytes]++;
            if (n.src == 0)
            {
                t.dpBytesRank0 += n.bytes;
                t.dpMessagesRank0++;
            }
        }
    }
    return t;
}

/// Sum of counts of a histogram.
uint64_t
Count(const std::map<uint64_t, uint64_t>& h)
{
    uint64_t c = 0;
    for (const auto& kv : h)
    {
        c += kv.second;
    }
    return c;
}

} // namespace

/// Micro-batch count and every message size of an iteration against Megatron's formulas.
class StepMessageSizesTestCase : public TestCase
{
  public:
    StepMessageSizesTestCase()
        : TestCase("globalBatch, microBatchSize, sequenceLength: m = B over (b x dp); TP "
                   "b s h 2 bytes, PP b s h 2 over tp, DP buckets of max(40M, 1M x dp) parameters")
    {
    }

  private:
    void DoRun() override
    {
        // GPT-3 1.3B (24 layers, h 2048) on 4 hosts x 4 GPUs: TP 2 x PP 2 x DP 4
        TrainingStepRequest st;
        st.globalBatch = 32;
        st.microBatchSize = 2;
        st.sequenceLength = 1024;
        ParallelismRequest req;
        req.tp = 2;
        req.pp = 2;
        req.dp = 4;
        req.allReduce = "ring";
        const DltJob job = SteppedJob("gpt3-1.3b", 4, 4, st, req);
        const uint32_t m = 32 / (2 * 4);
        NS_TEST_ASSERT_MSG_EQ(job.plan->microBatches, m, "m = globalBatch / (mbs x dp)");
        const uint64_t b = 2;
        const uint64_t s = 1024;
        const uint64_t h = 2048;
        const uint64_t act = b * s * h * 2; // one TP all-reduce, bf16 (Megatron mappings.py)
        const Traffic t = Classify(job);
        // TP: 2 all-reduces per layer forward and 2 backward, ring of 2 (2 messages of S/2 per
        // rank); the PP receive's all-gather of the tp shards (1 message of S/2 per rank)
        const uint64_t layersPerStage = 12;
        const uint64_t tpRing = 2 * (2 - 1) * 2; // messages of one 2-rank all-reduce
        const uint64_t arCount = 2 * 4 * m * 2 * layersPerStage * 2 * tpRing; // stages x dp x m x
                                                                              // (f, b) x layers
        const uint64_t agCount = 2 * 4 * m * 2; // (fwd into 1, bwd into 0) x dp x m x 2
        NS_TEST_ASSERT_MSG_EQ(t.tp.size(), 1, "one TP message size");
        NS_TEST_ASSERT_MSG_EQ(t.tp.count(act / 2), 1, "TP message = b s h 2 / tp");
        NS_TEST_ASSERT_MSG_EQ(t.tp.at(act / 2), arCount + agCount, "TP message count");
        // PP: each TP rank sends b s h 2 / tp per micro-batch, forward and backward
        NS_TEST_ASSERT_MSG_EQ(t.pp.size(), 1, "one PP message size");
        NS_TEST_ASSERT_MSG_EQ(t.pp.count(act / 2), 1, "PP message = b s h 2 / tp");
        NS_TEST_ASSERT_MSG_EQ(t.pp.at(act / 2), 2 * m * 4 * 2, "PP messages: 2 x m x dp x tp");
        // DP: Megatron's bucket max(40M, 1M x dp) parameters = 80 MB at dp 4; the stage's
        // gradients (half the model, half of them per TP rank)
        const uint64_t group =
            static_cast<uint64_t>(std::llround(job.gradientBytes * 12.0 / 24 / 2));
        const uint32_t buckets = static_cast<uint32_t>(std::ceil(group / 80e6));
        NS_TEST_ASSERT_MSG_EQ(job.numBuckets, buckets, "buckets of 40 M parameters");
        // a ring all-reduce of S bytes over N ranks sends 2 (N - 1) / N x S from every rank;
        // NCCL's ring splits each bucket over its channels and every channel's part into N
        // chunks, each rounded to whole bytes: at most one byte per message from the exact share
        double want = 0;
        for (uint32_t k = 0; k < buckets; ++k)
        {
            want += 2.0 * (4 - 1) / 4 * Collectives::ChunkBytes(group, buckets, k);
        }
        NS_TEST_ASSERT_MSG_GT(t.dpMessagesRank0,
                              2 * (4 - 1) * buckets,
                              "NCCL's channels: more messages than one ring");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(std::fabs(t.dpBytesRank0 - want),
                                    t.dpMessagesRank0,
                                    "DP bytes of rank 0: ring all-reduces of Megatron's buckets");
        std::cout << "[crux-training-step] gpt3-1.3b B 32 b 2 s 1024, TP2 PP2 DP4: m " << m
                  << ", TP/PP message " << act / 2 << " B, " << buckets << " DP buckets, rank 0 "
                  << t.dpBytesRank0 << " DP bytes" << std::endl;
        // the scheduler's per-connection view carries the same bytes
        uint64_t ppFlowBytes = 0;
        for (const auto& f : job.CommunicationPattern())
        {
            if (f.src.host / 2 != f.dst.host / 2)
            {
                ppFlowBytes += static_cast<uint64_t>(f.bytesPerIteration);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(ppFlowBytes, 2 * m * 4 * 2 * (act / 2), "PP bytes, flow view");
        // Megatron's bucket rule at a large DP degree: 1 M parameters per DP rank
        ParallelismRequest wide;
        wide.tp = 1;
        wide.pp = 1;
        TrainingStepRequest st2;
        st2.globalBatch = 64;
        DltJob big = SteppedJob("gpt3-1.3b", 8, 8, st2, wide);
        NS_TEST_ASSERT_MSG_EQ(big.plan->dp, 64, "dp 64");
        NS_TEST_ASSERT_MSG_EQ(big.numBuckets,
                              static_cast<uint32_t>(std::ceil(big.gradientBytes / 128e6)),
                              "bucket max(40M, 64M) = 64 M parameters");
        NS_TEST_ASSERT_MSG_EQ(big.plan->microBatches, 1, "m = 64 / (1 x 64)");
    }
};

/// Recomputation multiplies the FLOPs by Megatron's factors.
class StepRecomputeTestCase : public TestCase
{
  public:
    StepRecomputeTestCase()
        : TestCase("recompute: none, full and selective FLOPs as Megatron's formulas (SC'21 "
                   "72 and 96 factors, Korthikanti et al.); Megatron's MFU and HFU pairs")
    {
    }

  private:
    void DoRun() override
    {
        const ModelSpec g = ModelZoo::Get("gpt3-175b");
        const double l = g.layers;
        const double h = g.hidden;
        const double v = g.vocab;
        const double bsz = 1536;
        const double s = 2048;
        const double none = 72 * bsz * s * l * h * h * (1 + s / (6 * h)) + 6 * bsz * s * h * v;
        const double full = 96 * bsz * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
        const double sel = 72 * bsz * s * l * h * h * (1 + s / (3 * h) + v / (12 * l * h));
        const std::vector<GpuId> gpus = Gpus(128, 8);
        std::map<std::string, DltJob> jobs;
        for (const std::string r : {"none", "selective", "full"})
        {
            TrainingStepRequest st;
            st.globalBatch = 1536;
            st.recompute = r;
            st.gpu = "a100-80gb";
            DltJob job = DltJob::FromModel(1, "gpt3-175b", gpus);
            job.ApplyStep(st);
            jobs.emplace(r, job);
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(jobs.at("none").flopsPerIteration / none,
                                  1,
                                  1e-12,
                                  "no recomputation: Megatron's model FLOPs");
        NS_TEST_ASSERT_MSG_EQ_TOL(jobs.at("full").flopsPerIteration / full,
                                  1,
                                  1e-12,
                                  "full: SC'21 96-factor formula");
        NS_TEST_ASSERT_MSG_EQ_TOL(jobs.at("selective").flopsPerIteration / sel,
                                  1,
                                  1e-12,
                                  "selective: Korthikanti et al.'s hardware FLOPs");
        // the compute time grows by the same factors (same GPU, same achieved fraction)
        NS_TEST_ASSERT_MSG_EQ_TOL(jobs.at("full").computeTime / jobs.at("none").computeTime,
                                  full / none,
                                  1e-12,
                                  "full: compute time");
        NS_TEST_ASSERT_MSG_EQ_TOL(jobs.at("none").computeTime,
                                  none / (1024 * 0.528 * 312e12),
                                  1e-12 * jobs.at("none").computeTime,
                                  "c = W / (N x 0.528 x 312 TFLOP/s)");
        // forward unchanged, recomputation in the backward pass
        NS_TEST_ASSERT_MSG_EQ_TOL(jobs.at("full").overlapStart * jobs.at("full").computeTime,
                                  jobs.at("none").computeTime / 3,
                                  1e-9,
                                  "the forward pass does not grow");
        std::cout << "[crux-training-step] GPT-3 175B, 1536 x 2048, 1024 A100: W none " << none
                  << ", selective x" << sel / none << ", full x" << full / none << "; c none "
                  << jobs.at("none").computeTime << " s, full " << jobs.at("full").computeTime
                  << " s" << std::endl;

        // Megatron-LM README (841f789f48): MFU / HFU with selective recomputation, seq 2048,
        // V 51200: 22B (h 6144, l 48) 41.5/43.7, 175B 51.4/52.8, 530B (20480, 105) 56.0/57.0,
        // 1T (25600, 128) 56.3/57.0 %. HFU = MFU x F_selective / F_none.
        struct Row
        {
            double h, l, mfu, hfu;
        };

        for (const Row& r : {Row{6144, 48, 41.5, 43.7},
                             Row{12288, 96, 51.4, 52.8},
                             Row{20480, 105, 56.0, 57.0},
                             Row{25600, 128, 56.3, 57.0}})
        {
            ModelSpec m = g;
            m.layers = static_cast<uint32_t>(r.l);
            m.hidden = static_cast<uint32_t>(r.h);
            m.vocab = 51200;
            m.sequenceLength = 2048;
            m.attentionScoreFlops = 12 * r.l * r.h;
            m.flopsPerSample = 72 * s * r.l * r.h * r.h * (1 + s / (6 * r.h)) + 6 * s * r.h * 51200;
            const double ratio = TrainingFlopsPerSequence(m, 2048, Recompute::SELECTIVE) /
                                 TrainingFlopsPerSequence(m, 2048, Recompute::NONE);
            std::cout << "[crux-training-step] h " << r.h << " l " << r.l << ": MFU " << r.mfu
                      << " % -> HFU " << r.mfu * ratio << " % (published " << r.hfu << ")"
                      << std::endl;
            NS_TEST_ASSERT_MSG_EQ_TOL(r.mfu * ratio, r.hfu, 0.1, "published HFU within 0.1 pt");
        }
    }
};

/// Interleaved 1F1B with free communication: bubble (p − 1)/(v m).
class StepInterleavedBubbleTestCase : public TestCase
{
  public:
    StepInterleavedBubbleTestCase()
        : TestCase("interleaved 1F1B with zero communication cost: bubble (p-1) over (v m), a "
                   "v-th of the non-interleaved one")
    {
    }

  private:
    void DoRun() override
    {
        // GPT-3 1.3B, 24 layers: p = 4 stages of 6 layers, v = 1, 2, 3, 6 chunks
        for (auto [p, m, fwd] : {std::make_tuple(4u, 8u, 1.0 / 3),
                                 std::make_tuple(4u, 4u, 1.0 / 3),
                                 std::make_tuple(4u, 12u, 0.5),
                                 std::make_tuple(2u, 6u, 1.0 / 3)})
        {
            double plain = 0;
            for (uint32_t v : {1u, 2u, 3u, 6u})
            {
                ParallelismRequest req;
                req.tp = 1;
                req.pp = p;
                req.dp = 1;
                req.microBatches = m;
                req.virtualStages = v;
                DltJob job = DltJob::FromModel(3, "gpt3-1.3b", Gpus(p, 1));
                job.overlapStart = fwd;
                job.ApplyPlan(req);
                NS_TEST_ASSERT_MSG_EQ(job.plan->virtualStages, v, "virtual stages");
                Ptr<FreeTransport> free = CreateObject<FreeTransport>();
                const auto it = RunJobAlone(job, free);
                NS_TEST_ASSERT_MSG_EQ(it.size(), 1, "iteration completed");
                const double c = job.computeTime;
                const double bubble = it[0] / c - 1;
                const double want = (p - 1.0) / (v * m);
                std::cout << "[crux-training-step] p " << p << " m " << m << " v " << v
                          << " forward " << fwd << ": iteration " << it[0] << " s, bubble "
                          << bubble << " (closed form " << want << "), PP messages "
                          << free->m_messages << std::endl;
                NS_TEST_ASSERT_MSG_EQ_TOL(bubble, want, 1e-6, "bubble (p - 1)/(v m)");
                NS_TEST_ASSERT_MSG_EQ_TOL(job.ComputeSpan(), it[0], 1e-6 * it[0], "ComputeSpan");
                // every virtual-stage boundary sends one activation and one gradient per
                // micro-batch: (p v − 1) x 2 x m messages
                NS_TEST_ASSERT_MSG_EQ(free->m_messages,
                                      (uint64_t{p} * v - 1) * 2 * m,
                                      "v x more pipeline messages");
                if (v == 1)
                {
                    plain = bubble;
                }
                else
                {
                    NS_TEST_ASSERT_MSG_EQ_TOL(bubble, plain / v, 1e-6, "1/v of non-interleaved");
                }
            }
        }
    }
};

namespace
{
/// Delivers every message after bytes / rate seconds (no latency, no contention).
class RateTransport : public MessageTransport
{
  public:
    /// \param rate bytes per second
    explicit RateTransport(double rate)
        : m_rate(rate)
    {
    }

    void Send(const MessageRequest& req, CompletionCallback done) override
    {
        m_bytes[req.src.host] += req.bytes;
        Simulator::Schedule(Seconds(req.bytes / m_rate), &FreeTransport::Deliver, done);
    }

    double m_rate;                        //!< bytes per second
    std::map<uint32_t, uint64_t> m_bytes; //!< bytes sent per source host
};
} // namespace

/// The distributed optimizer: reduce-scatter per bucket in the backward pass, all-gather in the
/// next forward pass.
class StepDistributedOptimizerTestCase : public TestCase
{
  public:
    StepDistributedOptimizerTestCase()
        : TestCase("optimizer distributed: per-bucket reduce-scatter in the backward, all-gather "
                   "in the forward; the same ring bytes; iteration = c + 2 tau")
    {
    }

  private:
    void DoRun() override
    {
        // The classic ring (whole buckets, one channel, no pipelining) keeps the closed forms
        // c + 2 tau and the message counts exact; what NCCL's channels and chunks change is
        // tested in crux-collectives. GPT-3 1.3B on 2 hosts x 1 GPU, DP 2, one micro-batch, 4
        // buckets of 6 layers each
        std::map<bool, double> iteration;
        for (bool dist : {false, true})
        {
            TrainingStepRequest st;
            st.globalBatch = 2;
            st.gpu = "a100-80gb";
            st.optimizer = dist ? "distributed" : "standard";
            ParallelismRequest req;
            req.tp = 1;
            req.pp = 1;
            req.allReduce = "classic-ring";
            DltJob job = SteppedJob("gpt3-1.3b", 2, 1, st, req);
            job.numBuckets = 4;
            NS_TEST_ASSERT_MSG_EQ(job.step->distributedOptimizer, dist, "optimizer");
            const Traffic t = Classify(job);
            // a 2-rank ring: all-reduce 2 messages of S/2 per rank; reduce-scatter and
            // all-gather 1 each
            NS_TEST_ASSERT_MSG_EQ(Count(t.dp), 4 * 2 * 2, "DP messages: 4 buckets x 2 x 2");
            uint64_t dpBytes = 0;
            for (const auto& kv : t.dp)
            {
                dpBytes += kv.first * kv.second;
            }
            NS_TEST_ASSERT_MSG_EQ(dpBytes,
                                  job.gradientBytes * 2 / 2 * 2 / 2 * 2,
                                  "DP bytes = 2 (N-1)/N x gradients x N ranks");
            const double rate = 1e12;                              // bytes/s
            const double tau = job.gradientBytes / 4.0 / 2 / rate; // one bucket's S/2
            const auto it = RunJobAlone(job, CreateObject<RateTransport>(rate));
            NS_TEST_ASSERT_MSG_EQ(it.size(), 1, "iteration completed");
            const double want = job.computeTime + 2 * tau;
            std::cout << "[crux-training-step] DP 2, 4 buckets, "
                      << (dist ? "distributed" : "standard") << ": iteration " << it[0]
                      << " s, c + 2 tau = " << want << " s (c " << job.computeTime << ", tau "
                      << tau << ")" << std::endl;
            // distributed: the first all-gather before the forward (tau), the others hidden
            // behind it, each reduce-scatter (tau) as its bucket is released, the last after the
            // backward; standard: the last bucket's all-reduce (2 tau) after the backward
            NS_TEST_ASSERT_MSG_EQ_TOL(it[0], want, 1e-6 * want, "iteration = c + 2 tau");
            iteration[dist] = it[0];
        }
        // with the reductions after the backward pass instead (one all-reduce of everything)
        // the iteration would be c + 8 tau: the overlap is real

        // interleaved (2 stages x 2 chunks, DP 2): the all-gathers of both chunks start with the
        // iteration (Megatron's align_param_gather); the same DP messages and bytes as the
        // all-reduces of the standard optimizer
        std::map<bool, uint64_t> dpMessages;
        std::map<bool, uint64_t> dpBytes;
        for (bool dist : {false, true})
        {
            TrainingStepRequest st;
            st.globalBatch = 8;
            st.optimizer = dist ? "distributed" : "standard";
            ParallelismRequest req;
            req.tp = 1;
            req.pp = 2;
            req.dp = 2;
            req.virtualStages = 2;
            req.allReduce = "classic-ring";
            DltJob job = SteppedJob("gpt3-1.3b", 4, 1, st, req);
            NS_TEST_ASSERT_MSG_EQ(job.numBuckets % 2, 0, "buckets per chunk");
            const Traffic t = Classify(job);
            dpMessages[dist] = Count(t.dp);
            for (const auto& kv : t.dp)
            {
                dpBytes[dist] += kv.first * kv.second;
            }
            const auto it = RunJobAlone(job, CreateObject<RateTransport>(1e11));
            NS_TEST_ASSERT_MSG_EQ(it.size(), 1, "interleaved iteration completed");
        }
        NS_TEST_ASSERT_MSG_EQ(dpMessages[true], dpMessages[false], "RS + AG = AR messages");
        NS_TEST_ASSERT_MSG_EQ(dpBytes[true], dpBytes[false], "RS + AG = AR bytes (bf16)");
    }
};

/// Full recomputation repeats the forward pass's TP all-reduces in the backward pass.
class StepFullRecomputeTrafficTestCase : public TestCase
{
  public:
    StepFullRecomputeTrafficTestCase()
        : TestCase("recompute full: 6 TP all-reduces per layer and micro-batch instead of 4")
    {
    }

  private:
    void DoRun() override
    {
        std::map<std::string, uint64_t> msgs;
        for (const std::string r : {"none", "selective", "full"})
        {
            TrainingStepRequest st;
            st.globalBatch = 8;
            st.recompute = r;
            ParallelismRequest req;
            req.tp = 4;
            req.pp = 1;
            req.dp = 1;
            req.layersPerBlock = 1;
            const DltJob job = SteppedJob("gpt3-1.3b", 1, 4, st, req);
            msgs[r] = Count(Classify(job).tp);
        }
        NS_TEST_ASSERT_MSG_EQ(msgs.at("selective"), msgs.at("none"), "selective: no extra TP");
        NS_TEST_ASSERT_MSG_EQ(msgs.at("full") * 2, msgs.at("none") * 3, "full: 6 / 4 of them");
    }
};

/// Bad values: one PlanError naming the field.
class StepBadValuesTestCase : public TestCase
{
  public:
    StepBadValuesTestCase()
        : TestCase("bad training-step values are refused naming the field")
    {
    }

  private:
    /// \return the field of the PlanError the job raised, or "" if none
    static std::string FieldOf(const std::function<void()>& f)
    {
        try
        {
            f();
        }
        catch (const PlanError& e)
        {
            return e.Field();
        }
        return "";
    }

    void DoRun() override
    {
        const std::vector<GpuId> gpus = Gpus(4, 4);
        auto run = [&](TrainingStepRequest st, ParallelismRequest req) {
            return FieldOf([&] {
                DltJob job = DltJob::FromModel(1, "gpt3-1.3b", gpus);
                job.ApplyStep(st);
                job.ApplyPlan(req);
            });
        };
        ParallelismRequest plan;
        plan.tp = 2;
        plan.pp = 2;
        TrainingStepRequest st;
        st.globalBatch = 30; // dp 4, mbs 1: not a multiple of 4
        NS_TEST_ASSERT_MSG_EQ(run(st, plan), "microBatchSize", "batch not divisible");
        st.globalBatch = 32;
        st.microBatchSize = 3;
        NS_TEST_ASSERT_MSG_EQ(run(st, plan), "microBatchSize", "mbs x dp not dividing");
        st = TrainingStepRequest();
        st.gpu = "v100";
        NS_TEST_ASSERT_MSG_EQ(run(st, plan), "gpu", "unknown GPU");
        st.gpu = "a100-40gb";
        st.precision = "fp8";
        NS_TEST_ASSERT_MSG_EQ(run(st, plan), "precision", "A100 has no FP8");
        st = TrainingStepRequest();
        ParallelismRequest vs = plan;
        vs.virtualStages = 5; // 12 layers per stage
        vs.microBatches = 4;
        NS_TEST_ASSERT_MSG_EQ(run(st, vs), "parallelism.virtualStages", "v not dividing 12");
        vs.virtualStages = 3;
        vs.microBatches = 3; // not a multiple of pp = 2
        NS_TEST_ASSERT_MSG_EQ(run(st, vs), "parallelism.virtualStages", "m not a multiple of p");
        vs.microBatches = 4;
        NS_TEST_ASSERT_MSG_EQ(run(st, vs), "", "v = 3 fits");
        st.globalBatch = 32;
        vs.microBatches = 5;
        NS_TEST_ASSERT_MSG_EQ(run(st, vs), "parallelism.microBatches", "contradicts the batch");
        st = TrainingStepRequest();
        st.sequenceLength = 512;
        NS_TEST_ASSERT_MSG_EQ(FieldOf([&] {
                                  DltJob job = DltJob::FromModel(1, "resnet50", gpus);
                                  job.ApplyStep(st);
                              }),
                              "sequenceLength",
                              "no sequence for an image model");
        // an empty request changes nothing
        DltJob a = DltJob::FromModel(1, "gpt3-175b", Gpus(128, 8));
        const double c = a.computeTime;
        a.ApplyStep(TrainingStepRequest());
        NS_TEST_ASSERT_MSG_EQ(a.computeTime, c, "zoo default unchanged");
        NS_TEST_ASSERT_MSG_EQ(a.step.has_value(), false, "no step");
    }
};

/// The crux-training-step test suite.
class TrainingStepTestSuite : public TestSuite
{
  public:
    TrainingStepTestSuite()
        : TestSuite("crux-training-step", UNIT)
    {
        AddTestCase(new StepMessageSizesTestCase, TestCase::QUICK);
        AddTestCase(new StepRecomputeTestCase, TestCase::QUICK);
        AddTestCase(new StepInterleavedBubbleTestCase, TestCase::QUICK);
        AddTestCase(new StepDistributedOptimizerTestCase, TestCase::QUICK);
        AddTestCase(new StepFullRecomputeTrafficTestCase, TestCase::QUICK);
        AddTestCase(new StepBadValuesTestCase, TestCase::QUICK);
    }
};

/// The suite's static instance.
static TrainingStepTestSuite g_trainingStepTestSuite;
