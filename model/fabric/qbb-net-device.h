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
#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-constants.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

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
 * 512 bit times each) go through a separate MAC control queue that is served before anything
 * else. IPv4 frames whose DSCP is "ControlDscp" (default 46, the DSCP RdmaNic gives ACK, NAK
 * and CNP packets) go into a ninth FIFO, the control class (CONTROL_CLASS = 8): it is served
 * after PAUSE frames and before every traffic class, no data ever shares it, and PFC never
 * pauses it (it is not one of the eight 802.1Qbb priorities; switches charge it as lossy).
 * Ingress: a received PAUSE stops the given TCs for quanta × 512 bit times (a zero quanta
 * resumes at once; a new PAUSE refreshes the timer); every other frame is handed, with its
 * Ethernet header removed, to the frame handler set by SetFrameHandler(), IngressLatency
 * after its arrival (0 on hosts; CruxSwitch sets its ForwardingLatency on its ports; see
 * SetIngressLatency()).
 *
 * Loss injection: an ns-3 ErrorModel in "ReceiveErrorModel" (as PointToPointNetDevice has)
 * decides for every arriving frame, PAUSE frames included, whether it was corrupted on the
 * wire; a corrupted frame is dropped and traced on "Drop" with reason "receive-error-model".
 *
 * In-band network telemetry (HPCC, Li et al., SIGCOMM'19): a frame enqueued with stampInt (a
 * CruxSwitch does it for RoCEv2 data packets whose BTH carries the INT flag) gets one
 * InbandTelemetryHeader hop pushed when it leaves its queue: this port's line rate, the
 * current time, and the port as the frame's class c sees it under strict priority: the wire
 * bytes transmitted before the frame and the bytes still queued, both counted over class c,
 * the higher classes and the control class (PAUSE frames included), i.e. the traffic served
 * before or with class c. With one class in use this is the whole port, as in the HPCC
 * simulator; with several, a flow does not yield to lower-priority traffic it preempts.
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
 * header. The Ethernet header is not written into the packet on every hop: the channel carries
 * the packet with the header's destination and EtherType beside it (QbbChannel::TransmitStart),
 * and the device builds the complete frame (a copy with the header) only for the Sniffer trace
 * and the ReceiveErrorModel, which see the same bytes as on the wire. Timing counts the header
 * either way.
 *
 * Configuration: attributes DataRate, Mtu, InterframeGapBytes, MaxTcBytes, Scheduler,
 * DwrrQuanta, DscpToTc, ControlDscp, EcnEnabled, EcnKminBytes, EcnKmaxBytes, EcnPmax,
 * EcnRandomStream, ReceiveErrorModel.
 * Traces: MacTx, MacRx, PfcTx, PfcRx, Drop, Sniffer (full frames both ways, for PCAP).
 * State traces (the QueueDisc "BytesInQueue" pattern; bytes as GetTcQueueBytes() counts them):
 * BytesInQueue (TracedValue of GetQueueBytes(), all classes, PAUSE frames not included),
 * TcBytesInQueue (class, old bytes, new bytes: one trace source for the nine classes, since ns-3
 * cannot register an array of TracedValues under one name; fired on every enqueue and dequeue)
 * and TcPauseState (tc, paused: every change of IsTcPaused(tc), i.e. a PAUSE received for a
 * class not paused, an XON or a pause timer expiry of a paused class; a refreshing PAUSE
 * changes nothing and fires nothing).
 */
class QbbNetDevice : public NetDevice
{
  public:
    static constexpr uint8_t N_TC = crux::NUM_TRAFFIC_CLASSES; //!< traffic classes (802.1Q)
    static constexpr uint8_t CONTROL_CLASS = 8;       //!< egress class of ACK/NAK/CNP frames
    static constexpr uint8_t N_CLASSES = 9;           //!< traffic classes + the control class
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
     * Callback invoked when a frame leaves an egress queue (a traffic class or the control
     * class) and starts serialization: (device, packet as enqueued (without Ethernet header),
     * class 0..7 or CONTROL_CLASS). Switch MMUs use it to release egress/ingress buffer
     * accounting; RdmaNic to refill the device queue of the class.
     */
    typedef Callback<void, Ptr<QbbNetDevice>, Ptr<const Packet>, uint8_t> DequeueHandler;

