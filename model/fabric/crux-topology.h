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

#ifndef CRUX_CRUX_TOPOLOGY_H
#define CRUX_CRUX_TOPOLOGY_H

#include "crux-switch.h"
#include "qbb-net-device.h"

#include "ns3/cluster-topology.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief A path through the fabric: directed link ids (CruxTopology::GetLink), from the source
 * NIC's uplink to the destination NIC's downlink.
 */
typedef std::vector<uint32_t> CruxPath;

/**
 * \ingroup crux
 * \brief One port of an RDMA NIC: its device and cable (a NIC of the double-sided topology has
 * two, one to each ToR of its host's pair).
 */
struct CruxNicPortInfo
{
    Ptr<QbbNetDevice> device; //!< the port's device (on the host node)
    uint32_t tor{0};          //!< switch index of the switch this port is cabled to
    uint32_t uplink{0};       //!< directed link id port → switch
    uint32_t downlink{0};     //!< directed link id switch → port
};

/**
 * \ingroup crux
 * \brief One RDMA NIC of a host: its IPv4 address and ports (device, attachment). The fields
 * device, tor, uplink and downlink are those of port 0 (the only port of a single-port NIC).
 */
struct CruxNicInfo
{
    Ptr<QbbNetDevice> device; //!< port 0's device (on the host node)
    Ipv4Address address;      //!< 0x0A000000 | (host << 8) | (nic + 1) (see addressing rules)
    uint32_t tor{0};          //!< switch index of the switch port 0 is cabled to
    uint32_t uplink{0};       //!< directed link id port 0 → switch
    uint32_t downlink{0};     //!< directed link id switch → port 0
    std::vector<CruxNicPortInfo> ports; //!< every port, port 0 first (one address for all)
};

/**
 * \ingroup crux
 * \brief One host (server): node, GPUs and NICs.
 */
struct CruxHostInfo
{
    uint32_t index{0};             //!< host index, 0-based
    Ptr<Node> node;                //!< the ns-3 node
    uint32_t gpus{0};              //!< GPUs in this host
    std::vector<CruxNicInfo> nics; //!< NICs, indexed by NIC number
};

/**
 * \ingroup crux
 * \brief Layer of a switch in the fabric.
 */
enum class CruxSwitchLayer : uint8_t
{
    TOR = 0, //!< top-of-rack / leaf: hosts attach here
    AGG = 1, //!< aggregation / spine
    CORE = 2 //!< core (three-layer fabrics)
};

/**
 * \ingroup crux
 * \brief One switch: node, forwarding object, layer.
 */
struct CruxSwitchInfo
{
    uint32_t index{0};                           //!< switch index, 0-based
    Ptr<Node> node;                              //!< the ns-3 node (CruxSwitch aggregated)
    Ptr<CruxSwitch> sw;                          //!< the forwarding object
    CruxSwitchLayer layer{CruxSwitchLayer::TOR}; //!< layer
    uint32_t layerIndex{0};                      //!< index within its layer (ToR 0, 1, ...)
};

/**
 * \ingroup crux
 * \brief End of a directed link: a host NIC or a switch port.
 */
struct CruxEndpoint
{
    bool isHost{false}; //!< true: host NIC; false: switch port
    uint32_t index{0};  //!< host index or switch index
    uint32_t port{0};   //!< NIC index (host) or port index (switch)

    /// \return true if equal \param o other
    bool operator==(const CruxEndpoint& o) const
    {
        return isHost == o.isHost && index == o.index && port == o.port;
    }
};

/**
 * \ingroup crux
 * \brief One direction of a full-duplex cable. Cable k is links 2k (a→b) and 2k+1 (b→a).
 */
struct CruxLinkInfo
{
    uint32_t id{0};          //!< directed link id
    Ptr<QbbNetDevice> txDev; //!< transmitting device
    Ptr<QbbNetDevice> rxDev; //!< receiving device
    Ptr<Node> fromNode;      //!< node of txDev
    Ptr<Node> toNode;        //!< node of rxDev
    CruxEndpoint from;       //!< transmitting end
    CruxEndpoint to;         //!< receiving end
    DataRate rate;           //!< line rate (bit/s)
    Time delay;              //!< one-way propagation delay
};

