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

#include "crux-switch.h"

#include "qbb-channel.h"

#include "ns3/boolean.h"
#include "ns3/crux-compat.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/uinteger.h"

#include <boost/crc.hpp>
#include <ostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxSwitch");

NS_OBJECT_ENSURE_REGISTERED(CruxSwitch);

// ------------------------------------------------------------------------------ CruxSwitch

namespace
{
/// Reason strings, indexed by CruxSwitch::DropReason.
const std::string g_dropReasonNames[CruxSwitch::DROP_REASON_COUNT] =
    {"no-route", "buffer-full", "pfc-headroom-exceeded", "ttl", "egress-refused", "not-ipv4"};

/// IPv4 EtherType.
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;

/// \return big-endian 32-bit value at \p b
inline uint32_t
ReadBe32(const uint8_t* b)
{
    return (static_cast<uint32_t>(b[0]) << 24) | (static_cast<uint32_t>(b[1]) << 16) |
           (static_cast<uint32_t>(b[2]) << 8) | b[3];
}

/// MurmurHash3 32-bit finaliser.
inline uint32_t
Fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bU;
    h ^= h >> 13;
    h *= 0xc2b2ae35U;
    h ^= h >> 16;
    return h;
}
} // namespace

TypeId
CruxSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CruxSwitch")
            .SetParent<Object>()
            .SetGroupName("Crux")
            .AddConstructor<CruxSwitch>()
            .AddAttribute("EcmpSeed",
                          "Per-switch seed of the ECMP hash (see CruxSwitch::EcmpHash).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CruxSwitch::m_ecmpSeed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DecrementTtl",
                          "Decrement the IPv4 TTL of forwarded frames (and drop at TTL 1). Costs "
                          "an IPv4 header re-serialization per frame; off by default (frames "
                          "arriving with TTL 0 are dropped either way).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&CruxSwitch::m_decrementTtl),
                          MakeBooleanChecker())
            .AddAttribute("FrameOverheadBytes",
                          "Bytes added to the L3 size of a frame when charging the buffer "
                          "(Ethernet header 14 + FCS 4).",
                          UintegerValue(18),
                          MakeUintegerAccessor(&CruxSwitch::m_ethOverhead),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ForwardingLatency",
                          "Time a frame spends in the switch's forwarding pipeline between its "
                          "arrival and its admission to the egress queue (added to the "
                          "propagation delay of frames towards the switch's ports; PAUSE frames "
                          "are exempt). Default 300 ns: the port-to-port latency of NVIDIA "
                          "Spectrum-2 (Linley Newsletter, 2017; Broadcom's Tomahawk Ultra is "
                          "quoted at 250 ns). Counted in the PFC headroom.",
                          TimeValue(NanoSeconds(300)),
                          MakeTimeAccessor(&CruxSwitch::SetForwardingLatency,
                                           &CruxSwitch::GetForwardingLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Mmu",
                          "The shared-buffer MMU of this switch.",
                          PointerValue(),
                          MakePointerAccessor(&CruxSwitch::m_mmu),
                          MakePointerChecker<SwitchMmu>())
            .AddTraceSource("Drop",
                            "A frame was dropped: (packet, ingress port, TC, reason).",
                            MakeTraceSourceAccessor(&CruxSwitch::m_dropTrace),
                            "ns3::CruxSwitch::DropTracedCallback")
            .AddTraceSource("Forward",
                            "A frame was admitted and handed to its egress port: (packet, "
                            "ingress port, egress port, egress TC).",
                            MakeTraceSourceAccessor(&CruxSwitch::m_forwardTrace),
                            "ns3::CruxSwitch::ForwardTracedCallback");
    return tid;
}

CruxSwitch::CruxSwitch()
{
    NS_LOG_FUNCTION(this);
    m_mmu = CreateObject<SwitchMmu>();
    m_mmu->SetForwardingLatency(m_forwardingLatency);
}

