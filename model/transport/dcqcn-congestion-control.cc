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

#include "dcqcn-congestion-control.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxDcqcnCongestionControl");

NS_OBJECT_ENSURE_REGISTERED(DcqcnCongestionControl);

namespace
{
const std::string g_eventCnp = "cnp";                    //!< Rate trace event
const std::string g_eventFastRecovery = "fast-recovery"; //!< Rate trace event
const std::string g_eventAdditive = "additive";          //!< Rate trace event
const std::string g_eventHyper = "hyper";                //!< Rate trace event
const std::string g_eventLineRate = "line-rate";         //!< Rate trace event
} // namespace

// Parameter sources (workloads-fabric-facts.md §1.2): "paper" = Zhu et al. SIGCOMM'15 as quoted
// by third-party notes and the authors' sample configuration (the paper's full text was not
// reached: these values are marked there as from memory / secondary); "ns3-rdma" = the authors'
// simulator bobzhuyb/ns3-rdma (qbb-net-device.cc attributes and its sample config).
TypeId
DcqcnCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcqcnCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("Crux")
            .AddConstructor<DcqcnCongestionControl>()
            .AddAttribute("G",
                          "Gain g of the alpha estimate: alpha <- (1-g) alpha + g on a CNP, "
                          "(1-g) alpha per AlphaUpdatePeriod without one. 1/256: DCQCN paper, "
                          "ns3-rdma sample config and the HPCC simulator's config agree.",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_g),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("InitialAlpha",
                          "alpha before the first CNP (1: DCQCN paper; NVIDIA NICs 1023/1024).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_initialAlpha),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AlphaUpdatePeriod",
                          "K: alpha decays once per K without a CNP (55 us: DCQCN paper, "
                          "ns3-rdma AlphaResumInterval).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_alphaPeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateIncreaseTimer",
                          "T: period of the rate-increase timer (55 us: DCQCN paper; ns3-rdma's "
                          "sample config 60 us, NVIDIA rpg_time_reset 300 us).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_timerPeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ByteCounter",
                          "B: one rate-increase event per B bytes sent (10 MB: DCQCN paper).",
                          UintegerValue(10000000),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_byteCounter),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("FastRecoverySteps",
                          "F: increase events of fast recovery before additive increase, and "
                          "the threshold of hyper increase (5: DCQCN paper, ns3-rdma).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_fastSteps),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RateAi",
                          "R_AI: target-rate step of additive increase (40 Mb/s: DCQCN paper, "
                          "ns3-rdma sample config).",
                          DataRateValue(DataRate("40Mb/s")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_rai),
                          MakeDataRateChecker())
            .AddAttribute("RateHai",
                          "R_HAI: target-rate step of hyper increase, times the hyper stage i "
                          "(200 Mb/s: ns3-rdma sample config, also the HPCC simulator at 100 "
                          "Gbit/s; the paper's value was not found).",
                          DataRateValue(DataRate("200Mb/s")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_rhai),
                          MakeDataRateChecker())
            .AddAttribute("ClampTargetRate",
                          "On every CNP, Rt <- Rc (the DCQCN paper's pseudo-code; ns3-rdma's "
                          "ClampTargetRate, true in its sample config). False (default): Rt "
                          "<- Rc only if a rate-increase event happened since the previous CNP "
                          "(NVIDIA NIC defaults clamp_tgt_rate = 0, "
                          "clamp_tgt_rate_after_time_inc = 1), so that a burst of CNPs does not "
                          "also drag the target rate down.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&DcqcnCongestionControl::m_clampAlways),
                          MakeBooleanChecker())
            .AddAttribute("MinRate",
                          "Lowest rate a CNP can cut to (100 Mb/s: ns3-rdma and the HPCC "
                          "simulator; NVIDIA rpg_min_rate 1 Mb/s).",
                          DataRateValue(DataRate("100Mb/s")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_minRate),
                          MakeDataRateChecker())
            .AddTraceSource("Rate",
                            "The rates after a CNP or an increase event: (Rc, Rt, event).",
                            MakeTraceSourceAccessor(&DcqcnCongestionControl::m_rateTrace),
                            "ns3::DcqcnCongestionControl::RateTracedCallback");
    return tid;
}

DcqcnCongestionControl::DcqcnCongestionControl()
    : m_g(1.0 / 256),
      m_initialAlpha(1.0),
      m_alphaPeriod(MicroSeconds(55)),
      m_timerPeriod(MicroSeconds(55)),
      m_byteCounter(10000000),
      m_fastSteps(5),
      m_rai(DataRate("40Mb/s")),
      m_rhai(DataRate("200Mb/s")),
      m_minRate(DataRate("100Mb/s")),
      m_clampAlways(false)
{
}

DcqcnCongestionControl::~DcqcnCongestionControl() = default;

void
DcqcnCongestionControl::DoDispose()
{
    StopTimer();
    RdmaCongestionControl::DoDispose();
}

void
DcqcnCongestionControl::Init(DataRate lineRate, Time baseRtt)
{
    RdmaCongestionControl::Init(lineRate, baseRtt);
    m_rc = static_cast<double>(lineRate.GetBitRate());
    m_rt = m_rc;
    m_alpha = m_initialAlpha;
    m_alphaRef = Simulator::Now();
}

DataRate
DcqcnCongestionControl::GetRate() const
{
    return DataRate(static_cast<uint64_t>(m_rc));
}

DataRate
DcqcnCongestionControl::GetTargetRate() const
{
    return DataRate(static_cast<uint64_t>(m_rt));
}

