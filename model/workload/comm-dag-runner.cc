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

#include "comm-dag-runner.h"

#include "ns3/crux-compat.h"
#include "ns3/crux-run-error.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxCommDagRunner");

NS_OBJECT_ENSURE_REGISTERED(CommDagRunner);

namespace
{
constexpr uint8_t READY = 1;
constexpr uint8_t DONE = 2;
/// No rank hangs (attribute HungRank).
constexpr uint32_t NO_RANK = 0xffffffffu;

/// \return the watchdog's default: 10 minutes, PyTorch's default timeout of an NCCL collective
/// (kProcessGroupNCCLDefaultTimeout in torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp, the
/// timeout= default of init_process_group for NCCL), far above RdmaNic::StallTimeout, so that a
/// posted message that stops is reported first by the queue pair's watchdog, and so that a
/// long-starved low-priority job of a trace run is not taken for a stuck one
Time
DefaultStallTimeout()
{
    return Minutes(10);
}

/// \return \p t in ms with 4 significant digits ("0.2100 ms") \param t the time
std::string
Ms(Time t)
{
    std::ostringstream os;
    os << std::setprecision(4) << std::fixed << t.GetSeconds() * 1e3 << " ms";
    return os.str();
}
} // namespace

TypeId
CommDagRunner::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CommDagRunner")
            .SetParent<Object>()
            .SetGroupName("Crux")
            .AddConstructor<CommDagRunner>()
            .AddAttribute("StallTimeout",
                          "Watchdog: a run with messages handed to the transport, no compute "
                          "phase pending and no message delivered for this long ends the "
                          "simulation with a CruxRunError naming the job, the first node that "
                          "never ran and the send it waits on. Default 10 min, PyTorch's "
                          "default NCCL collective timeout. 0 disables it.",
                          TimeValue(DefaultStallTimeout()),
                          MakeTimeAccessor(&CommDagRunner::m_stallTimeout),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("HungRank",
                          "Fault injection: the job-local rank whose sends are never handed to "
                          "the transport from HangTime on (a hung GPU or process); 4294967295 "
                          "= none.",
                          UintegerValue(NO_RANK),
                          MakeUintegerAccessor(&CommDagRunner::m_hungRank),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HangTime",
                          "Fault injection: simulation time from which HungRank sends nothing.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&CommDagRunner::m_hangTime),
                          MakeTimeChecker(Time(0)));
    return tid;
}

CommDagRunner::CommDagRunner()
{
    NS_LOG_FUNCTION(this);
}

CommDagRunner::~CommDagRunner() = default;

void
CommDagRunner::DoDispose()
{
    NS_LOG_FUNCTION(this);
    Abort();
    StopWatchdog();
    m_transport = nullptr;
    m_label = LabelCallback();
    Object::DoDispose();
}

void
CommDagRunner::Setup(Ptr<MessageTransport> transport,
                     uint32_t jobId,
                     std::shared_ptr<CommDag> dag,
                     uint8_t dscp,
                     const std::map<uint32_t, uint16_t>& ports)
{
    NS_LOG_FUNCTION(this << jobId);
    if (!transport)
    {
        throw std::invalid_argument("CommDagRunner::Setup: transport is null");
    }
    if (!dag)
    {
        throw std::invalid_argument("CommDagRunner::Setup: dag is null");
    }
    if (dag->IsCountOnly())
    {
        throw std::invalid_argument("CommDagRunner::Setup: a count-only DAG cannot run");
    }
    if (dscp > 63)
    {
        throw std::invalid_argument("CommDagRunner::Setup: dscp " + std::to_string(dscp) + " > 63");
    }
    Abort();
    dag->Finalize();
    m_transport = transport;
    m_jobId = jobId;
    m_dag = dag;
    m_dscp = dscp;
    m_ports.assign(dag->Connections().size(), 0);
    for (const auto& kv : ports)
    {
        if (kv.first < m_ports.size())
        {
            m_ports[kv.first] = kv.second;
        }
    }
    // messages of each stream, in node (= insertion) order
    const uint32_t streams = dag->NumStreams();
    m_streamBegin.assign(streams + 1, 0);
    for (CommDag::NodeId n = 0; n < dag->NumNodes(); ++n)
    {
        const auto& node = dag->GetNode(n);
        if (node.kind == CommDag::Kind::MESSAGE && node.stream != CommDag::NO_STREAM)
        {
            ++m_streamBegin[node.stream + 1];
        }
    }
    for (uint32_t s = 1; s <= streams; ++s)
    {
        m_streamBegin[s] += m_streamBegin[s - 1];
    }
    m_streamNodes.assign(m_streamBegin[streams], 0);
    std::vector<uint32_t> cursor(m_streamBegin.begin(), m_streamBegin.end() - 1);
    for (CommDag::NodeId n = 0; n < dag->NumNodes(); ++n)
    {
        const auto& node = dag->GetNode(n);
        if (node.kind == CommDag::Kind::MESSAGE && node.stream != CommDag::NO_STREAM)
        {
            m_streamNodes[cursor[node.stream]++] = n;
        }
    }
}

