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

#include "dlt-job-application.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <map>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxDltJobApplication");

NS_OBJECT_ENSURE_REGISTERED(DltJobApplication);

/**
 * \brief The transport the job's rings talk to: forwards every message to the real transport
 * with the job's current DSCP and the flow's current UDP source port (SetDscp(),
 * SetFlowSourcePort()), so runtime changes reach the next message of a running all-reduce.
 * Without runtime changes it forwards the values the rings were set up with (identical
 * messages).
 */
class DltJobApplication::Relay : public MessageTransport
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::DltJobApplication::Relay")
                                .SetParent<MessageTransport>()
                                .SetGroupName("Crux");
        return tid;
    }

    /// \param inner the real transport \param dscp initial DSCP \param ports initial ports
    Relay(Ptr<MessageTransport> inner, uint8_t dscp, const std::map<uint32_t, uint16_t>& ports)
        : m_inner(inner),
          m_dscp(dscp),
          m_ports(ports)
    {
    }

    void Send(const MessageRequest& req, CompletionCallback done) override
    {
        MessageRequest r = req;
        r.dscp = m_dscp;
        auto it = m_ports.find(req.flowId);
        if (it != m_ports.end())
        {
            r.udpSrcPort = it->second;
        }
        m_inner->Send(r, done);
    }

    Ptr<MessageTransport> m_inner;        //!< the real transport
    uint8_t m_dscp;                       //!< DSCP of the next messages
    std::map<uint32_t, uint16_t> m_ports; //!< flow id -> UDP source port of the next messages

  protected:
    void DoDispose() override
    {
        m_inner = nullptr;
        MessageTransport::DoDispose();
    }
};

TypeId
DltJobApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DltJobApplication")
            .SetParent<Application>()
            .SetGroupName("Crux")
            .AddConstructor<DltJobApplication>()
            .AddAttribute("Iterations",
                          "Iterations to run; 0 = the job's DltJob::iterations.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DltJobApplication::m_iterationsAttr),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("OverlapStart",
                          "Forward fraction of the compute (0..1) after which the first gradient "
                          "bucket can be produced; negative = the job's DltJob::overlapStart.",
                          DoubleValue(-1),
                          MakeDoubleAccessor(&DltJobApplication::m_overlapAttr),
                          MakeDoubleChecker<double>(-1, 1))
            .AddAttribute("ComputeTime",
                          "Computation time per iteration; negative = the job's "
                          "DltJob::computeTime.",
                          TimeValue(Seconds(-1)),
                          MakeTimeAccessor(&DltJobApplication::m_computeAttr),
                          MakeTimeChecker())
            .AddAttribute("NumBuckets",
                          "Gradient buckets per iteration; 0 = the job's DltJob::numBuckets.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DltJobApplication::m_bucketsAttr),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("IterationComplete",
                            "An iteration finished: (jobId, iteration, start, end, FLOPs).",
                            MakeTraceSourceAccessor(&DltJobApplication::m_iterationTrace),
                            "ns3::DltJobApplication::IterationTracedCallback")
            .AddTraceSource("JobComplete",
                            "All iterations finished: (jobId, JCT).",
                            MakeTraceSourceAccessor(&DltJobApplication::m_jobCompleteTrace),
                            "ns3::DltJobApplication::JobCompleteTracedCallback")
            .AddTraceSource("AllReduceComplete",
                            "A gradient bucket's all-reduce finished on every rail: "
                            "(jobId, iteration, bucket, start, end).",
                            MakeTraceSourceAccessor(&DltJobApplication::m_allReduceTrace),
                            "ns3::DltJobApplication::AllReduceTracedCallback");
    return tid;
}

DltJobApplication::DltJobApplication()
    : m_computeAttr(Seconds(-1)),
      m_jct(Seconds(-1))
{
    NS_LOG_FUNCTION(this);
}

DltJobApplication::~DltJobApplication() = default;

void
DltJobApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& e : m_events)
    {
        e.Cancel();
    }
    m_events.clear();
    for (auto& r : m_rings)
    {
        r->Dispose();
    }
    m_rings.clear();
    if (m_relay)
    {
        m_relay->Dispose();
        m_relay = nullptr;
    }
    m_transport = nullptr;
    Application::DoDispose();
}

void
DltJobApplication::SetJob(const DltJob& job)
{
    NS_LOG_FUNCTION(this << job.id);
    job.Validate();
    m_job = job;
    m_jobSet = true;
    SetStartTime(Seconds(job.startTime));
}

const DltJob&
DltJobApplication::GetJob() const
{
    return m_job;
}

const DltJob&
DltJobApplication::GetEffectiveJob() const
{
    return m_run;
}