    /**
     * \brief The object that owns a device's frames (a switch, a NIC): the per-frame form of
     * FrameHandler and DequeueHandler with the same arguments, called with one virtual call per
     * frame instead of a Callback (whose wrappers copy every Ptr argument on each call).
     * SetOwner() installs it; the device calls it where it would call the handlers.
     */
    class Owner
    {
      public:
        virtual ~Owner() = default;
        /**
         * \brief A non-PAUSE frame arrived (FrameHandler).
         * \param port the owner's index of the device, given to SetOwner()
         * \param dev the receiving device
         * \param packet the frame without its Ethernet header
         * \param protocol its EtherType
         */
        virtual void DeviceReceive(uint32_t port,
                                   QbbNetDevice* dev,
                                   Ptr<Packet> packet,
                                   uint16_t protocol) = 0;
        /**
         * \brief A frame left an egress queue and starts serialization (DequeueHandler).
         * \param port the owner's index of the device, given to SetOwner()
         * \param dev the device
         * \param packet the frame as enqueued (without Ethernet header)
         * \param cls its class 0..7 or CONTROL_CLASS
         */
        virtual void DeviceDequeue(uint32_t port,
                                   QbbNetDevice* dev,
                                   const Ptr<Packet>& packet,
                                   uint8_t cls) = 0;
    };

    /// Signature of the PFC trace sources: (device, traffic class, quanta). 0 quanta = resume.
    typedef void (*PfcTracedCallback)(Ptr<const QbbNetDevice> dev, uint8_t tc, uint16_t quanta);

    /// Signature of the MacTx trace source: (packet without Ethernet header, traffic class or
    /// CONTROL_CLASS).
    typedef void (*TcPacketTracedCallback)(Ptr<const Packet> p, uint8_t tc);

    /// Signature of the Drop trace source: (packet, traffic class, reason).
    typedef void (*DropTracedCallback)(Ptr<const Packet> p, uint8_t tc, const std::string& reason);

    /**
     * Signature of the TcBytesInQueue trace source: the bytes queued in one class changed.
     * \param cls traffic class 0..7 or CONTROL_CLASS
     * \param oldBytes bytes queued in the class before the change (GetTcQueueBytes() units:
     *        frames with their Ethernet header)
     * \param newBytes bytes queued in the class after it
     */
    typedef void (*TcBytesTracedCallback)(uint8_t cls, uint64_t oldBytes, uint64_t newBytes);

    /**
     * Signature of the TcPauseState trace source: IsTcPaused(tc) changed.
     * \param tc traffic class 0..7
     * \param paused the new state: true = the peer stopped the class, false = it may send again
     */
    typedef void (*TcPauseTracedCallback)(uint8_t tc, bool paused);

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
     * \param tc traffic class 0..7, or CONTROL_CLASS (values above 8 are clamped to 7)
     * \param stampInt push an in-band telemetry hop when the frame leaves its queue (the
     *        packet must carry an InbandTelemetryHeader after its IPv4/UDP/BTH headers)
     * \return false if the frame was dropped (queue limit), true otherwise
     */
    bool SendInTc(Ptr<Packet> packet,
                  Mac48Address dest,
                  uint16_t protocolNumber,
                  uint8_t tc,
                  bool stampInt = false);

    /**
     * \brief SendInTc() with any Address (converted with Mac48Address::ConvertFrom()).
     * \param packet payload starting at the L3 header
     * \param dest destination MAC address
     * \param protocolNumber EtherType (0x0800 for IPv4)
     * \param tc traffic class 0..7, or CONTROL_CLASS
     * \param stampInt push an in-band telemetry hop when the frame leaves its queue
     * \return false if the frame was dropped (queue limit), true otherwise
     */
    bool SendInTc(Ptr<Packet> packet,
                  const Address& dest,
                  uint16_t protocolNumber,
                  uint8_t tc,
                  bool stampInt = false);

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
    /// \param tc traffic class 0..7, or CONTROL_CLASS
    uint64_t GetTcQueueBytes(uint8_t tc) const;

    /// \return bytes queued over all traffic classes and the control class
    uint64_t GetQueueBytes() const;

    /// \return the largest number of bytes class \p tc held at once so far
    /// \param tc traffic class 0..7, or CONTROL_CLASS
    uint64_t GetPeakTcQueueBytes(uint8_t tc) const;