void
CommDagRunner::SetLabelCallback(LabelCallback cb)
{
    m_label = cb;
}

void
CommDagRunner::SetProgressCallback(ProgressCallback cb)
{
    m_progress = cb;
}

void
CommDagRunner::Start(DoneCallback done)
{
    NS_LOG_FUNCTION(this);
    if (!m_transport)
    {
        NS_FATAL_ERROR("CommDagRunner::Start before Setup (job " << m_jobId << ")");
    }
    Abort();
    ++m_generation;
    // the transport names a stuck message through its DAG node (the watchdog, CommDag::Describe);
    // the callback holds the DAG, not this runner
    std::shared_ptr<const CommDag> dag = m_dag;
    m_transport->SetMessageDescriber(m_jobId,
                                     crux::MakeFunctorCallback<std::string, uint32_t>(
                                         [dag](uint32_t node) { return dag->Describe(node); }));
    const uint32_t n = m_dag->NumNodes();
    m_done = done;
    m_running = true;
    m_complete = false;
    m_finishPending = false;
    m_start = Simulator::Now();
    m_finish = Time(0);
    m_completed = 0;
    m_messagesSent = 0;
    m_bytesSent = 0;
    m_bytesByRank.assign(m_dag->NumRanks(), 0);
    m_pending.resize(n);
    for (CommDag::NodeId i = 0; i < n; ++i)
    {
        m_pending[i] = m_dag->GetNode(i).numDeps;
    }
    m_state.assign(n, 0);
    m_issuedAt.assign(n, -1);
    m_inFlight = 0;
    m_swallowed = 0;
    m_delaysPending = 0;
    m_lastProgress = m_start;
    m_streamHead.assign(m_streamBegin.begin(), m_streamBegin.end() - 1);
    m_events.clear();
    if (n == 0)
    {
        Simulator::ScheduleNow(&CommDagRunner::FinishEvent, Ptr<CommDagRunner>(this), m_generation);
        return;
    }
    ++m_depth;
    for (CommDag::NodeId i = 0; i < n && m_running; ++i)
    {
        if (m_dag->GetNode(i).numDeps == 0)
        {
            Ready(i);
        }
    }
    --m_depth;
    if (m_finishPending && m_depth == 0)
    {
        // never invoke done from inside Start()
        Simulator::ScheduleNow(&CommDagRunner::FinishEvent, Ptr<CommDagRunner>(this), m_generation);
    }
}

