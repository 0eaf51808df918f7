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
    /// hop of a multi-host ring), whatever operations they belong to: the scenario runs'
    /// timeline and the trace runs' before 2026-12-05 (--timeline=step).
    STEP,
    /// One phase per operation (the trace runs' default): the inter-host messages of one
    /// operation (all steps and NCCL channels of one collective, an EP all-to-all, a pipeline
    /// send) that start at one instant form a phase, and the phases of one operation, and of
    /// operations that share a phase (the data-parallel rings of the TP ranks), are merged
    /// into one, its bytes per connection summed, with the lags moved so that the timeline's
    /// ideal timing is unchanged (see AddCommTimeline()). A llama-7b job on 15 hosts: 169
    /// phases instead of 35,321. Checked against the flow engine (FlowStandaloneIteration():
    /// within 1.5 % on 2-12 hosts, where STEP is off by up to +89 %; doc/crux.rst "Timeline
    /// granularity of the trace runs"). ASSUMPTION (a model choice): the steps of one
    /// collective move their bytes back to back, contention that hits one step and not the
    /// next is averaged over the collective.
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
 * With TimelineGranularity::COLLECTIVE the phases are cut per instant and operation
 * (CommDag::OperationOf()); phases of one instant linked by a dependency are joined; then the
 * phases of one operation, and of operations that share a phase, are merged into one phase
 * released at the first one's release with each connection's bytes summed. A member released d
 * after the first stands for the merged transfers (done at the merged phase's end) and for the
 * operation's NVLink hops before it (done d after the merged phase's start, overlapping the
 * transfers): a dependant that waited L after the member waits L after the merged end and
 * d + L after the merged start, the latter written as waits on the merged phase's own
 * dependencies (lag + d + L); a member's own dependency with lag L becomes one of the merged
 * phase with lag max(0, L - d); the iteration end likewise. With transfers taking no time every
 * phase and the iteration end keep their ideal instant. A group with an operation launched
 * after the group's first phase, or that waits for a phase released at or after its first
 * phase, keeps its phases; one-phase operations of one instant (the pipeline sends of the
 * replicas of a micro-batch) share a phase.
 *
 * \param job the job (validated)
 * \param sj its scheduler job with flows (id = connection number, as MakeSchedJob() builds them)
 * \param intraHostRate NVLink bandwidth per GPU egress, bit/s (> 0)
 * \param intraHostLatency NVLink latency, s (>= 0)
 * \param granularity STEP (one phase per instant) or COLLECTIVE (one phase per operation)
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
