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

#include "training-iteration.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxDltJobApplication");

NS_OBJECT_ENSURE_REGISTERED(DltJobApplication);

/**
 * \brief The transport the job's DAG runner talks to: forwards every message to the real
 * transport with the job's current DSCP and the flow's current UDP source port (SetDscp(),
 * SetFlowSourcePort()), so runtime changes reach the next message of a running all-reduce.
 * Without runtime changes it forwards the values the runner was set up with (identical
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

    void SetMessageDescriber(uint32_t jobId, DescribeCallback describe) override
    {
        m_inner->SetMessageDescriber(jobId, describe); // the real transport's watchdog asks
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
            .AddAttribute("NcclChannels",
                          "NCCL channels of the job's collectives (CollectiveConfig::channels, "
                          "NCCL's MAXCHANNELS = 64 at most); 0 = the job's DltJob::collectives "
                          "(its scenario's collectives.channels, else NCCL's default for the "
                          "hardware: one search channel per NIC, doubled by NCCL's "
                          "ncclTopoDupChannels and ncclTopoPostset, src/graph/search.cc, "
                          "connect.cc).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DltJobApplication::m_channelsAttr),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddTraceSource("IterationComplete",
                            "An iteration finished: (jobId, iteration, start, end, FLOPs).",
                            MakeTraceSourceAccessor(&DltJobApplication::m_iterationTrace),
                            "ns3::DltJobApplication::IterationTracedCallback")
            .AddTraceSource("JobComplete",
                            "All iterations finished: (jobId, JCT).",
                            MakeTraceSourceAccessor(&DltJobApplication::m_jobCompleteTrace),
                            "ns3::DltJobApplication::JobCompleteTracedCallback")
            .AddTraceSource("AllReduceComplete",
                            "A gradient bucket's all-reduce finished on every rail (every "
                            "data-parallel group with a plan): (jobId, iteration, bucket, start, "
                            "end).",
                            MakeTraceSourceAccessor(&DltJobApplication::m_allReduceTrace),
                            "ns3::DltJobApplication::AllReduceTracedCallback")
            .AddTraceSource("NodeProgress",
                            "Every 65,536 completed nodes of the iteration DAG (progress lines "
                            "of long iterations): (jobId, nodes complete, nodes of the DAG).",
                            MakeTraceSourceAccessor(&DltJobApplication::m_nodeProgressTrace),
                            "ns3::DltJobApplication::NodeProgressTracedCallback");
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
    if (m_runner)
    {
        m_runner->Dispose();
        m_runner = nullptr;
    }
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
    m_flows.clear();
    for (const auto& f : job.CommunicationPattern())
    {
        m_flows.insert(f.flowId);
    }
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

void
DltJobApplication::SetJobName(const std::string& name)
{
    m_jobName = name;
    if (m_runner)
    {
        m_runner->SetJobName(name);
    }
}

std::string
DltJobApplication::DescribeUnfinished() const
{
    if (!m_running || !m_runner)
    {
        return std::string();
    }
    const std::string why = m_runner->DescribeUnfinished();
    if (why.empty())
    {
        return why;
    }
    std::ostringstream os;
    os << "job " << m_run.id;
    if (!m_jobName.empty())
    {
        os << " (" << m_jobName << ")";
    }
    os << ", iteration " << m_iteration << ": " << why;
    return os.str();
}

std::vector<std::string>
DltJobApplication::DescribeStuck(const std::vector<Ptr<DltJobApplication>>& apps, Time stopTime)
{
    const bool exhausted = Simulator::Now() < stopTime;
    std::vector<std::string> lines;
    for (const auto& app : apps)
    {
        if (!app || !app->m_runner || (!exhausted && !app->m_runner->IsStalled()))
        {
            continue; // at the time limit: only cut short
        }
        const std::string line = app->DescribeUnfinished();
        if (!line.empty())
        {
            lines.push_back(line);
        }
    }
    return lines;
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
    if (m_flows.count(flowId) == 0)
    {
        throw std::invalid_argument("DltJobApplication::SetFlowSourcePort (job " +
                                    std::to_string(m_job.id) + "): flowId " +
                                    std::to_string(flowId) + " is not a flow of the job (it has " +
                                    std::to_string(m_flows.size()) + " inter-host flows)");
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
    if (m_channelsAttr > 0)
    {
        m_run.collectives.channels = m_channelsAttr;
    }
    m_run.iterations = GetIterations();
    m_run.Validate();
    m_relay = CreateObject<Relay>(m_transport, m_run.dscp, m_run.udpSrcPorts);
    auto dag = std::make_shared<CommDag>(TrainingIteration::RankGpus(m_run));
    TrainingIteration::Build(m_run, *dag);
    dag->Finalize();
    m_bucketEnds.assign(m_run.numBuckets, 0);
    for (const CommDagLabel& l : dag->Labels())
    {
        if (l.kind == BUCKET_END && l.index < m_bucketEnds.size())
        {
            ++m_bucketEnds[l.index];
        }
    }
    m_runner = CreateObject<CommDagRunner>();
    m_runner->SetJobName(m_jobName);
    m_runner->Setup(m_relay, m_run.id, dag, m_run.dscp, m_run.udpSrcPorts);
    m_runner->SetLabelCallback(MakeCallback(&DltJobApplication::OnLabel, this));
    m_runner->SetProgressCallback(MakeCallback(&DltJobApplication::OnNodeProgress, this));
    NS_LOG_INFO("job " << m_run.id << ": iteration DAG of " << dag->NumNodes() << " nodes, "
                       << dag->NumMessages() << " messages, " << dag->Connections().size()
                       << " connections"
                       << (m_run.plan ? ", plan " + m_run.plan->ToString() : std::string()));
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
    if (m_runner)
    {
        m_runner->Abort();
    }
}

void
DltJobApplication::StartIteration()
{
    NS_LOG_FUNCTION(this << m_job.id << m_iteration);
    m_iterStart = Simulator::Now();
    m_bucketStart.assign(m_bucketEnds.size(), Time::Max());
    m_bucketEndsSeen.assign(m_bucketEnds.size(), 0);
    m_runner->Start(MakeCallback(&DltJobApplication::IterationDone, this));
}

void
DltJobApplication::OnNodeProgress(uint64_t done, uint64_t total)
{
    m_nodeProgressTrace(m_run.id, done, total);
}

void
DltJobApplication::OnLabel(CommDagLabel label, Time at)
{
    if (!m_running || label.index >= m_bucketEnds.size())
    {
        return;
    }
    if (label.kind == BUCKET_START)
    {
        m_bucketStart[label.index] = std::min(m_bucketStart[label.index], at);
    }
    else if (label.kind == BUCKET_END &&
             ++m_bucketEndsSeen[label.index] == m_bucketEnds[label.index])
    {
        NS_LOG_LOGIC("job " << m_job.id << " iteration " << m_iteration << " bucket " << label.index
                            << " all-reduced in " << (at - m_bucketStart[label.index]).GetSeconds()
                            << " s");
        m_allReduceTrace(m_job.id, m_iteration, label.index, m_bucketStart[label.index], at);
    }
}

void
DltJobApplication::IterationDone()
{
    if (!m_running)
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