CruxSwitch::~CruxSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
CruxSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& dev : m_ports)
    {
        dev->SetOwner(nullptr, 0, nullptr);
    }
    m_ports.clear();
    m_pinned.clear();
    m_routeIndex.clear();
    m_routeTableStale = true;
    m_routeGroups.clear();
    if (m_mmu)
    {
        m_mmu->Dispose();
        m_mmu = nullptr;
    }
    Object::DoDispose();
}

uint32_t
CruxSwitch::AddPort(Ptr<QbbNetDevice> dev)
{
    NS_LOG_FUNCTION(this << dev);
    if (!dev)
    {
        NS_FATAL_ERROR("CruxSwitch::AddPort: null device");
    }
    if (m_ports.size() >= MAX_PORTS)
    {
        NS_FATAL_ERROR("CruxSwitch::AddPort: too many ports (max 65535)");
    }
    const auto port = static_cast<uint32_t>(m_ports.size());
    m_ports.push_back(dev);
    m_peerAddr.emplace_back();
    m_peerAddrKnown.push_back(false);
    const uint32_t mmuPort = m_mmu->AddPort(dev);
    if (mmuPort != port)
    {
        NS_FATAL_ERROR("CruxSwitch::AddPort: the MMU has ports not added through this switch");
    }
    dev->SetIngressLatency(m_forwardingLatency);
    m_mmu->SetForwardingLatency(m_forwardingLatency);
    if (port == 0 && dev->GetNode())
    {
        m_mmu->SetName("switch node " + std::to_string(dev->GetNode()->GetId()));
    }
    // The switch holds its ports, not the reverse (DoDispose() clears the owner).
    dev->SetOwner(this, port, nullptr);
    return port;
}

void
CruxSwitch::SetForwardingLatency(Time latency)
{
    m_forwardingLatency = latency;
    for (auto& dev : m_ports)
    {
        dev->SetIngressLatency(latency);
    }
    if (m_mmu)
    {
        m_mmu->SetForwardingLatency(latency);
    }
}

Time
CruxSwitch::GetForwardingLatency() const
{
    return m_forwardingLatency;
}

uint32_t
CruxSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<QbbNetDevice>
CruxSwitch::GetPort(uint32_t port) const
{
    if (port >= m_ports.size())
    {
        NS_FATAL_ERROR("CruxSwitch::GetPort: port " << port << " >= " << m_ports.size());
    }
    return m_ports[port];
}

int32_t
CruxSwitch::GetPortIndex(Ptr<const NetDevice> dev) const
{
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        if (PeekPointer(m_ports[i]) == PeekPointer(dev))
        {
            return static_cast<int32_t>(i);
        }
    }
    return -1;
}

void
CruxSwitch::SetRoute(Ipv4Address dst, const std::vector<uint32_t>& ports)
{
    NS_LOG_FUNCTION(this << dst << ports.size());
    if (ports.empty())
    {
        NS_FATAL_ERROR("CruxSwitch::SetRoute(" << dst << "): empty port list");
    }
    for (uint32_t p : ports)
    {
        if (p >= m_ports.size())
        {
            NS_FATAL_ERROR("CruxSwitch::SetRoute(" << dst << "): port " << p
                                                   << " >= " << m_ports.size());
        }
    }
    auto it = m_routeIndex.find(dst.Get());
    if (it != m_routeIndex.end())
    {
        m_routeGroups[it->second] = ports;
        return;
    }
    // Share identical port lists between destinations (all hosts behind the same uplinks).
    for (uint32_t g = 0; g < m_routeGroups.size(); ++g)
    {
        if (m_routeGroups[g] == ports)
        {
            m_routeIndex[dst.Get()] = g;
            m_routeTableStale = true;
            return;
        }
    }
    m_routeGroups.push_back(ports);
    m_routeIndex[dst.Get()] = static_cast<uint32_t>(m_routeGroups.size() - 1);
    m_routeTableStale = true;
}

void
CruxSwitch::ClearRoutes()
{
    m_routeIndex.clear();
    m_routeTableStale = true;
    m_routeGroups.clear();
}

