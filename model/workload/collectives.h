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

#ifndef CRUX_COLLECTIVES_H
#define CRUX_COLLECTIVES_H

// No Simulator calls: every algorithm only adds nodes to a CommDag; CommDagRunner runs it.

#include "comm-dag.h"
#include "parallel-plan.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief What a collective added to a CommDag: per member, the node after which that member's
 * part is complete (its result buffer is final: it may go on computing with it).
 *
 * rankDone[i] is a BARRIER node (member i of the member list given to the algorithm) that
 * depends on every message member i receives in the collective and on member i's ready node.
 */
struct CollectiveNodes
{
    CommDag::NodeList rankDone; //!< per member: its part is complete
};

/**
 * \ingroup crux
 * \brief How a channel ring is expressed as messages (Collectives::ChannelRingAllReduce() and
 * its reduce-scatter and all-gather).
 */
enum class RingForm
{
    /// NCCL's steps: 2(N−1) (all-reduce) or N−1 messages per member and channel, step s of a
    /// member waiting for step s−1 of its predecessor (exact; N² messages per channel).
    STEPS,
    /// Flow form for flow-level runs of large rings: per member and channel one message to its
    /// successor carrying everything the steps carry on that ring edge, started when every
    /// member is ready; every member is done when all N messages of the channel have arrived
    /// (the ring ends with its slowest edge). N messages per channel. It moves the same bytes
    /// on the same links; on an idle fabric it saves at most the (steps − 1) per-step latencies
    /// of the step form; where edges run at different rates (contention) a fast edge finishes
    /// early and frees its links, which NCCL's bounded FIFOs do not allow (the error on a
    /// training step is measured in doc/performance.rst).
    FLOW
};

/**
 * \ingroup crux
 * \brief The collectives library: NCCL's algorithms (and the classic MPI ones) as DAGs of
 * point-to-point messages with their real data dependencies (workloads-fabric-facts.md §5).
 *
 * Common arguments:
 *  - \p dag the DAG to add to;
 *  - \p members job-local ranks of the participants, in the collective's rank order (size N);
 *    member i is "rank i" below;
 *  - \p bytes the buffer size S in bytes (per rank: the vector all-reduced, the full vector a
 *    reduce-scatter reduces, the full vector an all-gather produces, the buffer a rank splits
 *    among all members in an all-to-all);
 *  - \p ready when each member may start: empty (at once), one node (for all) or N nodes
 *    (member i waits for ready[i]).
 * Each member's sends of one collective are issued in order on its own stream(s) (NCCL runs a
 * collective on one CUDA stream per rank). A buffer is cut into chunks with ChunkBytes() (the
 * first S mod n chunks one byte larger). A collective with N = 1 or S = 0 sends nothing and
 * completes one event after its members are ready (a zero-length delay).
 *
 * Every algorithm throws std::invalid_argument for an empty or duplicate member list, a member
 * out of range or a ready list of another size. On a count-only CommDag a collective whose
 * members are all on one host adds no message (only inter-host bytes are counted there).
 */
class Collectives
{
  public:
    /**
     * \brief Classic ring all-reduce ("classic-ring"; crux's "ring" before
     * NCCL's channels): one ring over the members in rank order, reduce-scatter then
     * all-gather, 2(N−1) steps, whole chunks of S/N per step (ChannelRingAllReduce() is NCCL's).
     *
     * Step s (0 ≤ s < 2(N−1)): rank r sends one chunk to rank r+1 mod N: chunk (r − s) mod N
     * while reducing (s < N−1), chunk (r + 1 − (s − N + 1)) mod N while gathering. Rank r may
     * send step s > 0 once the step s−1 message of rank r−1 has been delivered to it. Each
     * rank sends 2(N−1) chunks ≈ 2(N−1)/N × S. Alpha-beta on a contention-free fabric:
     * 2(N−1)(α + S/N β).
     * \return per-member completion nodes
     */
    static CollectiveNodes RingAllReduce(CommDag& dag,
                                         const std::vector<uint32_t>& members,
                                         uint64_t bytes,
                                         const CommDag::NodeList& ready);

    /**
     * \brief Ring reduce-scatter: the first N−1 steps of RingAllReduce; rank r ends with the
     * reduced chunk (r + 1) mod N. Each rank sends (N−1)/N × S; (N−1)(α + S/N β).
     * \return per-member completion nodes
     */
    static CollectiveNodes RingReduceScatter(CommDag& dag,
                                             const std::vector<uint32_t>& members,
                                             uint64_t bytes,
                                             const CommDag::NodeList& ready);