/**
 * \ingroup crux
 * \brief The packet fabric built from a cluster description: the ns-3 nodes, QbbNetDevices and
 * CruxSwitches of every host, switch and directed link of a ClusterTopology, their addressing,
 * and the path services that need the built switches (ECMP prediction by the switches' own
 * hash, UDP source-port steering, pinned routes).
 *
 * Built by CruxTopologyHelper::Install() from a ClusterTopology (one device pair per cable, in
 * the description's link order, so link ids, host, NIC and switch indices are the
 * description's: switch index s = description node NumHosts() + s). The equal-cost paths and
 * the switches' ECMP groups come from the description (EqualCostNicPaths(),
 * ShortestPathHops()): the topology and its path search exist once. Addressing convention:
 * NIC n of host h has address 10.(h>>8).(h&255).(n+1); GPU g of a host with G GPUs and N NICs
 * uses NIC floor(g·N/G).
 */
class CruxTopology : public Object
{
  public:
    /// Lowest UDP source port used for ECMP steering (IANA dynamic range).
    static constexpr uint16_t MIN_STEERING_PORT = crux::MIN_DYNAMIC_UDP_PORT;
    /// RoCEv2 UDP destination port.
    static constexpr uint16_t ROCEV2_PORT = crux::ROCEV2_UDP_PORT;

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CruxTopology();
    ~CruxTopology() override;

    // ---------------------------------------------------------------- construction (helpers)

    /**
     * \brief Register a host (indices are assigned 0, 1, ... in call order).
     * \param node its node
     * \param gpus number of GPUs (> 0)
     * \return host index
     */
    uint32_t AddHost(Ptr<Node> node, uint32_t gpus);

    /**
     * \brief Register a switch.
     * \param node its node (with \p sw aggregated)
     * \param sw forwarding object
     * \param layer layer
     * \return switch index
     */
    uint32_t AddSwitch(Ptr<Node> node, Ptr<CruxSwitch> sw, CruxSwitchLayer layer);

    /**
     * \brief Register a cable between a host NIC and a switch port. The NIC gets the next NIC
     * number of the host and its conventional address.
     * \param host host index
     * \param nicDev NIC device (already attached to the cable's channel)
     * \param sw switch index
     * \param swPort port index of the cable's device on the switch
     * \param rate line rate
     * \param delay one-way propagation delay
     * \return the NIC number
     */
    uint32_t AddHostLink(uint32_t host,
                         Ptr<QbbNetDevice> nicDev,
                         uint32_t sw,
                         uint32_t swPort,
                         DataRate rate,
                         Time delay);

    /**
     * \brief Register a cable between a further port of an existing NIC and a switch port (a
     * NIC with several ports, e.g. the double-sided topology's two ports per NIC). The port gets
     * the next port number of the NIC; the NIC keeps its one address.
     * \param host host index
     * \param nic NIC index of the host (already added by AddHostLink())
     * \param portDev the port's device (already attached to the cable's channel)
     * \param sw switch index \param swPort port index of the cable's device on the switch
     * \param rate line rate \param delay one-way propagation delay
     * \return the port number within the NIC (>= 1)
     */
    uint32_t AddNicPort(uint32_t host,
                        uint32_t nic,
                        Ptr<QbbNetDevice> portDev,
                        uint32_t sw,
                        uint32_t swPort,
                        DataRate rate,
                        Time delay);

    /**
     * \brief Register a cable between two switch ports.
     * \param a switch index of end a \param aPort port index on a
     * \param b switch index of end b \param bPort port index on b
     * \param rate line rate \param delay one-way propagation delay
     * \return id of the directed link a → b (b → a is id + 1)
     */
    uint32_t AddSwitchLink(uint32_t a,
                           uint32_t aPort,
                           uint32_t b,
                           uint32_t bPort,
                           DataRate rate,
                           Time delay);

    /**
     * \brief Set the cluster description the devices are (being) built from; called by
     * CruxTopologyHelper::Install() before the Add* calls.
     * \param desc the description (copied)
     */
    void SetDescription(const ClusterTopology& desc);

    /// \return the cluster description this fabric was built from
    const ClusterTopology& GetDescription() const;

    /**
     * \brief Program every switch's destination table with its equal-cost egress ports towards
     * every NIC address (the description's shortest-path hop counts, in port order). Call after
     * the last Add*; NS_FATAL_ERROR if the devices do not match the description.
     */
    void Finalize();

    // ---------------------------------------------------------------- structure

    /// \return number of hosts
    uint32_t GetNHosts() const;
    /// \return host \p h (NS_FATAL_ERROR if out of range) \param h host index
    const CruxHostInfo& GetHost(uint32_t h) const;
    /// \return number of switches
    uint32_t GetNSwitches() const;
    /// \return switch \p s (NS_FATAL_ERROR if out of range) \param s switch index
    const CruxSwitchInfo& GetSwitch(uint32_t s) const;
    /// \return switch indices of the given layer, ascending \param layer layer
    std::vector<uint32_t> GetSwitchesInLayer(CruxSwitchLayer layer) const;
    /// \return number of directed links
    uint32_t GetNLinks() const;
    /// \return directed link \p id (NS_FATAL_ERROR if out of range) \param id link id
    const CruxLinkInfo& GetLink(uint32_t id) const;
    /// \return the id of the opposite direction of link \p id \param id link id
    uint32_t GetReverseLink(uint32_t id) const;

