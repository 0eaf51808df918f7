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

#include "flow-evaluator.h"

#include "flow-evaluator-run.h"

#include "ns3/comm-scheduler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

using flow_evaluator_detail::Num;

FlowEvaluator::FlowEvaluator(const ClusterModel& model, const FlowEvaluatorOptions& options)
    : m_model(model),
      m_options(options)
{
    SchedulerConfig config;
    config.numLevels = 1;
    Validate(m_model, config);
    if (!(std::isfinite(options.horizon) && options.horizon >= 0))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.horizon must be >= 0 s (got " +
                                    Num(options.horizon) + ")");
    }
    if (!(std::isfinite(options.horizonIterations) && options.horizonIterations > 0))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.horizonIterations must be > 0 (got " +
                                    Num(options.horizonIterations) + ")");
    }
    if (!(options.warmupFraction >= 0 && options.warmupFraction < 1))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.warmupFraction must be in [0, 1) (got " +
                                    Num(options.warmupFraction) + ")");
    }
    if (!(options.alignRatio >= 1)) // infinity: never aligned
    {
        throw std::invalid_argument(
            "FlowEvaluatorOptions.alignRatio must be >= 1 or infinity (got " +
            Num(options.alignRatio) + ")");
    }
    if (!(std::isfinite(options.steadyHorizonLimit) && options.steadyHorizonLimit >= 1))
    {
        throw std::invalid_argument("FlowEvaluatorOptions.steadyHorizonLimit must be >= 1 (got " +
                                    Num(options.steadyHorizonLimit) + ")");
    }
    for (const SchedLink& link : m_model.links)
    {
        m_capacity.push_back(link.bandwidth);
    }
    double longest = 0;
    for (const SchedJob& job : m_model.jobs)
    {
        std::vector<FlatFlow> flows;
        bool traffic = false;
        for (const SchedFlow& flow : job.flows)
        {
            FlatFlow f;
            f.bits = flow.bytesPerIteration * 8.0;
            f.candidates = flow.candidatePaths;
            for (const auto& p : flow.candidatePaths)
            {
                traffic = traffic || (f.bits > 0 && !p.empty());
            }
            flows.push_back(std::move(f));
        }
        if (job.computeTime == 0 && !traffic)
        {
            throw std::invalid_argument(
                "FlowEvaluator: job id " + std::to_string(job.id) +
                " has computeTime 0 and no traffic on any link (zero-length iterations)");
        }
        m_flows.push_back(std::move(flows));
        m_phases.push_back(EffectivePhases(job));
        m_endDeps.push_back(EffectiveEndDeps(job));
        longest = std::max(
            longest,
            StandaloneIterationTime(job, JobCommTime(m_model, job, DefaultPathChoice(job))));
    }
    m_horizon = options.horizon > 0 ? options.horizon : options.horizonIterations * longest;
    if (!(m_horizon > 0))
    {
        throw std::invalid_argument(
            "FlowEvaluator: automatic horizon is 0 (every job has a zero "
            "stand-alone iteration time); set FlowEvaluatorOptions.horizon");
    }
}

const ClusterModel&
FlowEvaluator::Model() const
{
    return m_model;
}

const FlowEvaluatorOptions&
FlowEvaluator::Options() const
{
    return m_options;
}

double
FlowEvaluator::Horizon() const
{
    return m_horizon;
}

FlowEvaluation
FlowEvaluator::Evaluate(const Decision& decision) const
{
    EvaluationInput in;
    for (const SchedJob& job : m_model.jobs)
    {
        auto it = decision.jobs.find(job.id);
        if (it == decision.jobs.end())
        {
            throw std::out_of_range("FlowEvaluator::Evaluate: the decision has no job id " +
                                    std::to_string(job.id));
        }
        const JobDecision& jd = it->second;
        in.paths.push_back(ChoiceOf(job, jd));
        in.priority.push_back(m_options.priority == EvaluationPriority::LEVEL
                                  ? static_cast<int64_t>(jd.level)
                                  : -static_cast<int64_t>(jd.rank));
        in.timeShift.push_back(jd.timeShift);
    }
    return Evaluate(in);
}

FlowEvaluation
FlowEvaluator::Evaluate(const EvaluationInput& input) const
{
    const std::size_t nJobs = m_model.jobs.size();
    if (input.paths.size() != nJobs || input.priority.size() != nJobs ||
        (!input.timeShift.empty() && input.timeShift.size() != nJobs) ||
        (!input.include.empty() && input.include.size() != nJobs))
    {
        throw std::invalid_argument("FlowEvaluator::Evaluate: EvaluationInput vectors must have "
                                    "one entry per job (" +
                                    std::to_string(nJobs) + ")");
    }
    Run run(*this, input);
    return run.Simulate();
}

FlowEvaluation
EvaluateDecision(const ClusterModel& model,
                 const Decision& decision,
                 const FlowEvaluatorOptions& options)
{
    return FlowEvaluator(model, options).Evaluate(decision);
}

} // namespace ns3
