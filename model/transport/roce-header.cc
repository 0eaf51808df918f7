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

#include "roce-header.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRoceHeader");

NS_OBJECT_ENSURE_REGISTERED(RoceBthHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceAethHeader);

// ------------------------------------------------------------------------------------- BTH

TypeId
RoceBthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceBthHeader")
                            .SetParent<Header>()
                            .SetGroupName("Crux")
                            .AddConstructor<RoceBthHeader>();
    return tid;
}

RoceBthHeader::RoceBthHeader()
    : m_opcode(roce::RC_SEND_ONLY),
      m_flags(0),
      m_pkey(0xFFFF),
      m_destQp(0),
      m_ackReq(false),
      m_intFlag(false),
      m_psn(0)
{
}

TypeId
RoceBthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceBthHeader::SetOpcode(uint8_t opcode)
{
    m_opcode = opcode;
}

uint8_t
RoceBthHeader::GetOpcode() const
{
    return m_opcode;
}

void
RoceBthHeader::SetSolicitedEvent(bool se)
{
    m_flags = se ? (m_flags | 0x80) : (m_flags & 0x7F);
}

bool
RoceBthHeader::GetSolicitedEvent() const
{
    return (m_flags & 0x80) != 0;
}

void
RoceBthHeader::SetMigReq(bool m)
{
    m_flags = m ? (m_flags | 0x40) : (m_flags & 0xBF);
}

bool
RoceBthHeader::GetMigReq() const
{
    return (m_flags & 0x40) != 0;
}

void
RoceBthHeader::SetPadCount(uint8_t pad)
{
    if (pad > 3)
    {
        NS_FATAL_ERROR("RoceBthHeader: pad count " << unsigned(pad) << " exceeds 3");
    }
    m_flags = static_cast<uint8_t>((m_flags & 0xCF) | (pad << 4));
}

uint8_t
RoceBthHeader::GetPadCount() const
{
    return (m_flags >> 4) & 0x3;
}

void
RoceBthHeader::SetTVer(uint8_t tver)
{
    if (tver > 15)
    {
        NS_FATAL_ERROR("RoceBthHeader: transport version " << unsigned(tver) << " exceeds 15");
    }
    m_flags = static_cast<uint8_t>((m_flags & 0xF0) | tver);
}

uint8_t
RoceBthHeader::GetTVer() const
{
    return m_flags & 0x0F;
}

void
RoceBthHeader::SetPKey(uint16_t pkey)
{
    m_pkey = pkey;
}

uint16_t
RoceBthHeader::GetPKey() const
{
    return m_pkey;
}

void
RoceBthHeader::SetDestQp(uint32_t qpn)
{
    if (qpn > roce::QPN_MASK)
    {
        NS_FATAL_ERROR("RoceBthHeader: destination QP number " << qpn << " exceeds 24 bits");
    }
    m_destQp = qpn;
}

uint32_t
RoceBthHeader::GetDestQp() const
{
    return m_destQp;
}

void
RoceBthHeader::SetAckRequest(bool ackReq)
{
    m_ackReq = ackReq;
}

bool
RoceBthHeader::GetAckRequest() const
{
    return m_ackReq;
}

void
RoceBthHeader::SetIntFlag(bool intFlag)
{
    m_intFlag = intFlag;
}

bool
RoceBthHeader::GetIntFlag() const
{
    return m_intFlag;
}

void
RoceBthHeader::SetPsn(uint32_t psn)
{
    m_psn = psn & roce::PSN_MASK;
}

uint32_t
RoceBthHeader::GetPsn() const
{
    return m_psn;
}

void
RoceBthHeader::Print(std::ostream& os) const
{
    os << "BTH opcode=0x" << std::hex << std::setw(2) << std::setfill('0') << unsigned(m_opcode)
       << std::dec << std::setfill(' ') << " pkey=" << m_pkey << " dqp=" << m_destQp
       << " A=" << m_ackReq << " INT=" << m_intFlag << " psn=" << m_psn;
}

uint32_t
RoceBthHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
RoceBthHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteU8(m_opcode);
    i.WriteU8(m_flags);
    i.WriteHtonU16(m_pkey);
    i.WriteHtonU32(m_destQp & roce::QPN_MASK); // high byte = reserved
    i.WriteHtonU32((m_ackReq ? 0x80000000U : 0U) | (m_intFlag ? roce::BTH_INT_FLAG << 24 : 0U) |
                   (m_psn & roce::PSN_MASK));
}

uint32_t
RoceBthHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadU8();
    m_flags = i.ReadU8();
    m_pkey = i.ReadNtohU16();
    m_destQp = i.ReadNtohU32() & roce::QPN_MASK;
    uint32_t w = i.ReadNtohU32();
    m_ackReq = (w & 0x80000000U) != 0;
    m_intFlag = ((w >> 24) & roce::BTH_INT_FLAG) != 0;
    m_psn = w & roce::PSN_MASK;
    return SERIALIZED_SIZE;
}

// ------------------------------------------------------------------------------------ AETH

TypeId
RoceAethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceAethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Crux")
                            .AddConstructor<RoceAethHeader>();
    return tid;
}

RoceAethHeader::RoceAethHeader()
    : m_syndrome(SYNDROME_ACK),
      m_msn(0)
{
}

TypeId
RoceAethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceAethHeader::SetSyndrome(uint8_t syndrome)
{
    m_syndrome = syndrome;
}

uint8_t
RoceAethHeader::GetSyndrome() const
{
    return m_syndrome;
}

bool
RoceAethHeader::IsAck() const
{
    return (m_syndrome & 0x60) == 0x00;
}

bool
RoceAethHeader::IsNakSequenceError() const
{
    return m_syndrome == SYNDROME_NAK_PSN_SEQ_ERROR;
}

void
RoceAethHeader::SetMsn(uint32_t msn)
{
    m_msn = msn & 0xFFFFFF;
}

uint32_t
RoceAethHeader::GetMsn() const
{
    return m_msn;
}

void
RoceAethHeader::Print(std::ostream& os) const
{
    os << "AETH syndrome=0x" << std::hex << unsigned(m_syndrome) << std::dec
       << (IsAck() ? " (ACK)" : (IsNakSequenceError() ? " (NAK PSN sequence error)" : ""))
       << " msn=" << m_msn;
}

uint32_t
RoceAethHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
RoceAethHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32((static_cast<uint32_t>(m_syndrome) << 24) | (m_msn & 0xFFFFFF));
}

uint32_t
RoceAethHeader::Deserialize(Buffer::Iterator start)
{
    uint32_t w = start.ReadNtohU32();
    m_syndrome = static_cast<uint8_t>(w >> 24);
    m_msn = w & 0xFFFFFF;
    return SERIALIZED_SIZE;
}

} // namespace ns3
