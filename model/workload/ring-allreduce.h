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

#ifndef CRUX_RING_ALLREDUCE_H
#define CRUX_RING_ALLREDUCE_H

#include "ns3/callback.h"
#include "ns3/message-transport.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Ring all-reduce of one buffer over N ranks as 2(N−1) dependent steps of real
 * point-to-point messages on a MessageTransport (reduce-scatter then all-gather).
 *
 * The buffer of B bytes is cut into N chunks (ChunkBytes: B/N, the first B mod N chunks one
 * byte larger). In step s (0 ≤ s < 2(N−1)) rank r sends one chunk to rank (r+1) mod N:
 * chunk (r − s) mod N during the reduce-scatter (s < N−1), chunk (r + 1 − (s − N + 1)) mod N
 * during the all-gather. Every rank thus sends 2(N−1) messages and the ring 2(N−1)·N.
 *
 * Dependency enforced (the standard one): rank r may send step s > 0 only once the step s−1
 * message from rank r−1 has been delivered to it (it needs that partial sum / that chunk).
 * A rank's own earlier sends are NOT waited for (it may have several messages of its flow in
 * flight; the transport queues them on the flow's connection); sends of a rank are always
 * issued in step order, even if the transport delivered messages out of order.
 * Zero-byte chunks (B < N) are "delivered" at once without a message.
 *
 * Completion callback: invoked once, when all N·2(N−1) messages have been delivered. N = 1
 * completes at the same simulation time without traffic (scheduled with ScheduleNow).
 * A delayed transport only delays completion; a message that is never delivered leaves the
 * collective pending forever (detecting that is the transport watchdog's business).
 */
class RingAllReduce : public Object
{
  public:
    /// Completion callback type.
    typedef Callback<void> DoneCallback;

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RingAllReduce();
    ~RingAllReduce() override;

    /**
     * \brief Configure the collective (call before Start; may be called again between runs).
     * \param transport carries the messages (non-null)
     * \param jobId MessageRequest::jobId of every message
     * \param ranks ring members in ring order (rank r sends to rank r+1 mod N); size N >= 1
     * \param flowIds flowIds[r] = MessageRequest::flowId of rank r's messages; size N
     * \param udpSrcPorts udpSrcPorts[r] = source port of rank r's messages (0 = transport
     *        default); size N, or empty for all 0
     * \param dscp DSCP of every message (0..63)
     * \throws std::invalid_argument on a null transport, no ranks, wrong vector sizes, dscp > 63
     */
    void Setup(Ptr<MessageTransport> transport,
               uint32_t jobId,
               const std::vector<GpuId>& ranks,
               const std::vector<uint32_t>& flowIds,
               const std::vector<uint16_t>& udpSrcPorts,
               uint8_t dscp);

    /**
     * \brief Start an all-reduce of bytes bytes (per rank buffer size).
     * \param bytes buffer size B in bytes (may be 0: completes like N = 1)
     * \param done invoked once on completion (may be null)
     *
     * A Start while a previous run is pending abandons that run: its late deliveries are ignored.
     */
    void Start(uint64_t bytes, DoneCallback done);

    /// \brief Abandon the current run: pending deliveries are ignored, done is never invoked.
    void Abort();

    /// \return true once the last started run has completed
    bool IsComplete() const;
    /// \return simulation time of the last Start
    Time GetStartTime() const;
    /// \return simulation time of the last completion (Time(0) if not complete)
    Time GetFinishTime() const;
    /// \return messages handed to the transport during the last run
    uint64_t GetMessagesSent() const;
    /// \return bytes handed to the transport during the last run
    uint64_t GetBytesSent() const;

    /// \return 2(N−1): steps per rank (0 for N ≤ 1)
    static uint32_t NumSteps(uint32_t n);

    /**
     * \param total buffer bytes B
     * \param n ranks N (>= 1)
     * \param chunk chunk index 0..N−1
     * \return bytes of that chunk: B/N, plus 1 for the first B mod N chunks
     */
    static uint64_t ChunkBytes(uint64_t total, uint32_t n, uint32_t chunk);

    /**
     * \param s step 0..2(N−1)−1
     * \param r sending rank
     * \param n ranks N
     * \return the chunk index rank r sends in step s
     */
    static uint32_t ChunkOfStep(uint32_t s, uint32_t r, uint32_t n);

    /**
     * \param total buffer bytes B
     * \param n ranks N
     * \param rank rank r
     * \return bytes rank r sends to rank r+1 over the whole all-reduce (≈ 2(N−1)/N × B)
     */
    static uint64_t BytesSentByRank(uint64_t total, uint32_t n, uint32_t rank);

  protected:
    void DoDispose() override;

  private:
    /// Send every step of rank r whose dependency is met, in step order.
    void Advance(uint32_t r);
    /// A message of rank r, step s, run generation gen has been delivered to rank r+1.
    void Delivered(uint32_t r, uint32_t s, uint64_t gen);
    /// Finish the run (all messages delivered).
    void Complete(uint64_t gen);

    Ptr<MessageTransport> m_transport;            //!< carrier
    uint32_t m_jobId{0};                          //!< job id of the messages
    std::vector<GpuId> m_ranks;                   //!< ring members
    std::vector<uint32_t> m_flowIds;              //!< per rank flow id
    std::vector<uint16_t> m_ports;                //!< per rank UDP source port
    uint8_t m_dscp{0};                            //!< DSCP
    uint64_t m_bytes{0};                          //!< buffer size of the current run
    uint64_t m_generation{0};                     //!< run counter (stale deliveries are ignored)
    std::vector<uint32_t> m_nextStep;             //!< per rank: next step to send
    std::vector<std::vector<uint8_t>> m_received; //!< [rank][step]: step received by rank
    uint64_t m_delivered{0};                      //!< messages delivered in the current run
    uint64_t m_expected{0};                       //!< N × 2(N−1)
    uint64_t m_messagesSent{0};                   //!< messages handed to the transport
    uint64_t m_bytesSent{0};                      //!< bytes handed to the transport
    bool m_running{false};                        //!< a run is pending
    bool m_complete{false};                       //!< the last run completed
    Time m_start;                                 //!< start time of the last run
    Time m_finish;                                //!< completion time of the last run
    DoneCallback m_done;                          //!< completion callback of the current run
};

} // namespace ns3

#endif // CRUX_RING_ALLREDUCE_H