    /**
     * \brief Ring all-gather: rank r starts with chunk (r + offset) mod N and in step s
     * (0 ≤ s < N−1) sends chunk (r + offset − s) mod N to rank r+1 (offset 1 continues a
     * RingReduceScatter). Each rank sends (N−1)/N × S; (N−1)(α + S/N β).
     * \param offset chunk rank 0 holds at the start
     * \return per-member completion nodes
     */
    static CollectiveNodes RingAllGather(CommDag& dag,
                                         const std::vector<uint32_t>& members,
                                         uint64_t bytes,
                                         const CommDag::NodeList& ready,
                                         uint32_t offset = 0);

    /**
     * \brief Classic hierarchical all-reduce (CLASSIC_HIERARCHICAL; the phases one after
     * another on whole buffers, PipelinedHierarchicalAllReduce() pipelines them): intra-host
     * ring reduce-scatter, then one inter-host ring
     * all-reduce per rail (the members with the same position on their host, each carrying
     * its 1/k shard), then intra-host ring all-gather (k = members per host).
     *
     * Members are grouped by host in order of first appearance; every host must hold the same
     * number k of members, otherwise this falls back to RingAllReduce over the member list.
     * k = 1 is the inter-host ring alone (crux's data-parallel pattern without a plan); one host
     * is the intra-host ring alone. Inter-host bytes per member: 2(H−1)/H × S/k.
     * \return per-member completion nodes
     */
    static CollectiveNodes HierarchicalAllReduce(CommDag& dag,
                                                 const std::vector<uint32_t>& members,
                                                 uint64_t bytes,
                                                 const CommDag::NodeList& ready);

    /**
     * \brief Classic double binary tree all-reduce (CLASSIC_TREE; one chain per host and tree,
     * 4 MiB chunks; ChannelTreeAllReduce() is NCCL's on C channels) (NCCL Tree,
     * src/graph/trees.cc): the hosts form two
     * binary trees (tree 1: NCCL's bit-trick btree over host indices 0..H−1, root 0; tree 2:
     * its mirror for even H, its shift by one for odd H), the members of a host a chain
     * (position 0 is the host's tree endpoint). Each tree carries half of the buffer (the first
     * ceil(S/2) bytes to tree 1), cut into C pipeline chunks; for each chunk: reduce up the
     * chain and the tree to the root, then broadcast down the tree and the chain, each hop as
     * soon as its data is there. Up and down sends are separate streams (NCCL runs them
     * concurrently).
     *
     * With per-pair links (no sharing between a member's messages), height h (hops from the
     * deepest chain end to the root chain head, larger tree) and b = (S/2C)β:
     * T = 2hα + (C + 2h − 1)b.
     * \param chunks pipeline chunks C per tree (0 = TreeChunks(S))
     * \return per-member completion nodes
     */
    static CollectiveNodes TreeAllReduce(CommDag& dag,
                                         const std::vector<uint32_t>& members,
                                         uint64_t bytes,
                                         const CommDag::NodeList& ready,
                                         uint32_t chunks = 0);

    /**
     * \brief Halving-doubling all-reduce (Rabenseifner: recursive-halving reduce-scatter, then
     * recursive-doubling all-gather; Thakur, Rabenseifner & Gropp 2005).
     *
     * p' = the largest power of two ≤ N, r = N − p'. Members 0, 2, ..., 2r−2 first send their
     * whole buffer to the next member and receive the result from it at the end (MPICH's
     * handling of non-powers of two). The p' participants split the buffer into p' blocks and
     * run lg p' halving steps (partner at distance p'/2, p'/4, ..., 1; each sends the half of its
     * current segment the partner keeps) and lg p' doubling steps in the reverse order. A
     * participant sends 2 lg p' messages, (p'−1)/p' × S in each phase; with N a power of two:
     * 2 lg N α + 2(N−1)/N S β.
     * \return per-member completion nodes
     */
    static CollectiveNodes HalvingDoublingAllReduce(CommDag& dag,
                                                    const std::vector<uint32_t>& members,
                                                    uint64_t bytes,
                                                    const CommDag::NodeList& ready);

