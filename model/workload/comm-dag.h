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

#ifndef CRUX_COMM_DAG_H
#define CRUX_COMM_DAG_H

// No Simulator calls: a CommDag is a plain description, built by the collective algorithms
// (collectives.h) and the training-iteration builder (training-iteration.h) and run by a
// CommDagRunner.

#include "nccl-model.h"

#include "ns3/hash-mix.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief A label attached to a barrier node of a CommDag: the runner reports the simulation
 * time at which every labelled node completes (CommDagRunner::SetLabelCallback).
 *
 * Used by DltJobApplication to time gradient buckets (AllReduceComplete trace); kind values
 * are the caller's (0 = no label).
 */
struct CommDagLabel
{
    uint32_t kind{0};  //!< caller-defined kind, 0 = unlabelled
    uint32_t index{0}; //!< caller-defined index (e.g. the bucket)
};

/**
 * \ingroup crux
 * \brief A directed acyclic graph of point-to-point messages, compute delays and barriers: one
 * collective, or one training iteration of a job (compute phases + every message).
 *
 * Nodes:
 *  - MESSAGE: src rank -> dst rank, bytes (may be 0: "delivered" without a message), on an issue
 *    stream; complete when the transport reports the last byte delivered;
 *  - DELAY: a fixed duration (a compute phase), starting when its dependencies are complete;
 *  - BARRIER: no cost, complete as soon as its dependencies are (a join point; may be labelled).
 * A node starts when every node it depends on is complete. Messages additionally respect their
 * **stream**: the messages of one stream are handed to the transport in the order they were added
 * (NCCL issues a rank's sends of one collective in order on one CUDA stream), so a message whose
 * dependencies are met waits for the earlier messages of its stream to be handed over (not to be
 * delivered).
 *
 * Ranks are job-local indices 0..NumRanks()-1 into the GPU list given to the constructor.
 * Every message belongs to a **connection** (ordered GPU pair and channel); Finalize() numbers the
 * connections: the inter-host ones first, 0, 1, 2, ... in the order of their first use (or of
 * RegisterConnection()), then the intra-host ones. The number is the message's
 * MessageRequest::flowId.
 *
 * Nodes must be added in a topological order (dependencies before dependants; ids are assigned
 * 0, 1, 2, ... in order of addition). The successors of a node are kept in the order the edges
 * were added: the runner processes them in that order.
 *
 * In **count-only** mode (constructor flag) the DAG stores no nodes or edges, only the bytes per
 * connection: the builders run unchanged and Connections() gives what one run would send on
 * every inter-host connection, in O(connections) memory (DltJob::CommunicationPattern()). The
 * collectives skip their work when all members are on one host (Collectives), so intra-host
 * connections may be missing; the inter-host ones get the same numbers as in a full DAG.
 */
class CommDag
{
  public:
    typedef uint32_t NodeId;                           //!< node index
    static constexpr NodeId NONE = 0xffffffffu;        //!< "no node" (skipped in dependency lists)
    typedef std::vector<NodeId> NodeList;              //!< list of nodes
    static constexpr uint32_t NO_STREAM = 0xffffffffu; //!< message on no stream

    /// Node kinds.
    enum class Kind : uint8_t
    {
        MESSAGE, //!< point-to-point message
        DELAY,   //!< fixed delay (compute)
        BARRIER  //!< join, no cost
    };

    /// One node (read by the runner).
    struct Node
    {
        Kind kind{Kind::BARRIER};   //!< kind
        uint32_t numDeps{0};        //!< nodes this one waits for
        uint32_t succBegin{0};      //!< successors: Successors()[succBegin, succEnd)
        uint32_t succEnd{0};        //!< end of the successor range
        uint32_t src{0};            //!< MESSAGE: sending rank
        uint32_t dst{0};            //!< MESSAGE: receiving rank
        uint32_t flow{0};           //!< MESSAGE: connection number (flow id after Finalize)
        uint32_t stream{NO_STREAM}; //!< MESSAGE: issue stream
        uint64_t bytes{0};          //!< MESSAGE: payload bytes
        int64_t duration{0};        //!< DELAY: duration in Time steps (Time::GetTimeStep();
                                    //!< no ns3::Time member: millions of nodes stay cheap)
        uint32_t label{0};          //!< BARRIER: index into Labels() + 1; MESSAGE: index into
                                    //!< the step table + 1 (Describe()); 0 = unlabelled
    };

