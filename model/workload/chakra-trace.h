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

#ifndef CRUX_CHAKRA_TRACE_H
#define CRUX_CHAKRA_TRACE_H

// No Simulator calls: a ChakraTrace is read from files and translated into a CommDag, which a
// CommDagRunner (DltJobApplication) runs. The protobuf classes stay inside chakra-trace.cc.

#include "comm-dag.h"
#include "parallel-plan.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief A bad Chakra execution trace: one line naming the file and, where there is one, the
 * node ("<file>: node <id> '<name>': <what>").
 */
class ChakraError : public std::runtime_error
{
  public:
    /// \param what the complete, user-facing message
    explicit ChakraError(const std::string& what)
        : std::runtime_error(what)
    {
    }
};

/**
 * \ingroup crux
 * \brief One node of a rank's Chakra graph, as crux reads it (et_def.proto's Node with the
 * attributes crux uses).
 */
struct ChakraNode
{
    /// Node kinds (et_def.proto enum NodeType).
    enum Type : uint32_t
    {
        INVALID = 0,   //!< INVALID_NODE (refused)
        METADATA = 1,  //!< METADATA_NODE (skipped: a zero-cost join)
        MEM_LOAD = 2,  //!< MEM_LOAD_NODE (refused)
        MEM_STORE = 3, //!< MEM_STORE_NODE (refused)
        COMP = 4,      //!< COMP_NODE: a compute delay
        COMM_SEND = 5, //!< COMM_SEND_NODE: send comm_size bytes to rank comm_dst
        COMM_RECV = 6, //!< COMM_RECV_NODE: receive comm_size bytes from rank comm_src
        COMM_COLL = 7  //!< COMM_COLL_NODE: a collective over every rank of the trace
    };

    /// Collective kinds (et_def.proto enum CollectiveCommType; attribute comm_type).
    enum Collective : int64_t
    {
        ALL_REDUCE = 0,
        REDUCE = 1,
        ALL_GATHER = 2,
        GATHER = 3,
        SCATTER = 4,
        BROADCAST = 5,
        ALL_TO_ALL = 6,
        REDUCE_SCATTER = 7,
        REDUCE_SCATTER_BLOCK = 8,
        BARRIER = 9
    };

    uint64_t id{0};                 //!< node id, unique in the rank's file
    std::string name;               //!< node name (for messages)
    uint32_t type{INVALID};         //!< Type value as stored
    std::vector<uint64_t> dataDeps; //!< ids of the nodes whose data it needs (data_deps)
    std::vector<uint64_t> ctrlDeps; //!< ids of the nodes it must follow (ctrl_deps)
    uint64_t durationMicros{0};     //!< duration_micros (COMP_NODE: its run time)
    bool hasNumOps{false};          //!< the node has a num_ops attribute
    double numOps{0};               //!< num_ops: FLOPs of a COMP_NODE
    bool isCpuOp{false};            //!< is_cpu_op attribute (a host-side op: no GPU FLOPs)
    bool hasCommType{false};        //!< the node has comm_type
    int64_t commType{0};            //!< comm_type (Collective for COMM_COLL_NODE)
    bool hasCommSize{false};        //!< the node has comm_size
    uint64_t commSize{0};           //!< comm_size, bytes
    bool hasCommSrc{false};         //!< the node has comm_src
    int64_t commSrc{0};             //!< comm_src: sending rank of a COMM_RECV_NODE
    bool hasCommDst{false};         //!< the node has comm_dst
    int64_t commDst{0};             //!< comm_dst: receiving rank of a COMM_SEND_NODE
    int64_t commTag{0};             //!< comm_tag (0 if absent): matches sends to receives

    /**
     * \param file the rank file the node was read from
     * \return the prefix of a message about this node: "<file>: node <id> '<name>': "
     */
    std::string Where(const std::string& file) const;
};

