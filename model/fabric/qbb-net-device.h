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

#ifndef CRUX_QBB_NET_DEVICE_H
#define CRUX_QBB_NET_DEVICE_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <string>

namespace ns3
{

class QbbChannel;

/**
 * \ingroup crux
 * \brief Full-duplex point-to-point Ethernet device with 8 traffic classes and IEEE 802.1Qbb
 * priority-based flow control (PFC).
 *
 * Egress: one FIFO per traffic class (TC 0..7); a transmit scheduler picks the next frame by
 * strict priority (TC 7 highest) or DWRR (attribute "Scheduler"); a TC that the peer has PAUSEd
 * is skipped. PAUSE frames (EtherType 0x8808, opcode 0x0101, class-enable vector, 8 quanta of
 * 512 bit times each) go through a separate control queue that is served before any data.
 * Ingress: a received PAUSE stops the given TCs for quanta × 512 bit times (a zero quanta
 * resumes at once; a new PAUSE refreshes the timer); every other frame is handed, with its
 * Ethernet header removed, to the frame handler set by SetFrameHandler().
 *
 * ECN: when a data frame of TC c is enqueued and that TC's egress queue holds more than
 * EcnKmin bytes, the IPv4 ECN field is set to CE with probability rising linearly from 0 at
 * Kmin to EcnPmax at Kmax (1 above Kmax), DCQCN-style, if the frame is ECN-capable.
 *
 * This device does not drop frames itself: buffer admission is the job of the owner (switch
 * MMU or NIC), which decides before calling Send(). The optional per-TC byte limit "MaxTcBytes"
 * (0 = unlimited) exists for hosts without PFC; a frame that would exceed it is dropped and
 * reported through the "Drop" trace with reason "egress-queue-full". Other drop reasons:
 * "exceeds-mtu" (L3 packet larger than the attribute "Mtu", default 4200 bytes), "no-channel"
 * (not attached), "no-peer" (channel with one end only), "unknown-mac-control" (a received
 * 0x8808 frame that is not a PFC PAUSE).
 *
 * Timing: a frame of F bytes (Ethernet header included, padded to 64 bytes with its 4-byte FCS)
 * occupies the transmitter for (max(F + 4, 64) + InterframeGapBytes) × 8 / DataRate seconds and
 * arrives whole at the peer that long plus the channel delay after it started. The division is
 * exact in simulator time steps, its remainder carried to the next frame, so the long-run rate
 * equals DataRate exactly at any time resolution. A PAUSE of q quanta lasts q × 512 / DataRate
 * seconds (rounded up to a time step) at the receiving device's rate.
 *
 * Accounting units: GetTcQueueBytes(), MaxTcBytes, ECN thresholds and DWRR quanta count frame
 * bytes including the 14-byte Ethernet header (no FCS, no gap); a frame leaves its queue when
 * its serialization starts. The DequeueHandler and "MacTx" see the packet without its Ethernet
 * header; the device adds that header to the same Packet object right after they return.
 *
 * Configuration: attributes DataRate, Mtu, InterframeGapBytes, MaxTcBytes, Scheduler,
 * DwrrQuanta, DscpToTc, EcnEnabled, EcnKminBytes, EcnKmaxBytes, EcnPmax, EcnRandomStream.
 * Traces: MacTx, MacRx, PfcTx, PfcRx, Drop, Sniffer (full frames both ways, for PCAP).
 */
class QbbNetDevice : public NetDevice
{
  public:
    static constexpr uint8_t N_TC = 8;                //!< number of traffic classes (IEEE 802.1Q)
    static constexpr uint16_t PFC_ETHERTYPE = 0x8808; //!< MAC control EtherType
    static constexpr uint16_t PFC_OPCODE = 0x0101;    //!< class-based flow control opcode

