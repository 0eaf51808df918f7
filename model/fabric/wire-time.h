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
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{
namespace crux
{

/**
 * \ingroup crux
 * \brief Time \p bytes take at \p rate: DataRate::CalculateBytesTxTime() without its 32-bit
 * wrap.
 *
 * ns-3.37's DataRate::CalculateBytesTxTime(uint32_t bytes) multiplies by 8 in 32 bits, so it
 * wraps from 512 MiB on (and bytes above 4 GiB do not even reach it). Every crux caller that
 * times bytes at a rate goes through this function: below 512 MiB it is exactly
 * CalculateBytesTxTime(); from 512 MiB on the bytes are timed as whole 256 MiB pieces plus the
 * rest (each piece exact; the sum differs from the exact quotient by at most one time step per
 * piece). Only whole messages reach that size: the NVLink alpha-beta model
 * (MessageTransport); frames (NIC pacing, PCIe serializer, base RTT, store-and-forward
 * latency) are far below it.
 * \param rate the rate (> 0 bit/s)
 * \param bytes the number of bytes
 * \return the transmission time
 */
inline Time
BytesTxTime(const DataRate& rate, uint64_t bytes)
{
    constexpr uint64_t PIECE = uint64_t(1) << 28;
    if (bytes < 2 * PIECE)
    {
        return rate.CalculateBytesTxTime(static_cast<uint32_t>(bytes));
    }
    return rate.CalculateBytesTxTime(static_cast<uint32_t>(bytes % PIECE)) +
           rate.CalculateBytesTxTime(static_cast<uint32_t>(PIECE)) *
               static_cast<int64_t>(bytes / PIECE);
}

} // namespace crux
} // namespace ns3

#endif // CRUX_WIRE_TIME_H
