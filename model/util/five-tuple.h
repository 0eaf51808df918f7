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

#ifndef CRUX_FIVE_TUPLE_H
#define CRUX_FIVE_TUPLE_H

#include "ns3/ipv4-address.h"
#include "ns3/roce-constants.h"

#include <cstddef>
#include <cstdint>
#include <ostream>

/**
 * \file
 * \ingroup crux
 * The flow key of a frame, FiveTuple, shared by the fabric (CruxSwitch's ECMP hash and pinned
 * routes, CruxTopology's path prediction), the transport (a queue pair's 5-tuple, the NIC's port
 * selector) and the helpers. A bottom-layer header (model/util): it includes nothing of crux but
 * roce-constants.h, so a layer that needs the key does not include the switch. Its pure C++
 * companion is crux-types.h; FiveTuple lives apart because its addresses are ns-3 network types,
 * which the scheduling layer's headers do not include.
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief The ECMP/flow key of a frame: (source IPv4, destination IPv4, IP protocol, L4 source
 * port, L4 destination port).
 *
 * For RoCEv2 the protocol is 17 (UDP), the destination port 4791 and the source port is the
 * per-queue-pair ECMP entropy (InfiniBand RoCEv2 Annex A17).
 */
struct FiveTuple
{
    Ipv4Address srcIp;    //!< IPv4 source address
    Ipv4Address dstIp;    //!< IPv4 destination address
    uint8_t protocol{17}; //!< IP protocol number (17 = UDP)
    uint16_t srcPort{0};  //!< L4 source port (RoCEv2: ECMP entropy, 49152..65535)
    uint16_t dstPort{crux::ROCEV2_UDP_PORT}; //!< L4 destination port (RoCEv2: 4791)

    /// \return true if all five fields are equal \param o other tuple
    bool operator==(const FiveTuple& o) const;
    /// \return true if all five fields are not equal \param o other tuple
    bool operator!=(const FiveTuple& o) const;
    /// \return lexicographic order on (src, dst, protocol, srcPort, dstPort) \param o other tuple
    bool operator<(const FiveTuple& o) const;
};

/**
 * \brief Print a tuple as "src:sport->dst:dport/proto".
 * \param os output stream
 * \param t tuple
 * \return os
 */
std::ostream& operator<<(std::ostream& os, const FiveTuple& t);

/**
 * \ingroup crux
 * \brief std::hash-compatible hasher of FiveTuple for unordered containers (not the ECMP hash).
 */
struct FiveTupleHasher
{
    /// \return a hash of \p t \param t tuple
    std::size_t operator()(const FiveTuple& t) const;
};

} // namespace ns3

#endif // CRUX_FIVE_TUPLE_H
