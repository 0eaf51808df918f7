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

#ifndef CRUX_CRUX_SWITCH_H
#define CRUX_CRUX_SWITCH_H

#include "qbb-net-device.h"
#include "switch-mmu.h"

#include "ns3/address.h"
#include "ns3/five-tuple.h"
#include "ns3/ipv4-address.h"
#include "ns3/object.h"
#include "ns3/roce-constants.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Output-queued Ethernet/IPv4 switch with ECMP, pinned per-flow routes and a shared-buffer
 * MMU with IEEE 802.1Qbb PFC; aggregated to an ordinary ns-3 Node (no patched ns-3 classes).
 *
 * Ports are QbbNetDevices added with AddPort(); the switch installs itself as each port's
 * FrameHandler (arrivals) and DequeueHandler (buffer release). Forwarding of an IPv4 frame:
 *  1. the pinned route table (exact FiveTuple → egress port) is consulted first;
 *  2. otherwise the destination-IP table (dst address → list of equal-cost egress ports, filled
 *     by the topology helper) gives n candidate ports and ECMP picks
 *     `ports[EcmpHash(tuple) mod n]`.
 * The egress traffic class is the egress device's DscpToClass(DSCP) (a traffic class 0..7, or
 * the control class of ACK/NAK/CNP frames); the ingress traffic class (the PFC priority the
 * frame was sent with) is the ingress device's. The frame is then offered to the SwitchMmu,
 * which admits it (possibly sending PFC PAUSE upstream) or drops it, and handed to the egress
 * device with QbbNetDevice::SendInTc(); RoCEv2 packets whose BTH carries the INT flag are
 * enqueued with stampInt, so that the egress port pushes an HPCC telemetry hop at dequeue.
 *
 * Forwarding latency: "ForwardingLatency" (default 300 ns, NVIDIA Spectrum-2's port-to-port
 * latency) passes between a frame's arrival and its admission; it is set on every port device
 * (QbbNetDevice::SetIngressLatency, no event of its own) and counted in the MMU's headroom.
 *
 * Per-frame cost: one copy of the first 40 header bytes (IPv4 header without options, UDP, BTH)
 * out of the packet buffer, one hash-table lookup, one CRC over 17 bytes; no header object is
 * deserialized and nothing is allocated (except with DecrementTtl and INT stamping).
 *
 * Every dropped frame is reported on the "Drop" trace with a reason and counted per reason:
 * "no-route", "buffer-full", "pfc-headroom-exceeded", "ttl", "egress-refused" (the egress device
 * refused the frame: its own "Drop" trace gives why, e.g. "egress-queue-full"), "not-ipv4".
 */
class CruxSwitch : public Object, public QbbNetDevice::Owner
{
  public:
    /// Most ports a switch can have (port numbers are 16-bit in the forwarding tables).
    static constexpr uint32_t MAX_PORTS = 0xffff;

    /// Reasons for dropping a frame (index into the per-reason counters).
    enum DropReason : uint8_t
    {
        DROP_NO_ROUTE = 0,          //!< "no-route": no pinned route and no route to the dst IP
        DROP_BUFFER_FULL,           //!< "buffer-full": lossy admission failed (shared buffer)
        DROP_PFC_HEADROOM_EXCEEDED, //!< "pfc-headroom-exceeded": lossless headroom overflow
        DROP_TTL,                   //!< "ttl": TTL 0 on arrival, or 1 with DecrementTtl
        DROP_EGRESS_REFUSED,        //!< "egress-refused": egress device refused the frame
        DROP_NOT_IPV4,              //!< "not-ipv4": not EtherType 0x0800 or truncated header
        DROP_REASON_COUNT           //!< number of reasons
    };

    /**
     * Signature of the "Drop" trace source.
     * \param p the dropped packet (starting at the IPv4 header)
     * \param port ingress port index of the frame
     * \param tc traffic class (egress TC when known, else the ingress TC)
     * \param reason one of the reason strings listed in the class description
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> p,
                                       uint32_t port,
                                       uint8_t tc,
                                       const std::string& reason);

    /**
     * Signature of the "Forward" trace source (frame admitted and handed to the egress port).
     * \param p the packet (starting at the IPv4 header)
     * \param inPort ingress port index
     * \param outPort egress port index
     * \param tc egress traffic class
     */
    typedef void (*ForwardTracedCallback)(Ptr<const Packet> p,
                                          uint32_t inPort,
                                          uint32_t outPort,
                                          uint8_t tc);

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CruxSwitch();
    ~CruxSwitch() override;

