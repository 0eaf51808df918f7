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
#include "ns3/log.h"
#include "ns3/simulator.h"

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
} // namespace

TypeId
CommDagRunner::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CommDagRunner")
                            .SetParent<Object>()
                            .SetGroupName("Crux")
                            .AddConstructor<CommDagRunner>();
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
    ++m_generation;
    m_running = false;
    m_finishPending = false;
    m_done = DoneCallback();
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
