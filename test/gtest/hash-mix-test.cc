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

// The mixing hash of packed integer keys (model/util/hash-mix.h): splitmix64's reference output
// and the bucket spread of the keys CommDag packs for a ring's connections, against the
// identity hash of libstdc++ that put them all into one bucket.

#include "ns3/hash-mix.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <gtest/gtest.h>
#include <unordered_map>

using namespace ns3;

namespace
{

/// \tparam H the hash \param n ring ranks \return the longest bucket chain of an unordered_map
/// holding the n connections r -> r + 1 (mod n) of a ring, keyed as CommDag keys them
template <typename H>
std::size_t
LongestChainOfRing(uint64_t n)
{
    std::unordered_map<uint64_t, uint32_t, H> m;
    for (uint64_t r = 0; r < n; ++r)
    {
        m.emplace(r << 40 | ((r + 1) % n) << 16, static_cast<uint32_t>(r));
    }
    std::size_t longest = 0;
    for (std::size_t b = 0; b < m.bucket_count(); ++b)
    {
        longest = std::max(longest, m.bucket_size(b));
    }
    return longest;
}

} // namespace

TEST(HashMix, IsSplitMix64)
{
    // splitmix64 seeded with 0 (Vigna's reference splitmix64.c) returns Mix64(0), then
    // Mix64(golden ratio increment), then Mix64(twice it)
    EXPECT_EQ(crux::Mix64(0), 0xe220a8397b1dcdafULL);
    EXPECT_EQ(crux::Mix64(0x9e3779b97f4a7c15ULL), 0x6e789e6aa1b965f4ULL);
    EXPECT_EQ(crux::Mix64(0x3c6ef372fe94f82aULL), 0x06c45d188009454fULL);
}

TEST(HashMix, SpreadsARingsConnectionKeys)
{
    // libstdc++ (Debian's, the project's target; its bucket counts grow 13, 29, 59, 127, 257):
    // 257 buckets for 136 keys; 2^16 = 1 and 2^40 = -1 modulo 257, so every
    // identity-hashed key of the ring but the closing one (135 -> 0) is 1 modulo 257: one chain
    // of 135
    EXPECT_EQ(LongestChainOfRing<std::hash<uint64_t>>(136), 135u);
    for (uint64_t n : {16, 96, 128, 136, 1024})
    {
        EXPECT_LE(LongestChainOfRing<crux::Mix64Hash>(n), 8u) << n << " ranks";
    }
}