std::vector<uint32_t>
CruxSwitch::GetRoute(Ipv4Address dst) const
{
    const int32_t g = FindRouteGroup(dst.Get());
    return g < 0 ? std::vector<uint32_t>() : m_routeGroups[g];
}

uint32_t
CruxSwitch::GetNRoutes() const
{
    return static_cast<uint32_t>(m_routeIndex.size());
}

void
CruxSwitch::AddPinnedRoute(const FiveTuple& tuple, uint32_t port)
{
    NS_LOG_FUNCTION(this << tuple << port);
    if (port >= m_ports.size())
    {
        NS_FATAL_ERROR("CruxSwitch::AddPinnedRoute(" << tuple << "): port " << port
                                                     << " >= " << m_ports.size());
    }
    m_pinned[tuple] = port;
}

bool
CruxSwitch::RemovePinnedRoute(const FiveTuple& tuple)
{
    return m_pinned.erase(tuple) > 0;
}

void
CruxSwitch::ClearPinnedRoutes()
{
    m_pinned.clear();
}

uint32_t
CruxSwitch::GetNPinnedRoutes() const
{
    return static_cast<uint32_t>(m_pinned.size());
}

uint32_t
CruxSwitch::EcmpHash(const FiveTuple& tuple) const
{
    return EcmpHash(tuple, m_ecmpSeed);
}

uint32_t
CruxSwitch::EcmpHash(const FiveTuple& tuple, uint32_t seed)
{
    uint8_t b[17];
    const uint32_t src = tuple.srcIp.Get();
    const uint32_t dst = tuple.dstIp.Get();
    b[0] = seed >> 24;
    b[1] = seed >> 16;
    b[2] = seed >> 8;
    b[3] = seed;
    b[4] = src >> 24;
    b[5] = src >> 16;
    b[6] = src >> 8;
    b[7] = src;
    b[8] = dst >> 24;
    b[9] = dst >> 16;
    b[10] = dst >> 8;
    b[11] = dst;
    b[12] = tuple.protocol;
    b[13] = tuple.srcPort >> 8;
    b[14] = tuple.srcPort;
    b[15] = tuple.dstPort >> 8;
    b[16] = tuple.dstPort;
    boost::crc_32_type crc;
    crc.process_bytes(b, sizeof(b));
    return Fmix32(crc.checksum());
}

namespace
{
/// Slot of \p key in a table of 2^(32 − shift) slots (Fibonacci hashing).
inline uint32_t
RouteSlot(uint32_t key, uint32_t shift)
{
    return shift >= 32 ? 0 : static_cast<uint32_t>((key * 0x9E3779B1u) >> shift);
}
} // namespace

void
CruxSwitch::BuildRouteTable() const
{
    uint32_t bits = 1;
    while ((1ULL << bits) < 2ULL * m_routeIndex.size())
    {
        ++bits;
    }
    m_routeTableShift = 32 - bits;
    m_routeTable.assign(std::size_t(1) << bits, {0, -1});
    const uint32_t mask = (1U << bits) - 1;
    for (const auto& [addr, group] : m_routeIndex)
    {
        uint32_t i = RouteSlot(addr, m_routeTableShift);
        while (m_routeTable[i].second >= 0)
        {
            i = (i + 1) & mask;
        }
        m_routeTable[i] = {addr, static_cast<int32_t>(group)};
    }
    m_routeTableStale = false;
}

int32_t
CruxSwitch::FindRouteGroup(uint32_t dst) const
{
    // per frame: a flat table instead of std::unordered_map (same content, m_routeIndex)
    if (m_routeTableStale)
    {
        BuildRouteTable();
    }
    const auto mask = static_cast<uint32_t>(m_routeTable.size() - 1);
    for (uint32_t i = RouteSlot(dst, m_routeTableShift);; i = (i + 1) & mask)
    {
        const auto& slot = m_routeTable[i];
        if (slot.second < 0 || slot.first == dst)
        {
            return slot.second;
        }
    }
}