    /// Transmit selection between traffic classes.
    enum SchedulerType
    {
        STRICT_PRIORITY, //!< highest non-paused, non-empty TC first (TC 7 highest)
        DWRR             //!< deficit weighted round robin with per-TC quanta
    };

    /**
     * Handler for received (non-PAUSE) frames: (receiving device, packet without its Ethernet
     * header, EtherType). For IPv4 frames the packet starts with the IPv4 header.
     */
    typedef Callback<void, Ptr<QbbNetDevice>, Ptr<Packet>, uint16_t> FrameHandler;

    /**
     * Callback invoked when a data frame leaves an egress queue and starts serialization:
     * (device, packet as enqueued (without Ethernet header), traffic class). Switch MMUs use it
     * to release egress/ingress buffer accounting.
     */
    typedef Callback<void, Ptr<QbbNetDevice>, Ptr<const Packet>, uint8_t> DequeueHandler;

    /// Signature of the PFC trace sources: (device, traffic class, quanta). 0 quanta = resume.
    typedef void (*PfcTracedCallback)(Ptr<const QbbNetDevice> dev, uint8_t tc, uint16_t quanta);

    /// Signature of the MacTx trace source: (packet without Ethernet header, traffic class).
    typedef void (*TcPacketTracedCallback)(Ptr<const Packet> p, uint8_t tc);

    /// Signature of the Drop trace source: (packet, traffic class, reason).
    typedef void (*DropTracedCallback)(Ptr<const Packet> p, uint8_t tc, const std::string& reason);

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    QbbNetDevice();
    ~QbbNetDevice() override;

    /**
     * \brief Attach to a channel (exactly two devices per channel).
     * \param ch the channel
     * \return true on success
     */
    bool Attach(Ptr<QbbChannel> ch);

    /**
     * \brief Enqueue a frame for transmission in a given traffic class.
     *
     * Adds an Ethernet II header (this device's address as source, \p dest as destination,
     * \p protocolNumber as EtherType; frames shorter than 64 bytes are padded on the wire time).
     * \param packet payload starting at the L3 header
     * \param dest destination MAC address
     * \param protocolNumber EtherType (0x0800 for IPv4)
     * \param tc traffic class 0..7 (values above 7 are clamped to 7)
     * \return false if the frame was dropped (queue limit), true otherwise
     */
    bool SendInTc(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber, uint8_t tc);

    /**
     * \brief Send a PFC PAUSE frame for one traffic class to the link peer, ahead of all data.
     * \param tc traffic class 0..7
     * \param quanta pause time in units of 512 bit times at this device's rate; 0 = resume (XON)
     */
    void SendPause(uint8_t tc, uint16_t quanta);

    /// \return true if the peer has paused transmission of traffic class \p tc on this device
    /// \param tc traffic class 0..7
    bool IsTcPaused(uint8_t tc) const;

    /// \return bytes queued (not yet serialized) in traffic class \p tc
    /// \param tc traffic class 0..7
    uint64_t GetTcQueueBytes(uint8_t tc) const;

    /// \return bytes queued over all traffic classes
    uint64_t GetQueueBytes() const;

    /// \param handler receives every non-PAUSE frame arriving on this device
    void SetFrameHandler(FrameHandler handler);

    /// \param handler told about every data frame that starts transmission
    void SetDequeueHandler(DequeueHandler handler);

    /// \return the line rate of this device in bit/s
    DataRate GetDataRate() const;

    /// \param rate line rate of this device
    void SetDataRate(DataRate rate);

    /**
     * \brief Map a DSCP value to a traffic class using the attribute "DscpToTc".
     * \param dscp DSCP 0..63
     * \return traffic class 0..7
     */
    uint8_t DscpToTc(uint8_t dscp) const;

    /// \return total PAUSE frames received / sent so far (all TCs), for statistics
    uint64_t GetPauseRxCount() const;
    /// \return total PAUSE frames sent so far (all TCs)
    uint64_t GetPauseTxCount() const;

