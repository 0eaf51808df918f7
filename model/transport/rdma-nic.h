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

#ifndef CRUX_RDMA_NIC_H
#define CRUX_RDMA_NIC_H

#include "rdma-queue-pair.h"
#include "roce-header.h"

#include "ns3/address.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/qbb-net-device.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Packet-level RoCEv2 RDMA NIC: reliable-connection queue pairs with go-back-N loss
 * recovery, a retransmission timeout and a stall watchdog, on one QbbNetDevice.
 *
 * One RdmaNic has one IPv4 address and drives one or more ports (QbbNetDevices): Attach() binds
 * port 0, AddPort() further ones (the double-sided topology gives every NIC two ports, one to
 * each ToR of its host's pair); a host with N NICs has N RdmaNics (RdmaTransport maps GPUs to
 * them). The NIC installs itself as every port device's FrameHandler (arrivals) and
 * DequeueHandler (transmit pacing).
 *
 * **Ports.** Each port has its own per-class round robins and device refill, so a PFC PAUSE on
 * one port stops only the queue pairs sending on it. A queue pair sends its data out of one
 * port, chosen when it starts sending with nothing in flight by the port selector
 * (SetPortSelector(); CruxTopology::SelectNicPort: a pinned route's first link, else the
 * NIC's ECMP hash of the 5-tuple, so source-port steering picks the first link as it picks the
 * switch hops; without a selector, port 0). ACKs, NAKs and CNPs of a responder queue pair leave
 * on the port its data last arrived on (the data path reversed). Frames arrive on any port; the
 * NIC never forwards. With one port everything is as before.
 *
 * **Frames** (/tmp/addr.md, IBA Annex A17): Ethernet (added by the device) / IPv4 (the NIC's
 * address → the peer's, DSCP of the message, ECN = ECT(0) on data so switches can mark CE,
 * protocol 17, TTL 64, DF, checksum 0) / UDP (source port = the queue pair's ECMP entropy,
 * destination 4791, checksum 0) / BTH / payload / 4-byte ICRC (zeros). Data packets are RC SEND
 * First/Middle/Last/Only with "Mtu" payload bytes (the last one shorter); the last packet of a
 * message requests an ACK. ACK/NAK packets are BTH + AETH + ICRC; CNPs are BTH (opcode 0x81) +
 * 16 reserved bytes + ICRC. Data packet overhead on top of the payload: GetDataHeaderBytes()
 * = 20 + 8 + 12 + 4 = 44 bytes (plus the device's 14-byte Ethernet header, 4-byte FCS and
 * 20-byte preamble + interframe gap on the wire).
 *
 * **Control class.** ACK, NAK and CNP packets carry DSCP "AckDscp" (default 46, EF), the
 * QbbNetDevice's ControlDscp: every device (NIC and switch ports) queues them in its control
 * class, served before all eight traffic classes, never paused, and never shared with data
 * (crux's data uses DSCP 8 × level). Deployed RoCE fabrics likewise reserve a class for
 * congestion notifications and keep acknowledgments out of the data queues; with ACKs in a data
 * class, the job in the top class delays its own ACKs behind its data. Posting a message with
 * the control DSCP is an error.
 *
 * **Transmission.** Each data traffic class c has a round robin of queue pairs with data to
 * send; one packet at a time is taken from its head (packet-level round robin between the queue
 * pairs of a class). The NIC hands the device a new packet of class c only while the device's
 * class-c queue holds fewer than "MaxDeviceQueueFrames" frames (default 2) and refills from the
 * device's dequeue callback, so the device's strict priority / DWRR arbitrates between classes
 * and a PFC PAUSE of class c (which stops the device's class c) back-pressures the queue pairs of
 * that class without any buffering in the NIC. A queue pair's class is that of the message its
 * next packet belongs to (DSCP → TC via the device's DscpToTc()); when consecutive messages of a
 * queue pair use different classes, the queue pair waits until its packets in flight are
 * acknowledged before sending in the new class (otherwise the new class could overtake them in
 * a strict-priority queue and trigger a spurious go-back-N). Queue pairs activated at the same
 * simulation instant enter the round robin together (the refill runs at the end of the instant).
 * Per queue pair, an RdmaCongestionControl gives the sending rate; below line rate packets are
 * paced.
 *
 * **Reliability (go-back-N, IBA §9.7).** The responder keeps the expected PSN; an in-order
 * packet is accepted and acknowledged once per "AckInterval" packets (ACK coalescing), on a
 * message's last packet and whenever the requester set AckReq (on a message's last packet, and
 * on every n-th packet when the congestion control asks for it: HPCC asks for every packet); a
 * packet ahead of the expected PSN is dropped and answered with one NAK (PSN sequence error) per
 * gap; a duplicate is dropped and re-acknowledged. The requester advances its acknowledged
 * sequence on ACK, rewinds to the NAKed PSN on NAK, and rewinds to the acknowledged sequence
 * when its retransmission timer finds no ACK progress for "RetransmitTimeout" (the IB local ACK
 * timeout, default 4.096 µs × 2^20 = 4.29 s as NCCL sets it; doubled per consecutive expiry up
 * to "MaxRtoBackoff" times, default 1 = never). The timer runs from the first unacknowledged
 * packet or the last ACK progress, so it only fires when a packet was really outstanding that
 * long: in a lossless fabric never. A queue pair with posted data that makes no ACK progress
 * for "StallTimeout" (default 8 × 4.29 s, NCCL's retry count 7 + 1) ends the run with a
 * CruxRunError naming the job, flow, GPUs and queue pair (RdmaQueuePair::SetLabels).
 *
 * **Congestion control.** Per queue pair, an RdmaCongestionControl (attribute
 * "CongestionControl", default DCQCN; its attributes through SetCongestionControlAttribute())
 * gives the sending rate, below which packets are paced, and optionally a window of bytes in
 * flight, an in-band telemetry stack in every data packet (HPCC: InbandTelemetryHeader after
 * the BTH, BTH INT flag set, switches fill it, the responder copies it after the AETH of its
 * ACK) and AckReq on every n-th packet. "BaseRtt" is handed to it (HPCC's T).
 *
 * **ECN / CNP.** A CE-marked data packet is counted at the responder; with "CnpEnabled" (default
 * on, as DCQCN needs) it also triggers a CNP (at most one per "CnpInterval" per queue pair),
 * which the requester counts and hands to its RdmaCongestionControl (the DCQCN notification
 * point / reaction point split).
 *
 * **PCIe (intra-host links; "PcieRate" > 0).** Send side: data frames cross the NIC's PCIe
 * link (its PCIe switch's uplink) one at a time before the NIC hands them to its device, the
 * highest traffic class first. Receive side (rdma-nic-rx.cc): received data frames wait in the
 * NIC's receive buffer ("PcieRxBufferBytes" per traffic class, the port buffer of a ConnectX
 * adapter) and are written to GPU memory through the PCIe link at "PcieRate", one at a time, the
 * highest class first. The transport check (PSN, ACK/NAK coalescing, CNP) runs when a frame
 * leaves the buffer for its PCIe write, as in a NIC's receive pipeline; out-of-order and
 * duplicate frames are discarded there without a write. When the PCIe write-back falls behind
 * and a class's buffer reaches Xoff = buffer − headroom (IEEE 802.1Qbb Annex N, as SwitchMmu),
 * the NIC itself sends a PFC PAUSE for that class on its port (refreshed every half pause time)
 * and resumes it (PAUSE with 0 quanta) at Xon = Xoff − one frame; the "slow receiver" of Guo et
 * al., "RDMA over Commodity Ethernet at Scale", SIGCOMM'16 §4.4. Nothing is dropped while the
 * headroom holds (a frame that does not fit is dropped and counted in
 * RdmaQpStats::pcieRxDrops). "PcieLatency" (one-way GPU ↔ NIC through the PCIe switch) is paid
 * by the DMA read of a message before its first packet can leave and by the DMA write of its
 * last packet before the message is complete (the flow fabric's path latency counts both).
 *
 * Completion: a message is complete when its last byte arrives in order at the responder; with
 * "PcieRate" > 0, when the PCIe write of its last packet has ended, plus "PcieLatency". The
 * completion callback given to PostSend() is called then, and "MessageComplete" is traced by the
 * receiving NIC. ACKs are sent by the transport check (before the PCIe write): an RC ACK means
 * the responder NIC accepted the packet, not that it is placed in memory (hence IBTA's later
 * RDMA FLUSH operation for placement guarantees).
 */
class RdmaNic : public Object, public QbbNetDevice::Owner
{
    friend class RdmaQueuePair;

  public:
    /// First local queue pair number (QPN 0 and 1 are the IB management QPs).
    static constexpr uint32_t FIRST_QPN = 0x100;

    /**
     * \brief Signature of the "MessageComplete" trace.
     * \param jobId job of the message \param flowId job-local flow
     * \param bytes payload bytes \param duration time from PostSend() to delivery of the last byte
     */
    typedef void (*MessageCompleteTracedCallback)(uint32_t jobId,
                                                  uint32_t flowId,
                                                  uint64_t bytes,
                                                  Time duration);

    /**
     * \brief Signature of the "Retransmit" trace.
     * \param qp the requester queue pair \param psn 24-bit PSN it rewinds to
     * \param reason "nak" or "timeout"
     */
    typedef void (*RetransmitTracedCallback)(Ptr<const RdmaQueuePair> qp,
                                             uint32_t psn,
                                             const std::string& reason);

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaNic();
    ~RdmaNic() override;

    /**
     * \brief Bind this NIC to its port: installs the frame and dequeue handlers on \p dev.
     * \param dev the NIC's QbbNetDevice (non-null; NS_FATAL_ERROR otherwise)
     * \param address the NIC's IPv4 address
     * \throws CruxRunError if the device's "Mtu" cannot carry Mtu + GetDataHeaderBytes() (plus
     *         the INT stack when the NIC's CongestionControl uses INT): CheckMtu()
     */
    void Attach(Ptr<QbbNetDevice> dev, Ipv4Address address);

    /**
     * \brief Bind a further port of this NIC (after Attach()): installs the frame and dequeue
     * handlers on \p dev. Its traffic-class map and data rate should equal port 0's (the NIC
     * classifies a message once, with port 0's DscpToTc()).
     * \param dev the port's QbbNetDevice (non-null; NS_FATAL_ERROR otherwise, or before
     *        Attach())
     * \return the port index (1, 2, ...)
     * \throws CruxRunError if the device's "Mtu" cannot carry a full data packet (CheckMtu())
     */
    uint32_t AddPort(Ptr<QbbNetDevice> dev);

    /// \return the number of ports (0 before Attach())
    uint32_t GetNPorts() const;

    /// \return the device of port \p port (NS_FATAL_ERROR if out of range) \param port index
    Ptr<QbbNetDevice> GetPortDevice(uint32_t port) const;

    /**
     * \brief Set the function that picks the port a queue pair's data leaves on, from its
     * 5-tuple (source NIC address, destination NIC address, 17, UDP source port, 4791); asked
     * whenever a queue pair starts sending with nothing in flight. RdmaTransportHelper sets
     * CruxTopology::SelectNicPort for NICs with several ports. A result >= GetNPorts() is an
     * NS_FATAL_ERROR. Unset: port 0.
     * \param selector the selector (may be null)
     */
    void SetPortSelector(Callback<uint32_t, const FiveTuple&> selector);

    /// \return the attached device of port 0 (null before Attach())
    Ptr<QbbNetDevice> GetDevice() const;
    /// \return the NIC's IPv4 address
    Ipv4Address GetAddress() const;
    /// \return payload bytes per data packet (attribute "Mtu")
    uint32_t GetMtu() const;

    /**
     * \brief Set an attribute of the congestion control of every queue pair created afterwards
     * (e.g. "RateAi" of ns3::DcqcnCongestionControl). Setting the attribute "CongestionControl"
     * drops the attributes given before.
     * \param name attribute name of the congestion control's TypeId
     * \param value value
     */
    void SetCongestionControlAttribute(const std::string& name, const AttributeValue& value);

    /// \return bytes of a data packet besides its payload and the Ethernet header:
    ///         IPv4 (20) + UDP (8) + BTH (12) + ICRC (4) = 44
    static uint32_t GetDataHeaderBytes();

    /**
     * \brief Create an unconnected queue pair on this NIC.
     * \return the queue pair; its QPN is FIRST_QPN + (number of queue pairs created before)
     */
    Ptr<RdmaQueuePair> CreateQueuePair();

    /**
     * \brief Connect two fresh queue pairs (on two different NICs) into an RC connection.
     *
     * Sets each one's remote QPN and address, the UDP source port of both directions, and the
     * PSNs: a's first PSN is a's NIC "InitialPsn" and b expects it, and vice versa.
     * \param a queue pair on one NIC (NS_FATAL_ERROR if already connected)
     * \param b queue pair on another NIC (NS_FATAL_ERROR if already connected or same NIC)
     * \param srcPort UDP source port of both directions (non-zero)
     */
    static void Connect(Ptr<RdmaQueuePair> a, Ptr<RdmaQueuePair> b, uint16_t srcPort);

    /**
     * \brief Post one SEND message on a connected queue pair of this NIC (IBA "post send"; the
     * matching receive is posted on the peer queue pair at the same time).
     * \param qp a queue pair of this NIC, connected (NS_FATAL_ERROR otherwise)
     * \param bytes payload bytes (> 0; NS_FATAL_ERROR otherwise)
     * \param dscp DSCP 0..63 of its packets (NS_FATAL_ERROR otherwise)
     * \param jobId job id, for the MessageComplete trace
     * \param flowId flow id, for the MessageComplete trace
     * \param done called once when the last byte has arrived at the peer (may be null)
     * \param tag the sender's id of the message (MessageRequest::tag), for the watchdog
     */
    void PostSend(Ptr<RdmaQueuePair> qp,
                  uint64_t bytes,
                  uint8_t dscp,
                  uint32_t jobId,
                  uint32_t flowId,
                  Callback<void> done,
                  uint32_t tag = 0xffffffffu);

    /**
     * \brief Process a frame received by the device (the FrameHandler installed by Attach()).
     * Public so that tests can interpose on the receive path (e.g. to drop frames).
     * \param dev receiving device
     * \param packet frame without Ethernet header
     * \param protocol EtherType
     */
    void ReceiveFrame(Ptr<QbbNetDevice> dev, Ptr<Packet> packet, uint16_t protocol);

    /// \return the queue pair with local number \p qpn, or null \param qpn a QPN
    Ptr<RdmaQueuePair> GetQueuePair(uint32_t qpn) const;
    /// \return number of queue pairs created on this NIC
    uint32_t GetNQueuePairs() const;
    /// \return the i-th queue pair created (i < GetNQueuePairs()) \param i index
    Ptr<RdmaQueuePair> GetQueuePairByIndex(uint32_t i) const;

    /// \return the sum of the counters of all queue pairs of this NIC
    RdmaQpStats GetStats() const;
    /// \return frames received that were not RoCEv2 for this NIC (wrong type, address, QPN)
    uint64_t GetUnknownFrames() const;

    /// \return PFC PAUSE frames (quanta > 0, refreshes included) this NIC sent because its PCIe
    /// write-back fell behind ("PcieRate" > 0); also counted in its device's GetPauseTxCount()
    uint64_t GetPcieRxPauseFrames() const;
    /// \return PFC resume frames (PAUSE with 0 quanta) this NIC sent when its receive buffer
    /// drained to Xon; also counted in its device's GetPauseTxCount()
    uint64_t GetPcieRxResumeFrames() const;
    /// \return the largest number of bytes (frame + FCS) one traffic class held at once in the
    /// NIC's receive buffer (0 without "PcieRate")
    uint64_t GetPcieRxPeakBytes() const;
    /// \return Xoff of the receive buffer in bytes per traffic class ("PcieRxBufferBytes"
    /// minus the PFC headroom); computed when the first data frame arrives (0 before)
    uint64_t GetPcieRxXoff() const;

  protected:
    void DoDispose() override;

  private:
    /// The device's Owner, receive side: ReceiveFrame().
    void DeviceReceive(uint32_t port,
                       QbbNetDevice* dev,
                       Ptr<Packet> packet,
                       uint16_t protocol) override;
    /// The device's Owner, dequeue side: a frame of class \p tc started serialization.
    /// \param port unused (ports are found by device) \param dev device \param p packet
    /// \param tc traffic class
    void DeviceDequeue(uint32_t port, QbbNetDevice* dev, const Ptr<Packet>& p, uint8_t tc) override;
    /// Fill the classes of queue pairs activated during the current instant.
    void DeferredFill();
    /// Refill the device queue of class \p tc of a port (re-entrancy safe).
    /// \param port port index \param tc traffic class
    void Fill(uint32_t port, uint8_t tc);
    /// Refill one class (called from Fill only). \param port port index \param tc class
    void FillTc(uint32_t port, uint8_t tc);
    /// \return the index of the port whose device is \p dev (0 if none) \param dev a device
    uint32_t PortOf(const QbbNetDevice* dev) const;
    /// Install the frame and dequeue handlers on \p dev. \param dev a port device
    void InstallHandlers(Ptr<QbbNetDevice> dev);
    /// Put \p qp in its class's round robin if it has data to send. \param qp queue pair
    void Activate(RdmaQueuePair* qp);
    /// End of a pacing wait. \param qp queue pair
    void Wake(RdmaQueuePair* qp);
    /// Build and hand to the device the next data packet of \p qp. \param qp queue pair
    void SendDataPacket(RdmaQueuePair* qp);
    /// The PCIe link is free again: fill the classes, highest first (PcieRate).
    void PcieFree();
    /// Enqueue the message's packets after its DMA read (PostSend; PcieLatency later with
    /// intra-host links). \param qp queue pair \param bytes payload bytes \param dscp DSCP
    /// \param jobId job id \param flowId flow id \param tag the sender's message tag (PostSend)
    void QueueMessage(RdmaQueuePair* qp,
                      uint64_t bytes,
                      uint8_t dscp,
                      uint32_t jobId,
                      uint32_t flowId,
                      uint32_t tag);

    /// A received data frame waiting in the NIC's receive buffer for its PCIe write.
    struct PcieRxFrame
    {
        RdmaQueuePair* qp{nullptr}; //!< its queue pair
        roce::BthView bth;          //!< its BTH
        bool ce{false};             //!< CE marked
        uint32_t payload{0};        //!< payload bytes
        uint32_t frameBytes{0};     //!< L3 packet + Ethernet header (PCIe time, as on send)
        uint32_t bufferBytes{0};    //!< bytes charged to the buffer (frame + FCS)
        Ptr<Packet> packet;         //!< the frame, kept only for its INT stack (else null)
    };

    /// Receive side of the PCIe link: a data frame arrived (PcieRate > 0); charge it to the
    /// buffer of class \p tc, PAUSE the class at Xoff, start its write if the link is idle.
    /// \param f the frame \param tc its traffic class
    void PcieRxEnqueue(PcieRxFrame f, uint8_t tc);
    /// The PCIe write in progress ended (release its bytes, resume its class at Xon); start
    /// the next one, highest class first.
    void PcieRxNext();
    /// Compute the receive buffer's headroom, Xoff and Xon from the port (first data frame).
    void PcieRxConfigure();
    /// Send (or refresh) a PAUSE for class \p tc on the port. \param tc traffic class
    void PcieRxPause(uint8_t tc);
    /// Hand a complete message to the application (callback, "MessageComplete").
    /// \param qp queue pair \param m the message
    void DeliverMessage(RdmaQueuePair* qp, const RdmaQueuePair::RxMessage& m);
    /// Send an ACK (or NAK with \p nak) for the responder state of \p qp.
    /// \param qp queue pair \param nak true: NAK (PSN sequence error)
    /// \param intEcho serialized INT stack to copy after the AETH (ACKs only), or null
    void SendAck(RdmaQueuePair* qp, bool nak, const uint8_t* intEcho = nullptr);
    /// Send a CNP to the requester of \p qp. \param qp queue pair
    void SendCnp(RdmaQueuePair* qp);
    /// Add the BTH, UDP and IPv4 headers (one header write).
    /// \param p packet starting after the BTH \param qp queue pair \param dscp DSCP
    /// \param ectCapable data packet (ECT(0)) or control (Not-ECT) \param bth the BTH
    void AddHeaders(Ptr<Packet> p,
                    const RdmaQueuePair* qp,
                    uint8_t dscp,
                    bool ectCapable,
                    const RoceBthHeader& bth);
    /// Hand a packet (IPv4 header first) to a port's device in class \p tc.
    /// \param p packet \param qp its queue pair (statistics) \param tc traffic class
    /// \param port port index
    /// \return true if the device accepted it
    bool Enqueue(Ptr<Packet> p, RdmaQueuePair* qp, uint8_t tc, uint32_t port);
    /// Responder: a data packet arrived (the transport check).
    /// \param qp queue pair \param bth its BTH \param ce CE marked \param payload payload bytes
    /// \param intStack its serialized INT stack, or null
    /// \param deliverDelay a message this packet completes is delivered that much later (its
    /// PCIe write and latency; 0 without PcieRate)
    /// \return true if the packet was accepted in order (its payload is written to memory)
    bool HandleData(RdmaQueuePair* qp,
                    const roce::BthView& bth,
                    bool ce,
                    uint32_t payload,
                    const uint8_t* intStack,
                    Time deliverDelay = Time(0));
    /// Requester: an ACK/NAK arrived. \param qp queue pair \param bth BTH
    /// \param syndrome AETH syndrome \param intEcho serialized INT echo after the AETH, or null
    void HandleAck(RdmaQueuePair* qp,
                   const roce::BthView& bth,
                   uint8_t syndrome,
                   const uint8_t* intEcho);
    /// Requester: acknowledged sequence moves to \p newUna. \param qp qp \param newUna new value
    void AdvanceUna(RdmaQueuePair* qp, uint64_t newUna);
    /// Go-back-N: resend from the acknowledged sequence.
    /// \param qp queue pair \param reason "nak" or "timeout"
    void Rewind(RdmaQueuePair* qp, const std::string& reason);
    /// Make sure the timer of \p qp expires no later than \p at. \param qp qp \param at time
    void EnsureTimer(RdmaQueuePair* qp, Time at);
    /// Retransmission timer / watchdog expiry. \param qp queue pair
    void TimerExpired(RdmaQueuePair* qp);
    /// \return a printable identification of \p qp \param qp queue pair
    std::string Describe(const RdmaQueuePair* qp) const;
    /// \return the one-line watchdog message for \p qp: job, flow, GPUs, message progress,
    /// queue pair \param qp queue pair
    std::string DescribeStall(const RdmaQueuePair* qp) const;
    /// Init the congestion control of \p qp (line rate, BaseRtt; checks the INT fits the MTU).
    /// \param qp queue pair
    void InitCongestionControl(RdmaQueuePair* qp);
    /**
     * \brief Check that a full data packet of this NIC (Mtu payload, headers, and the INT stack
     * if \p cc uses INT) fits \p dev's Mtu.
     * \param dev a port device \param cc the congestion control the packets follow (may be null)
     * \throws CruxRunError naming ns3::RdmaNic::Mtu, ns3::QbbNetDevice::Mtu and the controller
     */
    void CheckMtu(Ptr<QbbNetDevice> dev, Ptr<RdmaCongestionControl> cc) const;
    /// Attribute setter of "CongestionControl". \param tid a subclass of RdmaCongestionControl
    void SetCongestionControlType(TypeId tid);
    /// \return the attribute "CongestionControl"
    TypeId GetCongestionControlType() const;

    // attributes
    uint32_t m_mtu;            //!< payload bytes per packet
    uint32_t m_ackInterval;    //!< ACK every this many in-order packets
    Time m_rto;                //!< base retransmission timeout
    uint32_t m_maxRtoBackoff;  //!< largest RTO multiplier
    Time m_stallTimeout;       //!< watchdog (0 = off)
    uint32_t m_initialPsn;     //!< first PSN of new queue pairs
    uint8_t m_ackDscp;         //!< DSCP of ACK/NAK/CNP
    uint32_t m_maxDevQueue;    //!< frames per class kept in the device
    DataRate m_pcieRate;       //!< NIC <-> PCIe switch rate (0: not modelled)
    Time m_pcieFreeAt;         //!< the PCIe link is busy until then
    EventId m_pcieEvent;       //!< pending PcieFree
    Time m_pcieLatency;        //!< one-way GPU <-> NIC latency through the PCIe switch
    uint64_t m_pcieRxBuffer;   //!< receive buffer per traffic class, bytes
    Time m_pcieRxResponse;     //!< PFC response time counted in the headroom
    uint16_t m_pcieRxQuanta;   //!< quanta of the NIC's PAUSE frames
    bool m_cnpEnabled;         //!< send CNPs on CE
    Time m_cnpInterval;        //!< min gap between CNPs per queue pair
    ObjectFactory m_ccFactory; //!< creates the congestion control of each queue pair
    Time m_baseRtt;            //!< base RTT given to the congestion control

    /// One port of the NIC: its device and transmit state.
    struct Port
    {
        Ptr<QbbNetDevice> dev;                                             //!< the port's device
        Mac48Address peerMac;                                              //!< MAC of the link peer
        bool peerMacKnown{false};                                          //!< peerMac resolved
        std::array<std::deque<RdmaQueuePair*>, QbbNetDevice::N_TC> active; //!< round robins
        std::array<uint32_t, QbbNetDevice::N_TC> devQueued{}; //!< our frames in the device
        bool inFill{false};                                   //!< Fill() running
        uint8_t refill{0};                                    //!< classes to (re)fill, bit mask
        uint8_t pendingFill{0}; //!< classes for DeferredFill, bit mask
    };

    // state
    Ptr<QbbNetDevice> m_dev;                             //!< port 0's device
    Ipv4Address m_address;                               //!< own address
    std::vector<Port> m_ports;                           //!< ports, 0 = Attach()'s
    Callback<uint32_t, const FiveTuple&> m_portSelector; //!< SetPortSelector()
    std::vector<Ptr<RdmaQueuePair>> m_qps;               //!< by QPN − FIRST_QPN
    EventId m_fillEvent;                                 //!< pending DeferredFill
    uint16_t m_ipId{0};                                  //!< IPv4 identification counter
    uint64_t m_unknownFrames{0};                         //!< non-RoCE / foreign frames received

    // receive side of the PCIe link (PcieRate > 0)
    std::array<std::deque<PcieRxFrame>, QbbNetDevice::N_TC> m_pcieRxQueue; //!< buffer, per TC
    std::array<uint64_t, QbbNetDevice::N_TC> m_pcieRxBytes{};              //!< bytes held, per TC
    std::array<bool, QbbNetDevice::N_TC> m_pcieRxPaused{};                 //!< PAUSE sent, per TC
    std::array<EventId, QbbNetDevice::N_TC> m_pcieRxRefresh{}; //!< PAUSE refresh, per TC
    EventId m_pcieRxEvent;                                     //!< end of the write in progress
    bool m_pcieRxBusy{false};                                  //!< a write is in progress
    uint8_t m_pcieRxCurTc{0};                                  //!< its class
    uint32_t m_pcieRxCurBytes{0};                              //!< its buffer bytes
    bool m_pcieRxConfigured{false};                            //!< Xoff/Xon computed
    uint64_t m_pcieRxXoff{0};                                  //!< PAUSE threshold, bytes
    uint64_t m_pcieRxXon{0};                                   //!< resume threshold, bytes
    Time m_pcieRxPauseTime;                                    //!< one PAUSE's duration
    uint64_t m_pcieRxPauses{0};                                //!< PAUSE frames sent
    uint64_t m_pcieRxResumes{0};                               //!< resume frames sent
    uint64_t m_pcieRxPeak{0};                                  //!< peak bytes of one class

    // traces
    TracedCallback<uint32_t, uint32_t, uint64_t, Time> m_messageCompleteTrace; //!< delivery
    TracedCallback<Ptr<const RdmaQueuePair>, uint32_t, const std::string&>
        m_retransmitTrace;                           //!< go-back-N
    TracedCallback<Ptr<const Packet>> m_txDataTrace; //!< data packet handed to the device
};

} // namespace ns3

#endif // CRUX_RDMA_NIC_H