    /// \return wire bytes transmitted so far (frames with FCS, padding, preamble and gap;
    /// PAUSE frames included): the txBytes counter of the in-band telemetry hops
    uint64_t GetTxWireBytes() const;

    /**
     * \brief Delay between a frame's arrival and its hand-over to the frame handler (the
     * forwarding pipeline of a switch; set by CruxSwitch from its ForwardingLatency). The
     * channel adds it to the propagation delay of every non-PAUSE frame towards this device (no
     * extra event per frame), so the receive-side Sniffer/MacRx traces of a switch port see a
     * frame that much after its last bit arrived; PAUSE frames are acted upon on arrival.
     * \param latency the delay (>= 0)
     */
    void SetIngressLatency(Time latency);

    /// \return the delay set with SetIngressLatency() (0 by default)
    const Time& GetIngressLatency() const
    {
        return m_ingressLatency;
    }

    /// \return the id of the node this device is on (0 before SetNode()); the channel's
    /// per-frame form of GetNode()->GetId()
    uint32_t GetNodeId() const
    {
        return m_nodeId;
    }

    /// \param handler receives every non-PAUSE frame arriving on this device (replaces an
    /// Owner set with SetOwner())
    void SetFrameHandler(FrameHandler handler);

    /// \param handler told about every data frame that starts transmission (replaces an Owner
    /// set with SetOwner())
    void SetDequeueHandler(DequeueHandler handler);

    /**
     * \brief Give the device's received and dequeued frames to \p owner (both hooks; replaces
     * the FrameHandler and DequeueHandler). The device keeps \p hold (the owner as an Object,
     * may be null) alive until DoDispose() or the next SetOwner(), as a Callback holding it
     * would; the owner clears itself (SetOwner(nullptr, 0, nullptr)) when it goes away first.
     * \param owner the owner (null: none)
     * \param port the owner's index of this device, passed back on every call
     * \param hold the owner's Object, or null
     */
    void SetOwner(Owner* owner, uint32_t port, Ptr<Object> hold);

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

    /**
     * \brief The egress class of an IPv4 frame with this DSCP: CONTROL_CLASS for
     * "ControlDscp", else DscpToTc(dscp).
     * \param dscp DSCP 0..63
     * \return class 0..8
     */
    uint8_t DscpToClass(uint8_t dscp) const;

    /// \return the attribute "ControlDscp" (64 = no control class)
    uint8_t GetControlDscp() const;

    /// \return total PAUSE frames received / sent so far (all TCs), for statistics
    uint64_t GetPauseRxCount() const;
    /// \return total PAUSE frames sent so far (all TCs)
    uint64_t GetPauseTxCount() const;
    /**
     * \brief PAUSE frames sent so far for one traffic class (IEEE 802.1Qbb: each frame of this
     * device pauses one class; RESUME frames, quanta 0, are counted too).
     * \param tc traffic class 0..7; any other value returns 0
     * \return frames sent for class \p tc; the sum over the classes is GetPauseTxCount()
     */
    uint64_t GetPauseTxCount(uint8_t tc) const;

    /**
     * \brief Called by the channel when a frame has fully arrived.
     * \param packet the frame without its Ethernet header (see QbbChannel::TransmitStart)
     * \param dest the Ethernet destination address of the frame
     * \param protocol its EtherType (the source address is the link peer's)
     */
    void Receive(Ptr<Packet> packet, Mac48Address dest, uint16_t protocol);

    /// \return data frames (L3 packets) of class \p cls that started serialization so far
    /// \param cls traffic class 0..7, or CONTROL_CLASS (PAUSE frames: GetPauseTxCount())
    uint64_t GetTxFrames(uint8_t cls) const;

    /// \return bytes of the L3 packets of class \p cls that started serialization so far (the
    /// size "MacTx" sees: no Ethernet header, FCS or gap)
    /// \param cls traffic class 0..7, or CONTROL_CLASS
    uint64_t GetTxBytes(uint8_t cls) const;

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
    class TxCompleteEvent;

