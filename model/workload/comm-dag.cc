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

#include "comm-dag.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

CommDag::CommDag(std::vector<GpuId> gpus, bool countOnly)
    : m_gpus(std::move(gpus)),
      m_countOnly(countOnly)
{
    if (m_gpus.empty())
    {
        throw std::invalid_argument("CommDag: the GPU list is empty");
    }
}

bool
CommDag::IsCountOnly() const
{
    return m_countOnly;
}

uint32_t
CommDag::NumRanks() const
{
    return static_cast<uint32_t>(m_gpus.size());
}

const GpuId&
CommDag::Gpu(uint32_t rank) const
{
    if (rank >= m_gpus.size())
    {
        throw std::out_of_range("CommDag: rank " + std::to_string(rank) +
                                " >= " + std::to_string(m_gpus.size()) + " ranks");
    }
    return m_gpus[rank];
}

bool
CommDag::SameHost(uint32_t a, uint32_t b) const
{
    return Gpu(a).host == Gpu(b).host;
}

void
CommDag::SetCollectiveConfig(const CollectiveConfig& config)
{
    m_collectiveConfig = config;
}

const CollectiveConfig&
CommDag::GetCollectiveConfig() const
{
    return m_collectiveConfig;
}

uint32_t
CommDag::NewStream()
{
    return m_streams++;
}

void
CommDag::CheckOpen() const
{
    if (m_final)
    {
        throw std::logic_error("CommDag: node added after Finalize()");
    }
}

uint32_t
CommDag::RegisterConnection(uint32_t src, uint32_t dst, uint32_t channel)
{
    CheckOpen();
    if (src >= m_gpus.size() || dst >= m_gpus.size() || src == dst || channel > 0xffff ||
        m_gpus.size() > (1u << 24))
    {
        throw std::invalid_argument("CommDag: bad connection " + std::to_string(src) + " -> " +
                                    std::to_string(dst) + ", channel " + std::to_string(channel) +
                                    " (" + std::to_string(m_gpus.size()) + " ranks)");
    }
    const uint64_t key =
        (static_cast<uint64_t>(src) << 40) | (static_cast<uint64_t>(dst) << 16) | channel;
    auto it = m_connIndex.find(key);
    if (it != m_connIndex.end())
    {
        return it->second;
    }
    Connection c;
    c.src = src;
    c.dst = dst;
    c.channel = channel;
    c.interHost = m_gpus[src].host != m_gpus[dst].host;
    const uint32_t id = static_cast<uint32_t>(m_conns.size());
    m_conns.push_back(c);
    m_connIndex.emplace(key, id);
    return id;
}

void
CommDag::AddDeps(NodeId node, const NodeId* begin, const NodeId* end)
{
    for (const NodeId* d = begin; d != end; ++d)
    {
        if (*d == NONE)
        {
            continue;
        }
        if (*d >= node)
        {
            throw std::invalid_argument("CommDag: node " + std::to_string(node) +
                                        " depends on node " + std::to_string(*d) +
                                        ", which is not added yet");
        }
        m_edges.emplace_back(*d, node);
        ++m_nodes[node].numDeps;
    }
}

CommDag::NodeId
CommDag::Push(Node n, const NodeId* begin, const NodeId* end)
{
    const NodeId id = static_cast<NodeId>(m_nodes.size());
    if (id == NONE)
    {
        throw std::length_error("CommDag: too many nodes");
    }
    n.numDeps = 0;
    m_nodes.push_back(n);
    AddDeps(id, begin, end);
    if ((id & 0xfffff) == 0xfffff)
    {
        const BuildObserver& observer = ThreadBuildObserver();
        if (observer)
        {
            observer(uint64_t{id} + 1);
        }
    }
    return id;
}

CommDag::BuildObserver&
CommDag::ThreadBuildObserver()
{
    thread_local BuildObserver observer;
    return observer;
}

CommDag::BuildObserver
CommDag::SetBuildObserver(BuildObserver observer)
{
    std::swap(ThreadBuildObserver(), observer);
    return observer;
}

