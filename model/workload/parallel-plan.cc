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

#include "parallel-plan.h"

#include "model-zoo.h"

#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxParallelPlan");

namespace
{

std::string
Str(uint64_t v)
{
    return std::to_string(v);
}

/// The largest divisor d of `of` with d <= cap that also satisfies ok(d); at least 1.
template <typename Ok>
uint32_t
LargestDivisor(uint32_t of, uint32_t cap, Ok ok)
{
    for (uint32_t d = std::min(of, std::max<uint32_t>(cap, 1)); d > 1; --d)
    {
        if (of % d == 0 && ok(d))
        {
            return d;
        }
    }
    return 1;
}

std::string
Join(const std::vector<std::string>& v)
{
    std::string out;
    for (const auto& s : v)
    {
        out += (out.empty() ? "" : ", ") + s;
    }
    return out;
}

} // namespace

namespace
{

/// The all-reduce algorithms by name: the built-in ones (their TypeIds are registered in
/// collective-algorithm.cc), then the registered ones.
struct AlgorithmNames
{
    std::mutex lock; //!< guards names
    std::vector<std::pair<std::string, std::string>> names{
        //!< (name, TypeId name)
        {"nccl", "ns3::NcclAllReduce"},
        {"ring", "ns3::NcclRingAllReduce"},
        {"ring-flow", "ns3::NcclRingFlowAllReduce"},
        {"hierarchical", "ns3::PipelinedHierarchicalAllReduce"},
        {"tree", "ns3::NcclTreeAllReduce"},
        {"halving-doubling", "ns3::HalvingDoublingAllReduce"},
        {"classic-ring", "ns3::ClassicRingAllReduce"},
        {"classic-hierarchical", "ns3::ClassicHierarchicalAllReduce"},
        {"classic-tree", "ns3::ClassicTreeAllReduce"}};
};

/// \return the one table
AlgorithmNames&
Names()
{
    static AlgorithmNames table;
    return table;
}

} // namespace

std::vector<std::string>
AllReduceAlgorithmNames()
{
    AlgorithmNames& t = Names();
    std::lock_guard<std::mutex> guard(t.lock);
    std::vector<std::string> out;
    for (const auto& n : t.names)
    {
        out.push_back(n.first);
    }
    return out;
}

std::string
AllReduceAlgorithmTypeId(const std::string& name)
{
    const std::string& key = name.empty() ? std::string("nccl") : name;
    AlgorithmNames& t = Names();
    std::lock_guard<std::mutex> guard(t.lock);
    for (const auto& n : t.names)
    {
        if (n.first == key)
        {
            return n.second;
        }
    }
    return "";
}

void
AddAllReduceAlgorithmName(const std::string& name, const std::string& typeIdName)
{
    const bool wellFormed =
        !name.empty() && std::isalnum(static_cast<unsigned char>(name[0])) &&
        std::all_of(name.begin(), name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
        });
    if (!wellFormed)
    {
        throw std::invalid_argument("collective algorithm name '" + name +
                                    "': letters, digits, '.', '_', '-' only, starting with a "
                                    "letter or digit");
    }
    if (typeIdName.empty())
    {
        throw std::invalid_argument("collective algorithm '" + name + "': no TypeId");
    }
    AlgorithmNames& t = Names();
    std::lock_guard<std::mutex> guard(t.lock);
    for (const auto& n : t.names)
    {
        if (n.first == name)
        {
            throw std::invalid_argument("collective algorithm '" + name +
                                        "' is already registered (as " + n.second + ")");
        }
    }
    t.names.emplace_back(name, typeIdName);
}

std::string
ParallelPlan::ToString() const
{
    std::ostringstream os;
    os << "tp " << tp << " x pp " << pp << " x dp " << dp << ", ep " << ep << ", " << microBatches
       << " micro-batches, all-reduce " << allReduce
       << (sequenceParallel ? ", sequence parallel" : "");
    if (virtualStages > 1)
    {
        os << ", " << virtualStages << " virtual stages";
    }
    if (layersPerBlock > 1)
    {
        os << ", " << layersPerBlock << " layers per block";
    }
    return os.str();
}