    /// One connection (ordered GPU pair) and what the DAG sends on it.
    struct Connection
    {
        uint32_t src{0};       //!< sending rank
        uint32_t dst{0};       //!< receiving rank
        uint32_t channel{0};   //!< NCCL channel
        uint64_t bytes{0};     //!< sum of the message bytes of the DAG on it
        uint64_t messages{0};  //!< messages of the DAG on it (zero-byte ones included)
        bool interHost{false}; //!< src and dst are on different hosts
    };

    /**
     * \param gpus the job's GPUs, indexed by rank (non-empty)
     * \param countOnly true: keep only the per-connection byte counts (see class doc)
     */
    explicit CommDag(std::vector<GpuId> gpus, bool countOnly = false);

    /// \return true in count-only mode
    bool IsCountOnly() const;
    /// \return number of ranks (GPUs)
    uint32_t NumRanks() const;
    /// \param rank a rank \return its GPU
    const GpuId& Gpu(uint32_t rank) const;
    /// \return true if the two ranks are on the same host
    bool SameHost(uint32_t a, uint32_t b) const;

    /// \return a new issue stream id
    uint32_t NewStream();

    /**
     * \brief How the collectives added to this DAG run: NCCL channels, protocol, and the
     * hardware NCCL's cost model sees (collectives.h). Default: CollectiveConfig().
     * \param config the configuration
     */
    void SetCollectiveConfig(const CollectiveConfig& config);
    /// \return the configuration of SetCollectiveConfig()
    const CollectiveConfig& GetCollectiveConfig() const;

    /**
     * \brief Number a connection now (before its first message), e.g. to keep a given order of
     * flow ids. Registering an existing connection has no effect.
     * \param src sending rank \param dst receiving rank
     * \param channel NCCL channel: messages of different channels between the same two GPUs
     *        are different connections (queue pairs), as NCCL's channels are (0..65535)
     * \return the connection's number before Finalize()
     */
    uint32_t RegisterConnection(uint32_t src, uint32_t dst, uint32_t channel = 0);

    /**
     * \brief Add a message.
     * \param src sending rank \param dst receiving rank (!= src)
     * \param bytes payload bytes (0 = completes without traffic, one event later)
     * \param stream issue stream (NewStream()) or NO_STREAM
     * \param deps nodes it waits for (NONE entries are skipped)
     * \param channel the connection's channel (RegisterConnection())
     * \return the node id
     * \throws std::invalid_argument on a bad rank, src == dst, an unknown dependency
     */
    NodeId AddMessage(uint32_t src,
                      uint32_t dst,
                      uint64_t bytes,
                      uint32_t stream,
                      const NodeList& deps,
                      uint32_t channel = 0);
    /// \copydoc AddMessage
    NodeId AddMessage(uint32_t src,
                      uint32_t dst,
                      uint64_t bytes,
                      uint32_t stream,
                      std::initializer_list<NodeId> deps,
                      uint32_t channel = 0);

    /**
     * \brief Add a fixed delay (compute phase).
     * \param duration delay (>= 0)
     * \param deps nodes it waits for
     * \return the node id
     */
    NodeId AddDelay(Time duration, const NodeList& deps);
    /// \copydoc AddDelay
    NodeId AddDelay(Time duration, std::initializer_list<NodeId> deps);

    /**
     * \brief Add a fixed delay given in Time steps (Time::GetTimeStep() units of the current
     * resolution), without constructing ns3::Time objects (fast for large DAGs).
     * \param steps delay (>= 0)
     * \param deps nodes it waits for
     * \return the node id
     */
    NodeId AddDelaySteps(int64_t steps, const NodeList& deps);