    /// One data frame waiting in a traffic-class FIFO (Ethernet header added at dequeue).
    struct TxItem
    {
        Ptr<Packet> packet; //!< payload, starting at the L3 header
        Mac48Address dest;  //!< Ethernet destination
        uint16_t protocol;  //!< EtherType
        bool stampInt;      //!< push an INT hop at dequeue
    };

    /// One PAUSE frame waiting in the control queue.
    struct CtrlItem
    {
        Ptr<Packet> frame; //!< the PAUSE payload (PfcPauseHeader), without Ethernet header
        uint8_t tc;        //!< paused traffic class
        uint16_t quanta;   //!< quanta carried
    };

    /// Start serializing the next frame if the transmitter is idle and a frame is eligible.
    void StartTransmission();
    /// Put a frame on the wire: trace it, compute its time, hand it to the channel.
    /// \param frame the frame without its Ethernet header
    /// \param dest Ethernet destination \param protocol EtherType
    /// \param macControl a PAUSE frame (the peer acts on it without its IngressLatency)
    /// \param cls class the frame left (PAUSE frames: CONTROL_CLASS), for the INT counters
    void TransmitFrame(Ptr<Packet> frame,
                       Mac48Address dest,
                       uint16_t protocol,
                       bool macControl,
                       uint8_t cls);
    /// \return a copy of \p payload with the Ethernet header of its frame (for the Sniffer
    /// trace and the ReceiveErrorModel) \param payload frame without Ethernet header
    /// \param src source \param dest destination \param protocol EtherType
    static Ptr<Packet> WithEthernetHeader(Ptr<const Packet> payload,
                                          Mac48Address src,
                                          Mac48Address dest,
                                          uint16_t protocol);
    /// \return the MAC address of the device at the other end of the link (broadcast if none)
    Mac48Address GetPeerMac() const;
    /// End of serialization of the current frame (including the interframe gap).
    void TransmitComplete();
    /// \return the traffic class to serve next (data only), or -1 if none is eligible
    int SelectTc();
    /// \return the DWRR choice, or -1 if none is eligible
    /// \param eligible bit mask of non-empty, non-paused TCs (non-zero)
    int SelectDwrr(uint8_t eligible);
    /// Apply a received PAUSE frame. \param frame the frame without Ethernet header
    void ReceivePause(Ptr<Packet> frame);
    /// Push this port's INT hop into a frame leaving its queue. \param packet L3 packet
    /// \param cls the class it left
    void StampInt(Ptr<Packet> packet, uint8_t cls);
    /// \return the class of a frame (for drop traces) \param packet L3 packet
    /// \param protocol its EtherType
    uint8_t ClassOf(Ptr<const Packet> packet, uint16_t protocol) const;
    /// Pause timer of \p tc expired. \param tc traffic class
    void ResumeTc(uint8_t tc);
    /// Set or clear the PAUSE state of \p tc, firing TcPauseState when it changes.
    /// \param tc traffic class 0..7 \param paused the new state
    void SetTcPaused(uint8_t tc, bool paused);
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
    /**
     * Parse a "DscpToTc" text (the attribute's checker and setter).
     * \param spec "lo[-hi]:tc,..." list (see GetTypeId)
     * \param[out] map [DSCP] traffic class: the class selectors with the entries applied
     * \return "" if good, else why not (one line)
     */
    static std::string ParseDscpToTc(const std::string& spec, std::array<uint8_t, 64>& map);
    /**
     * Parse a "DwrrQuanta" text (the attribute's checker and setter).
     * \param spec one byte count or 8 comma-separated ones
     * \param[out] quanta [TC] bytes
     * \return "" if good, else why not (one line)
     */
    static std::string ParseDwrrQuanta(const std::string& spec, std::array<uint32_t, N_TC>& quanta);
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
    uint8_t m_controlDscp;                //!< DSCP of the control class (64 = none)
    bool m_ecnEnabled;                    //!< ECN marking on/off
    uint64_t m_ecnKmin;                   //!< marking starts above this queue depth, bytes
    uint64_t m_ecnKmax;                   //!< marking probability reaches 1 above this, bytes
    double m_ecnPmax;                     //!< marking probability at Kmax
    int64_t m_ecnStream = -1;             //!< RNG stream of the marking draws
    Ptr<UniformRandomVariable> m_ecnRng;  //!< marking draws
    bool m_ipChecksum = false;            //!< recompute the IPv4 checksum when marking
    Ptr<ErrorModel> m_receiveErrorModel;  //!< loss injection on arrival (may be null)
    Time m_ingressLatency;                //!< delay before the frame handler sees a frame