void
DltJobApplication::SetTransport(Ptr<MessageTransport> transport)
{
    m_transport = transport;
}

double
DltJobApplication::GetComputeTime() const
{
    return m_computeAttr.IsNegative() ? m_job.computeTime : m_computeAttr.GetSeconds();
}

double
DltJobApplication::GetOverlapStart() const
{
    return m_overlapAttr < 0 ? m_job.overlapStart : m_overlapAttr;
}

uint32_t
DltJobApplication::GetNumBuckets() const
{
    return m_bucketsAttr == 0 ? m_job.numBuckets : m_bucketsAttr;
}

uint32_t
DltJobApplication::GetIterations() const
{
    return m_iterationsAttr == 0 ? m_job.iterations : m_iterationsAttr;
}

const std::vector<double>&
DltJobApplication::GetIterationTimes() const
{
    return m_iterTimes;
}

const std::vector<double>&
DltJobApplication::GetIterationStarts() const
{
    return m_iterStarts;
}

uint32_t
DltJobApplication::GetCompletedIterations() const
{
    return m_iterTimes.size();
}

bool
DltJobApplication::IsComplete() const
{
    return m_complete;
}

Time
DltJobApplication::GetJct() const
{
    return m_jct;
}

uint8_t
DltJobApplication::GetDscp() const
{
    return m_job.dscp;
}

void
DltJobApplication::SetDscp(uint8_t dscp)
{
    NS_LOG_FUNCTION(this << unsigned(dscp));
    if (dscp > 63)
    {
        throw std::invalid_argument("DltJobApplication::SetDscp (job " + std::to_string(m_job.id) +
                                    "): dscp " + std::to_string(dscp) + " > 63");
    }
    m_job.dscp = dscp;
    m_run.dscp = dscp;
    if (m_relay)
    {
        m_relay->m_dscp = dscp;
    }
}

uint16_t
DltJobApplication::GetFlowSourcePort(uint32_t flowId) const
{
    return m_job.UdpSrcPortOf(flowId);
}

void
DltJobApplication::SetFlowSourcePort(uint32_t flowId, uint16_t port)
{
    NS_LOG_FUNCTION(this << flowId << port);
    if (!m_jobSet)
    {
        throw std::invalid_argument("DltJobApplication::SetFlowSourcePort: SetJob was not called");
    }
    const uint32_t flows =
        m_job.DataParallel() > 1 ? m_job.TensorParallel() * m_job.DataParallel() : 0;
    if (flowId >= flows)
    {
        throw std::invalid_argument("DltJobApplication::SetFlowSourcePort (job " +
                                    std::to_string(m_job.id) + "): flowId " +
                                    std::to_string(flowId) + " is not a flow of the job (it has " +
                                    std::to_string(flows) + " inter-host flows)");
    }
    if (port == 0)
    {
        throw std::invalid_argument("DltJobApplication::SetFlowSourcePort (job " +
                                    std::to_string(m_job.id) + ", flow " + std::to_string(flowId) +
                                    "): port must be non-zero");
    }
    m_job.udpSrcPorts[flowId] = port;
    m_run.udpSrcPorts[flowId] = port;
    if (m_relay)
    {
        m_relay->m_ports[flowId] = port;
    }
}

void
DltJobApplication::Stop()
{
    NS_LOG_FUNCTION(this);
    if (m_stopped)
    {
        return;
    }
    m_stopped = true;
    if (m_running)
    {
        StopApplication();
    }
}

bool
DltJobApplication::IsStopped() const
{
    return m_stopped;
}

void
DltJobApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_stopped)
    {
        return; // stopped before its start
    }
    if (!m_jobSet)
    {
        NS_FATAL_ERROR("DltJobApplication: SetJob was not called before the start");
    }
    if (!m_transport)
    {
        NS_FATAL_ERROR("DltJobApplication (job " << m_job.id << "): SetTransport was not called");
    }
    // the job as run: attribute overrides applied
    m_run = m_job;
    m_run.computeTime = GetComputeTime();
    m_run.overlapStart = GetOverlapStart();
    m_run.numBuckets = GetNumBuckets();
    m_run.iterations = GetIterations();
    m_run.Validate();
    m_rings.clear();
    m_relay = CreateObject<Relay>(m_transport, m_run.dscp, m_run.udpSrcPorts);
    const uint32_t dp = m_run.DataParallel();
    const uint32_t tp = m_run.TensorParallel();
    if (dp > 1)
    {
        for (uint32_t rail = 0; rail < tp; ++rail)
        {
            std::vector<uint32_t> flows;
            std::vector<uint16_t> ports;
            for (uint32_t r = 0; r < dp; ++r)
            {
                flows.push_back(m_run.FlowId(rail, r));
                ports.push_back(m_run.UdpSrcPortOf(flows.back()));
            }
            auto ring = CreateObject<RingAllReduce>();
            ring->Setup(m_relay, m_run.id, m_run.RailGpus(rail), flows, ports, m_run.dscp);
            m_rings.push_back(ring);
        }
    }
    m_running = true;
    m_complete = false;
    m_iteration = 0;
    m_jobStart = Simulator::Now();
    m_iterTimes.clear();
    m_iterStarts.clear();
    StartIteration();
}

