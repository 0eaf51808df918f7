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

#ifndef CRUX_COMM_DAG_RUNNER_H
#define CRUX_COMM_DAG_RUNNER_H

#include "comm-dag.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief The one engine that runs a CommDag on a MessageTransport: every collective algorithm
 * (collectives.h) and every training iteration (training-iteration.h) only builds a DAG, and
 * this class runs it, so the same DAG runs unchanged on the packet-level (RdmaTransport) and
 * the flow-level (FlowTransport) fabric.
 *
 * Start(): every node without dependencies becomes ready, in node-id order. A ready node
 *  - MESSAGE: is handed to the transport once the earlier messages of its stream have been (a
 *    zero-byte message is "delivered" one event later, Simulator::ScheduleNow, without traffic);
 *    it completes when the transport reports its last byte delivered;
 *  - DELAY: completes after its duration (Simulator::Schedule);
 *  - BARRIER: completes at once.
 * A completed node first reports its label (SetLabelCallback), then makes its successors ready
 * whose dependencies are all complete, in the DAG's successor order. The run completes when
 * every node has; the done callback is invoked once, at the end of the event that completed the
 * last node (an empty DAG, or one that completes inside Start(), completes one event later).
 * The callback may Start() the runner again (the next iteration).
 *
 * Abort() (or a new Start()) abandons a run: later deliveries of its messages are ignored and
 * its pending delays are cancelled. A message that is never delivered leaves the run pending:
 * the packet transport's watchdog reports a posted message that makes no progress
 * (RdmaNic::StallTimeout), this runner's watchdog a run whose messages make none at all
 * (StallTimeout below), and DescribeUnfinished() what is left when the simulation ends.
 *
 * **Watchdog** (attribute StallTimeout, default 10 min, PyTorch's default timeout of an NCCL
 * collective; a posted message that stops is reported first by the queue pair's watchdog,
 * RdmaNic::StallTimeout = 34.4 s): a run with messages
 * handed over and not delivered, no compute phase pending, and no message delivered for
 * StallTimeout ends the simulation with a CruxRunError naming the job, the first node that
 * never ran and the message it waits on ("waiting on rank 2's send to rank 3 ..."), as
 * PyTorch's NCCL watchdog reports a collective that timed out. It catches a peer that never
 * posts its send, which the packet transport cannot see (it has nothing posted to time). The
 * timer is removed when the run ends, so it neither runs nor moves the end of the simulation.
 *
 * **Fault injection** (attributes HungRank, HangTime): from HangTime on, the messages rank
 * HungRank would send are never handed to the transport: a hung GPU or process whose peers
 * wait for sends that never come.
 *
 * Every message carries the job id, the DAG's flow id
 * of its connection, the DSCP and the flow's UDP source port given to Setup(), and its node id as
 * MessageRequest::tag; Start() registers the DAG's CommDag::Describe as the job's describer
 * (MessageTransport::SetMessageDescriber), so the packet transport's watchdog names a stuck
 * message's collective and step.
 */
class CommDagRunner : public Object
{
  public:
    /// Completion callback.
    typedef Callback<void> DoneCallback;
    /// Label callback: (label, simulation time the labelled node completed).
    typedef Callback<void, CommDagLabel, Time> LabelCallback;
    /// Progress callback: (nodes complete in the current run, nodes of the DAG).
    typedef Callback<void, uint64_t, uint64_t> ProgressCallback;

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CommDagRunner();
    ~CommDagRunner() override;

    /**
     * \brief Configure (before Start; may be called again between runs).
     * \param transport carries the messages (non-null)
     * \param jobId MessageRequest::jobId of every message
     * \param dag the DAG (finalized here if it is not yet; not count-only)
     * \param dscp DSCP of every message (0..63)
     * \param ports UDP source port per flow id (flows not in the map: 0 = transport default)
     * \throws std::invalid_argument on a null transport or DAG, a count-only DAG, dscp > 63
     */
    void Setup(Ptr<MessageTransport> transport,
               uint32_t jobId,
               std::shared_ptr<CommDag> dag,
               uint8_t dscp,
               const std::map<uint32_t, uint16_t>& ports = {});

    /// \param cb invoked at every labelled node's completion (may be null)
    void SetLabelCallback(LabelCallback cb);

    /// \param cb invoked every 2^16 completed nodes of a run (progress lines; may be null)
    void SetProgressCallback(ProgressCallback cb);

    /**
     * \brief Run the DAG once.
     * \param done invoked once on completion (may be null)
     */
    void Start(DoneCallback done);

    /// \brief Abandon the current run: pending deliveries are ignored, done is never invoked.
    void Abort();

    /// \return true once the last started run has completed
    bool IsComplete() const;

    /**
     * \brief Name the job in the watchdog's and DescribeUnfinished()'s messages.
     * \param name the job's name (e.g. the scenario's "gpt"; may be empty)
     */
    void SetJobName(const std::string& name);