    /**
     * \brief Broadcast from member 0, pipelined along the member order (NCCL Ring broadcast):
     * the buffer is cut into C chunks; member i forwards chunk c to member i+1 as soon as it
     * has it. Each non-last member sends S; (N−1)α + (C + N − 2)(S/C)β with FIFO connections.
     * \param chunks pipeline chunks C (0 = BroadcastChunks(S))
     * \return per-member completion nodes
     */
    static CollectiveNodes Broadcast(CommDag& dag,
                                     const std::vector<uint32_t>& members,
                                     uint64_t bytes,
                                     const CommDag::NodeList& ready,
                                     uint32_t chunks = 0);

    /**
     * \brief Pairwise-exchange all-to-all: rank r's buffer of S bytes is cut into N blocks,
     * block j for rank j. In round d = 1..N−1 rank r sends its block for rank (r+d) mod N; it
     * starts round d > 1 when its round-(d−1) send has been delivered and it has received the
     * round-(d−1) block from rank (r−d+1) mod N. Each rank sends (N−1)/N × S;
     * (N−1)(α + S/N β).
     * \return per-member completion nodes
     */
    static CollectiveNodes AllToAll(CommDag& dag,
                                    const std::vector<uint32_t>& members,
                                    uint64_t bytes,
                                    const CommDag::NodeList& ready);

    /**
     * \brief One point-to-point message (send/recv) from member 0 to member 1.
     * \return rankDone[0] = sender ready, rankDone[1] = message delivered
     */
    static CollectiveNodes SendRecv(CommDag& dag,
                                    const std::vector<uint32_t>& members,
                                    uint64_t bytes,
                                    const CommDag::NodeList& ready);

    /**
     * \brief All-reduce with the algorithm registered under \p algorithm
     * (GetCollectiveAlgorithm, collective-algorithm.h; AllReduceAlgorithmNames()).
     * \param algorithm its name ("" = "nccl")
     * \return per-member completion nodes
     * \throws std::invalid_argument for an unknown name, and as the algorithm does
     */
    static CollectiveNodes AllReduce(CommDag& dag,
                                     const std::vector<uint32_t>& members,
                                     uint64_t bytes,
                                     const std::string& algorithm,
                                     const CommDag::NodeList& ready);

    /**
     * \brief Reduce-scatter as the job's all-reduce family runs it
     * (CollectiveAlgorithm::ReduceScatter: NCCL's channel ring, or the classic ring for the
     * classic algorithms and halving-doubling).
     * \param family the name of the job's all-reduce algorithm ("" = "nccl")
     * \return per-member completion nodes
     */
    static CollectiveNodes ReduceScatter(CommDag& dag,
                                         const std::vector<uint32_t>& members,
                                         uint64_t bytes,
                                         const std::string& family,
                                         const CommDag::NodeList& ready);

    /// \brief All-gather as the job's all-reduce family runs it (see ReduceScatter()).
    /// \param family the name of the job's all-reduce algorithm \return per-member completion
    /// nodes
    static CollectiveNodes AllGather(CommDag& dag,
                                     const std::vector<uint32_t>& members,
                                     uint64_t bytes,
                                     const std::string& family,
                                     const CommDag::NodeList& ready);

    /**
     * \brief NCCL's choice for an all-reduce ("nccl"): ring (ChannelRingAllReduce) or tree
     * (NCCL's double binary tree) with the protocol and channels NcclPlan() picks for the DAG's
     * hardware.
     * \return per-member completion nodes
     */
    static CollectiveNodes NcclAllReduce(CommDag& dag,
                                         const std::vector<uint32_t>& members,
                                         uint64_t bytes,
                                         const CommDag::NodeList& ready);