    /**
     * \param seconds a duration
     * \return it in Time steps of the current resolution, rounded to the nearest step
     */
    static int64_t SecondsToSteps(double seconds);

    /// Observer of long DAG builds: (nodes added so far to the DAG being built).
    typedef std::function<void(uint64_t nodes)> BuildObserver;

    /**
     * \brief Observe this thread's DAG builds: the observer is called every 2^20 nodes a CommDag
     * built on the calling thread adds (progress lines of builds of millions of nodes; it
     * must not touch the DAG).
     * \param observer the observer (empty = none)
     * \return the previous observer of this thread
     */
    static BuildObserver SetBuildObserver(BuildObserver observer);

    /**
     * \brief Add a barrier (join).
     * \param deps nodes it waits for (none: complete at the start)
     * \param label optional label (kind 0 = none)
     * \return the node id
     */
    NodeId AddBarrier(const NodeList& deps, CommDagLabel label = CommDagLabel());
    /// \copydoc AddBarrier
    NodeId AddBarrier(std::initializer_list<NodeId> deps, CommDagLabel label = CommDagLabel());

    /**
     * \brief The user's words around the collectives added next, e.g. ("DP", "bucket 3") makes
     * a ring all-reduce "DP all-reduce (ring) bucket 3". Kept until changed; ("", "") clears it.
     * \param prefix what the collective serves ("DP", "TP", "EP", ...; may be empty)
     * \param suffix which one ("bucket 3", "stage 1", ...; may be empty)
     */
    void SetContext(std::string prefix, std::string suffix = std::string());

    /**
     * \brief Start describing the messages added next as one collective (or point-to-point
     * transfer): Describe() of each of them names it. Only a small table entry per collective
     * and per step is stored (Node::label indexes it), not a string per message; nothing in
     * count-only mode. The step is 0 until SetStep().
     * \param what the operation, e.g. "all-reduce (ring)" or "PP activation send stage 1 -> 2,
     *        micro-batch 4"; the context (SetContext()) is put around it
     * \param steps the number of steps of the algorithm (0: not printed)
     */
    void BeginCollective(const std::string& what, uint32_t steps = 0);

    /**
     * \brief The step of the current collective the messages added next belong to.
     * \param step 0-based step (printed 1-based: "step 5 of 14")
     */
    void SetStep(uint32_t step);

    /**
     * \brief What a message belongs to, in the user's terms, e.g. "DP all-reduce (ring) bucket
     * 3, step 5 of 14" (bucket, micro-batch and stage numbers are 0-based as in the traces).
     * \param id a node id
     * \return the description; empty for a node that is not a described message
     */
    std::string Describe(NodeId id) const;

    /// Collective of no message (CollectiveOf()).
    static constexpr uint32_t NO_COLLECTIVE = 0xffffffffu;

    /**
     * \brief Start one operation of several described collectives (the NCCL channels of one
     * all-reduce, each described by its own BeginCollective()): until EndOperation() their
     * messages have one OperationOf(). Nothing in count-only mode.
     */
    void BeginOperation();

    /// \brief End the operation of BeginOperation(): every BeginCollective() after it starts
    /// an operation of its own again.
    void EndOperation();

    /**
     * \brief Which operation a message belongs to: the collectives described between
     * BeginOperation() and EndOperation() are one operation; every other BeginCollective()
     * starts one.
     * \param id a node id
     * \return its 0-based operation number; NO_COLLECTIVE for a node that is not a described
     *         message (and for every node in count-only mode)
     */
    uint32_t OperationOf(NodeId id) const;

    /// \return bytes of the DAG's description tables (BeginCollective(); for memory accounting)
    std::size_t DescriptionBytes() const;

    /**
     * \brief Freeze the DAG: successor lists and connection numbers (inter-host first). No node
     * can be added afterwards; called again, no effect.
     */
    void Finalize();
    /// \return true after Finalize()
    bool IsFinal() const;