void
DltJobApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_running = false;
    for (auto& e : m_events)
    {
        e.Cancel();
    }
    m_events.clear();
    for (auto& r : m_rings)
    {
        r->Abort();
    }
    ++m_bucketGen;
}

void
DltJobApplication::StartIteration()
{
    NS_LOG_FUNCTION(this << m_job.id << m_iteration);
    m_iterStart = Simulator::Now();
    m_computeDone = false;
    m_released = 0;
    m_nextBucket = 0;
    m_bucketBusy = false;
    m_railsPending = 0;
    m_events.clear();

    const Time c = Seconds(GetComputeTime());
    const Time f = Seconds(GetComputeTime() * GetOverlapStart());
    const uint32_t buckets = GetNumBuckets();
    for (uint32_t b = 0; b < buckets; ++b)
    {
        const Time release = (b + 1 == buckets) ? c : f + (c - f) * (b + 1) / buckets;
        m_events.push_back(
            Simulator::Schedule(release, &DltJobApplication::ReleaseBucket, this, b));
    }
    m_events.push_back(Simulator::Schedule(c, &DltJobApplication::ComputeDone, this));
}

void
DltJobApplication::ReleaseBucket(uint32_t b)
{
    NS_LOG_FUNCTION(this << m_job.id << b);
    if (!m_running)
    {
        return;
    }
    ++m_released;
    TryStartBucket();
}

void
DltJobApplication::ComputeDone()
{
    NS_LOG_FUNCTION(this << m_job.id);
    if (!m_running)
    {
        return;
    }
    m_computeDone = true;
    CheckIterationEnd();
}

void
DltJobApplication::TryStartBucket()
{
    if (!m_running || m_bucketBusy || m_nextBucket >= m_released)
    {
        return;
    }
    m_bucketBusy = true;
    m_bucketStart = Simulator::Now();
    ++m_bucketGen;
    const uint32_t b = m_nextBucket;
    if (m_rings.empty())
    {
        // single-host job: gradients are reduced over NVLink, no network traffic
        m_railsPending = 1;
        Simulator::ScheduleNow(&DltJobApplication::RailDone, this, m_bucketGen);
        return;
    }
    m_railsPending = m_rings.size();
    for (uint32_t rail = 0; rail < m_rings.size(); ++rail)
    {
        m_rings[rail]->Start(m_run.BucketBytes(rail, b),
                             MakeCallback(&DltJobApplication::RailDone, this, m_bucketGen));
    }
}

void
DltJobApplication::RailDone(uint64_t gen)
{
    if (!m_running || gen != m_bucketGen)
    {
        return;
    }
    if (--m_railsPending > 0)
    {
        return;
    }
    NS_LOG_LOGIC("job " << m_job.id << " iteration " << m_iteration << " bucket " << m_nextBucket
                        << " all-reduced in " << (Simulator::Now() - m_bucketStart).GetSeconds()
                        << " s");
    m_allReduceTrace(m_job.id, m_iteration, m_nextBucket, m_bucketStart, Simulator::Now());
    m_bucketBusy = false;
    ++m_nextBucket;
    if (m_nextBucket < GetNumBuckets())
    {
        TryStartBucket();
    }
    CheckIterationEnd();
}

void
DltJobApplication::CheckIterationEnd()
{
    if (!m_running || !m_computeDone || m_nextBucket < GetNumBuckets())
    {
        return;
    }
    const Time now = Simulator::Now();
    m_iterTimes.push_back((now - m_iterStart).GetSeconds());
    m_iterStarts.push_back(m_iterStart.GetSeconds());
    NS_LOG_INFO("job " << m_job.id << " iteration " << m_iteration << " took " << m_iterTimes.back()
                       << " s");
    m_iterationTrace(m_job.id, m_iteration, m_iterStart, now, m_job.flopsPerIteration);
    ++m_iteration;
    const uint32_t total = GetIterations();
    if (total != 0 && m_iteration >= total)
    {
        m_complete = true;
        m_running = false;
        m_jct = now - m_jobStart;
        m_jobCompleteTrace(m_job.id, m_jct);
        return;
    }
    StartIteration();
}

} // namespace ns3
