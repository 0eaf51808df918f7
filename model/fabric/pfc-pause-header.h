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

#ifndef CRUX_PFC_PAUSE_HEADER_H
#define CRUX_PFC_PAUSE_HEADER_H

#include "ns3/header.h"
#include "ns3/mac48-address.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup crux
 * \brief MAC-control payload of an IEEE 802.1Qbb priority-based flow control (PFC) PAUSE frame.
 *
 * Layout (IEEE 802.1Qbb clause 36 / IEEE 802.3 Annex 31D), all fields big-endian:
 *
 * | bytes | field                                                                   |
 * |-------|-------------------------------------------------------------------------|
 * | 2     | MAC control opcode, 0x0101 (class-based flow control)                   |
 * | 2     | priority-enable vector: high octet 0, bit n of the low octet = class n  |
 * | 16    | time[0] .. time[7]: pause quanta per class (1 quantum = 512 bit times)  |
 * | 26    | zero padding up to the 46-byte minimum Ethernet payload                 |
 *
 * The frame carrying it has Ethernet destination 01:80:c2:00:00:01 (GetPauseDestination()) and
 * EtherType 0x8808. Quanta of a class whose enable bit is clear are ignored by the receiver.
 * A quanta of 0 for an enabled class means "resume now" (XON).
 */
class PfcPauseHeader : public Header
{
  public:
    static constexpr uint16_t OPCODE_PFC = 0x0101;  //!< class-based flow control opcode
    static constexpr uint32_t SERIALIZED_SIZE = 46; //!< bytes: minimum Ethernet payload
    static constexpr uint8_t N_CLASSES = 8;         //!< traffic classes in the vector

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Builds a PFC header (opcode 0x0101) with no class enabled and all quanta 0.
    PfcPauseHeader();

    /**
     * \brief Enable one class and set its pause time.
     * \param tc traffic class 0..7 (NS_FATAL_ERROR otherwise)
     * \param quanta pause time in units of 512 bit times; 0 = resume
     */
    void SetPause(uint8_t tc, uint16_t quanta);

    /// \param vector priority-enable vector (bit n = class n; the high octet must be 0)
    void SetClassEnableVector(uint16_t vector);
    /// \return the priority-enable vector (bit n = class n)
    uint16_t GetClassEnableVector() const;

    /// \return true if class \p tc (0..7) is enabled in the vector
    /// \param tc traffic class
    bool IsClassEnabled(uint8_t tc) const;

    /**
     * \param tc traffic class 0..7 (NS_FATAL_ERROR otherwise)
     * \param quanta pause time of that class in units of 512 bit times (enable bit unchanged)
     */
    void SetQuanta(uint8_t tc, uint16_t quanta);
    /// \return pause quanta of class \p tc (units of 512 bit times)
    /// \param tc traffic class 0..7 (NS_FATAL_ERROR otherwise)
    uint16_t GetQuanta(uint8_t tc) const;

    /// \param opcode MAC control opcode (0x0101 for PFC; other values only for tests)
    void SetOpcode(uint16_t opcode);
    /// \return MAC control opcode as read/written (0x0101 for PFC)
    uint16_t GetOpcode() const;

    /// \return the reserved multicast address of MAC control frames, 01:80:c2:00:00:01
    static Mac48Address GetPauseDestination();

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

  private:
    uint16_t m_opcode;                        //!< MAC control opcode
    uint16_t m_classEnable;                   //!< priority-enable vector
    std::array<uint16_t, N_CLASSES> m_quanta; //!< per-class pause quanta
};

} // namespace ns3

#endif // CRUX_PFC_PAUSE_HEADER_H