    /**
     * \brief The directed link leaving \p node through \p dev.
     * \param node the transmitting node \param dev one of its devices
     * \return the link id; NS_FATAL_ERROR if \p dev is not a fabric device of \p node
     */
    uint32_t GetLinkId(Ptr<Node> node, Ptr<NetDevice> dev) const;

    /**
     * \brief Non-fatal lookup of the directed link transmitted by \p dev.
     * \param dev a device
     * \return the link id, or nullopt
     */
    std::optional<uint32_t> FindLinkByTxDevice(Ptr<const NetDevice> dev) const;

    /// \return the directed link out of switch \p sw's port \p port \param sw switch \param port
    /// port
    uint32_t GetSwitchPortLink(uint32_t sw, uint32_t port) const;

    // ---------------------------------------------------------------- addressing

    /// \return the conventional address of NIC \p nic of host \p host (no range check)
    /// \param host host index \param nic NIC index
    static Ipv4Address MakeNicAddress(uint32_t host, uint32_t nic);

    /// \return the address of NIC \p nic of host \p host (range-checked)
    /// \param host host index \param nic NIC index
    Ipv4Address GetNicAddress(uint32_t host, uint32_t nic) const;

    /// \return the NIC used by GPU \p gpu of host \p host: floor(gpu × N / G)
    /// \param host host index \param gpu local GPU index (< G; NS_FATAL_ERROR otherwise)
    uint32_t GpuToNic(uint32_t host, uint32_t gpu) const;

    /**
     * \brief Reverse address lookup.
     * \param addr an IPv4 address
     * \return (host, nic) or nullopt if no NIC has this address
     */
    std::optional<std::pair<uint32_t, uint32_t>> FindNic(Ipv4Address addr) const;

    // ---------------------------------------------------------------- paths

    /**
     * \brief The port of the source NIC a flow leaves on: the port of a pinned route of
     * \p tuple (InstallPinnedRoute(): the path's first link), else the NIC's ECMP choice over
     * its ports, EcmpHash(tuple, NicPortHashSeed) mod ports (CruxSwitch::EcmpHash, the switches'
     * hash with the attribute "NicPortHashSeed"), as a bonded dual-port NIC hashes the 5-tuple.
     * Source-port steering therefore picks the first link as it picks the switch hops. 0 for a
     * single-port NIC. RdmaNic asks this (RdmaNic::SetPortSelector()) for every queue pair.
     * \param tuple flow key; srcIp must be a NIC address (NS_FATAL_ERROR otherwise)
     * \return the port index of the source NIC
     */
    uint32_t SelectNicPort(const FiveTuple& tuple) const;

    /**
     * \brief All shortest (hop-count) paths between two NICs, in a deterministic order: the
     * description's ClusterTopology::EqualCostNicPaths() without a cap.
     * \param srcHost source host \param srcNic source NIC
     * \param dstHost destination host \param dstNic destination NIC
     * \return the paths (each: uplink, switch-to-switch links, downlink); empty if unreachable;
     *         NS_FATAL_ERROR if the two NICs are the same or out of range
     */
    std::vector<CruxPath> GetEqualCostPaths(uint32_t srcHost,
                                            uint32_t srcNic,
                                            uint32_t dstHost,
                                            uint32_t dstNic) const;

    /**
     * \brief The path the switches' ECMP hashes give \p tuple (pinned routes ignored).
     * \param tuple flow key; srcIp/dstIp must be NIC addresses (NS_FATAL_ERROR otherwise)
     * \return the path; empty if some switch has no route
     */
    CruxPath PredictEcmpPath(const FiveTuple& tuple) const;

    /**
     * \brief The path \p tuple actually takes: pinned routes first, then ECMP, as the switches
     * forward it.
     * \param tuple flow key (NIC addresses)
     * \return the path; empty if some switch has no route
     */
    CruxPath PredictPath(const FiveTuple& tuple) const;