    /**
     * \brief Called by the channel when a frame has fully arrived.
     * \param packet the frame, Ethernet header included
     */
    void Receive(Ptr<Packet> packet);

    // NetDevice interface. Send() uses traffic class 0 unless the packet carries an IPv4 header,
    // in which case the DSCP → TC map is applied.
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

  private:
    /// One data frame waiting in a traffic-class FIFO (Ethernet header added at dequeue).
    struct TxItem
    {
        Ptr<Packet> packet; //!< payload, starting at the L3 header
        Mac48Address dest;  //!< Ethernet destination
        uint16_t protocol;  //!< EtherType
    };

    /// One PAUSE frame waiting in the control queue.
    struct CtrlItem
    {
        Ptr<Packet> frame; //!< complete frame, Ethernet header included
        uint8_t tc;        //!< paused traffic class
        uint16_t quanta;   //!< quanta carried
    };

    /// Start serializing the next frame if the transmitter is idle and a frame is eligible.
    void StartTransmission();
    /// Put a complete frame on the wire: trace it, compute its time, hand it to the channel.
    /// \param frame the frame with Ethernet header
    void TransmitFrame(Ptr<Packet> frame);
    /// End of serialization of the current frame (including the interframe gap).
    void TransmitComplete();
    /// \return the traffic class to serve next (data only), or -1 if none is eligible
    int SelectTc();
    /// \return the DWRR choice, or -1 if none is eligible
    /// \param eligible bit mask of non-empty, non-paused TCs (non-zero)
    int SelectDwrr(uint8_t eligible);
    /// Apply a received PAUSE frame. \param frame the frame without Ethernet header
    void ReceivePause(Ptr<Packet> frame);
    /// Pause timer of \p tc expired. \param tc traffic class
    void ResumeTc(uint8_t tc);
    /**
     * Possibly set CE on an IPv4 frame being enqueued (RED-like profile of DCQCN).
     * \param packet frame starting at the IPv4 header
     * \param queued bytes already queued in its TC
     */
    void MaybeMarkEcn(Ptr<Packet> packet, uint64_t queued);
    /// Trace a drop. \param p the packet \param tc its TC \param reason static reason text
    void Drop(Ptr<const Packet> p, uint8_t tc, const std::string& reason);
    /**
     * \return \p bits at the line rate in simulator time steps: exact integer division, the
     * remainder carried to the next call when \p carry is true (long-run rate is exact), rounded
     * up otherwise
     * \param bits number of bits
     * \param carry accumulate the division remainder in m_txRemainder
     */
    Time BitsToTime(uint64_t bits, bool carry);
    /// Recompute cached time-step constants (rate or time resolution changed).
    void UpdateRateCache();
    /// Attribute setter of "DscpToTc". \param spec "lo[-hi]:tc,..." list (see GetTypeId)
    void SetDscpToTcSpec(std::string spec);
    /// \return the attribute value of "DscpToTc"
    std::string GetDscpToTcSpec() const;
    /// Attribute setter of "DwrrQuanta". \param spec one value or 8 comma-separated values
    void SetDwrrQuantaSpec(std::string spec);
    /// \return the attribute value of "DwrrQuanta"
    std::string GetDwrrQuantaSpec() const;
    /// Attribute setter of "EcnRandomStream". \param stream stream number (-1 = automatic)
    void SetEcnStream(int64_t stream);