/**
 * \ingroup crux
 * \brief A Chakra execution trace (MLCommons Chakra, schema et_def.proto): one graph per rank,
 * read from the files <prefix>.<rank>.et and translated into one CommDag per iteration.
 *
 * **Reading** (Load()): every file is a sequence of length-prefixed (varint) protobuf messages:
 * one GlobalMetadata, then the Nodes. Checked before anything runs, each failure a ChakraError
 * of one line naming the file and node: a missing rank file, a file for a rank beyond the job's
 * GPUs, a truncated or non-protobuf file, duplicate node ids, a dependency on a node id that
 * does not exist, a dependency cycle (also one through sends, receives and collectives of other
 * ranks: a run that would hang), a send without a matching receive (or the other way round), a
 * send to its own rank or to a rank that does not exist, collectives that differ between ranks
 * (kind, size, count), a collective kind crux does not run (reduce, gather, scatter,
 * reduce-scatter-block, barrier), and node types crux does not execute (memory load/store,
 * invalid).
 *
 * **Translation** (Build()), rank r = job rank r:
 *  - COMP_NODE: a delay of duration_micros; a node without a duration but with num_ops takes
 *    num_ops / flopRate;
 *  - COMM_SEND_NODE of rank s to comm_dst d with tag t: one message of comm_size bytes, handed to
 *    the transport when the send's dependencies are complete; the k-th send s→d with tag t
 *    matches the k-th COMM_RECV_NODE of rank d with comm_src s and tag t; the send completes when
 *    the message is delivered; the receive completes when the message is delivered and its own
 *    dependencies are complete (eager: the receive need not be posted first);
 *  - COMM_COLL_NODE: the k-th collective node of every rank forms one collective over all ranks
 *    (member i = rank i), run with the collectives library (Collectives): all-reduce with the
 *    trace's all-reduce algorithm (SetAllReduce(); AUTO = NCCL's choice), all-gather and
 *    reduce-scatter as rings, all-to-all pairwise, broadcast from rank 0 pipelined; comm_size is
 *    the buffer S of the library (the full vector); rank r may start when its node's
 *    dependencies are complete, and its node completes when its part of the collective does;
 *  - METADATA_NODE: a zero-cost join (counted, NumSkipped()).
 * Data and control dependencies are both waited for. Every communication operation (a
 * collective at each rank, a send/receive pair) has BUCKET_START / BUCKET_END labels with index
 * 0 (TrainingIteration's labels): DltJobApplication reports one "AllReduceComplete" per
 * iteration spanning from the first communication start to the last communication end (the
 * job's measured communication time; overlapping operations are not added up).
 */
class ChakraTrace
{
  public:
    /**
     * FLOP/s of one GPU assumed for the compute nodes that give a duration but no num_ops (W_j)
     * or num_ops but no duration (their run time): 50 % of the A100's dense bf16 peak of
     * 312 TFLOP/s (an assumption, inside the 33–54 % MFU of the LLM training runs of the model
     * zoo, doc/crux.rst "Workload").
     */
    static constexpr double DEFAULT_FLOP_RATE = 0.5 * 312e12;

    /**
     * \brief Read the files <prefix>.0.et .. <prefix>.<ranks−1>.et and check them (see class doc).
     * \param prefix path prefix of the rank files
     * \param ranks the job's GPUs: exactly that many rank files must exist
     * \param flopRate FLOP/s of one GPU (> 0) for compute nodes without num_ops or duration
     * \return the trace
     * \throws ChakraError naming the file and node
     */
    static ChakraTrace Load(const std::string& prefix,
                            uint32_t ranks,
                            double flopRate = DEFAULT_FLOP_RATE);

    /**
     * \brief Build a trace from nodes already in memory (the rank files' contents) and check it
     * as Load() does.
     * \param files per rank: the file name used in messages
     * \param nodes per rank: its nodes in file order
     * \param flopRate as Load()
     * \return the trace
     * \throws ChakraError naming the file and node
     */
    static ChakraTrace FromNodes(const std::vector<std::string>& files,
                                 const std::vector<std::vector<ChakraNode>>& nodes,
                                 double flopRate = DEFAULT_FLOP_RATE);

    /**
     * \brief Write one rank's file in Chakra's format (GlobalMetadata with the version, then the
     * nodes, each length-prefixed): the inverse of Load() for one rank.
     * \param path file to write (replaced)
     * \param nodes the rank's nodes
     * \param version GlobalMetadata version string
     * \throws ChakraError if the file cannot be written
     */
    static void WriteRank(const std::string& path,
                          const std::vector<ChakraNode>& nodes,
                          const std::string& version = "0.0.4");

    /// \return the file of a rank: <prefix>.<rank>.et
    static std::string RankFile(const std::string& prefix, uint32_t rank);

    /**
     * \brief Add one iteration of the trace to a DAG of NumRanks() ranks (see class doc).
     * \param dag the DAG (empty; may be count-only)
     * \throws std::invalid_argument if the DAG has another number of ranks
     */
    void Build(CommDag& dag) const;

