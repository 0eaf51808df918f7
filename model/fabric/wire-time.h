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

#ifndef CRUX_WIRE_TIME_H
#define CRUX_WIRE_TIME_H

#include "ns3/data-rate.h"
#include "ns3/int64x64.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{
namespace crux
{

/**
 * \ingroup crux
 * \brief Time \p bytes take at \p rate: ns-3.37's DataRate::CalculateBytesTxTime() (8 x bytes
 * bits over the rate, rounded to the nearest time step), without its 32-bit wrap, computed here
 * so that every build mode gives the same times.
 *
 * - ns-3.35's CalculateBytesTxTime truncates to whole time steps instead of rounding, which
 *   shortens frames by up to one step and moves packet-level results (the waf mode found it:
 *   iteration times by up to 1 %, PAUSE counts by 3-5 %); this function gives ns-3.37's value
 *   on both (checked against ns-3.37's on 28,740 rate/size pairs, and by ns-3 suite
 *   crux-compat against closed forms).
 * - ns-3.37's CalculateBytesTxTime(uint32_t bytes) multiplies by 8 in 32 bits, so it wraps from
 *   512 MiB on; from 512 MiB on the bytes are timed here as whole 256 MiB pieces plus the rest
 *   (each piece exact; the sum differs from the exact quotient by at most one time step per
 *   piece). Only whole messages reach that size: the NVLink alpha-beta model
 *   (MessageTransport); frames (NIC pacing, PCIe serializer, base RTT, store-and-forward
 *   latency) are far below it.
 *
 * Every crux caller that times bytes at a rate goes through this function.
 * \param rate the rate (> 0 bit/s)
 * \param bytes the number of bytes
 * \return the transmission time
 */
inline Time
BytesTxTime(const DataRate& rate, uint64_t bytes)
{
    // below 512 MiB: 8 x bytes < 2^32, ns-3.37's exact form (int64x64_t quotient, Seconds()
    // rounds to the nearest time step)
    auto exact = [&rate](uint64_t b) {
        return Seconds(int64x64_t(static_cast<uint32_t>(b * 8)) / rate.GetBitRate());
    };
    constexpr uint64_t PIECE = uint64_t(1) << 28;
    if (bytes < 2 * PIECE)
    {
        return exact(bytes);
    }
    return exact(bytes % PIECE) + exact(PIECE) * static_cast<int64_t>(bytes / PIECE);
}

} // namespace crux
} // namespace ns3

#endif // CRUX_WIRE_TIME_H
