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

#include "rdma-congestion-control.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRdmaCongestionControl");

NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionControl);

TypeId
RdmaCongestionControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaCongestionControl")
                            .SetParent<Object>()
                            .SetGroupName("Crux")
                            .AddConstructor<RdmaCongestionControl>();
    return tid;
}

RdmaCongestionControl::RdmaCongestionControl()
    : m_lineRate(DataRate("100Gb/s"))
{
}

RdmaCongestionControl::~RdmaCongestionControl() = default;

void
RdmaCongestionControl::Init(DataRate lineRate, Time baseRtt)
{
    m_lineRate = lineRate;
    m_baseRtt = baseRtt;
}

DataRate
RdmaCongestionControl::GetRate() const
{
    return m_lineRate;
}

uint64_t
RdmaCongestionControl::GetWindowBytes() const
{
    return 0;
}

bool
RdmaCongestionControl::UsesInt() const
{
    return false;
}

uint32_t
RdmaCongestionControl::GetAckRequestInterval() const
{
    return 0;
}

void
RdmaCongestionControl::OnDataSent(uint32_t /* frameBytes */)
{
}

void
RdmaCongestionControl::OnAck(const RdmaAckEvent& /* ack */)
{
}

void
RdmaCongestionControl::OnCnp()
{
}

void
RdmaCongestionControl::OnTimeout()
{
}

void
RdmaCongestionControl::OnIdle()
{
}

void
RdmaCongestionControl::OnActive()
{
}

DataRate
RdmaCongestionControl::GetLineRate() const
{
    return m_lineRate;
}

Time
RdmaCongestionControl::GetBaseRtt() const
{
    return m_baseRtt;
}

} // namespace ns3
