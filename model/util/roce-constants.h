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

#ifndef CRUX_ROCE_CONSTANTS_H
#define CRUX_ROCE_CONSTANTS_H

#include <cstdint>

/**
 * \file
 * \ingroup crux
 * The numbers of a RoCEv2 fabric that several layers share, defined once: the number of traffic
 * classes, the RoCEv2 UDP port, the range of UDP source ports used for ECMP entropy, and crux's
 * rule between priority levels, traffic classes and DSCP values.
 */

namespace ns3
{
namespace crux
{

/// Traffic classes of an IEEE 802.1Q port (802.1Q-2018 §8.6.6: up to 8), 0..7, 7 served first
/// under strict priority; IEEE 802.1Qbb PFC pauses each one on its own.
static constexpr uint8_t NUM_TRAFFIC_CLASSES = 8;

/// UDP destination port of RoCEv2 (IANA assignment; IBA vol. 1 rel. 1.4, Annex A17).
static constexpr uint16_t ROCEV2_UDP_PORT = 4791;

/// EtherType of IPv4 (IEEE 802.3 Type field; RFC 894).
static constexpr uint16_t IPV4_ETHERTYPE = 0x0800;

/// Ethernet II header without preamble: destination, source, Type (IEEE 802.3-2018 §3.1.1).
static constexpr uint32_t ETH_HEADER_BYTES = 14;

/// Frame check sequence after the payload of every Ethernet frame (IEEE 802.3-2018 §3.2.9).
static constexpr uint32_t ETH_FCS_BYTES = 4;

/// Minimum Ethernet frame, header to FCS; shorter frames are padded (IEEE 802.3-2018 §3.2.7).
static constexpr uint32_t ETH_MIN_FRAME_BYTES = 64;

/// Per-frame wire overhead besides the frame itself: preamble (7) + start frame delimiter (1)
/// (IEEE 802.3-2018 §3.2.1–3.2.2) + the minimum interpacket gap of 96 bit times = 12 bytes
/// (§4.4.2). QbbNetDevice's InterframeGapBytes default; the NIC's pacing and PCIe serializer
/// and the base-RTT estimate count a frame with it.
static constexpr uint32_t ETH_PREAMBLE_GAP_BYTES = 8 + 12;

/**
 * \brief Bytes a frame of \p frameBytes (Ethernet header to payload, no FCS) occupies on an
 * Ethernet wire, or on the NIC's PCIe link which crux times like it (RdmaNic "PcieRate"): the
 * frame, its FCS, preamble and SFD and the interpacket gap. (QbbNetDevice also pads short
 * frames to ETH_MIN_FRAME_BYTES; RoCEv2 data frames are never that short.)
 * \param frameBytes frame bytes, Ethernet header included, FCS excluded
 * \return wire bytes
 */
constexpr uint64_t
FrameWireBytes(uint64_t frameBytes)
{
    return frameBytes + ETH_FCS_BYTES + ETH_PREAMBLE_GAP_BYTES;
}

/// First port of the IANA dynamic range (RFC 6335 §6: 49152–65535): the UDP source ports crux
/// uses as ECMP entropy.
static constexpr uint16_t MIN_DYNAMIC_UDP_PORT = 49152;

/// Number of ports in the dynamic range (49152–65535).
static constexpr uint32_t NUM_DYNAMIC_UDP_PORTS = 65536 - MIN_DYNAMIC_UDP_PORT;

/**
 * \brief DSCP of traffic class \p tc: 8 × tc, the class-selector codepoint CS<tc> (RFC 2474
 * §4.2.2.1). crux installs priority level L as DSCP 8·L (CruxHelper), and devices map a DSCP
 * not listed in their DscpToTc attribute to class DSCP >> 3, so level L lands in class L.
 * \param tc traffic class, 0..7 (not checked here; callers check against NUM_TRAFFIC_CLASSES)
 * \return the DSCP, 0..56
 */
constexpr uint8_t
DscpOfTrafficClass(uint8_t tc)
{
    return static_cast<uint8_t>(8 * tc);
}

/**
 * \brief Default traffic class of DSCP \p dscp: its class selector, DSCP >> 3 (the inverse of
 * DscpOfTrafficClass() on the codepoints CS0–CS7).
 * \param dscp DSCP, 0..63
 * \return the class, 0..7
 */
constexpr uint8_t
TrafficClassOfDscp(uint8_t dscp)
{
    return static_cast<uint8_t>(dscp >> 3);
}

} // namespace crux
} // namespace ns3

#endif // CRUX_ROCE_CONSTANTS_H
