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

#include "rdma-queue-pair.h"

#include "rdma-nic.h"
#include "roce-header.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRdmaQueuePair");

NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

RdmaQpStats&
RdmaQpStats::operator+=(const RdmaQpStats& o)
{
    txDataPackets += o.txDataPackets;
    txDataBytes += o.txDataBytes;
    retransmittedPackets += o.retransmittedPackets;
    nakRewinds += o.nakRewinds;
    timeouts += o.timeouts;
    acksReceived += o.acksReceived;
    naksReceived += o.naksReceived;
    cnpsReceived += o.cnpsReceived;
    messagesAcked += o.messagesAcked;
    deviceDrops += o.deviceDrops;
    classChangeWaits += o.classChangeWaits;
    rxDataPackets += o.rxDataPackets;
    rxDataBytes += o.rxDataBytes;
    outOfOrderDrops += o.outOfOrderDrops;
    duplicates += o.duplicates;
    acksSent += o.acksSent;
    naksSent += o.naksSent;
    cnpsSent += o.cnpsSent;
    ceReceived += o.ceReceived;
    messagesDelivered += o.messagesDelivered;
    pcieRxDrops += o.pcieRxDrops;
    return *this;
}

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaQueuePair").SetParent<Object>().SetGroupName("Crux");
    return tid;
}

RdmaQueuePair::RdmaQueuePair() = default;

RdmaQueuePair::~RdmaQueuePair() = default;

void
RdmaQueuePair::DoDispose()
{
    m_timer.Cancel();
    m_wakeEvent.Cancel();
    m_txMsgs.clear();
    m_rxMsgs.clear();
    m_cc = nullptr;
    m_describe = Callback<std::string, uint32_t, uint32_t>();
    m_peer = nullptr;
    m_nic = nullptr;
    Object::DoDispose();
}

uint32_t
RdmaQueuePair::GetQpn() const
{
    return m_qpn;
}

uint32_t
RdmaQueuePair::GetDestQpn() const
{
    return m_destQpn;
}

Ptr<RdmaNic>
RdmaQueuePair::GetNic() const
{
    return Ptr<RdmaNic>(m_nic);
}

Ipv4Address
RdmaQueuePair::GetLocalAddress() const
{
    return m_local;
}

Ipv4Address
RdmaQueuePair::GetRemoteAddress() const
{
    return m_remote;
}

uint16_t
RdmaQueuePair::GetSourcePort() const
{
    return m_srcPort;
}

uint16_t
RdmaQueuePair::GetPendingSourcePort() const
{
    return m_pendingPort;
}

void
RdmaQueuePair::SetSourcePort(uint16_t port)
{
    if (port == 0)
    {
        NS_FATAL_ERROR("RdmaQueuePair::SetSourcePort: port must be non-zero (QPN " << m_qpn << ")");
    }
    if (m_sndUna == m_sndHigh || port == m_srcPort)
    {
        m_srcPort = port;
        m_pendingPort = 0;
    }
    else
    {
        m_pendingPort = port;
    }
}

FiveTuple
RdmaQueuePair::GetFiveTuple() const
{
    FiveTuple t;
    t.srcIp = m_local;
    t.dstIp = m_remote;
    t.protocol = 17;
    t.srcPort = m_srcPort;
    t.dstPort = roce::UDP_PORT;
    return t;
}

uint32_t
RdmaQueuePair::GetInitialPsn() const
{
    return m_txPsnBase;
}

uint64_t
RdmaQueuePair::GetPostedPackets() const
{
    return m_sndMax;
}

uint64_t
RdmaQueuePair::GetAckedPackets() const
{
    return m_sndUna;
}

uint64_t
RdmaQueuePair::GetOutstandingMessages() const
{
    return m_txMsgs.size();
}

bool
RdmaQueuePair::IsIdle() const
{
    return m_sndUna == m_sndMax;
}

const RdmaQpStats&
RdmaQueuePair::GetStats() const
{
    return m_stats;
}

Ptr<RdmaCongestionControl>
RdmaQueuePair::GetCongestionControl() const
{
    return m_cc;
}

void
RdmaQueuePair::SetCongestionControl(Ptr<RdmaCongestionControl> cc)
{
    if (!cc)
    {
        NS_FATAL_ERROR("RdmaQueuePair::SetCongestionControl: null controller (QPN " << m_qpn
                                                                                    << ")");
    }
    m_cc = cc;
    if (m_nic)
    {
        m_nic->InitCongestionControl(this);
    }
    if (m_sndUna != m_sndMax)
    {
        m_cc->OnActive(); // replaced with packets in flight: the new one starts active
    }
}

void
RdmaQueuePair::SetLabels(const std::string& job,
                         const std::string& gpus,
                         Callback<std::string, uint32_t, uint32_t> describe)
{
    m_jobLabel = job;
    m_gpuLabel = gpus;
    m_describe = describe;
}

uint8_t
RdmaQueuePair::CurrentTc() const
{
    return m_txMsgs[m_txCur].tc;
}

void
RdmaQueuePair::SeekCursor()
{
    std::size_t i = 0;
    while (i < m_txMsgs.size() && m_txMsgs[i].firstSeq + m_txMsgs[i].nPkts <= m_sndNxt)
    {
        ++i;
    }
    m_txCur = i;
}

} // namespace ns3