void
CommDagRunner::Ready(CommDag::NodeId n)
{
    const CommDag::Node& node = m_dag->GetNode(n);
    switch (node.kind)
    {
    case CommDag::Kind::MESSAGE:
        m_state[n] |= READY;
        if (node.stream == CommDag::NO_STREAM)
        {
            Issue(n);
        }
        else
        {
            AdvanceStream(node.stream);
        }
        break;
    case CommDag::Kind::DELAY:
        m_state[n] |= READY;
        m_issuedAt[n] = Simulator::Now().GetTimeStep();
        ++m_delaysPending;
        m_events.push_back(Simulator::Schedule(TimeStep(node.duration),
                                               &CommDagRunner::DelayDone,
                                               Ptr<CommDagRunner>(this),
                                               n,
                                               m_generation));
        break;
    case CommDag::Kind::BARRIER:
        Complete(n);
        break;
    }
}

void
CommDagRunner::AdvanceStream(uint32_t s)
{
    const uint32_t end = m_streamBegin[s + 1];
    while (m_running && m_streamHead[s] < end && (m_state[m_streamNodes[m_streamHead[s]]] & READY))
    {
        Issue(m_streamNodes[m_streamHead[s]++]);
    }
}

void
CommDagRunner::Issue(CommDag::NodeId n)
{
    const CommDag::Node& node = m_dag->GetNode(n);
    const Time now = Simulator::Now();
    m_issuedAt[n] = now.GetTimeStep();
    ++m_inFlight;
    if (node.bytes == 0)
    {
        Simulator::ScheduleNow(&CommDagRunner::Delivered,
                               Ptr<CommDagRunner>(this),
                               n,
                               m_generation);
        return;
    }
    MessageRequest req;
    req.jobId = m_jobId;
    req.flowId = node.flow;
    req.src = m_dag->Gpu(node.src);
    req.dst = m_dag->Gpu(node.dst);
    req.bytes = node.bytes;
    req.dscp = m_dscp;
    req.udpSrcPort = m_ports[node.flow];
    req.tag = n;
    if (m_stallTimeout.IsStrictlyPositive() && !m_watchdog.IsRunning())
    {
        m_watchdog = Simulator::Schedule(std::max(m_lastProgress + m_stallTimeout - now, Time(0)),
                                         &CommDagRunner::WatchdogExpired,
                                         Ptr<CommDagRunner>(this));
    }
    if (node.src == m_hungRank && now >= m_hangTime)
    {
        NS_LOG_LOGIC("job " << m_jobId << " node " << n << ": rank " << node.src
                            << " hangs (HungRank): its send is never posted");
        ++m_swallowed;
        return;
    }
    ++m_messagesSent;
    m_bytesSent += node.bytes;
    m_bytesByRank[node.src] += node.bytes;
    NS_LOG_LOGIC("job " << m_jobId << " node " << n << ": rank " << node.src << " -> " << node.dst
                        << ", " << node.bytes << " B, flow " << node.flow);
    m_transport->Send(req,
                      crux::MakeBoundMemberCallback(&CommDagRunner::Delivered,
                                                    Ptr<CommDagRunner>(this),
                                                    n,
                                                    m_generation));
}

void
CommDagRunner::Complete(CommDag::NodeId n)
{
    if (m_state[n] & DONE)
    {
        NS_FATAL_ERROR("CommDagRunner (job " << m_jobId << "): node " << n
                                             << " completed twice (message delivered twice?)");
    }
    m_state[n] |= DONE;
    const CommDag::Node& node = m_dag->GetNode(n);
    if (node.kind == CommDag::Kind::BARRIER && node.label != 0 && !m_label.IsNull())
    {
        m_label(m_dag->Labels()[node.label - 1], Simulator::Now());
    }
    ++m_completed;
    if ((m_completed & 0xffff) == 0 && !m_progress.IsNull())
    {
        m_progress(m_completed, m_dag->NumNodes());
    }
    const auto& succ = m_dag->Successors();
    for (uint32_t i = node.succBegin; i < node.succEnd && m_running; ++i)
    {
        const CommDag::NodeId s = succ[i];
        if (--m_pending[s] == 0)
        {
            Ready(s);
        }
    }
    if (m_completed == m_dag->NumNodes())
    {
        m_finishPending = true;
    }
}

