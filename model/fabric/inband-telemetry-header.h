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

#ifndef CRUX_INBAND_TELEMETRY_HEADER_H
#define CRUX_INBAND_TELEMETRY_HEADER_H

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup crux
 * \brief One hop of an in-band network telemetry (INT) stack as HPCC uses it (Li et al.,
 * "HPCC: High Precision Congestion Control", SIGCOMM'19, §3.2): what an egress port reports
 * about itself when a packet leaves it.
 *
 * Wire encoding (10 bytes, big-endian bit fields, in this order): rate 16 bits in units of
 * 100 Mbit/s (up to 6.5535 Tbit/s), time 24 bits in ns modulo 2^24 (wraps after 16.8 ms),
 * txBytes 20 bits in units of 256 bytes modulo 2^20 (wraps after 268 MB), qLen 20 bits in units
 * of 64 bytes (saturates at 67 MB). The HPCC simulator (alibaba-edu/High-Precision-Congestion-
 * Control, int-header.h) packs the same four fields into 8 bytes with coarser units and a 3-bit
 * rate code for 25..400 Gbit/s only; crux uses 10 bytes so that every link rate of its
 * scenarios (10, 20, 25, 100, 200 Gbit/s, ...) is exact. Deltas of time and txBytes between two
 * samples of the same port are taken modulo the field width (TimeDeltaNs(), BytesDelta()), as
 * the HPCC simulator does.
 */
struct IntHop
{
    uint32_t rate{0};    //!< line rate, units of 100 Mbit/s (16 bits)
    uint32_t time{0};    //!< egress time, ns mod 2^24
    uint32_t txBytes{0}; //!< wire bytes sent by the port before this packet, 256-byte units
    uint32_t qLen{0};    //!< data bytes queued on the port, 64-byte units (saturating)

    static constexpr uint32_t RATE_UNIT_BPS = 100000000; //!< rate unit, bit/s
    static constexpr uint32_t TIME_BITS = 24;            //!< width of the time field
    static constexpr uint32_t BYTES_BITS = 20;           //!< width of the txBytes field
    static constexpr uint32_t BYTES_UNIT = 256;          //!< txBytes unit, bytes
    static constexpr uint32_t QLEN_BITS = 20;            //!< width of the qLen field
    static constexpr uint32_t QLEN_UNIT = 64;            //!< qLen unit, bytes

    /**
     * \brief Encode one sample.
     * \param rateBps port line rate, bit/s (rounded to 100 Mbit/s, at least 1 unit)
     * \param nowNs current time, ns
     * \param txWireBytes cumulative wire bytes the port sent
     * \param queueBytes bytes queued on the port
     * \return the hop
     */
    static IntHop Make(uint64_t rateBps, uint64_t nowNs, uint64_t txWireBytes, uint64_t queueBytes);

    /// \return the line rate in bit/s
    double GetRateBps() const;
    /// \return the queue length in bytes (64-byte resolution)
    uint64_t GetQueueBytes() const;
    /// \return ns from \p earlier to this sample (modulo 2^24) \param earlier older sample
    uint64_t TimeDeltaNs(const IntHop& earlier) const;
    /// \return bytes sent from \p earlier to this sample (modulo 2^20 units) \param earlier
    /// older sample
    uint64_t BytesDelta(const IntHop& earlier) const;
};

/**
 * \ingroup crux
 * \brief The INT stack a RoCEv2 packet carries for HPCC: a hop count and up to MAX_HOPS hops,
 * always SERIALIZED_SIZE = 52 bytes (like the HPCC simulator's fixed-size header).
 *
 * Layout: nHops (1 byte), reserved (1 byte, 0), then MAX_HOPS IntHop slots of 10 bytes (unused
 * slots are zero). In a data packet it follows the BTH, whose INT flag
 * (RoceBthHeader::SetIntFlag) tells switches to push a hop (QbbNetDevice stamps at dequeue);
 * the responder copies it after the AETH of the ACK it sends (INT echo). A packet that meets
 * more than MAX_HOPS stamping ports keeps the first MAX_HOPS hops. Wireshark/tshark decode the
 * data packet as an RC SEND whose payload starts with these 52 bytes, and the ACK as an RC
 * Acknowledge with 52 bytes of data after the AETH.
 */
class InbandTelemetryHeader : public Header
{
  public:
    static constexpr uint32_t MAX_HOPS = 5;                               //!< hop slots
    static constexpr uint32_t HOP_BYTES = 10;                             //!< bytes per hop
    static constexpr uint32_t SERIALIZED_SIZE = 2 + MAX_HOPS * HOP_BYTES; //!< bytes

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// An empty stack (no hops).
    InbandTelemetryHeader();

    /// \return number of hops recorded (0..MAX_HOPS)
    uint32_t GetNHops() const;
    /// \return hop \p i (i < GetNHops(); NS_FATAL_ERROR otherwise) \param i index, 0 = first
    const IntHop& GetHop(uint32_t i) const;
    /// \return true if a hop was added (false when all MAX_HOPS slots are used) \param hop hop
    bool PushHop(const IntHop& hop);

    /**
     * \brief Push a hop into a serialized stack in place (the per-frame path of QbbNetDevice).
     * \param stack SERIALIZED_SIZE bytes of a serialized InbandTelemetryHeader
     * \param hop the hop
     * \return true if added, false if the stack was full
     */
    static bool PushHopRaw(uint8_t* stack, const IntHop& hop);

    /**
     * \brief Decode a serialized stack.
     * \param stack SERIALIZED_SIZE bytes
     * \return the header
     */
    static InbandTelemetryHeader FromRaw(const uint8_t* stack);

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    uint32_t m_nHops{0};                 //!< hops recorded
    std::array<IntHop, MAX_HOPS> m_hops; //!< the hops
};

} // namespace ns3

#endif // CRUX_INBAND_TELEMETRY_HEADER_H
