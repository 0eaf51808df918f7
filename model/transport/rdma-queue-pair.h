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

#ifndef CRUX_RDMA_QUEUE_PAIR_H
#define CRUX_RDMA_QUEUE_PAIR_H

#include "rdma-congestion-control.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/five-tuple.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <deque>
#include <string>

namespace ns3
{

class RdmaNic;

/**
 * \ingroup crux
 * \brief Counters of one RDMA queue pair (or, summed, of a NIC). Packets are RoCEv2 packets;
 * bytes are message payload bytes unless stated otherwise.
 */
struct RdmaQpStats
{
    // requester (sending) side
    uint64_t txDataPackets{0};        //!< data packets handed to the device (retransmissions too)
    uint64_t txDataBytes{0};          //!< payload bytes of those packets
    uint64_t retransmittedPackets{0}; //!< data packets sent again after a go-back-N rewind
    uint64_t nakRewinds{0};           //!< go-back-N rewinds caused by a NAK (PSN sequence error)
    uint64_t timeouts{0};             //!< retransmission timer expiries (each rewinds to the ACK)
    uint64_t acksReceived{0};         //!< ACKs received
    uint64_t naksReceived{0};         //!< NAKs (PSN sequence error) received
    uint64_t cnpsReceived{0};         //!< congestion notification packets received
    uint64_t messagesAcked{0};        //!< messages whose every packet was acknowledged
    uint64_t deviceDrops{0};          //!< frames the local device refused (SendInTc false)
    uint64_t classChangeWaits{0};     //!< times a message of a new TC waited for in-flight ACKs
    // responder (receiving) side
    uint64_t rxDataPackets{0};     //!< data packets accepted in order
    uint64_t rxDataBytes{0};       //!< payload bytes accepted in order
    uint64_t outOfOrderDrops{0};   //!< data packets dropped because their PSN was ahead
    uint64_t duplicates{0};        //!< data packets received again (PSN behind), re-ACKed
    uint64_t acksSent{0};          //!< ACKs sent
    uint64_t naksSent{0};          //!< NAKs sent (one per sequence gap)
    uint64_t cnpsSent{0};          //!< CNPs sent (attribute RdmaNic::CnpEnabled)
    uint64_t ceReceived{0};        //!< data packets that arrived with ECN CE
    uint64_t messagesDelivered{0}; //!< messages whose last byte arrived
    uint64_t pcieRxDrops{0};       //!< data frames dropped: the NIC's receive buffer was full

    /**
     * \brief Add another set of counters to this one.
     * \param o the counters to add
     * \return *this
     */
    RdmaQpStats& operator+=(const RdmaQpStats& o);
};

/**
 * \ingroup crux
 * \brief One RoCEv2 reliable-connection (RC) queue pair of an RdmaNic (IBA vol. 1 ch. 9).
 *
 * A queue pair is one end of a connection: the requester side sends SEND messages split into
 * MTU-sized packets, the responder side receives them and returns ACK/NAK. Both sides live in
 * the same object (RC queue pairs are bidirectional); a connection is two queue pairs on two NICs
 * joined by RdmaNic::Connect().
 *
 * Sequence state is kept as 64-bit packet counters starting at 0 (no overflow in any run); the
 * 24-bit PSN on the wire is (initial PSN + counter) mod 2^24, so PSN wraparound is handled by
 * construction. All protocol logic is in RdmaNic; this class holds the state and statistics.
 */
class RdmaQueuePair : public Object
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaQueuePair();
    ~RdmaQueuePair() override;

    /// \return the local queue pair number (24 bit)
    uint32_t GetQpn() const;
    /// \return the remote queue pair number (0 before Connect())
    uint32_t GetDestQpn() const;
    /// \return the NIC owning this queue pair
    Ptr<RdmaNic> GetNic() const;
    /// \return the local NIC's IPv4 address
    Ipv4Address GetLocalAddress() const;
    /// \return the remote NIC's IPv4 address
    Ipv4Address GetRemoteAddress() const;

    /// \return the UDP source port (ECMP entropy) of the packets this queue pair sends now
    uint16_t GetSourcePort() const;
    /// \return a port change waiting for the in-flight packets to be acknowledged (0 = none)
    uint16_t GetPendingSourcePort() const;

    /**
     * \brief Change the UDP source port (the ECMP path) of this queue pair.
     *
     * Applied at once if every packet sent so far is acknowledged, else as soon as that is the
     * case (changing path with packets in flight could reorder them and cost a go-back-N).
     * A later call replaces a pending change. Only the data direction moves: ACKs of the peer
     * queue pair keep the port chosen at connection time.
     * \param port new UDP source port (non-zero; NS_FATAL_ERROR otherwise)
     */
    void SetSourcePort(uint16_t port);

    /// \return the RoCEv2 5-tuple (local IP, remote IP, 17, source port, 4791) of data packets
    FiveTuple GetFiveTuple() const;

    /// \return the PSN of this side's first data packet (attribute RdmaNic::InitialPsn)
    uint32_t GetInitialPsn() const;
    /// \return data packets posted so far (all messages, 64-bit counter)
    uint64_t GetPostedPackets() const;
    /// \return data packets acknowledged so far
    uint64_t GetAckedPackets() const;
    /// \return messages posted and not yet fully acknowledged
    uint64_t GetOutstandingMessages() const;
    /// \return true if every posted packet has been acknowledged
    bool IsIdle() const;
    /// \return the counters of this queue pair
    const RdmaQpStats& GetStats() const;
    /// \return the congestion control of this queue pair (its attributes can be changed)
    Ptr<RdmaCongestionControl> GetCongestionControl() const;