void
CommDagRunner::Delivered(CommDag::NodeId n, uint64_t gen)
{
    if (gen != m_generation || !m_running)
    {
        return; // a message of an abandoned run
    }
    --m_inFlight;
    m_lastProgress = Simulator::Now();
    ++m_depth;
    Complete(n);
    Leave();
}

void
CommDagRunner::DelayDone(CommDag::NodeId n, uint64_t gen)
{
    if (gen != m_generation || !m_running)
    {
        return;
    }
    --m_delaysPending;
    m_lastProgress = Simulator::Now();
    ++m_depth;
    Complete(n);
    Leave();
}

void
CommDagRunner::Leave()
{
    if (--m_depth > 0 || !m_finishPending || !m_running)
    {
        return;
    }
    FinishEvent(m_generation);
}

void
CommDagRunner::FinishEvent(uint64_t gen)
{
    if (gen != m_generation || !m_running)
    {
        return;
    }
    NS_LOG_FUNCTION(this << m_jobId);
    StopWatchdog();
    m_running = false;
    m_finishPending = false;
    m_complete = true;
    m_finish = Simulator::Now();
    DoneCallback done = m_done;
    m_done = DoneCallback();
    if (!done.IsNull())
    {
        done();
    }
}

void
CommDagRunner::Abort()
{
    if (m_running)
    {
        NS_LOG_FUNCTION(this << m_jobId);
        for (auto& e : m_events)
        {
            e.Cancel();
        }
    }
    m_events.clear();
    StopWatchdog();
    ++m_generation;
    m_running = false;
    m_finishPending = false;
    m_done = DoneCallback();
}

void
CommDagRunner::StopWatchdog()
{
    if (m_watchdog.IsRunning())
    {
        // removed, not cancelled: a cancelled event would still advance the clock to its time
        Simulator::Remove(m_watchdog);
    }
}

void
CommDagRunner::WatchdogExpired()
{
    if (!m_running || m_inFlight == 0)
    {
        return; // the next message handed over re-arms it
    }
    const Time now = Simulator::Now();
    if (m_delaysPending == 0 && now - m_lastProgress >= m_stallTimeout)
    {
        std::ostringstream os;
        os << "CommDagRunner watchdog: job " << m_jobId;
        if (!m_jobName.empty())
        {
            os << " (" << m_jobName << ")";
        }
        os << ": no message delivered for " << std::setprecision(4) << m_stallTimeout.GetSeconds()
           << " s (ns3::CommDagRunner::StallTimeout): " << DescribeUnfinished();
        throw CruxRunError(os.str());
    }
    // a compute phase is pending (it will make progress), or a message was delivered since
    const Time next = m_delaysPending > 0 ? now + m_stallTimeout : m_lastProgress + m_stallTimeout;
    m_watchdog =
        Simulator::Schedule(next - now, &CommDagRunner::WatchdogExpired, Ptr<CommDagRunner>(this));
}

bool
CommDagRunner::IsStalled() const
{
    if (!m_running || m_finishPending || m_delaysPending > 0)
    {
        return false;
    }
    if (m_inFlight == 0)
    {
        return true; // nothing can complete a node any more
    }
    return m_swallowed > 0 || (m_stallTimeout.IsStrictlyPositive() &&
                               Simulator::Now() - m_lastProgress >= m_stallTimeout);
}

void
CommDagRunner::SetJobName(const std::string& name)
{
    m_jobName = name;
}

std::string
CommDagRunner::DescribeNode(CommDag::NodeId n) const
{
    const CommDag::Node& node = m_dag->GetNode(n);
    std::ostringstream os;
    switch (node.kind)
    {
    case CommDag::Kind::MESSAGE: {
        os << "rank " << node.src << " -> rank " << node.dst << ", " << node.bytes << " bytes";
        const std::string what = m_dag->Describe(n);
        if (!what.empty())
        {
            os << " (" << what << ")";
        }
        break;
    }
    case CommDag::Kind::DELAY:
        os << "a compute phase of " << Ms(TimeStep(node.duration)) << " (node " << n << ")";
        break;
    case CommDag::Kind::BARRIER:
        os << "a join (node " << n << ")";
        break;
    }
    return os.str();
}