uint32_t
CruxSwitch::EcmpChoose(int32_t group, const FiveTuple& t) const
{
    const std::vector<uint32_t>& ports = m_routeGroups[group];
    if (ports.size() == 1)
    {
        return ports[0];
    }
    return ports[EcmpHash(t, m_ecmpSeed) % ports.size()];
}

int32_t
CruxSwitch::SelectEcmpPort(const FiveTuple& tuple) const
{
    const int32_t g = FindRouteGroup(tuple.dstIp.Get());
    return g < 0 ? -1 : static_cast<int32_t>(EcmpChoose(g, tuple));
}

int32_t
CruxSwitch::SelectEgressPort(const FiveTuple& tuple) const
{
    if (!m_pinned.empty())
    {
        auto it = m_pinned.find(tuple);
        if (it != m_pinned.end())
        {
            return static_cast<int32_t>(it->second);
        }
    }
    return SelectEcmpPort(tuple);
}

Ptr<SwitchMmu>
CruxSwitch::GetMmu() const
{
    return m_mmu;
}

Mac48Address
CruxSwitch::GetPeerAddress(uint32_t port)
{
    if (!m_peerAddrKnown[port])
    {
        Ptr<QbbChannel> ch = DynamicCast<QbbChannel>(m_ports[port]->GetChannel());
        Ptr<QbbNetDevice> peer = ch ? ch->GetPeer(PeekPointer(m_ports[port])) : nullptr;
        m_peerAddr[port] =
            peer ? Mac48Address::ConvertFrom(peer->GetAddress()) : Mac48Address::GetBroadcast();
        m_peerAddrKnown[port] = true;
    }
    return m_peerAddr[port];
}

void
CruxSwitch::DeviceReceive(uint32_t port, QbbNetDevice* dev, Ptr<Packet> p, uint16_t etherType)
{
    ++m_rxFrames;
    const uint32_t size = p->GetSize();
    if (etherType != ETHERTYPE_IPV4 || size < 20)
    {
        DoDrop(p, port, 0, DROP_NOT_IPV4);
        return;
    }
    // IPv4 header without options (20 B) + UDP (8 B) + a RoCEv2 BTH (12 B): the ports, and
    // the BTH's INT flag.
    uint8_t hdr[64];
    uint32_t copied = p->CopyData(hdr, std::min<uint32_t>(size, 40));
    const uint32_t ihl = (hdr[0] & 0x0f) * 4u;
    if ((hdr[0] >> 4) != 4 || ihl < 20)
    {
        DoDrop(p, port, 0, DROP_NOT_IPV4);
        return;
    }
    FiveTuple t;
    t.protocol = hdr[9];
    t.srcIp.Set(ReadBe32(hdr + 12));
    t.dstIp.Set(ReadBe32(hdr + 16));
    if (ihl > 20 && size >= ihl + 4)
    {
        copied = p->CopyData(hdr, ihl + 4);
    }
    if ((t.protocol == 17 || t.protocol == 6) && copied >= ihl + 4)
    {
        t.srcPort = static_cast<uint16_t>((hdr[ihl] << 8) | hdr[ihl + 1]);
        t.dstPort = static_cast<uint16_t>((hdr[ihl + 2] << 8) | hdr[ihl + 3]);
    }
    else
    {
        t.srcPort = 0;
        t.dstPort = 0;
    }
    const uint8_t dscp = hdr[1] >> 2;
    const uint8_t ttl = hdr[8];
    const uint8_t inTc = dev->DscpToClass(dscp);
    // HPCC: a RoCEv2 packet with the INT flag (BTH byte 8, bit 6) gets a telemetry hop from
    // its egress port (RoceBthHeader::SetIntFlag, InbandTelemetryHeader).
    const bool stampInt = ihl == 20 && t.protocol == 17 && t.dstPort == crux::ROCEV2_UDP_PORT &&
                          copied >= 40 && (hdr[20 + 8 + 8] & 0x40) != 0;

    const int32_t out = SelectEgressPort(t);
    if (out < 0)
    {
        DoDrop(p, port, inTc, DROP_NO_ROUTE);
        return;
    }
    const auto outPort = static_cast<uint32_t>(out);
    QbbNetDevice* egress = PeekPointer(m_ports[outPort]);
    const uint8_t outTc = egress->DscpToClass(dscp);

    if (ttl == 0 || (m_decrementTtl && ttl <= 1))
    {
        DoDrop(p, port, outTc, DROP_TTL);
        return;
    }

    const SwitchMmu::Verdict v = m_mmu->Admit(port, inTc, outPort, outTc, size + m_ethOverhead);
    if (v != SwitchMmu::ADMIT)
    {
        DoDrop(p,
               port,
               outTc,
               v == SwitchMmu::DROP_HEADROOM_EXCEEDED ? DROP_PFC_HEADROOM_EXCEEDED
                                                      : DROP_BUFFER_FULL);
        return;
    }
    if (m_decrementTtl)
    {
        Ipv4Header ip;
        p->RemoveHeader(ip);
        ip.SetTtl(ttl - 1);
        p->AddHeader(ip);
    }
    if (!m_forwardTrace.IsEmpty())
    {
        m_forwardTrace(p, port, outPort, outTc);
    }
    ++m_fwdFrames;
    // The MMU's shadow entry is already queued: the device may dequeue synchronously.
    if (!egress->SendInTc(p, GetPeerAddress(outPort), ETHERTYPE_IPV4, outTc, stampInt))
    {
        --m_fwdFrames;
        m_mmu->CancelLastAdmit(outPort, outTc);
        DoDrop(p, port, outTc, DROP_EGRESS_REFUSED);
    }
}

