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

#ifndef CRUX_HASH_MIX_H
#define CRUX_HASH_MIX_H

#include <cstddef>
#include <cstdint>

/**
 * \file
 * \ingroup crux
 * A 64-bit integer mix (the splitmix64 finalizer) for hashes of packed integer keys: the ECMP
 * default-path draw of the cluster description and the hash tables keyed by bit fields.
 * libstdc++'s std::hash of an integer is the identity and its tables index by key modulo a
 * prime, so keys packed at shifts of 16, 32 or 40 bits fall into few buckets when 2^16 or 2^32
 * is congruent to ±1 modulo that prime (257, 65537): the connections of a ring, src << 40 |
 * (src + 1) << 16, all but the closing one land in one bucket of 257 (measured with CommDag:
 * DltJob::CommunicationPattern() of a 136-GPU ring, 6.2 M lookups, 1.11 s with the identity
 * hash, 0.19 s with this one). A bottom-layer header: pure C++, nothing of crux included.
 */

namespace ns3
{
namespace crux
{

/**
 * \brief The splitmix64 finalizer (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): a bijection of 64-bit integers in which every input bit changes
 * every output bit with probability about 1/2.
 * \param x the value
 * \return its mix
 */
constexpr uint64_t
Mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/// Hash functor of a packed 64-bit key for std::unordered_map / std::unordered_set: Mix64().
struct Mix64Hash
{
    /// \param key the key \return Mix64(key)
    std::size_t operator()(uint64_t key) const
    {
        return static_cast<std::size_t>(Mix64(key));
    }
};

} // namespace crux
} // namespace ns3

#endif // CRUX_HASH_MIX_H