    /**
     * \brief What keeps the current run from completing, in one line: the nodes done, the
     * first node (in the DAG's order) that never ran, and the message or compute phase it
     * waits on at the end of its chain of unfinished dependencies, e.g. "DP all-reduce (ring)
     * bucket 0, step 4 of 6 (rank 3 -> rank 0) never ran: it waits on rank 2's send to rank 3
     * (DP all-reduce (ring) bucket 0, step 3 of 6), handed to the transport at 0.21 ms and
     * never delivered".
     * \return the line (no job prefix); empty if no run is pending (never started, complete or
     *         aborted)
     */
    std::string DescribeUnfinished() const;

    /**
     * \return true if the current run cannot finish by itself: nothing in flight and no compute
     *         phase pending although nodes are left; or messages in flight and no compute phase
     *         pending, while a hung rank swallowed a send (HungRank) or no message was delivered
     *         for StallTimeout (the watchdog's condition)
     */
    bool IsStalled() const;
    /// \return simulation time of the last Start
    Time GetStartTime() const;
    /// \return simulation time of the last completion (Time(0) if not complete)
    Time GetFinishTime() const;
    /// \return messages handed to the transport during the last run (zero-byte ones excluded)
    uint64_t GetMessagesSent() const;
    /// \return bytes handed to the transport during the last run
    uint64_t GetBytesSent() const;
    /// \return bytes each rank handed to the transport during the last run, indexed by rank
    const std::vector<uint64_t>& GetBytesSentByRank() const;
    /// \return the DAG
    std::shared_ptr<const CommDag> GetDag() const;

  protected:
    void DoDispose() override;

  private:
    /// Node n's dependencies are complete.
    void Ready(CommDag::NodeId n);
    /// Node n is complete.
    void Complete(CommDag::NodeId n);
    /// Hand over the ready head messages of stream s.
    void AdvanceStream(uint32_t s);
    /// Hand message n to the transport.
    void Issue(CommDag::NodeId n);
    /// The transport delivered message n of run gen.
    void Delivered(CommDag::NodeId n, uint64_t gen);
    /// Delay n of run gen elapsed.
    void DelayDone(CommDag::NodeId n, uint64_t gen);
    /// Finish run gen if it is still the current one (an event after Start()).
    void FinishEvent(uint64_t gen);
    /// Leave an event handler: finish the run if its last node completed.
    void Leave();
    /// The watchdog timer expired.
    void WatchdogExpired();
    /// Remove the watchdog timer.
    void StopWatchdog();
    /// \return node \p n in the user's words ("rank 2 -> rank 3, 4.0 MB (...)", "compute ...")
    /// \param n the node
    std::string DescribeNode(CommDag::NodeId n) const;

    Ptr<MessageTransport> m_transport;          //!< carrier
    uint32_t m_jobId{0};                        //!< job id of the messages
    std::shared_ptr<CommDag> m_dag;             //!< the DAG
    uint8_t m_dscp{0};                          //!< DSCP
    std::vector<uint16_t> m_ports;              //!< flow id -> UDP source port
    LabelCallback m_label;                      //!< label callback
    ProgressCallback m_progress;                //!< progress callback
    std::vector<uint32_t> m_streamBegin;        //!< stream s: m_streamNodes[begin[s], begin[s+1])
    std::vector<CommDag::NodeId> m_streamNodes; //!< messages of each stream, in order

    // state of the current run
    uint64_t m_generation{0};            //!< run counter (stale callbacks are ignored)
    std::vector<uint32_t> m_pending;     //!< per node: dependencies not yet complete
    std::vector<uint8_t> m_state;        //!< per node: bit 0 ready, bit 1 complete
    std::vector<uint32_t> m_streamHead;  //!< per stream: next position to hand over
    std::vector<EventId> m_events;       //!< delays scheduled in this run
    uint64_t m_completed{0};             //!< nodes complete
    uint32_t m_depth{0};                 //!< nesting of event handlers of this runner
    bool m_finishPending{false};         //!< every node is complete; done not yet invoked
    bool m_running{false};               //!< a run is pending
    bool m_complete{false};              //!< the last run completed
    Time m_start;                        //!< start time of the last run
    Time m_finish;                       //!< completion time of the last run
    uint64_t m_messagesSent{0};          //!< messages handed to the transport
    uint64_t m_bytesSent{0};             //!< bytes handed to the transport
    std::vector<uint64_t> m_bytesByRank; //!< bytes handed over per sending rank
    DoneCallback m_done;                 //!< completion callback of the current run
    std::vector<int64_t> m_issuedAt;     //!< per node: time step it was handed over (or
                                         //!< swallowed by HungRank), -1 = not yet
    uint64_t m_inFlight{0};              //!< messages handed over, not delivered
    uint64_t m_swallowed{0};             //!< sends of the hung rank (HungRank) never posted
    uint64_t m_delaysPending{0};         //!< compute phases scheduled, not elapsed
    Time m_lastProgress;                 //!< last delivery or elapsed delay (or the start)
    EventId m_watchdog;                  //!< watchdog timer
    std::string m_jobName;               //!< SetJobName
    // attributes
    Time m_stallTimeout; //!< StallTimeout (0 = off)
    uint32_t m_hungRank; //!< HungRank (0xffffffff = none)
    Time m_hangTime;     //!< HangTime
};

} // namespace ns3

#endif // CRUX_COMM_DAG_RUNNER_H
