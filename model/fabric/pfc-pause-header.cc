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

#include "pfc-pause-header.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxPfcPauseHeader");

NS_OBJECT_ENSURE_REGISTERED(PfcPauseHeader);

TypeId
PfcPauseHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcPauseHeader")
                            .SetParent<Header>()
                            .SetGroupName("Crux")
                            .AddConstructor<PfcPauseHeader>();
    return tid;
}

PfcPauseHeader::PfcPauseHeader()
    : m_opcode(OPCODE_PFC),
      m_classEnable(0)
{
    m_quanta.fill(0);
}

TypeId
PfcPauseHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
PfcPauseHeader::SetPause(uint8_t tc, uint16_t quanta)
{
    SetQuanta(tc, quanta);
    m_classEnable |= static_cast<uint16_t>(1U << tc);
}

void
PfcPauseHeader::SetClassEnableVector(uint16_t vector)
{
    if (vector > 0xff)
    {
        NS_FATAL_ERROR("PfcPauseHeader: class-enable vector 0x" << std::hex << vector
                                                                << " has reserved bits set");
    }
    m_classEnable = vector;
}

uint16_t
PfcPauseHeader::GetClassEnableVector() const
{
    return m_classEnable;
}

bool
PfcPauseHeader::IsClassEnabled(uint8_t tc) const
{
    return tc < N_CLASSES && (m_classEnable & (1U << tc)) != 0;
}

void
PfcPauseHeader::SetQuanta(uint8_t tc, uint16_t quanta)
{
    if (tc >= N_CLASSES)
    {
        NS_FATAL_ERROR("PfcPauseHeader: traffic class " << unsigned(tc) << " out of range 0..7");
    }
    m_quanta[tc] = quanta;
}

uint16_t
PfcPauseHeader::GetQuanta(uint8_t tc) const
{
    if (tc >= N_CLASSES)
    {
        NS_FATAL_ERROR("PfcPauseHeader: traffic class " << unsigned(tc) << " out of range 0..7");
    }
    return m_quanta[tc];
}

void
PfcPauseHeader::SetOpcode(uint16_t opcode)
{
    m_opcode = opcode;
}

uint16_t
PfcPauseHeader::GetOpcode() const
{
    return m_opcode;
}

Mac48Address
PfcPauseHeader::GetPauseDestination()
{
    static const Mac48Address dest("01:80:c2:00:00:01");
    return dest;
}

void
PfcPauseHeader::Print(std::ostream& os) const
{
    os << "opcode=0x" << std::hex << m_opcode << " enable=0x" << m_classEnable << std::dec;
    for (uint8_t c = 0; c < N_CLASSES; ++c)
    {
        if (m_classEnable & (1U << c))
        {
            os << " c" << unsigned(c) << "=" << m_quanta[c];
        }
    }
}

uint32_t
PfcPauseHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
PfcPauseHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU16(m_opcode);
    i.WriteHtonU16(m_classEnable);
    for (uint8_t c = 0; c < N_CLASSES; ++c)
    {
        i.WriteHtonU16(m_quanta[c]);
    }
    i.WriteU8(0, SERIALIZED_SIZE - 4 - 2 * N_CLASSES);
}

uint32_t
PfcPauseHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadNtohU16();
    m_classEnable = i.ReadNtohU16();
    for (uint8_t c = 0; c < N_CLASSES; ++c)
    {
        m_quanta[c] = i.ReadNtohU16();
    }
    i.Next(SERIALIZED_SIZE - 4 - 2 * N_CLASSES);
    return SERIALIZED_SIZE;
}

} // namespace ns3