    /**
     * \brief Add a port. The device must already be installed on the Node this switch is
     * aggregated to; its FrameHandler and DequeueHandler are replaced by this switch's.
     * \param dev the port device (non-null; NS_FATAL_ERROR otherwise)
     * \return the port index (0, 1, ... in order of addition)
     */
    uint32_t AddPort(Ptr<QbbNetDevice> dev);

    /// \return the number of ports
    uint32_t GetNPorts() const;

    /// \return the device of port \p port (NS_FATAL_ERROR if out of range) \param port index
    Ptr<QbbNetDevice> GetPort(uint32_t port) const;

    /// \return the port index of \p dev, or -1 if it is not a port of this switch \param dev device
    int32_t GetPortIndex(Ptr<const NetDevice> dev) const;

    /**
     * \brief Set (replace) the equal-cost egress ports for one destination address.
     * \param dst destination IPv4 address (host route, exact match)
     * \param ports egress port indices, in the order ECMP indexes them (non-empty, each
     *        < GetNPorts(); NS_FATAL_ERROR otherwise)
     */
    void SetRoute(Ipv4Address dst, const std::vector<uint32_t>& ports);

    /// \brief Remove every destination route.
    void ClearRoutes();

    /// \return the equal-cost egress ports for \p dst (empty if none) \param dst destination
    std::vector<uint32_t> GetRoute(Ipv4Address dst) const;

    /// \return number of destination routes installed
    uint32_t GetNRoutes() const;

    /**
     * \brief Pin one flow to an egress port; overrides the destination route and ECMP.
     * \param tuple exact flow key
     * \param port egress port index (< GetNPorts(); NS_FATAL_ERROR otherwise)
     */
    void AddPinnedRoute(const FiveTuple& tuple, uint32_t port);

    /// \return true if a pinned route for \p tuple existed and was removed \param tuple flow key
    bool RemovePinnedRoute(const FiveTuple& tuple);

    /// \brief Remove every pinned route.
    void ClearPinnedRoutes();

    /// \return the number of pinned routes
    uint32_t GetNPinnedRoutes() const;

    /**
     * \brief The ECMP hash of this switch (uses attribute "EcmpSeed"); see the static overload.
     * \param tuple flow key
     * \return 32-bit hash; ECMP picks port index hash mod (number of equal-cost ports)
     */
    uint32_t EcmpHash(const FiveTuple& tuple) const;

    /**
     * \brief The ECMP hash function.
     *
     * CRC-32 (IEEE 802.3 polynomial 0x04C11DB7, reflected, boost::crc_32_type) over the 17 bytes
     * seed(4) | srcIp(4) | dstIp(4) | protocol(1) | srcPort(2) | dstPort(2), each field in network
     * byte order, followed by the MurmurHash3 32-bit finaliser (fmix32) so that the low-order
     * bits used by "mod n" depend non-linearly on both the seed and every tuple bit (a bare CRC is
     * linear, so two seeds would only permute the choices of all flows the same way).
     * \param tuple flow key
     * \param seed per-switch seed (switches with different seeds decorrelate their choices)
     * \return 32-bit hash
     */
    static uint32_t EcmpHash(const FiveTuple& tuple, uint32_t seed);

    /**
     * \brief The egress port this switch uses for \p tuple: pinned route, else ECMP over the
     * destination route.
     * \param tuple flow key
     * \return port index, or -1 if there is no route
     */
    int32_t SelectEgressPort(const FiveTuple& tuple) const;

    /**
     * \brief The egress port ECMP alone would choose for \p tuple (pinned routes ignored).
     * \param tuple flow key
     * \return port index, or -1 if there is no route to tuple.dstIp
     */
    int32_t SelectEcmpPort(const FiveTuple& tuple) const;

    /// \return the shared-buffer MMU of this switch
    Ptr<SwitchMmu> GetMmu() const;