namespace
{

/**
 * The checks of a plan that do not depend on the degrees: collective algorithms, and that only
 * transformer models take tp/pp/sequence parallelism and only MoE models ep > 1.
 * \param req the request \param model the model \param plan its algorithms, sequenceParallel
 * and layersPerBlock are set. Throws PlanError naming the field.
 */
void
ResolveKinds(const ParallelismRequest& req, const ModelSpec& model, ParallelPlan& plan)
{
    const bool transformer = model.IsTransformer();
    if (!ParseAllReduceAlgorithm(req.allReduce, plan.allReduce))
    {
        throw PlanError("collectives.allReduce",
                        "unknown algorithm '" + req.allReduce +
                            "' (known: " + Join(AllReduceAlgorithmNames()) + ")");
    }
    if (!ParseAllToAllAlgorithm(req.allToAll, plan.allToAll))
    {
        throw PlanError("collectives.allToAll",
                        "unknown algorithm '" + req.allToAll +
                            "' (known: " + Join(AllToAllAlgorithmNames()) + ")");
    }
    plan.sequenceParallel = req.sequenceParallel;
    plan.layersPerBlock = req.layersPerBlock > 0 ? req.layersPerBlock : 1;
    if (!transformer)
    {
        for (const auto& [field, value] : {std::make_pair("tp", req.tp),
                                           std::make_pair("pp", req.pp),
                                           std::make_pair("ep", req.ep)})
        {
            if (value > 1)
            {
                throw PlanError(std::string("parallelism.") + field,
                                "model '" + model.name +
                                    "' has no transformer layers: only data parallelism (tp = "
                                    "pp = ep = 1)");
            }
        }
        if (req.sequenceParallel)
        {
            throw PlanError("parallelism.sequenceParallel",
                            "model '" + model.name + "' has no transformer layers");
        }
    }
    if (req.ep > 1 && !model.IsMoe())
    {
        throw PlanError("parallelism.ep",
                        "model '" + model.name + "' has no experts: ep must be 1, got " +
                            Str(req.ep));
    }
}

/**
 * The tensor-parallel degree: the request's, checked, or the zoo's fitted to the job.
 * \param req the request \param model the model \param n the job's GPUs
 * \param g its GPUs per host \param plan plan.tp is set. Throws PlanError naming the field.
 */
void
ResolveTp(const ParallelismRequest& req,
          const ModelSpec& model,
          uint32_t n,
          uint32_t g,
          ParallelPlan& plan)
{
    const bool transformer = model.IsTransformer();
    if (req.tp > 0)
    {
        plan.tp = req.tp;
        if (!(g % plan.tp == 0 || plan.tp % g == 0))
        {
            throw PlanError("parallelism.tp",
                            "tp = " + Str(plan.tp) + " neither divides the job's " + Str(g) +
                                " GPUs per host nor is a multiple of them");
        }
        if (n % plan.tp != 0)
        {
            throw PlanError("parallelism.tp",
                            "tp = " + Str(plan.tp) + " does not divide the job's " + Str(n) +
                                " GPUs");
        }
        if (transformer && model.heads % plan.tp != 0)
        {
            throw PlanError("parallelism.tp",
                            "tp = " + Str(plan.tp) + " does not divide the model's " +
                                Str(model.heads) + " attention heads");
        }
    }
    else
    {
        plan.tp = LargestDivisor(g, model.tensorParallel, [&](uint32_t t) {
            return n % t == 0 && (!transformer || model.heads % t == 0);
        });
    }
}

/**
 * The pipeline and data-parallel degrees (tp x pp x dp = n), given plan.tp.
 * \param req the request \param model the model \param n the job's GPUs
 * \param plan plan.pp and plan.dp are set. Throws PlanError naming the field.
 */
void
ResolvePpDp(const ParallelismRequest& req, const ModelSpec& model, uint32_t n, ParallelPlan& plan)
{
    const bool transformer = model.IsTransformer();
    if (req.pp > 0)
    {
        plan.pp = req.pp;
        if (transformer && plan.pp > model.layers)
        {
            throw PlanError("parallelism.pp",
                            "pp = " + Str(plan.pp) + " is larger than the model's " +
                                Str(model.layers) + " layers");
        }
    }
    if (req.dp > 0)
    {
        plan.dp = req.dp;
    }
    if (req.pp > 0 && req.dp > 0)
    {
        if (static_cast<uint64_t>(plan.tp) * plan.pp * plan.dp != n)
        {
            throw PlanError("parallelism",
                            "tp x pp x dp = " + Str(plan.tp) + " x " + Str(plan.pp) + " x " +
                                Str(plan.dp) + " = " +
                                Str(static_cast<uint64_t>(plan.tp) * plan.pp * plan.dp) +
                                ", but the job has " + Str(n) + " GPUs");
        }
    }
    else if (req.pp > 0)
    {
        if (n % (static_cast<uint64_t>(plan.tp) * plan.pp) != 0)
        {
            throw PlanError("parallelism.pp",
                            "tp x pp = " + Str(plan.tp) + " x " + Str(plan.pp) +
                                " does not divide the job's " + Str(n) + " GPUs");
        }
        plan.dp = n / (plan.tp * plan.pp);
    }
    else if (req.dp > 0)
    {
        if (n % (static_cast<uint64_t>(plan.tp) * plan.dp) != 0)
        {
            throw PlanError("parallelism.dp",
                            "tp x dp = " + Str(plan.tp) + " x " + Str(plan.dp) +
                                " does not divide the job's " + Str(n) + " GPUs");
        }
        plan.pp = n / (plan.tp * plan.dp);
        if (transformer ? plan.pp > model.layers : plan.pp > 1)
        {
            throw PlanError("parallelism.dp",
                            "dp = " + Str(plan.dp) + " leaves pp = " + Str(plan.pp) +
                                " stages, more than the model's " + Str(model.layers) + " layers");
        }
    }
    else
    {
        const uint32_t rest = n / plan.tp;
        plan.pp = transformer ? LargestDivisor(rest,
                                               model.pipelineParallel,
                                               [&](uint32_t p) { return p <= model.layers; })
                              : 1;
        plan.dp = rest / plan.pp;
    }
}

/**
 * The expert-parallel degree (divides the experts and dp), given plan.dp.
 * \param req the request \param model the model \param plan plan.ep is set. Throws PlanError.
 */
void
ResolveEp(const ParallelismRequest& req, const ModelSpec& model, ParallelPlan& plan)
{
    if (req.ep > 0)
    {
        plan.ep = req.ep;
        if (model.IsMoe() && model.experts % plan.ep != 0)
        {
            throw PlanError("parallelism.ep",
                            "ep = " + Str(plan.ep) + " does not divide the model's " +
                                Str(model.experts) + " experts");
        }
        if (plan.dp % plan.ep != 0)
        {
            throw PlanError("parallelism.ep",
                            "ep = " + Str(plan.ep) + " does not divide dp = " + Str(plan.dp));
        }
    }
    else if (model.IsMoe())
    {
        plan.ep = LargestDivisor(model.experts, model.expertParallel, [&](uint32_t e) {
            return plan.dp % e == 0;
        });
    }
}

// MAX_MICRO_BATCHES (parallel-plan.h) is an assumption, not a published limit: Megatron-LM's
// runs use tens to a few hundred (GPT-3 175B, global batch 1,536 over DP 16 with micro-batch 1:
// 96); the iteration DAG holds nodes per micro-batch, stage and block (a 16-GPU GPT job with
// 1,000 micro-batches held 2.3 GB and had not finished after a minute).

/**
 * Micro-batches per iteration and replica: the request's, or the replica's sequences over the
 * zoo's micro-batch size (at least 1).
 * \param req the request \param model the model \param n the job's GPUs \param plan set
 */
void
ResolveMicroBatches(const ParallelismRequest& req,
                    const ModelSpec& model,
                    uint32_t n,
                    ParallelPlan& plan)
{
    if (req.microBatches > MAX_MICRO_BATCHES)
    {
        throw PlanError("parallelism.microBatches",
                        "must be <= " + std::to_string(MAX_MICRO_BATCHES) + ", got " +
                            std::to_string(req.microBatches));
    }
    if (req.microBatches > 0)
    {
        plan.microBatches = req.microBatches;
    }
    else
    {
        const double perReplica = model.SamplesPerIteration(n) / plan.dp;
        const double m = perReplica / std::max<uint32_t>(1, model.microBatchSize);
        plan.microBatches = static_cast<uint32_t>(std::max(1.0, std::round(m)));
    }
}

} // namespace