    /// \param algorithm the name of the algorithm of every all-reduce of the trace
    /// (AllReduceAlgorithmNames(); "nccl" = NCCL's choice)
    void SetAllReduce(const std::string& algorithm);
    /// \return the all-reduce algorithm's name
    std::string GetAllReduce() const;

    /// \return number of ranks
    uint32_t NumRanks() const;
    /// \return the rank files (or names) in rank order
    const std::vector<std::string>& Files() const;
    /// \return the nodes of a rank in file order \param rank the rank
    const std::vector<ChakraNode>& Nodes(uint32_t rank) const;

    /**
     * \return W_j: FLOPs of one iteration of the whole job: over every rank's GPU compute nodes
     *         (is_cpu_op false), num_ops where given, else duration × flopRate
     */
    double FlopsPerIteration() const;
    /// \return compute seconds of one iteration: the largest sum of a rank's compute delays
    double ComputeTime() const;
    /**
     * \return seconds from the iteration's start to the earliest start of a communication
     *         operation when communication takes no time (compute delays along the
     *         dependencies only)
     */
    double FirstCommStart() const;
    /// \return communication operations of one iteration (collectives + send/receive pairs)
    uint32_t NumCommOps() const;
    /// \return collectives of one iteration (each counted once, not per rank)
    uint32_t NumCollectives() const;
    /// \return send/receive pairs of one iteration
    uint32_t NumPointToPoint() const;
    /// \return METADATA_NODEs skipped in one iteration (all ranks)
    uint32_t NumSkipped() const;

  private:
    /// Check the graph and compute the build order (throws ChakraError): the steps below, in
    /// this order (chakra-trace-check.cc).
    void Prepare();
    /// Per-node checks (unique ids, node types and their attributes, ranks of sends and
    /// receives, collective kinds crux runs) and m_deps. \return per rank: the indices of its
    /// collective nodes in file order
    std::vector<std::vector<uint32_t>> CheckNodes();
    /// The k-th collective of every rank forms collective k (same kind and size, same count on
    /// every rank); fills m_collMembers. \param colls CheckNodes()'s result
    void MatchCollectives(const std::vector<std::vector<uint32_t>>& colls);
    /// The global graph's vertices (one per node, one per collective): m_vertices, m_vertexOf.
    void NumberVertices();
    /// The k-th send s→d with tag t matches the k-th receive of d from s with tag t (sizes
    /// equal, none left over): m_sendOf, m_pointToPoint.
    void MatchPointToPoint();
    /// A topological order of the vertices (Kahn) into m_order; a cycle (also through other
    /// ranks) is a ChakraError naming it. \return per vertex: its predecessors (sorted, unique)
    std::vector<std::vector<uint32_t>> OrderVertices();
    /// W_j, compute time, skipped nodes and the earliest communication start (free
    /// communication). \param preds OrderVertices()'s result
    void ComputeStatistics(const std::vector<std::vector<uint32_t>>& preds);

    /// A vertex of the global graph: one node of one rank, or one collective of all ranks.
    struct Vertex
    {
        uint32_t rank{0};  //!< rank of the node (of rank 0's node for a collective)
        uint32_t index{0}; //!< index in the rank's node list (rank 0's for a collective)
        int32_t coll{-1};  //!< collective number, -1 for a single node
    };

    std::vector<std::string> m_files;                       //!< per rank: file name
    std::vector<std::vector<ChakraNode>> m_nodes;           //!< per rank: nodes in file order
    double m_flopRate{DEFAULT_FLOP_RATE};                   //!< FLOP/s for nodes without FLOPs
    std::string m_allReduce{"nccl"};                        //!< all-reduce algorithm's name
    std::vector<Vertex> m_vertices;                         //!< vertices of the global graph
    std::vector<std::vector<uint32_t>> m_vertexOf;          //!< [rank][index] → vertex
    std::vector<std::vector<uint32_t>> m_collMembers;       //!< per collective: node index per rank
    std::vector<uint32_t> m_order;                          //!< vertices in a topological order
    std::vector<std::vector<std::vector<uint32_t>>> m_deps; //!< [rank][index] → node indices
    std::vector<std::vector<int64_t>> m_sendOf; //!< [rank][index of a recv] → send vertex
    double m_flops{0};                          //!< W_j
    double m_computeTime{0};                    //!< max per-rank compute seconds
    double m_firstComm{0};                      //!< earliest communication start, s
    uint32_t m_pointToPoint{0};                 //!< send/receive pairs
    uint32_t m_skipped{0};                      //!< METADATA nodes
};

} // namespace ns3

#endif // CRUX_CHAKRA_TRACE_H
