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

#ifndef CRUX_COMM_TIMELINE_H
#define CRUX_COMM_TIMELINE_H

#include "ns3/cluster-model.h"
#include "ns3/dlt-job.h"

namespace ns3
{

/**
 * \ingroup crux
 * \brief How finely AddCommTimeline() cuts a job's iteration into phases.
 */
enum class TimelineGranularity
{
    /// One phase per instant at which inter-host messages start (every step of a ring, every
    /// hop of a multi-host ring): the reference, and the scenario runs' timeline.
    STEP,
    /// The phases of one operation (all steps and NCCL channels of one collective; an EP
    /// all-to-all) merged into one phase, its bytes per connection summed,
    /// with the lags moved so that the timeline's ideal timing is unchanged (see
    /// AddCommTimeline()). A ring all-reduce becomes one phase instead of one per ring step
    /// (a llama-7b job on 15 hosts: 169 phases instead of 35,321). ASSUMPTION (a model choice,
    /// measured in doc/crux.rst "Timeline granularity of the trace runs"): the steps of one
    /// collective move their bytes back to back and their lags follow, so contention that hits
    /// one step and not the next is averaged over the collective.
    COLLECTIVE,
};

/**
 * \ingroup crux
 * \brief Derives a job's communication timeline (SchedJob::phases, endDeps, span) from the
 * CommDag of one iteration (TrainingIteration::Build): the one source of the scheduler's and
 * the flow evaluator's view of when the job communicates.
 *
 * The DAG is timed once with every inter-host message taking no time (compute delays as given,
 * intra-host NVLink messages bytes × 8 / intraHostRate + intraHostLatency each, without
 * contention; a message not before the previous one of its stream). The inter-host messages
 * (with bytes) that start at the same instant form one phase (a collective's messages, the
 * pipeline sends of all replicas of a micro-batch, ...): release = that instant, its transfers
 * = those messages' bytes per connection. A phase depends on every phase that lies before it
 * on a DAG path, with lag = the longest compute (and NVLink) time on such a path (at most the
 * 8 most binding per node are kept: latest release + lag); endDeps likewise for the DAG's
 * sinks (lag > 0 only); span = the timed iteration's end. Approximations: a phase's successors
 * wait for the whole phase (not only for their own message), and NVLink contention is ignored.
 *
 * With TimelineGranularity::COLLECTIVE the phases of one operation (CommDag::OperationOf():
 * every step and NCCL channel of one collective) are then merged into one phase released at
 * the first one's release with each connection's bytes summed. Lags are moved so that with
 * transfers taking no time every phase and the iteration end keep their ideal instant: a
 * dependency of a member released d after the first, with lag L, becomes one of the merged
 * phase with lag max(0, L - d); a dependency on a member released d after the first (endDeps
 * too) gets lag L + d, and the iteration end waits for the merged phase's end + its last
 * member's d. So the merged ring's step lags (NVLink hops) follow its transfers instead of
 * being interleaved with them. An operation with a phase that also holds another operation's
 * (or an undescribed) message, whose later phases wait for a phase outside it longer than its
 * first phase does, or whose merge would leave a dependency not released before its
 * dependant, keeps its phases.
 *
 * \param job the job (validated)
 * \param sj its scheduler job with flows (id = connection number, as MakeSchedJob() builds them)
 * \param intraHostRate NVLink bandwidth per GPU egress, bit/s (> 0)
 * \param intraHostLatency NVLink latency, s (>= 0)
 * \param granularity STEP (every phase) or COLLECTIVE (one phase per collective)
 * \throws std::invalid_argument for a bad rate or latency; std::out_of_range if a connection is
 *         not among sj's flows
 */
void AddCommTimeline(const DltJob& job,
                     SchedJob& sj,
                     double intraHostRate,
                     double intraHostLatency,
                     TimelineGranularity granularity = TimelineGranularity::STEP);

} // namespace ns3

#endif // CRUX_COMM_TIMELINE_H