    /**
     * \brief Replace the congestion control of this queue pair (another type or other
     * attributes than its NIC's); it is initialised at once with the NIC's line rate and
     * BaseRtt. Meant before the first message; later, the new controller starts from scratch.
     * \param cc the controller (non-null; NS_FATAL_ERROR otherwise)
     */
    void SetCongestionControl(Ptr<RdmaCongestionControl> cc);

    /**
     * \brief Names used by the stall watchdog (RdmaNic::StallTimeout) for this connection in
     * the user's terms. RdmaTransport sets them.
     * \param job the job's name (e.g. the scenario's "gpt"; may be empty)
     * \param gpus source and destination GPU (e.g. "GPU 0.3 (host.local) -> GPU 6.3")
     * \param describe (job id, message tag) -> what the message is in the user's words
     *        (MessageTransport::DescribeMessage; may be null)
     */
    void SetLabels(const std::string& job,
                   const std::string& gpus,
                   Callback<std::string, uint32_t, uint32_t> describe =
                       Callback<std::string, uint32_t, uint32_t>());

  protected:
    void DoDispose() override;

  private:
    friend class RdmaNic;

    /// One posted SEND message on the requester side.
    struct TxMessage
    {
        uint64_t firstSeq; //!< packet counter of its first packet
        uint64_t nPkts;    //!< number of packets (>= 1)
        uint64_t bytes;    //!< payload bytes
        uint8_t dscp;      //!< DSCP of its packets
        uint8_t tc;        //!< traffic class (device DscpToTc(dscp))
        uint32_t jobId;    //!< owning job (watchdog message)
        uint32_t flowId;   //!< job-local flow (watchdog message)
        uint32_t tag;      //!< MessageRequest::tag (watchdog message)
    };

    /// One expected message on the responder side (the simulation's receive work request).
    struct RxMessage
    {
        uint64_t bytes;      //!< payload bytes expected
        uint32_t jobId;      //!< owning job, for the MessageComplete trace
        uint32_t flowId;     //!< job-local flow, for the MessageComplete trace
        Time postTime;       //!< when the sender posted it
        Callback<void> done; //!< completion callback (may be null)
    };

    /// \return traffic class of the message the next packet belongs to
    uint8_t CurrentTc() const;
    /// Recompute m_txCur from m_sndNxt.
    void SeekCursor();

    // identity
    RdmaNic* m_nic{nullptr};        //!< owning NIC (it owns this object)
    RdmaQueuePair* m_peer{nullptr}; //!< connected queue pair (on the remote NIC)
    uint32_t m_qpn{0};              //!< local QPN
    uint32_t m_destQpn{0};          //!< remote QPN
    Ipv4Address m_local;            //!< local NIC address
    Ipv4Address m_remote;           //!< remote NIC address
    uint16_t m_srcPort{0};          //!< UDP source port in use
    uint16_t m_pendingPort{0};      //!< port to switch to when drained (0 = none)
    std::string m_jobLabel;         //!< job name for the watchdog
    std::string m_gpuLabel;         //!< GPUs for the watchdog
    Callback<std::string, uint32_t, uint32_t> m_describe; //!< (job, tag) -> description

    // requester
    uint32_t m_txPsnBase{0};         //!< PSN of packet counter 0
    uint64_t m_sndUna{0};            //!< first unacknowledged packet
    uint64_t m_sndNxt{0};            //!< next packet to send
    uint64_t m_sndHigh{0};           //!< one past the highest packet ever sent
    uint64_t m_sndMax{0};            //!< one past the last posted packet
    std::deque<TxMessage> m_txMsgs;  //!< posted messages not fully acknowledged
    std::size_t m_txCur{0};          //!< index in m_txMsgs of the message holding m_sndNxt
    bool m_inActiveList{false};      //!< queued in the NIC's round robin of its TC
    bool m_parked{false};            //!< waiting for its pacing time (rate below line rate)
    bool m_tcWait{false};            //!< waiting for in-flight packets before a class change
    bool m_windowWait{false};        //!< waiting for ACKs: the congestion window is full
    uint8_t m_txTc{0xFF};            //!< traffic class of the last data packet sent
    uint8_t m_txPort{0};             //!< NIC port its data leaves on (RdmaNic::SetPortSelector)
    Time m_nextTxTime;               //!< earliest time of the next packet when paced
    EventId m_wakeEvent;             //!< end of pacing wait
    Time m_rtoStart;                 //!< start of the current retransmission-timer period
    Time m_lastProgress;             //!< last ACK progress (or post to an idle queue pair)
    uint32_t m_rtoBackoff{1};        //!< current RTO multiplier (doubles per timeout)
    EventId m_timer;                 //!< retransmission / watchdog timer
    Time m_timerAt;                  //!< expiry time of m_timer
    Ptr<RdmaCongestionControl> m_cc; //!< rate controller

    // responder
    uint32_t m_rxPsnBase{0};        //!< PSN of the peer's packet counter 0
    uint64_t m_rxEpsn{0};           //!< expected packet counter
    bool m_nakOutstanding{false};   //!< a NAK was sent for the current gap
    uint32_t m_unackedRx{0};        //!< packets received since the last ACK
    uint64_t m_msn{0};              //!< completed messages (MSN, 24 bit on the wire)
    std::deque<RxMessage> m_rxMsgs; //!< expected messages, in order
    uint64_t m_rxMsgBytes{0};       //!< bytes received of the head expected message
    Time m_lastCnpTime;             //!< last CNP sent (rate limit)
    bool m_cnpSentOnce{false};      //!< a CNP was sent already
    uint8_t m_rxPort{0};            //!< NIC port the last data packet arrived on (ACK/CNP port)

    RdmaQpStats m_stats; //!< counters
};

} // namespace ns3

#endif // CRUX_RDMA_QUEUE_PAIR_H