double
DcqcnCongestionControl::GetAlpha() const
{
    DecayAlpha();
    return m_alpha;
}

uint64_t
DcqcnCongestionControl::GetCnpCount() const
{
    return m_cnps;
}

bool
DcqcnCongestionControl::IsRecovering() const
{
    return m_recovering;
}

uint32_t
DcqcnCongestionControl::GetTimerEvents() const
{
    return m_timerEvents;
}

uint32_t
DcqcnCongestionControl::GetByteEvents() const
{
    return m_byteEvents;
}

void
DcqcnCongestionControl::DecayAlpha() const
{
    if (m_cnps == 0)
    {
        return; // alpha keeps its initial value until the first CNP
    }
    const Time now = Simulator::Now();
    const int64_t periods = (now - m_alphaRef).GetTimeStep() / m_alphaPeriod.GetTimeStep();
    if (periods > 0)
    {
        m_alpha *= std::pow(1.0 - m_g, static_cast<double>(periods));
        m_alphaRef += m_alphaPeriod * periods;
    }
}

void
DcqcnCongestionControl::OnCnp()
{
    CatchUp();
    DecayAlpha();
    ++m_cnps;
    const double line = static_cast<double>(m_lineRate.GetBitRate());
    if (m_clampAlways || m_cnps == 1 || m_timerEvents > 0 || m_byteEvents > 0)
    {
        m_rt = m_rc; // the target: the rate before this cut
    }
    m_rc = std::max(static_cast<double>(m_minRate.GetBitRate()), m_rc * (1.0 - m_alpha / 2.0));
    m_rc = std::min(m_rc, line);
    m_alpha = (1.0 - m_g) * m_alpha + m_g;
    m_alphaRef = Simulator::Now();
    m_timerEvents = 0;
    m_byteEvents = 0;
    m_bytes = 0;
    m_recovering = true;
    StopTimer();
    ArmTimer(Simulator::Now() + m_timerPeriod);
    NS_LOG_LOGIC("CNP: Rc " << m_rc / 1e9 << " Gb/s, Rt " << m_rt / 1e9 << " Gb/s, alpha "
                            << m_alpha);
    m_rateTrace(GetRate(), GetTargetRate(), g_eventCnp);
}

void
DcqcnCongestionControl::OnDataSent(uint32_t frameBytes)
{
    if (!m_recovering)
    {
        return;
    }
    m_bytes += frameBytes;
    if (m_bytes >= m_byteCounter)
    {
        m_bytes -= m_byteCounter;
        ++m_byteEvents;
        Increase();
    }
}

void
DcqcnCongestionControl::TimerExpired()
{
    const Time due = m_timerDue;
    m_timerArmed = false;
    ++m_timerEvents;
    Increase();
    if (m_recovering)
    {
        ArmTimer(due + m_timerPeriod);
    }
}

void
DcqcnCongestionControl::ArmTimer(Time due)
{
    m_timerDue = due;
    m_timerArmed = true;
    if (!m_idle)
    {
        m_timer = Simulator::Schedule(due - Simulator::Now(),
                                      &DcqcnCongestionControl::TimerExpired,
                                      this);
    }
}

void
DcqcnCongestionControl::StopTimer()
{
    m_timerArmed = false;
    if (m_timer.IsRunning())
    {
        // removed, not cancelled: a cancelled event would still advance the clock to its time
        Simulator::Remove(m_timer);
    }
}

void
DcqcnCongestionControl::CatchUp()
{
    const Time now = Simulator::Now();
    while (m_idle && m_timerArmed && m_timerDue <= now)
    {
        TimerExpired(); // re-arms (without scheduling) while the rate is still recovering
    }
}

void
DcqcnCongestionControl::OnIdle()
{
    if (m_idle)
    {
        return;
    }
    m_idle = true;
    if (m_timer.IsRunning())
    {
        Simulator::Remove(m_timer); // m_timerDue stays armed: CatchUp() applies it later
    }
}

void
DcqcnCongestionControl::OnActive()
{
    if (!m_idle)
    {
        return;
    }
    CatchUp();
    m_idle = false;
    if (m_timerArmed)
    {
        ArmTimer(m_timerDue);
    }
}

void
DcqcnCongestionControl::Increase()
{
    const double line = static_cast<double>(m_lineRate.GetBitRate());
    const uint32_t lo = std::min(m_timerEvents, m_byteEvents);
    const uint32_t hi = std::max(m_timerEvents, m_byteEvents);
    const std::string* event = &g_eventFastRecovery;
    if (hi < m_fastSteps)
    {
        m_rc = (m_rt + m_rc) / 2.0; // fast recovery towards the rate before the cut
    }
    else
    {
        if (lo >= m_fastSteps)
        {
            const double i = static_cast<double>(lo - m_fastSteps + 1);
            m_rt += i * static_cast<double>(m_rhai.GetBitRate()); // hyper increase
            event = &g_eventHyper;
        }
        else
        {
            m_rt += static_cast<double>(m_rai.GetBitRate()); // additive increase
            event = &g_eventAdditive;
        }
        m_rt = std::min(m_rt, line);
        m_rc = (m_rt + m_rc) / 2.0;
    }
    m_rc = std::min(m_rc, line);
    if (m_rt >= line && line - m_rc < static_cast<double>(m_rai.GetBitRate()))
    {
        m_rc = line;
        m_recovering = false;
        StopTimer();
        event = &g_eventLineRate;
    }
    m_rateTrace(GetRate(), GetTargetRate(), *event);
}

} // namespace ns3