    /// \return nodes added (0 in count-only mode)
    uint32_t NumNodes() const;
    /// \return the node (valid after Finalize(); flow is the final flow id then)
    const Node& GetNode(NodeId id) const;
    /// \return the successor array (after Finalize())
    const std::vector<NodeId>& Successors() const;
    /// \return labels of the labelled barriers (Node::label − 1 indexes it)
    const std::vector<CommDagLabel>& Labels() const;
    /// \return number of streams
    uint32_t NumStreams() const;
    /// \return messages added (also counted in count-only mode)
    uint64_t NumMessages() const;

    /// \return the connections, indexed by their number (final numbers after Finalize())
    const std::vector<Connection>& Connections() const;

    /**
     * \brief Bytes each rank sends in one run of the DAG.
     * \return element r = sum of the message bytes with src r
     */
    std::vector<uint64_t> BytesSentByRank() const;

  private:
    /// AddMessage on a dependency range.
    NodeId Message(uint32_t src,
                   uint32_t dst,
                   uint64_t bytes,
                   uint32_t stream,
                   const NodeId* begin,
                   const NodeId* end,
                   uint32_t channel);
    /// AddDelay on a dependency range.
    NodeId Delay(int64_t steps, const NodeId* begin, const NodeId* end);
    /// AddBarrier on a dependency range.
    NodeId Barrier(const NodeId* begin, const NodeId* end, CommDagLabel label);
    /// Check and record the dependencies of the node about to be added.
    void AddDeps(NodeId node, const NodeId* begin, const NodeId* end);
    /// Append a node (not in count-only mode) \return its id
    NodeId Push(Node n, const NodeId* begin, const NodeId* end);
    /// Fail if finalized.
    void CheckOpen() const;
    /// \return this thread's build observer (SetBuildObserver)
    static BuildObserver& ThreadBuildObserver();

    std::vector<GpuId> m_gpus;                      //!< rank -> GPU
    CollectiveConfig m_collectiveConfig;            //!< how the collectives run
    bool m_countOnly{false};                        //!< keep only connection bytes
    bool m_final{false};                            //!< Finalize() was called
    std::vector<Node> m_nodes;                      //!< nodes
    std::vector<std::pair<NodeId, NodeId>> m_edges; //!< (from, to) in insertion order
    std::vector<NodeId> m_succ;                     //!< successor array (CSR)
    std::vector<CommDagLabel> m_labels;             //!< labels

    /// A described collective (BeginCollective()).
    struct Collective
    {
        std::string what;   //!< context + operation
        uint32_t steps;     //!< number of steps (0 = none)
        uint32_t operation; //!< OperationOf() of its messages
    };

    /// One step of a collective (a MESSAGE node's label − 1 indexes these).
    struct Step
    {
        uint32_t collective; //!< index into m_collectives
        uint32_t step;       //!< 0-based step
    };

    std::string m_prefix;                  //!< SetContext prefix
    std::string m_suffix;                  //!< SetContext suffix
    std::vector<Collective> m_collectives; //!< described collectives
    std::vector<Step> m_steps;             //!< (collective, step) of the labelled messages
    uint32_t m_curStep{0};                 //!< label of the next messages (0 = none)
    uint32_t m_operations{0};              //!< operations described
    bool m_inOperation{false};             //!< between BeginOperation() and EndOperation()
    uint32_t m_streams{0};                 //!< streams allocated
    uint64_t m_messages{0};                //!< messages added
    NodeId m_dummy{0};                     //!< count-only: ids handed out
    std::vector<Connection> m_conns;       //!< connections
    /// (src, dst, channel) key -> number; a mixing hash: the packed key's identity hash puts a
    /// ring's connections into one bucket (hash-mix.h)
    std::unordered_map<uint64_t, uint32_t, crux::Mix64Hash> m_connIndex;
};

} // namespace ns3

#endif // CRUX_COMM_DAG_H
