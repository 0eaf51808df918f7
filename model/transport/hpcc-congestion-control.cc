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

#include "hpcc-congestion-control.h"

#include "ns3/boolean.h"
#include "ns3/crux-run-error.h"
#include "ns3/double.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxHpccCongestionControl");

NS_OBJECT_ENSURE_REGISTERED(HpccCongestionControl);

TypeId
HpccCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HpccCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Crux")
            .AddConstructor<HpccCongestionControl>()
            .AddAttribute("TargetUtilization",
                          "eta: the utilisation HPCC steers every link to (0.95: HPCC paper and "
                          "the HPCC simulator's TargetUtil).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&HpccCongestionControl::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "maxStage: additive-increase steps before a multiplicative update is "
                          "forced (5: HPCC paper, the HPCC simulator's MiThresh attribute; its "
                          "shipped configs use 0).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&HpccCongestionControl::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAi",
                          "W_AI / T: additive increase per RTT as a rate (40 Mb/s: the HPCC "
                          "simulator's run.py, 10 x bw/25 Mb/s at 100 Gbit/s).",
                          DataRateValue(DataRate("40Mb/s")),
                          MakeDataRateAccessor(&HpccCongestionControl::m_rai),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Lowest rate (100 Mb/s: the HPCC simulator's MinRate).",
                          DataRateValue(DataRate("100Mb/s")),
                          MakeDataRateAccessor(&HpccCongestionControl::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("BaseRtt",
                          "T, the base RTT; 0 = the NIC's BaseRtt (RdmaTransportHelper sets it "
                          "to the largest base RTT of the topology, as the HPCC simulator).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&HpccCongestionControl::m_baseRttOverride),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FastReact",
                          "Recompute W from Wc on every ACK (true: HPCC paper, the simulator's "
                          "FastReact 1); false = only once per RTT.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&HpccCongestionControl::m_fastReact),
                          MakeBooleanChecker())
            .AddAttribute("AckRequestInterval",
                          "AckReq on every n-th data packet (1: an ACK with INT per packet, as "
                          "the HPCC simulator's L2_ACK_INTERVAL 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&HpccCongestionControl::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

HpccCongestionControl::HpccCongestionControl()
    : m_eta(0.95),
      m_maxStage(5),
      m_rai(DataRate("40Mb/s")),
      m_minRate(DataRate("100Mb/s")),
      m_fastReact(true),
      m_ackInterval(1)
{
}

HpccCongestionControl::~HpccCongestionControl() = default;

void
HpccCongestionControl::Init(DataRate lineRate, Time baseRtt)
{
    RdmaCongestionControl::Init(lineRate, baseRtt);
    const Time t = m_baseRttOverride.IsStrictlyPositive() ? m_baseRttOverride : baseRtt;
    if (!t.IsStrictlyPositive())
    {
        throw CruxRunError("ns3::HpccCongestionControl: no base RTT T (set ns3::RdmaNic::BaseRtt, "
                           "install with RdmaTransportHelper, or set "
                           "ns3::HpccCongestionControl::BaseRtt)");
    }
    m_t = t.GetSeconds();
    m_w = static_cast<double>(lineRate.GetBitRate()) / 8.0 * m_t;
    m_wc = m_w;
    m_u = 1.0;
}

Time
HpccCongestionControl::GetT() const
{
    return Seconds(m_t);
}

DataRate
HpccCongestionControl::GetRate() const
{
    return DataRate(static_cast<uint64_t>(m_w * 8.0 / m_t));
}

uint64_t
HpccCongestionControl::GetWindowBytes() const
{
    return static_cast<uint64_t>(m_w);
}

bool
HpccCongestionControl::UsesInt() const
{
    return true;
}

uint32_t
HpccCongestionControl::GetAckRequestInterval() const
{
    return m_ackInterval;
}

double
HpccCongestionControl::GetUtilization() const
{
    return m_u;
}

double
HpccCongestionControl::GetReferenceWindow() const
{
    return m_wc;
}

void
HpccCongestionControl::OnAck(const RdmaAckEvent& ack)
{
    if (ack.intEcho == nullptr)
    {
        return;
    }
    const InbandTelemetryHeader& h = *ack.intEcho;
    const uint32_t n = h.GetNHops();
    if (!m_haveSample || n != m_nHops)
    {
        // first sample (or a path of another length): the reference for the next one
        for (uint32_t i = 0; i < n; ++i)
        {
            m_hops[i] = h.GetHop(i);
        }
        m_nHops = n;
        m_haveSample = true;
        m_lastUpdateSeq = ack.nextPacket;
        return;
    }
    const bool perRtt = ack.ackedPackets > m_lastUpdateSeq;
    if (!perRtt && !m_fastReact)
    {
        return;
    }
    double uMax = -1;
    double tauOfMax = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const IntHop& cur = h.GetHop(i);
        const uint64_t dtNs = cur.TimeDeltaNs(m_hops[i]);
        if (dtNs > 0)
        {
            const double tau = static_cast<double>(dtNs) * 1e-9;
            const double b = cur.GetRateBps();
            const double txRate = static_cast<double>(cur.BytesDelta(m_hops[i])) * 8.0 / tau;
            const double q =
                static_cast<double>(std::min(cur.GetQueueBytes(), m_hops[i].GetQueueBytes()));
            const double u = q * 8.0 / (b * m_t) + txRate / b;
            if (u > uMax)
            {
                uMax = u;
                tauOfMax = tau;
            }
        }
        m_hops[i] = cur;
    }
    if (uMax < 0)
    {
        return; // no hop advanced
    }
    const double tau = std::min(tauOfMax, m_t);
    m_u = (1.0 - tau / m_t) * m_u + tau / m_t * uMax;
    const double wAi = static_cast<double>(m_rai.GetBitRate()) / 8.0 * m_t;
    double w;
    uint32_t stage;
    if (m_u >= m_eta || m_incStage >= m_maxStage)
    {
        w = m_wc / (m_u / m_eta) + wAi;
        stage = 0;
    }
    else
    {
        w = m_wc + wAi;
        stage = m_incStage + 1;
    }
    const double wMin = static_cast<double>(m_minRate.GetBitRate()) / 8.0 * m_t;
    const double wMax = static_cast<double>(m_lineRate.GetBitRate()) / 8.0 * m_t;
    m_w = std::clamp(w, wMin, wMax);
    if (perRtt)
    {
        m_wc = m_w;
        m_incStage = stage;
        m_lastUpdateSeq = ack.nextPacket;
    }
    NS_LOG_LOGIC("U " << m_u << " u " << uMax << " W " << m_w << " Wc " << m_wc << " rate "
                      << m_w * 8 / m_t / 1e9 << " Gb/s");
}

} // namespace ns3