CommDag::NodeId
CommDag::Message(uint32_t src,
                 uint32_t dst,
                 uint64_t bytes,
                 uint32_t stream,
                 const NodeId* begin,
                 const NodeId* end,
                 uint32_t channel)
{
    CheckOpen();
    const uint32_t conn = RegisterConnection(src, dst, channel);
    if (stream != NO_STREAM && stream >= m_streams)
    {
        throw std::invalid_argument("CommDag: unknown stream " + std::to_string(stream));
    }
    m_conns[conn].bytes += bytes;
    ++m_conns[conn].messages;
    ++m_messages;
    if (m_countOnly)
    {
        return m_dummy++;
    }
    Node n;
    n.kind = Kind::MESSAGE;
    n.src = src;
    n.dst = dst;
    n.flow = conn;
    n.stream = stream;
    n.bytes = bytes;
    n.label = m_curStep;
    return Push(n, begin, end);
}

CommDag::NodeId
CommDag::AddMessage(uint32_t src,
                    uint32_t dst,
                    uint64_t bytes,
                    uint32_t stream,
                    const NodeList& deps,
                    uint32_t channel)
{
    return Message(src, dst, bytes, stream, deps.data(), deps.data() + deps.size(), channel);
}

CommDag::NodeId
CommDag::AddMessage(uint32_t src,
                    uint32_t dst,
                    uint64_t bytes,
                    uint32_t stream,
                    std::initializer_list<NodeId> deps,
                    uint32_t channel)
{
    return Message(src, dst, bytes, stream, deps.begin(), deps.end(), channel);
}

int64_t
CommDag::SecondsToSteps(double seconds)
{
    static const double stepsPerSecond = static_cast<double>(Seconds(1).GetTimeStep());
    return static_cast<int64_t>(std::llround(seconds * stepsPerSecond));
}

CommDag::NodeId
CommDag::Delay(int64_t steps, const NodeId* begin, const NodeId* end)
{
    CheckOpen();
    if (steps < 0)
    {
        throw std::invalid_argument("CommDag: negative delay");
    }
    if (m_countOnly)
    {
        return m_dummy++;
    }
    Node n;
    n.kind = Kind::DELAY;
    n.duration = steps;
    return Push(n, begin, end);
}

CommDag::NodeId
CommDag::AddDelay(Time duration, const NodeList& deps)
{
    return Delay(duration.GetTimeStep(), deps.data(), deps.data() + deps.size());
}

CommDag::NodeId
CommDag::AddDelay(Time duration, std::initializer_list<NodeId> deps)
{
    return Delay(duration.GetTimeStep(), deps.begin(), deps.end());
}

CommDag::NodeId
CommDag::AddDelaySteps(int64_t steps, const NodeList& deps)
{
    return Delay(steps, deps.data(), deps.data() + deps.size());
}

CommDag::NodeId
CommDag::Barrier(const NodeId* begin, const NodeId* end, CommDagLabel label)
{
    CheckOpen();
    if (m_countOnly)
    {
        return m_dummy++;
    }
    Node n;
    n.kind = Kind::BARRIER;
    if (label.kind != 0)
    {
        m_labels.push_back(label);
        n.label = static_cast<uint32_t>(m_labels.size());
    }
    return Push(n, begin, end);
}

void
CommDag::SetContext(std::string prefix, std::string suffix)
{
    m_prefix = std::move(prefix);
    m_suffix = std::move(suffix);
}

void
CommDag::BeginCollective(const std::string& what, uint32_t steps)
{
    if (m_countOnly)
    {
        return;
    }
    std::string text = m_prefix.empty() ? what : m_prefix + " " + what;
    if (!m_suffix.empty())
    {
        text += " " + m_suffix;
    }
    if (!m_inOperation || m_operations == 0)
    {
        ++m_operations;
    }
    m_collectives.push_back(Collective{std::move(text), steps, m_operations - 1});
    m_steps.push_back(Step{static_cast<uint32_t>(m_collectives.size() - 1), 0});
    m_curStep = static_cast<uint32_t>(m_steps.size());
}

void
CommDag::SetStep(uint32_t step)
{
    if (m_countOnly || m_curStep == 0 || m_steps[m_curStep - 1].step == step)
    {
        return;
    }
    m_steps.push_back(Step{m_steps[m_curStep - 1].collective, step});
    m_curStep = static_cast<uint32_t>(m_steps.size());
}