    // configuration
    DataRate m_rate;                      //!< line rate
    uint64_t m_bps = 0;                   //!< line rate in bit/s (cached)
    uint64_t m_ticksPerSecond = 0;        //!< simulator time steps per second (cached)
    uint64_t m_txRemainder = 0;           //!< carried remainder of BitsToTime (< m_bps)
    uint16_t m_mtu;                       //!< L3 MTU in bytes
    uint32_t m_ifgBytes;                  //!< preamble + SFD + IFG bytes per frame
    uint64_t m_maxTcBytes;                //!< per-TC egress limit, bytes (0 = unlimited)
    SchedulerType m_scheduler;            //!< transmit selection
    std::array<uint8_t, 64> m_dscpToTc;   //!< DSCP -> TC map
    std::string m_dscpToTcSpec;           //!< text of "DscpToTc"
    std::array<uint32_t, N_TC> m_quantum; //!< DWRR quanta, bytes
    std::string m_dwrrQuantaSpec;         //!< text of "DwrrQuanta"
    bool m_ecnEnabled;                    //!< ECN marking on/off
    uint64_t m_ecnKmin;                   //!< marking starts above this queue depth, bytes
    uint64_t m_ecnKmax;                   //!< marking probability reaches 1 above this, bytes
    double m_ecnPmax;                     //!< marking probability at Kmax
    int64_t m_ecnStream = -1;             //!< RNG stream of the marking draws
    Ptr<UniformRandomVariable> m_ecnRng;  //!< marking draws
    bool m_ipChecksum = false;            //!< recompute the IPv4 checksum when marking

    // wiring
    Ptr<Node> m_node;                                    //!< owning node
    Ptr<QbbChannel> m_channel;                           //!< attached link
    uint32_t m_ifIndex = 0;                              //!< interface index on the node
    Mac48Address m_address;                              //!< own MAC address
    FrameHandler m_frameHandler;                         //!< owner's receive hook
    DequeueHandler m_dequeueHandler;                     //!< owner's dequeue hook
    NetDevice::ReceiveCallback m_rxCallback;             //!< ns-3 stack receive hook
    NetDevice::PromiscReceiveCallback m_promiscCallback; //!< ns-3 promiscuous hook
    TracedCallback<> m_linkChangeCallbacks;              //!< link-change listeners

    // state
    std::array<std::deque<TxItem>, N_TC> m_queues; //!< per-TC egress FIFOs
    std::array<uint64_t, N_TC> m_queueBytes;       //!< bytes per TC (frames incl. Ethernet hdr)
    uint64_t m_totalQueueBytes = 0;                //!< sum of m_queueBytes
    std::deque<CtrlItem> m_ctrlQueue;              //!< PAUSE frames, served first
    uint8_t m_nonEmptyMask = 0;                    //!< bit c set = TC c has frames
    uint8_t m_pausedMask = 0;                      //!< bit c set = TC c paused by the peer
    std::array<EventId, N_TC> m_resumeEvent;       //!< pause expiry per TC
    bool m_txBusy = false;                         //!< a frame is being serialized
    EventId m_txCompleteEvent;                     //!< end of the current serialization
    std::array<int64_t, N_TC> m_deficit;           //!< DWRR deficit counters, bytes
    uint8_t m_drrCurrent = 0;                      //!< DWRR: TC whose turn it is
    bool m_drrTurnStarted = false;                 //!< DWRR: quantum already granted this turn
    uint64_t m_pauseRxCount = 0;                   //!< PAUSE frames received
    uint64_t m_pauseTxCount = 0;                   //!< PAUSE frames sent

    // traces
    TracedCallback<Ptr<const Packet>, uint8_t> m_macTxTrace;                    //!< "MacTx"
    TracedCallback<Ptr<const Packet>> m_macRxTrace;                             //!< "MacRx"
    TracedCallback<Ptr<const QbbNetDevice>, uint8_t, uint16_t> m_pfcTxTrace;    //!< "PfcTx"
    TracedCallback<Ptr<const QbbNetDevice>, uint8_t, uint16_t> m_pfcRxTrace;    //!< "PfcRx"
    TracedCallback<Ptr<const Packet>, uint8_t, const std::string&> m_dropTrace; //!< "Drop"
    TracedCallback<Ptr<const Packet>> m_snifferTrace;                           //!< "Sniffer"
};

} // namespace ns3

#endif // CRUX_QBB_NET_DEVICE_H