    /**
     * \brief NCCL's ring on C channels (src/graph/search.cc, connect.cc): the buffer is split
     * evenly over the channels (ChunkBytes(S, C, c) to channel c); each channel is a ring over
     * all members with the 2(N−1) steps of RingAllReduce, on its own streams and connections
     * (channel c), messages in the protocol's wire format (NcclModel::WireBytes()).
     *
     * Ring order of channel c (ChannelRingOrders()): the hosts in order of first appearance;
     * inside a host, NCCL's NET n → GPU a → … → GPU x → NET n with n the c-th (mod K) of the
     * NICs the host's members use (CollectiveHardware::NicOf()): when two members share NIC n,
     * the ring enters at the first and leaves at the second (every host-crossing hop on rail
     * n); with one member per NIC, NCCL reaches NIC n from the last GPU through PXN (an NVLink
     * copy to the GPU next to the NIC); crux instead leaves on the next NIC n' = the (c+1)-th
     * and enters on n, the reverse on odd hosts, so every hop stays on one rail and each NIC
     * still carries one send and one receive per channel (an odd host count has one
     * cross-rail hop, the ring's wrap). The members in between follow in local GPU order. One
     * host: channel c starts at its c-th member; all members on one host run as one ring of
     * the whole buffer (over NVSwitch the C rings send what one ring sends on every GPU's
     * link, step by step). Bytes per member: 2(N−1)/N × S in all; on an
     * idle fabric with per-channel latency α and per-channel β_c:
     * T = 2(N−1)(α + S/(N C) β_c).
     * \param channels C (0: NcclPlan()'s, i.e. the DAG's CollectiveConfig or NCCL's default,
     *        cut for small buffers)
     * \param protocol wire format (empty: the config's, else NCCL's choice for the ring)
     * \param form NCCL's steps (default) or the flow form (RingForm::FLOW)
     * \return per-member completion nodes
     */
    static CollectiveNodes ChannelRingAllReduce(CommDag& dag,
                                                const std::vector<uint32_t>& members,
                                                uint64_t bytes,
                                                const CommDag::NodeList& ready,
                                                uint32_t channels = 0,
                                                std::optional<NcclProtocol> protocol = {},
                                                RingForm form = RingForm::STEPS);

    /// \brief Reduce-scatter on NCCL's channel rings (ChannelRingAllReduce(), N−1 steps).
    /// \param channels C (0: NcclPlan()) \param protocol wire format (empty: NcclPlan())
    /// \param form NCCL's steps (default) or the flow form
    /// \return per-member completion nodes
    static CollectiveNodes ChannelRingReduceScatter(CommDag& dag,
                                                    const std::vector<uint32_t>& members,
                                                    uint64_t bytes,
                                                    const CommDag::NodeList& ready,
                                                    uint32_t channels = 0,
                                                    std::optional<NcclProtocol> protocol = {},
                                                    RingForm form = RingForm::STEPS);

    /// \brief All-gather on NCCL's channel rings (ChannelRingAllReduce(), N−1 steps).
    /// \param channels C (0: NcclPlan()) \param protocol wire format (empty: NcclPlan())
    /// \param form NCCL's steps (default) or the flow form
    /// \return per-member completion nodes
    static CollectiveNodes ChannelRingAllGather(CommDag& dag,
                                                const std::vector<uint32_t>& members,
                                                uint64_t bytes,
                                                const CommDag::NodeList& ready,
                                                uint32_t channels = 0,
                                                std::optional<NcclProtocol> protocol = {},
                                                RingForm form = RingForm::STEPS);

    /**
     * \brief NCCL's double binary tree on C channels (src/graph/trees.cc, connect.cc): channel
     * c carries ChunkBytes(S, C, c); the first half of the communicator's channels run tree 0,
     * the second half its dual (TreeParents(H, 1)). Per channel, each host's members form a
     * chain whose head is the first member on the channel's NIC (the c-th of the host's NICs;
     * ChannelTreeChains()), so every tree edge stays on one rail; the channel's bytes are cut
     * into pipeline chunks of NcclModel::TreeChunkBytes() (Simple: 512 KiB) and each chunk
     * goes up the chains and the tree and down again as in TreeAllReduce. With links not
     * shared between channels, height h (hops from the deepest chain end to the root's head)
     * and b = (chunk)β: T = 2hα + (m + 2h − 1)b per channel of m chunks.
     * \param channels C (0: NcclPlan()) \param protocol wire format (empty: NcclPlan())
     * \return per-member completion nodes
     */
    static CollectiveNodes ChannelTreeAllReduce(CommDag& dag,
                                                const std::vector<uint32_t>& members,
                                                uint64_t bytes,
                                                const CommDag::NodeList& ready,
                                                uint32_t channels = 0,
                                                std::optional<NcclProtocol> protocol = {});

