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

#include "five-tuple.h"

#include <tuple>

namespace ns3
{

bool
FiveTuple::operator==(const FiveTuple& o) const
{
    return srcIp == o.srcIp && dstIp == o.dstIp && protocol == o.protocol && srcPort == o.srcPort &&
           dstPort == o.dstPort;
}

bool
FiveTuple::operator!=(const FiveTuple& o) const
{
    return !(*this == o);
}

bool
FiveTuple::operator<(const FiveTuple& o) const
{
    return std::make_tuple(srcIp.Get(), dstIp.Get(), protocol, srcPort, dstPort) <
           std::make_tuple(o.srcIp.Get(), o.dstIp.Get(), o.protocol, o.srcPort, o.dstPort);
}

std::ostream&
operator<<(std::ostream& os, const FiveTuple& t)
{
    os << t.srcIp << ":" << t.srcPort << "->" << t.dstIp << ":" << t.dstPort << "/" << +t.protocol;
    return os;
}

std::size_t
FiveTupleHasher::operator()(const FiveTuple& t) const
{
    uint64_t a = (static_cast<uint64_t>(t.srcIp.Get()) << 32) | t.dstIp.Get();
    uint64_t b = (static_cast<uint64_t>(t.protocol) << 32) |
                 (static_cast<uint64_t>(t.srcPort) << 16) | t.dstPort;
    // splitmix64-style mixing of the two words
    uint64_t x = a ^ (b * 0x9E3779B97F4A7C15ULL);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return static_cast<std::size_t>(x);
}

} // namespace ns3
