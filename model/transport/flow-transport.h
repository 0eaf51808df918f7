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

#ifndef CRUX_FLOW_TRANSPORT_H
#define CRUX_FLOW_TRANSPORT_H

#include "message-transport.h"
#include "rdma-transport.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/roce-constants.h"
#include "ns3/traced-callback.h"
#include "ns3/water-filling.h"

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief MessageTransport at flow level: every message is a fluid flow on a path of directed
 * links, with max-min fair rates inside a traffic class and strict priority between classes.
 *
 * This is the "flow level (scale)" transport of DESIGN.md: the same workload and the same
 * scheduler decision (UDP source ports / pinned routes, DSCPs) run on it and on the packet-level
 * RdmaTransport, and the two are checked against each other on small cases.
 *
 * **Topology.** Directed links are registered with AddLink() (capacity in bit/s, one-way
 * propagation delay) and get ids 0, 1, 2, ...; hosts with AddHost(). A path resolver
 * (SetPathResolver()) maps a connection and its UDP source port to the list of link ids its
 * packets cross. FlowTransportHelper::Install() fills all three from a CruxTopology (links in
 * CruxTopology link-id order, paths by CruxTopology::PredictPath(), i.e. pinned routes first and
 * then the switches' exact ECMP hash); any other link set (e.g. a lightweight topology without
 * packet devices) can be fed with AddLink() and a resolver of its own.
 *
 * **Connections.** As in RdmaTransport, messages between GPUs of different hosts travel on the
 * connection (queue pair) of the key (jobId, flowId, src GPU, dst GPU) = RdmaQpKey, and a
 * connection carries its messages one at a time in posting order (a queue pair sends its
 * messages in order). The head message of every non-idle connection is an active flow. Its UDP
 * source port, resolved when the message becomes the head: a non-zero udpSrcPort of a request
 * (remembered for later messages of the connection, as RdmaQueuePair::SetSourcePort() does), the
 * port given to SetQpSourcePort(), else RdmaTransport::DefaultSourcePort(key) -- so the flow
 * takes the same ECMP path as RdmaTransport's queue pair for the same key. Its traffic class is
 * DscpToTc(req.dscp) (default DSCP >> 3, QbbNetDevice's default map; SetDscpToTc()).
 *
 * **Rates.** Whenever the set of active flows changes (a message becomes active or finishes
 * its transfer, never periodically), rates are recomputed by progressive filling (water
 * filling) one traffic class at a time from TC 7 down to TC 0, each class on the capacity its
 * higher classes left over (strict priority): inside a class the allocation is the max-min fair
 * one (every flow's rate is limited by a link on which it has the largest rate and the link is
 * full). Residual capacities below 1e-9 of a link's capacity count as zero, so a class starved
 * by higher classes gets rate 0 (its flows wait). Recomputations arriving at the same simulation
 * instant are coalesced into one (an event scheduled with ScheduleNow), and the next transfer
 * completion is one Simulator event, cancelled and rescheduled on every change.
 *
 * **Timing (alpha-beta).** A message of B payload bytes is transferred as W(B) wire bytes at the
 * rate(s) computed above (beta term); its transfer ends at the first simulator time step at
 * which the remaining wire bytes reach zero: whenever rates change, each flow's transfer end is
 * projected from its remaining bytes and rounded up to the simulator's time resolution, and the
 * flow completes exactly at that projected time (floating rounding of the remaining byte count
 * can therefore neither lose a completion nor accumulate across events; byte counters are 64-bit
 * integers). It is delivered (completion callback, MessageComplete trace)
 * alpha later, alpha = the sum of the path's link delays + the store-and-forward pipeline
 * latency (below). W(B) and the pipeline latency model the packet fabric's framing:
 *  - "PacketPayload" P > 0 (default 4096, RdmaNic's default "Mtu"): the message is cut into
 *    packets of P payload bytes (the last one shorter); a packet of p payload bytes occupies
 *    max(p + "PacketHeaderBytes", 64) + "InterframeGapBytes" bytes of wire time. Defaults 62
 *    (IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + Ethernet 14 + FCS 4) and 20 (preamble, SFD, gap), the
 *    packet fabric's values. P = 0: pure fluid, W(B) = B;
 *  - "StoreAndForward" (default true, needs P > 0): every switch forwards a packet after it has
 *    fully received it, so the first packet of the message pays its serialization time on every
 *    link, of which the transfer term already covers the slowest one: pipeline latency =
 *    Σ_l w·8/C_l − max_l w·8/C_l with w the wire bytes of the first packet, C_l link l's rate.
 * With P = 0 (or StoreAndForward false) alpha is just the sum of the link delays, the paper's
 * alpha-beta model. Not modelled: queueing delay, PFC pauses, ECN/DCQCN rate control, ACK
 * traffic (acknowledgments use TC 7 of the reverse links in the packet fabric), DWRR between
 * classes (only strict priority), per-packet round robin effects inside a class.
 *
 * **Intra-host messages** (src.host == dst.host) never touch the links and mirror RdmaTransport
 * exactly: they occupy the source GPU's NVLink egress for bytes × 8 / "IntraHostRate" (messages
 * of one GPU serialize, different GPUs are independent) and complete "IntraHostLatency" after
 * that. They are not traced by MessageComplete (RdmaTransport's NICs do not see them either) and
 * are counted by GetIntraHostMessages().
 *
 * **Accounting.** Per directed link and traffic class, GetLinkBytes() gives the payload bytes of
 * the flows crossing the link: completed flows exactly (64-bit integers), flows in progress
 * integrated as rate × time (rounded down), so a link's counter is exact after every message
 * crossing it has finished its transfer.
 */
class FlowTransport : public MessageTransport
{
  public:
    /**
     * \brief Path resolver: the directed link ids (in travel order) a connection's packets cross
     * when they carry UDP source port \p srcPort. Called with (connection key, UDP source port);
     * never called for intra-host connections. Must return a non-empty list of registered link
     * ids without repetition (Send() reports an NS_FATAL_ERROR otherwise).
     */
    typedef Callback<std::vector<uint32_t>, const RdmaQpKey&, uint16_t> PathResolver;

    /**
     * \brief Signature of the "MessageComplete" trace.
     * \param jobId job of the message \param flowId job-local flow
     * \param bytes payload bytes
     * \param start simulation time Send() was called
     * \param end simulation time the last byte was delivered (completion callback time)
     */
    typedef void (*MessageCompleteTracedCallback)(uint32_t jobId,
                                                  uint32_t flowId,
                                                  uint64_t bytes,
                                                  Time start,
                                                  Time end);

    /// Number of traffic classes (0..7, 7 is the highest priority).
    static constexpr uint8_t N_TC = crux::NUM_TRAFFIC_CLASSES;

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlowTransport();
    ~FlowTransport() override;

    // ---------------------------------------------------------------- topology

    /**
     * \brief Register a host. Hosts must be added in index order 0, 1, 2, ...
     * \param host host index (== number of hosts added so far; NS_FATAL_ERROR otherwise)
     * \param gpus number of GPUs of the host (> 0; NS_FATAL_ERROR otherwise)
     */
    void AddHost(uint32_t host, uint32_t gpus);

    /**
     * \brief Register a directed link.
     * \param rate capacity in bit/s (> 0; NS_FATAL_ERROR otherwise)
     * \param delay one-way propagation delay (>= 0; NS_FATAL_ERROR otherwise)
     * \return the link id: the number of links added before
     */
    uint32_t AddLink(DataRate rate, Time delay);

    /**
     * \brief Set the path resolver used for messages between different hosts.
     * \param resolver see PathResolver
     */
    void SetPathResolver(PathResolver resolver);

    /**
     * \brief Carry messages between different GPUs of one host as flows on modelled intra-host
     * links (ClusterTopology::AddIntraHostLinks(): GPU -> NVSwitch -> GPU) instead of the
     * per-GPU NVLink egress model (IntraHostRate / IntraHostLatency). Such a flow is a
     * connection like a network one (one message at a time per key, its class from the DSCP,
     * water-filled with every other flow on its links), moves its payload bytes (no Ethernet
     * framing), is delivered after its path's latency and is counted by GetIntraHostMessages()
     * (not by the MessageComplete trace). Messages from a GPU to itself keep the egress model.
     * \param resolver called with (key, 0) for keys with src.host == dst.host; returns the
     *        links as for SetPathResolver(); a null callback restores the egress model
     */
    void SetIntraHostPathResolver(PathResolver resolver);

    /// \return number of registered hosts
    uint32_t GetNHosts() const;
    /// \return number of GPUs of \p host (NS_FATAL_ERROR if not registered) \param host index
    uint32_t GetNGpus(uint32_t host) const;
    /// \return number of registered links
    uint32_t GetNLinks() const;
    /// \return capacity of link \p link (NS_FATAL_ERROR if out of range) \param link link id
    DataRate GetLinkRate(uint32_t link) const;
    /// \return propagation delay of link \p link (NS_FATAL_ERROR if out of range) \param link id
    Time GetLinkDelay(uint32_t link) const;

    /**
     * \brief Replace the DSCP → traffic class map (default: TC = DSCP >> 3).
     * \param map map[dscp] = traffic class; every entry must be < 8 (NS_FATAL_ERROR otherwise)
     */
    void SetDscpToTc(const std::array<uint8_t, 64>& map);

    /// \return the traffic class of \p dscp (0..63; NS_FATAL_ERROR otherwise) \param dscp DSCP
    uint8_t DscpToTc(uint8_t dscp) const;

    // ---------------------------------------------------------------- MessageTransport

    /**
     * \brief Start carrying one message (see the class description).
     * \param req what to send: req.bytes > 0, req.dscp <= 63 and both GPUs registered
     *        (NS_FATAL_ERROR naming the field otherwise); GPUs on different hosts need a path
     *        resolver returning a valid path (NS_FATAL_ERROR otherwise)
     * \param done invoked once, at the delivery of the last byte (may be null)
     */
    void Send(const MessageRequest& req, CompletionCallback done) override;

    // ---------------------------------------------------------------- paths / ports

    /**
     * \brief Fix the UDP source port (ECMP path) of a connection, as
     * RdmaTransport::SetQpSourcePort(). Applies from the next message of the connection that
     * becomes active (a message in transfer keeps its path).
     * \param key connection between GPUs of different hosts (NS_FATAL_ERROR otherwise)
     * \param port UDP source port (non-zero; NS_FATAL_ERROR otherwise)
     */
    void SetQpSourcePort(const RdmaQpKey& key, uint16_t port);

    /**
     * \brief The UDP source port the connection's next message will use.
     * \param key connection
     * \return the last non-zero request port or SetQpSourcePort() value, else
     *         RdmaTransport::DefaultSourcePort(key)
     */
    uint16_t GetQpSourcePort(const RdmaQpKey& key) const;

    /**
     * \brief The path the connection's next message would take (resolver at the current port).
     * \param key connection between GPUs of different hosts (NS_FATAL_ERROR otherwise, or if no
     *        resolver is set)
     * \return directed link ids, in travel order
     */
    std::vector<uint32_t> GetPath(const RdmaQpKey& key) const;

    // ---------------------------------------------------------------- model quantities

    /**
     * \brief Bytes a message occupies on the wire (see class description).
     * \param payload message bytes
     * \return W(payload): payload plus per-packet framing (payload itself if PacketPayload = 0)
     */
    uint64_t GetWireBytes(uint64_t payload) const;

    /**
     * \brief Latency added to the transfer of a message (alpha).
     * \param path directed link ids (registered; NS_FATAL_ERROR otherwise)
     * \param payload message bytes (sets the first packet's size)
     * \return sum of link delays + store-and-forward pipeline latency
     */
    Time GetPathLatency(const std::vector<uint32_t>& path, uint64_t payload) const;

    // ---------------------------------------------------------------- state and statistics

    /**
     * \brief Current rate of a connection's message in transfer.
     * \param key connection
     * \return rate in bit/s of wire bytes (0 if the connection is idle or starved); rates of
     *         messages posted at the current instant are computed at the end of the instant
     */
    double GetFlowRate(const RdmaQpKey& key) const;

    /// \return number of messages in transfer (active flows) now
    uint32_t GetNActiveFlows() const;

    /**
     * \brief Payload bytes carried by a link in one traffic class so far.
     * \param link link id (NS_FATAL_ERROR if out of range)
     * \param tc traffic class 0..7 (NS_FATAL_ERROR otherwise)
     * \return bytes of finished transfers (exact) + rate × time of transfers in progress
     *         (rounded down), at the current simulation time
     */
    uint64_t GetLinkBytes(uint32_t link, uint8_t tc) const;

    /// \return GetLinkBytes(link, tc) summed over the 8 traffic classes \param link link id
    uint64_t GetLinkBytes(uint32_t link) const;

    /// \return network (inter-host) messages delivered so far
    uint64_t GetDeliveredMessages() const;
    /// \return intra-host (NVLink) messages carried so far
    uint64_t GetIntraHostMessages() const;
    /// \return number of rate recomputations (water-filling runs) so far
    uint64_t GetRateComputations() const;

  protected:
    void DoDispose() override;

  private:
    /// One posted message.
    struct Message
    {
        MessageRequest req;      //!< the request
        CompletionCallback done; //!< completion callback
        Time posted;             //!< Send() time
    };

    /// One connection (queue pair) and, when busy, the flow state of its head message.
    struct Connection
    {
        RdmaQpKey key;              //!< connection key
        std::deque<Message> queue;  //!< messages whose transfer has not ended; front = active
        bool active{false};         //!< front message is in transfer
        std::vector<uint32_t> path; //!< links of the active message
        uint8_t tc{0};              //!< traffic class of the active message
        uint64_t wireBytes{0};      //!< W(B) of the active message
        double remaining{0};        //!< wire bytes still to transfer
        double rate{0};             //!< current rate, bit/s
        Time finishAt;              //!< projected transfer end at the current rate
        uint32_t flow{0};           //!< the active message's flow in m_filling
        /// (traffic class, path, flow in m_filling) of every (class, path) the connection's
        /// messages took so far: a message on one of them reuses its flow
        std::vector<std::tuple<uint8_t, std::vector<uint32_t>, uint32_t>> flows;
    };

    /// Check a link id. \param link id \param what caller, for messages
    void CheckLink(uint32_t link, const char* what) const;
    /// Resolve and validate the path of \p key at \p port. \param key key \param port port
    /// \return the path
    std::vector<uint32_t> ResolvePath(const RdmaQpKey& key, uint16_t port) const;
    /// Make the front message of \p c the active flow (rate 0 until the next Update).
    /// \param c connection with a non-empty queue
    void Activate(Connection* c);
    /// Ask for an Update() at the current instant (coalesced; with an UpdateQuantum at the
    /// next multiple of it).
    void RequestUpdate();
    /// \param t a time \return the first multiple of UpdateQuantum at or after t (> 0 quantum)
    Time OnGrid(Time t) const;
    /// Advance all flows to now, finish completed transfers, recompute rates, reschedule.
    void Update();
    /// Subtract rate × elapsed time from every active flow; set m_lastAdvance to now.
    void Advance();
    /// Rates of the active flows from m_filling (water filling per traffic class, TC 7 first;
    /// only the flows connected to a change are recomputed).
    void ComputeRates();
    /// Deliver a message (completion callback and trace).
    /// \param jobId job \param flowId flow \param bytes payload \param posted Send() time
    /// \param done callback
    void Deliver(uint32_t jobId,
                 uint32_t flowId,
                 uint64_t bytes,
                 Time posted,
                 CompletionCallback done);
    /// \return wire bytes of one packet of \p payload bytes \param payload packet payload
    uint64_t PacketWireBytes(uint64_t payload) const;

    // attributes
    DataRate m_intraRate;     //!< NVLink bandwidth per GPU egress
    Time m_intraLatency;      //!< NVLink latency
    uint32_t m_packetPayload; //!< payload bytes per packet (0 = fluid)
    uint32_t m_headerBytes;   //!< per-packet frame bytes besides the payload (incl. FCS)
    uint32_t m_ifgBytes;      //!< preamble + SFD + interframe gap bytes per packet
    bool m_storeAndForward;   //!< add the store-and-forward pipeline latency

    // topology
    std::vector<uint32_t> m_gpus;       //!< GPUs per host
    std::vector<DataRate> m_linkRate;   //!< [link] capacity
    std::vector<Time> m_linkDelay;      //!< [link] propagation delay
    PathResolver m_resolver;            //!< connection → path
    PathResolver m_intraResolver;       //!< intra-host connection → path (null: egress model)
    std::array<uint8_t, 64> m_dscpToTc; //!< DSCP → TC

    // state
    std::map<RdmaQpKey, Connection> m_conns;     //!< connections (node addresses are stable)
    std::map<RdmaQpKey, uint16_t> m_port;        //!< current UDP source port per key
    std::vector<Connection*> m_active;           //!< active flows, in activation order
    std::vector<std::vector<Time>> m_nvlinkBusy; //!< [host][gpu] NVLink egress busy until
    Time m_lastAdvance;                          //!< time the flows were last advanced
    EventId m_event;                             //!< next Update (completion or coalesced)
    bool m_updateNow{false};                     //!< m_event is a ScheduleNow update
    Time m_quantum;                              //!< UpdateQuantum (0 = exact)
    int64_t m_ticksPerSecond{0};                 //!< simulator time steps per second

    /// The rate allocation: strict priority between traffic classes (TC 7 = class 0), max-min
    /// inside one, the same progressive filling as FlowEvaluator's (one fluid core), updated
    /// incrementally: only the flows sharing a link, transitively, with a flow that started or
    /// ended are recomputed.
    PriorityWaterFilling m_filling{N_TC};
    std::vector<double> m_flowRate; //!< [flow of m_filling] rate, bit/s

    // statistics
    std::vector<std::array<uint64_t, N_TC>> m_linkBytes; //!< [link][tc] finished payload bytes
    uint64_t m_delivered{0};                             //!< network messages delivered
    uint64_t m_intraMessages{0};                         //!< intra-host messages
    uint64_t m_rateComputations{0};                      //!< water-filling runs

    TracedCallback<uint32_t, uint32_t, uint64_t, Time, Time> m_messageCompleteTrace; //!< delivery
};

} // namespace ns3

#endif // CRUX_FLOW_TRANSPORT_H