ParallelPlan
ResolvePlan(const ParallelismRequest& req,
            const ModelSpec& model,
            uint32_t numGpus,
            uint32_t gpusPerHost)
{
    const uint32_t n = numGpus;
    const uint32_t g = gpusPerHost;
    if (n == 0 || g == 0 || n % g != 0)
    {
        throw PlanError("parallelism",
                        "the job has " + Str(n) + " GPUs, " + Str(g) +
                            " per host: no plan possible");
    }
    ParallelPlan plan;
    ResolveKinds(req, model, plan);
    ResolveTp(req, model, n, g, plan);
    ResolvePpDp(req, model, n, plan);
    ResolveEp(req, model, plan);
    ResolveMicroBatches(req, model, n, plan);
    plan.virtualStages = req.virtualStages > 0 ? req.virtualStages : 1;
    CheckVirtualStages(model, plan);
    NS_LOG_DEBUG(model.name << " on " << n << " GPUs (" << g << " per host): " << plan.ToString());
    return plan;
}

void
CheckVirtualStages(const ModelSpec& model, const ParallelPlan& plan)
{
    const uint32_t v = plan.virtualStages;
    if (v <= 1)
    {
        if (v == 0)
        {
            throw PlanError("parallelism.virtualStages", "must be >= 1");
        }
        return;
    }
    const std::string field = "parallelism.virtualStages";
    if (!model.IsTransformer())
    {
        throw PlanError(field, "model '" + model.name + "' has no transformer layers");
    }
    if (plan.pp < 2)
    {
        throw PlanError(field, "interleaving needs pp >= 2, got pp = " + Str(plan.pp));
    }
    if (model.layers % plan.pp != 0)
    {
        throw PlanError(field,
                        "interleaving needs the " + Str(model.layers) +
                            " layers split evenly over pp = " + Str(plan.pp) + " stages");
    }
    const uint32_t perStage = model.layers / plan.pp;
    if (perStage % v != 0)
    {
        throw PlanError(field,
                        "v = " + Str(v) + " does not divide the " + Str(perStage) +
                            " layers per stage (" + Str(model.layers) + " layers / pp " +
                            Str(plan.pp) + ")");
    }
    if (plan.microBatches % plan.pp != 0)
    {
        throw PlanError(field,
                        "interleaving runs the micro-batches in groups of pp = " + Str(plan.pp) +
                            ": m = " + Str(plan.microBatches) + " is not a multiple of it");
    }
}
} // namespace ns3
