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

// The engines of the trace-driven cluster runs (ClusterRun): the orchestration of one scheduler's
// run over the trace window. The event engine itself is EpochEngine (model/trace/epoch-engine.h),
// its epoch evaluation ExactEpochRateModel (model/trace/epoch-rate-model.h); this file gives
// them the driver's pieces: the job builder (the model zoo job and MakeClusterSchedJob), the
// LiveClusterFabric of engine "flow", the progress lines, and runs the Simulator.

#include "cluster-run-engine.h"

#include "progress-reporter.h"

#include "ns3/dlt-job-helper.h"
#include "ns3/epoch-engine.h"
#include "ns3/epoch-rate-model.h"
#include "ns3/flow-evaluator.h"
#include "ns3/live-cluster-fabric.h"
#include "ns3/sched-job-builder.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <iomanip>
#include <memory>
#include <sstream>

namespace ns3
{

namespace
{

/// Engine "flow": EpochEngine's live fabric is a LiveClusterFabric (disposed with the adapter).
class LiveFabricAdapter : public EpochEngineFabric
{
  public:
    /// \param fabric the set-up fabric
    explicit LiveFabricAdapter(Ptr<LiveClusterFabric> fabric)
        : m_fabric(fabric)
    {
    }

    ~LiveFabricAdapter() override
    {
        m_fabric->Dispose();
    }

    void StartJob(const DltJob& job, Callback<void, uint32_t> onFinish) override
    {
        m_fabric->StartJob(job, onFinish);
    }

    void StopJob(uint32_t jobId) override
    {
        m_fabric->StopJob(jobId);
    }

    void ApplyDecision(const ClusterModel& model, const Decision& decision) override
    {
        m_fabric->ApplyDecision(model, decision);
    }

    uint64_t CompletedIterations(uint32_t jobId) const override
    {
        return m_fabric->CompletedIterations(jobId);
    }

  private:
    Ptr<LiveClusterFabric> m_fabric; //!< the fabric
};

} // namespace

ClusterRunResult
RunClusterEngine(const ClusterRunConfig& config,
                 const ClusterTopology& topo,
                 const std::vector<TraceJob>& window,
                 double origin,
                 double windowStart,
                 double windowEnd,
                 const std::string& scheduler)
{
    // A placed trace job: the zoo model on its GPUs (trace LLMs at their real size with the
    // default plan) and its scheduler view by the shared conversion (ring flows, equal-cost
    // paths, ECMP default, overlapStart = f + (1 - f) / numBuckets), identical to what
    // LiveClusterFabric routes by.
    // Every job is FromModel() with the run's one plan request: a job's scheduler view is its
    // model's and GPU layout's template with its own hosts (SchedJobTemplates).
    SchedJobTemplates templates(config.timeline == "step" ? TimelineGranularity::STEP
                                                          : TimelineGranularity::COLLECTIVE);
    EpochEngine::JobBuilder builder = [&config, &topo, &templates](uint32_t id,
                                                                   const std::string& model,
                                                                   const std::vector<GpuId>& gpus) {
        EpochPlacedJob p;
        p.dlt = MakeTraceRunJob(topo, id, model, gpus);
        p.sched = MakeClusterSchedJob(p.dlt, topo, config.seed, config.maxPaths, templates);
        return p;
    };
    const FlowEvaluatorOptions evalOpt = config.EvaluatorOptions();
    std::unique_ptr<ExactEpochRateModel> rates;
    if (config.evaluator == "exact")
    {
        rates = std::make_unique<ExactEpochRateModel>(topo.links, evalOpt);
    }
    else
    {
        rates = std::make_unique<CoarseEpochRateModel>(topo.links, evalOpt, config.timescaleRatio);
        rates->SetWeakLinkBound(config.weakLinkBound);
        rates->SetWeakLinkClasses(config.weakLinkClasses);
        if (config.weakLinkRule == "overlap")
        {
            rates->SetWeakLinkRule(WeakLinkRule::OVERLAP);
        }
        else if (config.weakLinkRule != "bound") // Validate() refuses it before
        {
            throw std::invalid_argument("weakLinkRule: '" + config.weakLinkRule +
                                        "' is not bound or overlap");
        }
    }
    rates->SetThreads(config.evaluatorThreads);
    std::unique_ptr<EpochEngineFabric> fabric;
    if (config.engine == "flow")
    {
        Ptr<LiveClusterFabric> live = CreateObject<LiveClusterFabric>();
        live->SetAttribute("EcmpSeed", UintegerValue(config.seed));
        live->SetAttribute("MaxPaths", UintegerValue(config.maxPaths));
        live->Setup(topo);
        fabric = std::make_unique<LiveFabricAdapter>(live);
    }
    EpochEngine engine(config,
                       topo,
                       window,
                       origin,
                       windowStart,
                       windowEnd,
                       scheduler,
                       std::move(builder),
                       std::move(rates),
                       std::move(fabric));
    ProgressReporter progress("crux-trace-run", config.progressSeconds);
    if (progress.IsOn())
    {
        engine.SetProgressHook([&progress](const EpochProgress& p) {
            std::ostringstream os;
            os << std::fixed << std::setprecision(2) << "sim " << p.time / 86400.0 << " d of "
               << p.windowEnd / 86400.0 << " d, " << p.events << " events, " << p.running
               << " running, " << p.queued << " queued";
            progress.Update(p.scheduler, os.str(), p.done);
        });
    }
    engine.Start();
    Simulator::Run();
    ClusterRunResult r = engine.Finish();
    Simulator::Destroy();
    return r;
}

} // namespace ns3