    /**
     * \brief The hierarchical all-reduce pipelined in P pieces (HierarchicalAllReduce's three
     * phases per piece): piece p's intra-host reduce-scatter, its inter-host ring per rail and
     * its intra-host all-gather each start as soon as the previous phase of piece p is done,
     * and each member sends the pieces of one phase in order on one stream (an NCCL channel's
     * loop over its chunks), so the NVLink phases of one piece overlap the network phase of
     * the next. A piece is one NCCL ring loop of the inter-host rings: k × H × NCCL's ring
     * chunk (2 MiB), so that every inter-host ring step moves one NCCL chunk, as NCCL's ring
     * does (HierarchicalPieces()). On an idle fabric where the network phase dominates:
     * T ≈ t_rs + P t_ar + t_ag (times of one piece's phases). Uneven hosts, one member per
     * host or one host: ChannelRingAllReduce().
     * \param pieces P (0: HierarchicalPieces(S, k, H))
     * \return per-member completion nodes
     */
    static CollectiveNodes PipelinedHierarchicalAllReduce(CommDag& dag,
                                                          const std::vector<uint32_t>& members,
                                                          uint64_t bytes,
                                                          const CommDag::NodeList& ready,
                                                          uint32_t pieces = 0);

    /// \return pieces of a pipelined hierarchical all-reduce: ceil(S / (k × H × 2 MiB)),
    /// 1..1024 \param bytes S \param perHost k, members per host \param hosts H
    static uint32_t HierarchicalPieces(uint64_t bytes, uint32_t perHost, uint32_t hosts);

    /**
     * \brief NCCL's choice for a collective of this DAG (NcclModel over the DAG's
     * CollectiveConfig: its hardware, channels and protocol), with N = the members, H = their
     * hosts and K = the most NICs one host's members use.
     * \param function the collective \param bytes S
     * \param algorithm restrict to one algorithm (empty: ring or tree)
     * \return algorithm, protocol, channels of this collective and NCCL's predicted time
     */
    static NcclModel::Choice NcclPlan(const CommDag& dag,
                                      const std::vector<uint32_t>& members,
                                      uint64_t bytes,
                                      NcclFunction function,
                                      std::optional<NcclAlgorithm> algorithm);

    /// \return per channel the ring order of ChannelRingAllReduce() (member positions)
    /// \param dag the DAG (its hardware maps GPUs to NICs) \param members member ranks
    /// \param channels C (>= 1)
    static std::vector<std::vector<size_t>> ChannelRingOrders(const CommDag& dag,
                                                              const std::vector<uint32_t>& members,
                                                              uint32_t channels);

    /// \return per channel and host the chain of ChannelTreeAllReduce() (member positions,
    /// head first) \param dag the DAG \param members member ranks \param channels C (>= 1)
    static std::vector<std::vector<std::vector<size_t>>> ChannelTreeChains(
        const CommDag& dag,
        const std::vector<uint32_t>& members,
        uint32_t channels);

    /**
     * \param total buffer bytes S
     * \param n parts (>= 1)
     * \param chunk part index
     * \return bytes of that part: S/n, plus 1 for the first S mod n parts
     */
    static uint64_t ChunkBytes(uint64_t total, uint32_t n, uint32_t chunk);

    /**
     * \param s step 0..2(N−1)−1 of a ring all-reduce
     * \param r sending rank
     * \param n ranks N
     * \return the chunk rank r sends in step s
     */
    static uint32_t RingChunkOfStep(uint32_t s, uint32_t r, uint32_t n);

    /**
     * \param total buffer bytes S \param n ranks N \param rank rank r
     * \return bytes rank r sends to rank r+1 in a ring all-reduce (≈ 2(N−1)/N × S)
     */
    static uint64_t RingAllReduceBytesSent(uint64_t total, uint32_t n, uint32_t rank);

    /// \return pipeline chunks of a tree all-reduce of S bytes: ceil(S/2 / 4 MiB) in [1, 64]
    ///         (NCCL's Simple buffer of 4 MiB per connection, facts §5.1)
    static uint32_t TreeChunks(uint64_t bytes);
    /// \return pipeline chunks of a broadcast of S bytes: ceil(S / 4 MiB) in [1, 64]
    static uint32_t BroadcastChunks(uint64_t bytes);

    /**
     * \brief NCCL's double binary tree over n nodes (src/graph/trees.cc ncclGetDtree).
     * \param n nodes
     * \param tree 0 (btree, root 0) or 1 (mirror for even n, shift for odd n)
     * \return parent of each node (−1 for the root)
     */
    static std::vector<int32_t> TreeParents(uint32_t n, uint32_t tree);
};

} // namespace ns3

#endif // CRUX_COLLECTIVES_H