    /**
     * \brief Find a RoCEv2 UDP source port (dst port 4791, protocol 17) whose forwarding path
     * (PredictPath) is \p wantedPath. Ports are tried deterministically: basePort, basePort+1, …,
     * 65535, then 49152 … basePort−1.
     * \param srcIp source NIC address \param dstIp destination NIC address
     * \param wantedPath the wanted path (e.g. one of GetEqualCostPaths)
     * \param basePort first port tried (values below 49152 are raised to 49152)
     * \return the port; NS_FATAL_ERROR if no port in [49152, 65535] gives that path
     */
    uint16_t FindUdpSourcePort(Ipv4Address srcIp,
                               Ipv4Address dstIp,
                               const CruxPath& wantedPath,
                               uint16_t basePort = MIN_STEERING_PORT) const;

    /**
     * \brief As FindUdpSourcePort() but returns nullopt instead of failing.
     * \param srcIp source NIC address \param dstIp destination NIC address
     * \param wantedPath the wanted path \param basePort first port tried
     * \return the port or nullopt
     */
    std::optional<uint16_t> TryFindUdpSourcePort(Ipv4Address srcIp,
                                                 Ipv4Address dstIp,
                                                 const CruxPath& wantedPath,
                                                 uint16_t basePort = MIN_STEERING_PORT) const;

    /**
     * \brief Pin \p tuple to \p path on every switch along it.
     * \param tuple flow key (srcIp/dstIp: the NICs at the path's ends)
     * \param path contiguous path from tuple.srcIp's uplink to tuple.dstIp's downlink
     *        (NS_FATAL_ERROR naming the offending hop otherwise)
     */
    void InstallPinnedRoute(const FiveTuple& tuple, const CruxPath& path);

    /// \brief Remove the pinned routes of \p tuple from every switch. \param tuple flow key
    void RemovePinnedRoute(const FiveTuple& tuple);

    /// \return "l0 l5 l12" style rendering of a path, for messages \param path path
    static std::string PathToString(const CruxPath& path);

    /**
     * \brief The time a data frame needs to cross \p path and its acknowledgment to come back,
     * without queueing: per link 2 × propagation delay, the data frame's wire time at the
     * link's rate (store-and-forward), the ACK frame's wire time on the reverse link, and the
     * ingress latency (a switch's ForwardingLatency) of the receiving device of both
     * directions. Wire time = (max(frame + 4, 64) + InterframeGapBytes) × 8 / rate.
     * \param path a path (directed link ids)
     * \param dataFrameBytes data frame, Ethernet header included, FCS excluded
     * \param ackFrameBytes ACK frame, likewise
     * \return the base RTT
     */
    Time GetBaseRtt(const CruxPath& path, uint32_t dataFrameBytes, uint32_t ackFrameBytes) const;

    /**
     * \brief The largest GetBaseRtt() over the fabric: over every pair of NICs (one pair per
     * pair of attachment switches), its first equal-cost path. HPCC's T (the HPCC simulator
     * likewise takes the largest base RTT of the topology).
     * \param dataFrameBytes data frame, Ethernet header included, FCS excluded
     * \param ackFrameBytes ACK frame, likewise
     * \return the base RTT; 0 if the fabric has fewer than two NICs
     */
    Time GetMaxBaseRtt(uint32_t dataFrameBytes, uint32_t ackFrameBytes) const;

  protected:
    void DoDispose() override;

  private:
    /// \return path following the switches' decisions \param t tuple \param pinned use pins
    CruxPath FollowPath(const FiveTuple& t, bool pinned) const;
    /// \return the source NIC's port of \p t (see SelectNicPort()) \param t tuple
    /// \param nic the source NIC \param pinned use pinned routes
    uint32_t NicPort(const FiveTuple& t, const CruxNicInfo& nic, bool pinned) const;
    /// Check that Finalize() ran.
    void CheckFinalized(const char* what) const;

    std::vector<CruxHostInfo> m_hosts;               //!< hosts
    std::vector<CruxSwitchInfo> m_switches;          //!< switches
    std::vector<CruxLinkInfo> m_links;               //!< directed links
    std::vector<std::vector<uint32_t>> m_swPortLink; //!< [switch][port] → outgoing link id
    std::unordered_map<const NetDevice*, uint32_t> m_txDevLink; //!< tx device → link id
    std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> m_addrNic; //!< addr → (h, n)
    std::unordered_map<FiveTuple, uint32_t, FiveTupleHasher> m_nicPinned;  //!< tuple → NIC port
    uint32_t m_nicPortSeed;  //!< attribute NicPortHashSeed
    ClusterTopology m_desc;  //!< the cluster description the devices were built from
    bool m_finalized{false}; //!< Finalize() done
};

} // namespace ns3

#endif // CRUX_CRUX_TOPOLOGY_H
