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

#include "inband-telemetry-header.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxInbandTelemetryHeader");

NS_OBJECT_ENSURE_REGISTERED(InbandTelemetryHeader);

namespace
{
/// Write one hop's 80 bits at \p b (10 bytes).
void
WriteHop(uint8_t* b, const IntHop& h)
{
    // rate(16) | time(24) | txBytes(20) | qLen(20), most significant first
    b[0] = static_cast<uint8_t>(h.rate >> 8);
    b[1] = static_cast<uint8_t>(h.rate);
    b[2] = static_cast<uint8_t>(h.time >> 16);
    b[3] = static_cast<uint8_t>(h.time >> 8);
    b[4] = static_cast<uint8_t>(h.time);
    b[5] = static_cast<uint8_t>(h.txBytes >> 12);
    b[6] = static_cast<uint8_t>(h.txBytes >> 4);
    b[7] = static_cast<uint8_t>(((h.txBytes & 0xf) << 4) | ((h.qLen >> 16) & 0xf));
    b[8] = static_cast<uint8_t>(h.qLen >> 8);
    b[9] = static_cast<uint8_t>(h.qLen);
}

/// Read one hop from \p b (10 bytes).
IntHop
ReadHop(const uint8_t* b)
{
    IntHop h;
    h.rate = (static_cast<uint32_t>(b[0]) << 8) | b[1];
    h.time = (static_cast<uint32_t>(b[2]) << 16) | (static_cast<uint32_t>(b[3]) << 8) | b[4];
    h.txBytes = (static_cast<uint32_t>(b[5]) << 12) | (static_cast<uint32_t>(b[6]) << 4) |
                (static_cast<uint32_t>(b[7]) >> 4);
    h.qLen =
        ((static_cast<uint32_t>(b[7]) & 0xf) << 16) | (static_cast<uint32_t>(b[8]) << 8) | b[9];
    return h;
}
} // namespace

IntHop
IntHop::Make(uint64_t rateBps, uint64_t nowNs, uint64_t txWireBytes, uint64_t queueBytes)
{
    IntHop h;
    const uint64_t rate = (rateBps + RATE_UNIT_BPS / 2) / RATE_UNIT_BPS;
    h.rate = static_cast<uint32_t>(std::clamp<uint64_t>(rate, 1, 0xffff));
    h.time = static_cast<uint32_t>(nowNs & ((1U << TIME_BITS) - 1));
    h.txBytes = static_cast<uint32_t>((txWireBytes / BYTES_UNIT) & ((1U << BYTES_BITS) - 1));
    h.qLen = static_cast<uint32_t>(
        std::min<uint64_t>((queueBytes + QLEN_UNIT / 2) / QLEN_UNIT, (1U << QLEN_BITS) - 1));
    return h;
}

double
IntHop::GetRateBps() const
{
    return static_cast<double>(rate) * RATE_UNIT_BPS;
}

uint64_t
IntHop::GetQueueBytes() const
{
    return static_cast<uint64_t>(qLen) * QLEN_UNIT;
}

uint64_t
IntHop::TimeDeltaNs(const IntHop& earlier) const
{
    return (time - earlier.time) & ((1U << TIME_BITS) - 1);
}

uint64_t
IntHop::BytesDelta(const IntHop& earlier) const
{
    return static_cast<uint64_t>((txBytes - earlier.txBytes) & ((1U << BYTES_BITS) - 1)) *
           BYTES_UNIT;
}

TypeId
InbandTelemetryHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::InbandTelemetryHeader")
                            .SetParent<Header>()
                            .SetGroupName("Crux")
                            .AddConstructor<InbandTelemetryHeader>();
    return tid;
}

InbandTelemetryHeader::InbandTelemetryHeader() = default;

TypeId
InbandTelemetryHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
InbandTelemetryHeader::GetNHops() const
{
    return m_nHops;
}

const IntHop&
InbandTelemetryHeader::GetHop(uint32_t i) const
{
    if (i >= m_nHops)
    {
        NS_FATAL_ERROR("InbandTelemetryHeader::GetHop: hop " << i << " of " << m_nHops);
    }
    return m_hops[i];
}

bool
InbandTelemetryHeader::PushHop(const IntHop& hop)
{
    if (m_nHops >= MAX_HOPS)
    {
        return false;
    }
    m_hops[m_nHops++] = hop;
    return true;
}

bool
InbandTelemetryHeader::PushHopRaw(uint8_t* stack, const IntHop& hop)
{
    const uint32_t n = stack[0];
    if (n >= MAX_HOPS)
    {
        return false;
    }
    WriteHop(stack + 2 + n * HOP_BYTES, hop);
    stack[0] = static_cast<uint8_t>(n + 1);
    return true;
}

InbandTelemetryHeader
InbandTelemetryHeader::FromRaw(const uint8_t* stack)
{
    InbandTelemetryHeader h;
    h.m_nHops = std::min<uint32_t>(stack[0], MAX_HOPS);
    for (uint32_t i = 0; i < h.m_nHops; ++i)
    {
        h.m_hops[i] = ReadHop(stack + 2 + i * HOP_BYTES);
    }
    return h;
}

void
InbandTelemetryHeader::Print(std::ostream& os) const
{
    os << "INT hops=" << m_nHops;
    for (uint32_t i = 0; i < m_nHops; ++i)
    {
        const IntHop& h = m_hops[i];
        os << " [" << h.GetRateBps() / 1e9 << "Gb/s t=" << h.time << "ns tx=" << h.txBytes
           << "x256B q=" << h.GetQueueBytes() << "B]";
    }
}

uint32_t
InbandTelemetryHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
InbandTelemetryHeader::Serialize(Buffer::Iterator start) const
{
    uint8_t b[SERIALIZED_SIZE] = {};
    b[0] = static_cast<uint8_t>(m_nHops);
    for (uint32_t i = 0; i < m_nHops; ++i)
    {
        WriteHop(b + 2 + i * HOP_BYTES, m_hops[i]);
    }
    start.Write(b, SERIALIZED_SIZE);
}

uint32_t
InbandTelemetryHeader::Deserialize(Buffer::Iterator start)
{
    uint8_t b[SERIALIZED_SIZE];
    start.Read(b, SERIALIZED_SIZE);
    *this = FromRaw(b);
    return SERIALIZED_SIZE;
}

} // namespace ns3