std::string
CommDagRunner::DescribeUnfinished() const
{
    if (!m_running || !m_dag)
    {
        return std::string();
    }
    const uint32_t n = m_dag->NumNodes();
    auto started = [this](CommDag::NodeId i) { return (m_state[i] & DONE) || m_issuedAt[i] >= 0; };
    // the first node that never ran, and the first that ran without finishing
    CommDag::NodeId first = CommDag::NONE;
    CommDag::NodeId open = CommDag::NONE;
    for (CommDag::NodeId i = 0; i < n && (first == CommDag::NONE || open == CommDag::NONE); ++i)
    {
        if (first == CommDag::NONE && !started(i))
        {
            first = i;
        }
        if (open == CommDag::NONE && started(i) && !(m_state[i] & DONE))
        {
            open = i;
        }
    }
    std::ostringstream os;
    os << "the communication graph did not finish (" << m_completed << " of " << n
       << " nodes done): ";
    // follow the first unfinished dependency down to a node that ran without finishing
    CommDag::NodeId root = open;
    if (first != CommDag::NONE)
    {
        os << DescribeNode(first) << " never ran: ";
        CommDag::NodeId at = first;
        const auto& succ = m_dag->Successors();
        while (!started(at))
        {
            if (m_state[at] & READY)
            {
                os << "it waits for the earlier messages of its issue stream; ";
                break;
            }
            CommDag::NodeId dep = CommDag::NONE;
            for (CommDag::NodeId p = 0; p < at && dep == CommDag::NONE; ++p)
            {
                if (m_state[p] & DONE)
                {
                    continue;
                }
                const CommDag::Node& pn = m_dag->GetNode(p);
                for (uint32_t k = pn.succBegin; k < pn.succEnd; ++k)
                {
                    if (succ[k] == at)
                    {
                        dep = p;
                        break;
                    }
                }
            }
            if (dep == CommDag::NONE)
            {
                break; // cannot happen in a consistent run
            }
            at = dep;
        }
        if (started(at))
        {
            root = at;
        }
        os << "it waits on ";
    }
    if (root == CommDag::NONE)
    {
        os << "nothing in flight";
        return os.str();
    }
    const CommDag::Node& r = m_dag->GetNode(root);
    const Time since = TimeStep(m_issuedAt[root]);
    if (r.kind == CommDag::Kind::MESSAGE)
    {
        os << "rank " << r.src << "'s send to rank " << r.dst << " (" << r.bytes << " bytes";
        const std::string what = m_dag->Describe(root);
        if (!what.empty())
        {
            os << ", " << what;
        }
        os << "), ";
        if (r.src == m_hungRank && since >= m_hangTime)
        {
            os << "never posted: rank " << r.src << " hangs from " << Ms(m_hangTime)
               << " (ns3::CommDagRunner::HungRank)";
        }
        else
        {
            os << "handed to the transport at " << Ms(since) << " and never delivered";
        }
    }
    else
    {
        os << DescribeNode(root) << ", started at " << Ms(since) << " and not finished";
    }
    return os.str();
}

bool
CommDagRunner::IsComplete() const
{
    return m_complete;
}

Time
CommDagRunner::GetStartTime() const
{
    return m_start;
}

Time
CommDagRunner::GetFinishTime() const
{
    return m_finish;
}

uint64_t
CommDagRunner::GetMessagesSent() const
{
    return m_messagesSent;
}

uint64_t
CommDagRunner::GetBytesSent() const
{
    return m_bytesSent;
}

const std::vector<uint64_t>&
CommDagRunner::GetBytesSentByRank() const
{
    return m_bytesByRank;
}

std::shared_ptr<const CommDag>
CommDagRunner::GetDag() const
{
    return m_dag;
}

} // namespace ns3