std::string
CommDag::Describe(NodeId id) const
{
    if (id >= m_nodes.size() || m_nodes[id].kind != Kind::MESSAGE || m_nodes[id].label == 0)
    {
        return std::string();
    }
    const Step& st = m_steps[m_nodes[id].label - 1];
    const Collective& c = m_collectives[st.collective];
    if (c.steps == 0)
    {
        return c.what;
    }
    return c.what + ", step " + std::to_string(st.step + 1) + " of " + std::to_string(c.steps);
}

void
CommDag::BeginOperation()
{
    if (m_countOnly)
    {
        return;
    }
    ++m_operations;
    m_inOperation = true;
}

void
CommDag::EndOperation()
{
    m_inOperation = false;
}

uint32_t
CommDag::OperationOf(NodeId id) const
{
    if (id >= m_nodes.size() || m_nodes[id].kind != Kind::MESSAGE || m_nodes[id].label == 0)
    {
        return NO_COLLECTIVE;
    }
    return m_collectives[m_steps[m_nodes[id].label - 1].collective].operation;
}

std::size_t
CommDag::DescriptionBytes() const
{
    std::size_t b =
        m_collectives.capacity() * sizeof(Collective) + m_steps.capacity() * sizeof(Step);
    for (const Collective& c : m_collectives)
    {
        b += c.what.capacity() > 15 ? c.what.capacity() + 1 : 0; // beyond the SSO buffer
    }
    return b;
}

CommDag::NodeId
CommDag::AddBarrier(const NodeList& deps, CommDagLabel label)
{
    return Barrier(deps.data(), deps.data() + deps.size(), label);
}

CommDag::NodeId
CommDag::AddBarrier(std::initializer_list<NodeId> deps, CommDagLabel label)
{
    return Barrier(deps.begin(), deps.end(), label);
}

void
CommDag::Finalize()
{
    if (m_final)
    {
        return;
    }
    m_final = true;
    // Connection numbers: inter-host first, each group in order of first use.
    std::vector<uint32_t> renumber(m_conns.size());
    std::vector<Connection> ordered;
    ordered.reserve(m_conns.size());
    for (int pass = 0; pass < 2; ++pass)
    {
        for (uint32_t c = 0; c < m_conns.size(); ++c)
        {
            if (m_conns[c].interHost == (pass == 0))
            {
                renumber[c] = static_cast<uint32_t>(ordered.size());
                ordered.push_back(m_conns[c]);
            }
        }
    }
    m_conns.swap(ordered);
    for (auto& kv : m_connIndex)
    {
        kv.second = renumber[kv.second];
    }
    for (auto& n : m_nodes)
    {
        if (n.kind == Kind::MESSAGE)
        {
            n.flow = renumber[n.flow];
        }
    }
    // Successor lists (CSR), each in edge insertion order (counting sort by source node).
    std::vector<uint32_t> count(m_nodes.size() + 1, 0);
    for (const auto& e : m_edges)
    {
        ++count[e.first + 1];
    }
    for (size_t i = 1; i < count.size(); ++i)
    {
        count[i] += count[i - 1];
    }
    for (size_t i = 0; i < m_nodes.size(); ++i)
    {
        m_nodes[i].succBegin = count[i];
        m_nodes[i].succEnd = count[i + 1];
    }
    m_succ.assign(m_edges.size(), 0);
    for (const auto& e : m_edges)
    {
        m_succ[count[e.first]++] = e.second;
    }
    m_edges.clear();
    m_edges.shrink_to_fit();
}

bool
CommDag::IsFinal() const
{
    return m_final;
}

uint32_t
CommDag::NumNodes() const
{
    return static_cast<uint32_t>(m_nodes.size());
}

const CommDag::Node&
CommDag::GetNode(NodeId id) const
{
    return m_nodes.at(id);
}

const std::vector<CommDag::NodeId>&
CommDag::Successors() const
{
    return m_succ;
}

const std::vector<CommDagLabel>&
CommDag::Labels() const
{
    return m_labels;
}

uint32_t
CommDag::NumStreams() const
{
    return m_streams;
}

uint64_t
CommDag::NumMessages() const
{
    return m_messages;
}

const std::vector<CommDag::Connection>&
CommDag::Connections() const
{
    return m_conns;
}

std::vector<uint64_t>
CommDag::BytesSentByRank() const
{
    std::vector<uint64_t> out(m_gpus.size(), 0);
    for (const auto& c : m_conns)
    {
        out[c.src] += c.bytes;
    }
    return out;
}

} // namespace ns3
