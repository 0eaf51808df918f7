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

// The traffic-class configuration of QbbNetDevice: the DSCP -> traffic class map (attribute
// DscpToTc, IEEE 802.1Q classes selected by DSCP as in RFC 2474's class selectors), the control
// class (ControlDscp) and the DWRR quanta (DwrrQuanta); their attribute texts are parsed here,
// for the attributes' checkers and setters alike.

#include "qbb-net-device.h"

#include "ns3/checked-parse.h"
#include "ns3/fatal-error.h"

#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/// Parse an unsigned decimal integer that fills the whole of \p text (ParseUint64's rules);
/// false on error.
bool
ParseUnsigned(const std::string& text, uint64_t& value)
{
    try
    {
        value = ParseUint64(text, "value");
        return true;
    }
    catch (const InputError&)
    {
        return false;
    }
}

/// Split \p text at \p sep, trimming blanks around each piece.
std::vector<std::string>
Split(const std::string& text, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    std::istringstream is(text);
    while (std::getline(is, cur, sep))
    {
        const auto b = cur.find_first_not_of(" \t");
        const auto e = cur.find_last_not_of(" \t");
        out.push_back(b == std::string::npos ? std::string() : cur.substr(b, e - b + 1));
    }
    return out;
}

} // namespace

std::string
QbbNetDevice::ParseDscpToTc(const std::string& spec, std::array<uint8_t, 64>& map)
{
    for (uint32_t d = 0; d < map.size(); ++d)
    {
        map[d] = crux::TrafficClassOfDscp(d);
    }
    if (spec.find_first_not_of(" \t") != std::string::npos)
    {
        for (const std::string& entry : Split(spec, ','))
        {
            const auto colon = entry.find(':');
            const auto dash = entry.find('-');
            uint64_t lo = 0;
            uint64_t hi = 0;
            uint64_t tc = 0;
            bool ok = colon != std::string::npos && ParseUnsigned(entry.substr(colon + 1), tc);
            if (ok && dash != std::string::npos && dash < colon)
            {
                ok = ParseUnsigned(entry.substr(0, dash), lo) &&
                     ParseUnsigned(entry.substr(dash + 1, colon - dash - 1), hi);
            }
            else if (ok)
            {
                ok = ParseUnsigned(entry.substr(0, colon), lo);
                hi = lo;
            }
            if (!ok || lo > hi || hi > 63 || tc >= N_TC)
            {
                return "bad entry \"" + entry +
                       "\" (expected lo-hi:tc or dscp:tc, DSCP 0..63, TC 0..7)";
            }
            for (uint64_t d = lo; d <= hi; ++d)
            {
                map[d] = static_cast<uint8_t>(tc);
            }
        }
    }
    return "";
}

void
QbbNetDevice::SetDscpToTcSpec(std::string spec)
{
    std::array<uint8_t, 64> map;
    const std::string problem = ParseDscpToTc(spec, map);
    if (!problem.empty())
    {
        // unreachable through attributes: their checker refuses such a text
        NS_FATAL_ERROR("QbbNetDevice attribute DscpToTc: " << problem);
    }
    m_dscpToTc = map;
    m_dscpToTcSpec = spec;
}

std::string
QbbNetDevice::GetDscpToTcSpec() const
{
    return m_dscpToTcSpec;
}

std::string
QbbNetDevice::ParseDwrrQuanta(const std::string& spec, std::array<uint32_t, N_TC>& quanta)
{
    const std::vector<std::string> parts = Split(spec, ',');
    if (parts.size() != 1 && parts.size() != N_TC)
    {
        return "must hold 1 or 8 comma-separated byte counts";
    }
    for (uint8_t c = 0; c < N_TC; ++c)
    {
        uint64_t v = 0;
        const std::string& text = parts.size() == 1 ? parts[0] : parts[c];
        if (!ParseUnsigned(text, v) || v == 0 || v > 0xffffffffULL)
        {
            return "bad quantum \"" + text + "\" (bytes, 1..2^32-1)";
        }
        quanta[c] = static_cast<uint32_t>(v);
    }
    return "";
}

void
QbbNetDevice::SetDwrrQuantaSpec(std::string spec)
{
    std::array<uint32_t, N_TC> quanta;
    const std::string problem = ParseDwrrQuanta(spec, quanta);
    if (!problem.empty())
    {
        // unreachable through attributes: their checker refuses such a text
        NS_FATAL_ERROR("QbbNetDevice attribute DwrrQuanta: " << problem);
    }
    m_quantum = quanta;
    m_dwrrQuantaSpec = spec;
}

std::string
QbbNetDevice::GetDwrrQuantaSpec() const
{
    return m_dwrrQuantaSpec;
}

uint8_t
QbbNetDevice::DscpToTc(uint8_t dscp) const
{
    if (dscp >= m_dscpToTc.size())
    {
        NS_FATAL_ERROR("QbbNetDevice::DscpToTc: DSCP " << unsigned(dscp) << " out of range 0..63");
    }
    return m_dscpToTc[dscp];
}

uint8_t
QbbNetDevice::DscpToClass(uint8_t dscp) const
{
    if (dscp == m_controlDscp)
    {
        return CONTROL_CLASS;
    }
    return DscpToTc(dscp);
}

uint8_t
QbbNetDevice::GetControlDscp() const
{
    return m_controlDscp;
}

} // namespace ns3