void
CruxSwitch::DeviceDequeue(uint32_t port,
                          QbbNetDevice* /* dev */,
                          const Ptr<Packet>& /* p */,
                          uint8_t tc)
{
    m_mmu->OnDequeue(port, tc);
}

void
CruxSwitch::DoDrop(Ptr<const Packet> p, uint32_t port, uint8_t tc, DropReason reason)
{
    ++m_dropCount[reason];
    NS_LOG_LOGIC("drop on port " << port << " tc " << +tc << ": " << g_dropReasonNames[reason]);
    m_dropTrace(p, port, tc, g_dropReasonNames[reason]);
}

const std::string&
CruxSwitch::GetDropReasonName(DropReason reason)
{
    if (reason >= DROP_REASON_COUNT)
    {
        NS_FATAL_ERROR("CruxSwitch::GetDropReasonName: bad reason " << +reason);
    }
    return g_dropReasonNames[reason];
}

uint64_t
CruxSwitch::GetDropCount(const std::string& reason) const
{
    for (uint32_t r = 0; r < DROP_REASON_COUNT; ++r)
    {
        if (g_dropReasonNames[r] == reason)
        {
            return m_dropCount[r];
        }
    }
    return 0;
}

uint64_t
CruxSwitch::GetDropCount(DropReason reason) const
{
    if (reason >= DROP_REASON_COUNT)
    {
        NS_FATAL_ERROR("CruxSwitch::GetDropCount: bad reason " << +reason);
    }
    return m_dropCount[reason];
}

std::map<std::string, uint64_t>
CruxSwitch::GetDropCounts() const
{
    std::map<std::string, uint64_t> m;
    for (uint32_t r = 0; r < DROP_REASON_COUNT; ++r)
    {
        m[g_dropReasonNames[r]] = m_dropCount[r];
    }
    return m;
}

uint64_t
CruxSwitch::GetTotalDrops() const
{
    uint64_t n = 0;
    for (uint64_t c : m_dropCount)
    {
        n += c;
    }
    return n;
}

uint64_t
CruxSwitch::GetRxFrames() const
{
    return m_rxFrames;
}

uint64_t
CruxSwitch::GetForwardedFrames() const
{
    return m_fwdFrames;
}

} // namespace ns3