    // wiring
    Ptr<Node> m_node;                                    //!< owning node
    Ptr<QbbChannel> m_channel;                           //!< attached link
    uint32_t m_ifIndex = 0;                              //!< interface index on the node
    Mac48Address m_address;                              //!< own MAC address
    uint32_t m_nodeId = 0;                               //!< m_node's id (cached)
    FrameHandler m_frameHandler;                         //!< owner's receive hook
    DequeueHandler m_dequeueHandler;                     //!< owner's dequeue hook
    Owner* m_rxOwner = nullptr;                          //!< receive hook as an Owner
    Owner* m_dequeueOwner = nullptr;                     //!< dequeue hook as an Owner
    uint32_t m_ownerPort = 0;                            //!< SetOwner()'s port
    Ptr<Object> m_ownerHold;                             //!< keeps the Owner alive
    NetDevice::ReceiveCallback m_rxCallback;             //!< ns-3 stack receive hook
    NetDevice::PromiscReceiveCallback m_promiscCallback; //!< ns-3 promiscuous hook
    TracedCallback<> m_linkChangeCallbacks;              //!< link-change listeners

    // state
    std::array<std::deque<TxItem>, N_CLASSES> m_queues; //!< per-class egress FIFOs
    std::array<uint64_t, N_CLASSES> m_queueBytes; //!< bytes per class (frames incl. Ethernet hdr)
    std::array<uint64_t, N_CLASSES> m_peakQueueBytes;     //!< largest m_queueBytes so far
    TracedValue<uint64_t> m_totalQueueBytes{0};           //!< sum of m_queueBytes
    uint64_t m_txWireBytes = 0;                           //!< wire bytes transmitted
    std::array<uint64_t, N_CLASSES> m_txWireBytesClass{}; //!< wire bytes per class (PAUSE: control)
    std::array<uint64_t, N_CLASSES> m_txFrames{};         //!< data frames sent per class
    std::array<uint64_t, N_CLASSES> m_txBytes{};          //!< their L3 bytes per class
    std::deque<CtrlItem> m_ctrlQueue;                     //!< PAUSE frames, served first
    uint16_t m_nonEmptyMask = 0;                          //!< bit c set = class c has frames
    uint8_t m_pausedMask = 0;                             //!< bit c set = TC c paused by the peer
    std::array<EventId, N_TC> m_resumeEvent;              //!< pause expiry per TC
    bool m_txBusy = false;                                //!< a frame is being serialized
    EventId m_txCompleteEvent;                            //!< end of the current serialization
    std::array<int64_t, N_TC> m_deficit;                  //!< DWRR deficit counters, bytes
    uint8_t m_drrCurrent = 0;                             //!< DWRR: TC whose turn it is
    bool m_drrTurnStarted = false;               //!< DWRR: quantum already granted this turn
    uint64_t m_pauseRxCount = 0;                 //!< PAUSE frames received
    std::array<uint64_t, N_TC> m_pauseTxPerTc{}; //!< PAUSE frames sent per paused class

    // traces
    TracedCallback<Ptr<const Packet>, uint8_t> m_macTxTrace;                    //!< "MacTx"
    TracedCallback<Ptr<const Packet>> m_macRxTrace;                             //!< "MacRx"
    TracedCallback<Ptr<const QbbNetDevice>, uint8_t, uint16_t> m_pfcTxTrace;    //!< "PfcTx"
    TracedCallback<Ptr<const QbbNetDevice>, uint8_t, uint16_t> m_pfcRxTrace;    //!< "PfcRx"
    TracedCallback<Ptr<const Packet>, uint8_t, const std::string&> m_dropTrace; //!< "Drop"
    TracedCallback<Ptr<const Packet>> m_snifferTrace;                           //!< "Sniffer"
    TracedCallback<uint8_t, uint64_t, uint64_t> m_tcBytesTrace; //!< "TcBytesInQueue"
    TracedCallback<uint8_t, bool> m_tcPauseTrace;               //!< "TcPauseState"
};

} // namespace ns3

#endif // CRUX_QBB_NET_DEVICE_H