    /// \param latency forwarding latency (attribute "ForwardingLatency"); applied to every
    /// port, present and future, and to the MMU's headroom
    void SetForwardingLatency(Time latency);
    /// \return the forwarding latency
    Time GetForwardingLatency() const;

    /// \return the reason string of \p reason ("no-route", ...) \param reason enum value
    static const std::string& GetDropReasonName(DropReason reason);

    /**
     * \param reason a reason string as traced ("no-route", "buffer-full", ...)
     * \return frames dropped for that reason so far (0 for an unknown string)
     */
    uint64_t GetDropCount(const std::string& reason) const;

    /// \return frames dropped for \p reason so far \param reason enum value
    uint64_t GetDropCount(DropReason reason) const;

    /// \return every reason string with its drop count (all reasons listed, zeros included)
    std::map<std::string, uint64_t> GetDropCounts() const;

    /// \return total frames dropped (all reasons)
    uint64_t GetTotalDrops() const;

    /// \return frames received on all ports (PAUSE frames excluded: the device consumes them)
    uint64_t GetRxFrames() const;

    /// \return frames admitted and handed to an egress device
    uint64_t GetForwardedFrames() const;

  protected:
    void DoDispose() override;

  private:
    /// Frame arrival on port \p port (the device's Owner, port given at AddPort()).
    void DeviceReceive(uint32_t port,
                       QbbNetDevice* dev,
                       Ptr<Packet> p,
                       uint16_t etherType) override;
    /// Frame leaving port \p port's TC queue (the device's Owner).
    void DeviceDequeue(uint32_t port, QbbNetDevice* dev, const Ptr<Packet>& p, uint8_t tc) override;
    /// Trace and count one drop.
    void DoDrop(Ptr<const Packet> p, uint32_t port, uint8_t tc, DropReason reason);
    /// \return the route group index for \p dst, or -1
    int32_t FindRouteGroup(uint32_t dst) const;
    /// ECMP choice given a group index
    uint32_t EcmpChoose(int32_t group, const FiveTuple& t) const;
    /// \return destination MAC used on port \p port (the link peer's address, or broadcast)
    Mac48Address GetPeerAddress(uint32_t port);

    std::vector<Ptr<QbbNetDevice>> m_ports;              //!< port devices by index
    std::vector<Mac48Address> m_peerAddr;                //!< link peer MAC per port (once known)
    std::vector<bool> m_peerAddrKnown;                   //!< m_peerAddr[port] resolved
    std::unordered_map<uint32_t, uint32_t> m_routeIndex; //!< dst IPv4 (host order) → group
    /// The per-frame lookup of m_routeIndex: open addressing, linear probing, a power-of-two
    /// number of (address, group) slots (group -1 = empty), rebuilt when the routes changed
    mutable std::vector<std::pair<uint32_t, int32_t>> m_routeTable;
    mutable uint32_t m_routeTableShift{32}; //!< 32 − log2(number of slots)
    mutable bool m_routeTableStale{true};   //!< m_routeIndex changed since the last build
    /// Rebuild m_routeTable from m_routeIndex.
    void BuildRouteTable() const;
    std::vector<std::vector<uint32_t>> m_routeGroups;                  //!< equal-cost port lists
    std::unordered_map<FiveTuple, uint32_t, FiveTupleHasher> m_pinned; //!< tuple → port
    Ptr<SwitchMmu> m_mmu;                                              //!< shared-buffer MMU
    uint32_t m_ecmpSeed{0};                                            //!< attribute EcmpSeed
    bool m_decrementTtl{false};                                        //!< attribute DecrementTtl
    uint32_t m_ethOverhead{18};                            //!< attribute FrameOverheadBytes
    Time m_forwardingLatency{NanoSeconds(300)};            //!< attribute ForwardingLatency
    std::array<uint64_t, DROP_REASON_COUNT> m_dropCount{}; //!< drops per reason
    uint64_t m_rxFrames{0};                                //!< frames received
    uint64_t m_fwdFrames{0};                               //!< frames forwarded
    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t, const std::string&> m_dropTrace; //!< Drop
    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t, uint8_t> m_forwardTrace; //!< Forward
};

} // namespace ns3

#endif // CRUX_CRUX_SWITCH_H
