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

#ifndef CRUX_STEADY_RATE_H
#define CRUX_STEADY_RATE_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief One job's iteration completions in a FlowEvaluator run, as its steady-state rate
 * estimate reads them (times in seconds from the start of the evaluation).
 */
struct CompletionRecord
{
    uint32_t component{0}; //!< jobs linked by shared links (LinkComponents) share it
    uint32_t cls{0};       //!< priority class index, 0 = highest
    /// the first iteration's start, then every completion by the stop, s (ascending)
    std::vector<double> doneAt;
    double firstWarm{0};   //!< t_a: first completion at or after the warm-up, s
    double lastWarm{0};    //!< t_b: last completion of the measured window, s
    uint64_t warmCount{0}; //!< completions in (t_a, t_b]
};

/**
 * \ingroup crux-scheduling
 * \brief Connected components of jobs that share links (UnionFind, union-find.h).
 * \param numJobs number of jobs
 * \param numLinks number of links (ids < numLinks)
 * \param jobOf [transfer] its job (< numJobs; not checked: the caller builds it)
 * \param paths [transfer] its links (ids < numLinks; not checked)
 * \return [job] its component: the least index of the jobs linked to it, directly or through
 *         other jobs, by a link that transfers of both cross
 */
std::vector<uint32_t> LinkComponents(std::size_t numJobs,
                                     std::size_t numLinks,
                                     const std::vector<uint32_t>& jobOf,
                                     const std::vector<std::vector<uint32_t>>& paths);

/**
 * \ingroup crux-scheduling
 * \brief Steady-state iterations per second of the jobs with a whole iteration interval after
 * the warm-up (JobEvaluation::iterationRate, flow-evaluator.h, which documents the rule).
 *
 * Own window: warmCount / (lastWarm - firstWarm). Period alignment: a job at least alignRatio
 * times faster (mean interval in its own window) than R, the slowest job of a strictly higher
 * class in its component (the highest class, then the lowest index, of equals), is rated over
 * R's window, (C(t_b^R) - C(t_a^R)) / (t_b^R - t_a^R), with C its completions interpolated
 * linearly in time; exact for a regime periodic in R's iteration, so a stretch in which R's
 * class starves the job is counted.
 * \param jobs the jobs' completion records
 * \param alignRatio >= 1 (infinity: never aligned)
 * \param stop the time the simulation stopped, s (a job's next completion after its last is
 *        taken at the later of it and one mean interval on)
 * \return [job] the rate, 1/s; -1 for a job without a whole interval (the caller's fallback)
 */
std::vector<double> SteadyIterationRates(const std::vector<CompletionRecord>& jobs,
                                         double alignRatio,
                                         double stop);

} // namespace ns3

#endif // CRUX_STEADY_RATE_H
