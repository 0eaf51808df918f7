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

#ifndef CRUX_ROCE_HEADER_H
#define CRUX_ROCE_HEADER_H

#include "ns3/header.h"
#include "ns3/roce-constants.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup crux
 * \brief RoCEv2 constants (InfiniBand Architecture Specification vol. 1 rel. 1.4, §9.2, §9.3,
 * §9.7.5.2.2 and Annex A17 "RoCEv2").
 */
namespace roce
{
static constexpr uint16_t UDP_PORT = crux::ROCEV2_UDP_PORT; //!< UDP destination port of RoCEv2
static constexpr uint32_t ICRC_SIZE = 4;                    //!< bytes of the invariant CRC trailer
static constexpr uint32_t PSN_BITS = 24;                    //!< width of the packet sequence number
static constexpr uint32_t PSN_MOD = 1U << 24;               //!< PSN modulus
static constexpr uint32_t PSN_MASK = PSN_MOD - 1;           //!< PSN bit mask
static constexpr uint32_t QPN_MASK = 0xFFFFFF;              //!< queue pair numbers are 24 bit
static constexpr uint32_t CNP_PAYLOAD = 16; //!< reserved bytes after the BTH of a CNP
/// Bit of BTH byte 8 (the reserved bits after AckReq) that crux sets on data packets carrying an
/// HPCC in-band telemetry stack (InbandTelemetryHeader) after the BTH: switches push a hop.
static constexpr uint8_t BTH_INT_FLAG = 0x40;

/// BTH opcodes used by this module (transport type RC = 0b000 in the top three bits).
enum Opcode : uint8_t
{
    RC_SEND_FIRST = 0x00,  //!< RC SEND First
    RC_SEND_MIDDLE = 0x01, //!< RC SEND Middle
    RC_SEND_LAST = 0x02,   //!< RC SEND Last
    RC_SEND_ONLY = 0x04,   //!< RC SEND Only
    RC_ACK = 0x11,         //!< RC Acknowledge (followed by an AETH)
    CNP = 0x81             //!< RoCEv2 congestion notification packet (Annex A17.9.3)
};

/// \return true if \p op is one of the RC SEND opcodes that carry payload
/// \param op a BTH opcode
inline bool
IsRcSend(uint8_t op)
{
    return op == RC_SEND_FIRST || op == RC_SEND_MIDDLE || op == RC_SEND_LAST || op == RC_SEND_ONLY;
}

/// \return true if \p op ends a message (SEND Last or SEND Only)
/// \param op a BTH opcode
inline bool
IsMessageEnd(uint8_t op)
{
    return op == RC_SEND_LAST || op == RC_SEND_ONLY;
}

/**
 * \brief Signed distance from PSN \p b to PSN \p a in the 24-bit sequence space.
 * \param a a PSN (only the low 24 bits are used)
 * \param b a PSN (only the low 24 bits are used)
 * \return a − b mod 2^24 interpreted in [−2^23, 2^23), i.e. positive if \p a is "after" \p b
 */
inline int32_t
PsnDiff(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & PSN_MASK;
    return d >= (PSN_MOD >> 1) ? static_cast<int32_t>(d) - static_cast<int32_t>(PSN_MOD)
                               : static_cast<int32_t>(d);
}

/**
 * \brief The BTH fields the transport needs, read straight from wire bytes (no Header object:
 * the receive path of RdmaNic parses every packet once with it).
 */
struct BthView
{
    uint8_t opcode{0};   //!< BTH opcode
    bool ackReq{false};  //!< AckReq bit
    bool intFlag{false}; //!< INT stack follows (BTH_INT_FLAG)
    uint32_t destQp{0};  //!< 24-bit destination QP
    uint32_t psn{0};     //!< 24-bit PSN

    /**
     * \brief Read a BTH laid out as in RoceBthHeader.
     * \param b at least 12 bytes starting at the BTH
     * \return the fields
     */
    static BthView Read(const uint8_t* b)
    {
        BthView v;
        v.opcode = b[0];
        v.destQp = (static_cast<uint32_t>(b[5]) << 16) | (static_cast<uint32_t>(b[6]) << 8) | b[7];
        v.ackReq = (b[8] & 0x80) != 0;
        v.intFlag = (b[8] & BTH_INT_FLAG) != 0;
        v.psn = (static_cast<uint32_t>(b[9]) << 16) | (static_cast<uint32_t>(b[10]) << 8) | b[11];
        return v;
    }
};
} // namespace roce

/**
 * \ingroup crux
 * \brief RoCEv2 / InfiniBand Base Transport Header (BTH), 12 bytes (IBA vol. 1 §9.2).
 *
 * Layout, big-endian:
 *
 * | bits | field                                                                   |
 * |------|-------------------------------------------------------------------------|
 * | 8    | OpCode                                                                  |
 * | 1    | SE, solicited event                                                     |
 * | 1    | M, migration request                                                    |
 * | 2    | PadCnt, pad bytes added to align the payload to 4 bytes                 |
 * | 4    | TVer, transport header version (0)                                      |
 * | 16   | P_Key, partition key (0xFFFF, default partition)                        |
 * | 8    | reserved (the RoCEv2 "F/B" bits of the spec are 0 here)                 |
 * | 24   | DestQP, destination queue pair number                                   |
 * | 1    | A, acknowledge request                                                  |
 * | 7    | reserved; crux sets bit 6 (roce::BTH_INT_FLAG) when an INT stack follows |
 * | 24   | PSN, packet sequence number                                             |
 */
class RoceBthHeader : public Header
{
  public:
    static constexpr uint32_t SERIALIZED_SIZE = 12; //!< bytes

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Builds an RC SEND Only header, P_Key 0xFFFF, all other fields 0.
    RoceBthHeader();

    /// \param opcode BTH opcode (see roce::Opcode)
    void SetOpcode(uint8_t opcode);
    /// \return the BTH opcode
    uint8_t GetOpcode() const;

    /// \param se solicited-event bit
    void SetSolicitedEvent(bool se);
    /// \return the solicited-event bit
    bool GetSolicitedEvent() const;

    /// \param m migration-request bit
    void SetMigReq(bool m);
    /// \return the migration-request bit
    bool GetMigReq() const;

    /// \param pad pad count 0..3 (NS_FATAL_ERROR otherwise)
    void SetPadCount(uint8_t pad);
    /// \return the pad count 0..3
    uint8_t GetPadCount() const;

    /// \param tver transport header version 0..15 (NS_FATAL_ERROR otherwise)
    void SetTVer(uint8_t tver);
    /// \return the transport header version
    uint8_t GetTVer() const;

    /// \param pkey partition key
    void SetPKey(uint16_t pkey);
    /// \return the partition key
    uint16_t GetPKey() const;

    /// \param qpn destination queue pair number, 24 bit (NS_FATAL_ERROR if larger)
    void SetDestQp(uint32_t qpn);
    /// \return the destination queue pair number (24 bit)
    uint32_t GetDestQp() const;

    /// \param ackReq acknowledge-request bit: the responder must acknowledge this packet
    void SetAckRequest(bool ackReq);
    /// \return the acknowledge-request bit
    bool GetAckRequest() const;

    /// \param intFlag an InbandTelemetryHeader follows the BTH (roce::BTH_INT_FLAG, HPCC)
    void SetIntFlag(bool intFlag);
    /// \return the INT flag
    bool GetIntFlag() const;

    /// \param psn packet sequence number; only the low 24 bits are kept (wraps modulo 2^24)
    void SetPsn(uint32_t psn);
    /// \return the packet sequence number (24 bit)
    uint32_t GetPsn() const;

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    uint8_t m_opcode;  //!< opcode
    uint8_t m_flags;   //!< SE(7) M(6) PadCnt(5..4) TVer(3..0)
    uint16_t m_pkey;   //!< partition key
    uint32_t m_destQp; //!< 24-bit destination QP
    bool m_ackReq;     //!< acknowledge request
    bool m_intFlag;    //!< INT stack follows
    uint32_t m_psn;    //!< 24-bit PSN
};

/**
 * \ingroup crux
 * \brief ACK Extended Transport Header (AETH), 4 bytes (IBA vol. 1 §9.3.5), carried after the
 * BTH of an RC Acknowledge packet.
 *
 * Layout: 8-bit syndrome, 24-bit MSN (message sequence number: count of completed messages
 * modulo 2^24). Syndrome bits 6..5 select ACK (00), RNR NAK (01) or NAK (11); bits 4..0 are the
 * credit count of an ACK (0x1F = credits not used) or the NAK code (0 = PSN sequence error).
 */
class RoceAethHeader : public Header
{
  public:
    static constexpr uint32_t SERIALIZED_SIZE = 4; //!< bytes
    static constexpr uint8_t SYNDROME_ACK = 0x1F;  //!< ACK, "invalid credit count" (no credits)
    static constexpr uint8_t SYNDROME_NAK_PSN_SEQ_ERROR = 0x60; //!< NAK, PSN sequence error

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Builds an ACK (syndrome 0x1F) with MSN 0.
    RoceAethHeader();

    /// \param syndrome raw syndrome byte
    void SetSyndrome(uint8_t syndrome);
    /// \return the raw syndrome byte
    uint8_t GetSyndrome() const;

    /// \return true if the syndrome encodes an ACK (bits 6..5 = 00)
    bool IsAck() const;
    /// \return true if the syndrome is a NAK with code "PSN sequence error"
    bool IsNakSequenceError() const;

    /// \param msn message sequence number; only the low 24 bits are kept
    void SetMsn(uint32_t msn);
    /// \return the message sequence number (24 bit)
    uint32_t GetMsn() const;

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    uint8_t m_syndrome; //!< syndrome
    uint32_t m_msn;     //!< 24-bit MSN
};

} // namespace ns3

#endif // CRUX_ROCE_HEADER_H
