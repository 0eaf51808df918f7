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

// The checks of a Chakra trace's graph and its build order (ChakraTrace::Prepare() and its steps):
// per-node checks and dependencies, collectives matched across ranks, the global graph's
// vertices, sends matched to receives, a topological order (a cycle is an error), and the
// statistics of one iteration. The protobuf reading and the translation are in chakra-trace.cc.

#include "chakra-trace.h"

#include "ns3/nstime.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace ns3
{

namespace
{

/// \return the schema name of a node type
std::string
TypeName(uint32_t type)
{
    static const char* names[] = {"INVALID_NODE",
                                  "METADATA_NODE",
                                  "MEM_LOAD_NODE",
                                  "MEM_STORE_NODE",
                                  "COMP_NODE",
                                  "COMM_SEND_NODE",
                                  "COMM_RECV_NODE",
                                  "COMM_COLL_NODE"};
    return type < 8 ? names[type] : "unknown node type " + std::to_string(type);
}

/// \return the schema name of a collective kind
std::string
CollName(int64_t type)
{
    static const char* names[] = {"ALL_REDUCE",
                                  "REDUCE",
                                  "ALL_GATHER",
                                  "GATHER",
                                  "SCATTER",
                                  "BROADCAST",
                                  "ALL_TO_ALL",
                                  "REDUCE_SCATTER",
                                  "REDUCE_SCATTER_BLOCK",
                                  "BARRIER"};
    return type >= 0 && type < 10 ? names[type] : "unknown collective " + std::to_string(type);
}

/// \return the longest compute a node (and a rank's nodes together) may take, s: node times
/// become ns-3 Times (int64 steps, about 292 years at 1 ns); half of Time::Max(), as the
/// scenario's times
double
MaxComputeSeconds()
{
    return Time::Max().GetSeconds() / 2;
}

} // namespace

std::string
ChakraNode::Where(const std::string& file) const
{
    return file + ": node " + std::to_string(id) + " '" + name + "': ";
}

void
ChakraTrace::Prepare()
{
    const std::vector<std::vector<uint32_t>> colls = CheckNodes();
    MatchCollectives(colls);
    NumberVertices();
    MatchPointToPoint();
    ComputeStatistics(OrderVertices());
}

std::vector<std::vector<uint32_t>>
ChakraTrace::CheckNodes()
{
    const uint32_t n = m_nodes.size();
    m_deps.assign(n, {});
    std::vector<std::vector<uint32_t>> colls(n); // per rank: its collective nodes in order
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto& file = m_files[r];
        const auto& nodes = m_nodes[r];
        std::unordered_map<uint64_t, uint32_t> index;
        for (uint32_t i = 0; i < nodes.size(); ++i)
        {
            const ChakraNode& x = nodes[i];
            if (!index.emplace(x.id, i).second)
            {
                throw ChakraError(x.Where(file) + "duplicate node id (also node " +
                                  std::to_string(index[x.id]) + " of the file)");
            }
            switch (x.type)
            {
            case ChakraNode::COMP:
            case ChakraNode::METADATA:
                break;
            case ChakraNode::COMM_SEND:
                if (!x.hasCommDst || !x.hasCommSize)
                {
                    throw ChakraError(x.Where(file) +
                                      "COMM_SEND_NODE without comm_dst or comm_size");
                }
                if (x.commDst >= static_cast<int64_t>(n) || x.commDst == static_cast<int64_t>(r))
                {
                    throw ChakraError(x.Where(file) + "sends to rank " + std::to_string(x.commDst) +
                                      (x.commDst == static_cast<int64_t>(r)
                                           ? ", its own rank"
                                           : ", which does not exist (the trace has " +
                                                 std::to_string(n) + " ranks)"));
                }
                break;
            case ChakraNode::COMM_RECV:
                if (!x.hasCommSrc)
                {
                    throw ChakraError(x.Where(file) + "COMM_RECV_NODE without comm_src");
                }
                if (x.commSrc >= static_cast<int64_t>(n) || x.commSrc == static_cast<int64_t>(r))
                {
                    throw ChakraError(x.Where(file) + "receives from rank " +
                                      std::to_string(x.commSrc) +
                                      (x.commSrc == static_cast<int64_t>(r)
                                           ? ", its own rank"
                                           : ", which does not exist (the trace has " +
                                                 std::to_string(n) + " ranks)"));
                }
                break;
            case ChakraNode::COMM_COLL:
                if (!x.hasCommType || !x.hasCommSize)
                {
                    throw ChakraError(x.Where(file) +
                                      "COMM_COLL_NODE without comm_type or comm_size");
                }
                if (x.commType != ChakraNode::ALL_REDUCE && x.commType != ChakraNode::ALL_GATHER &&
                    x.commType != ChakraNode::REDUCE_SCATTER &&
                    x.commType != ChakraNode::ALL_TO_ALL && x.commType != ChakraNode::BROADCAST)
                {
                    throw ChakraError(x.Where(file) + "collective " + CollName(x.commType) +
                                      " is not run by crux (supported: ALL_REDUCE, ALL_GATHER, "
                                      "REDUCE_SCATTER, ALL_TO_ALL, BROADCAST)");
                }
                colls[r].push_back(i);
                break;
            default:
                throw ChakraError(x.Where(file) + TypeName(x.type) +
                                  " is not executed by crux (compute, send, receive, collective "
                                  "and metadata nodes only)");
            }
        }
        m_deps[r].resize(nodes.size());
        for (uint32_t i = 0; i < nodes.size(); ++i)
        {
            const ChakraNode& x = nodes[i];
            std::set<uint32_t> seen;
            for (const auto* list : {&x.dataDeps, &x.ctrlDeps})
            {
                for (uint64_t d : *list)
                {
                    auto it = index.find(d);
                    if (it == index.end())
                    {
                        throw ChakraError(x.Where(file) + "depends on node " + std::to_string(d) +
                                          ", which does not exist in this file");
                    }
                    if (seen.insert(it->second).second)
                    {
                        m_deps[r][i].push_back(it->second);
                    }
                }
            }
        }
    }
    return colls;
}

void
ChakraTrace::MatchCollectives(const std::vector<std::vector<uint32_t>>& colls)
{
    const uint32_t n = m_nodes.size();
    const size_t numColl = colls[0].size();
    for (uint32_t r = 1; r < n; ++r)
    {
        for (size_t k = 0; k < std::max(numColl, colls[r].size()); ++k)
        {
            if (k >= colls[r].size())
            {
                const ChakraNode& x = m_nodes[0][colls[0][k]];
                throw ChakraError(x.Where(m_files[0]) + "collective " + std::to_string(k) +
                                  " of the rank has no partner in " + m_files[r] + " (it has " +
                                  std::to_string(colls[r].size()) + " collective nodes)");
            }
            const ChakraNode& x = m_nodes[r][colls[r][k]];
            if (k >= numColl)
            {
                throw ChakraError(x.Where(m_files[r]) + "collective " + std::to_string(k) +
                                  " of the rank has no partner in " + m_files[0] + " (it has " +
                                  std::to_string(numColl) + " collective nodes)");
            }
            const ChakraNode& y = m_nodes[0][colls[0][k]];
            if (x.commType != y.commType || x.commSize != y.commSize)
            {
                throw ChakraError(x.Where(m_files[r]) + "collective " + std::to_string(k) + " is " +
                                  CollName(x.commType) + " of " + std::to_string(x.commSize) +
                                  " bytes, but in " + m_files[0] + " (node " +
                                  std::to_string(y.id) + ") " + CollName(y.commType) + " of " +
                                  std::to_string(y.commSize) + " bytes");
            }
        }
    }
    m_collMembers.assign(numColl, std::vector<uint32_t>(n, 0));
    for (uint32_t r = 0; r < n; ++r)
    {
        for (size_t k = 0; k < numColl; ++k)
        {
            m_collMembers[k][r] = colls[r][k];
        }
    }
}

void
ChakraTrace::NumberVertices()
{
    const uint32_t n = m_nodes.size();
    m_vertices.clear();
    m_vertexOf.assign(n, {});
    for (uint32_t r = 0; r < n; ++r)
    {
        m_vertexOf[r].assign(m_nodes[r].size(), 0);
        uint32_t k = 0;
        for (uint32_t i = 0; i < m_nodes[r].size(); ++i)
        {
            if (m_nodes[r][i].type == ChakraNode::COMM_COLL)
            {
                if (r == 0)
                {
                    m_vertices.push_back(Vertex{0, i, static_cast<int32_t>(k)});
                    m_vertexOf[r][i] = m_vertices.size() - 1;
                }
                else
                {
                    m_vertexOf[r][i] = m_vertexOf[0][m_collMembers[k][0]];
                }
                ++k;
                continue;
            }
            m_vertices.push_back(Vertex{r, i, -1});
            m_vertexOf[r][i] = m_vertices.size() - 1;
        }
    }
}

void
ChakraTrace::MatchPointToPoint()
{
    const uint32_t n = m_nodes.size();
    // key (src, dst, tag) → the sends / receives in file order
    std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<uint32_t>> sends;
    std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<uint32_t>> recvs;
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t i = 0; i < m_nodes[r].size(); ++i)
        {
            const ChakraNode& x = m_nodes[r][i];
            if (x.type == ChakraNode::COMM_SEND)
            {
                sends[{r, x.commDst, x.commTag}].push_back(i);
            }
            else if (x.type == ChakraNode::COMM_RECV)
            {
                recvs[{x.commSrc, r, x.commTag}].push_back(i);
            }
        }
    }
    m_sendOf.assign(n, {});
    for (uint32_t r = 0; r < n; ++r)
    {
        m_sendOf[r].assign(m_nodes[r].size(), -1);
    }
    m_pointToPoint = 0;
    static const std::vector<uint32_t> none;
    for (const auto& [key, list] : sends)
    {
        const auto [src, dst, tag] = key;
        auto it = recvs.find(key);
        const auto& rl = it == recvs.end() ? none : it->second;
        if (rl.size() < list.size())
        {
            const ChakraNode& x = m_nodes[src][list[rl.size()]];
            throw ChakraError(x.Where(m_files[src]) + "send to rank " + std::to_string(dst) +
                              " (tag " + std::to_string(tag) + ") has no matching receive in " +
                              m_files[dst] + " (" + std::to_string(list.size()) + " such sends, " +
                              std::to_string(rl.size()) + " receives)");
        }
        for (size_t k = 0; k < list.size(); ++k)
        {
            const ChakraNode& s = m_nodes[src][list[k]];
            const ChakraNode& x = m_nodes[dst][rl[k]];
            if (x.hasCommSize && x.commSize != s.commSize)
            {
                throw ChakraError(x.Where(m_files[dst]) + "receives " + std::to_string(x.commSize) +
                                  " bytes, but the matching send " + "(node " +
                                  std::to_string(s.id) + " of " + m_files[src] + ") sends " +
                                  std::to_string(s.commSize));
            }
            m_sendOf[dst][rl[k]] = m_vertexOf[src][list[k]];
        }
        m_pointToPoint += list.size();
    }
    for (const auto& [key, list] : recvs)
    {
        const auto [src, dst, tag] = key;
        auto it = sends.find(key);
        const size_t ns = it == sends.end() ? 0 : it->second.size();
        if (list.size() > ns)
        {
            const ChakraNode& x = m_nodes[dst][list[ns]];
            throw ChakraError(x.Where(m_files[dst]) + "receive from rank " + std::to_string(src) +
                              " (tag " + std::to_string(tag) + ") has no matching send in " +
                              m_files[src] + " (" + std::to_string(list.size()) +
                              " such receives, " + std::to_string(ns) + " sends)");
        }
    }
}

std::vector<std::vector<uint32_t>>
ChakraTrace::OrderVertices()
{
    const uint32_t n = m_nodes.size();
    const uint32_t nv = m_vertices.size();
    std::vector<std::vector<uint32_t>> preds(nv);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t i = 0; i < m_nodes[r].size(); ++i)
        {
            const uint32_t v = m_vertexOf[r][i];
            for (uint32_t j : m_deps[r][i])
            {
                preds[v].push_back(m_vertexOf[r][j]);
            }
            if (m_sendOf[r][i] >= 0)
            {
                preds[v].push_back(static_cast<uint32_t>(m_sendOf[r][i]));
            }
        }
    }
    std::vector<std::vector<uint32_t>> succ(nv);
    std::vector<uint32_t> indeg(nv, 0);
    for (uint32_t v = 0; v < nv; ++v)
    {
        std::sort(preds[v].begin(), preds[v].end());
        preds[v].erase(std::unique(preds[v].begin(), preds[v].end()), preds[v].end());
        for (uint32_t p : preds[v])
        {
            succ[p].push_back(v);
            ++indeg[v];
        }
    }
    m_order.clear();
    std::deque<uint32_t> ready;
    for (uint32_t v = 0; v < nv; ++v)
    {
        if (indeg[v] == 0)
        {
            ready.push_back(v);
        }
    }
    while (!ready.empty())
    {
        const uint32_t v = ready.front();
        ready.pop_front();
        m_order.push_back(v);
        for (uint32_t s : succ[v])
        {
            if (--indeg[s] == 0)
            {
                ready.push_back(s);
            }
        }
    }
    if (m_order.size() < nv)
    {
        // walk back along unprocessed predecessors until a vertex repeats: it is on a cycle
        uint32_t v = 0;
        while (indeg[v] == 0)
        {
            ++v;
        }
        std::vector<uint32_t> path;
        std::map<uint32_t, size_t> pos;
        while (pos.find(v) == pos.end())
        {
            pos[v] = path.size();
            path.push_back(v);
            for (uint32_t p : preds[v])
            {
                if (indeg[p] > 0)
                {
                    v = p;
                    break;
                }
            }
        }
        std::vector<uint32_t> cycle(path.begin() + pos[v], path.end());
        std::reverse(cycle.begin(), cycle.end()); // dependency order
        auto label = [this](uint32_t x) {
            const Vertex& vx = m_vertices[x];
            return "rank " + std::to_string(vx.rank) + " node " +
                   std::to_string(m_nodes[vx.rank][vx.index].id);
        };
        std::string chain;
        for (size_t k = 0; k < cycle.size() && k < 8; ++k)
        {
            chain += label(cycle[k]) + " -> ";
        }
        chain += cycle.size() > 8 ? "..." : label(cycle[0]);
        const Vertex& first = m_vertices[cycle[0]];
        throw ChakraError(m_nodes[first.rank][first.index].Where(m_files[first.rank]) +
                          "dependency cycle (" + chain +
                          "; sends, receives and collectives link the ranks): the run would "
                          "never finish");
    }
    return preds;
}

void
ChakraTrace::ComputeStatistics(const std::vector<std::vector<uint32_t>>& preds)
{
    const uint32_t n = m_nodes.size();
    const uint32_t nv = m_vertices.size();
    m_flops = 0;
    m_skipped = 0;
    std::vector<double> compute(n, 0.0);
    auto seconds = [this](const ChakraNode& x) {
        if (x.durationMicros > 0)
        {
            return static_cast<double>(x.durationMicros) * 1e-6;
        }
        return x.hasNumOps ? x.numOps / m_flopRate : 0.0;
    };
    const double limit = MaxComputeSeconds();
    for (uint32_t r = 0; r < n; ++r)
    {
        for (const ChakraNode& x : m_nodes[r])
        {
            if (x.type == ChakraNode::COMP)
            {
                const double s = seconds(x);
                if (!(s <= limit))
                {
                    std::ostringstream os;
                    os << x.Where(m_files[r]);
                    if (x.durationMicros > 0)
                    {
                        os << "duration_micros " << x.durationMicros;
                    }
                    else
                    {
                        os << "num_ops " << x.numOps << " at the GPU's FLOP rate";
                    }
                    os << " is " << s << " s of compute, beyond the " << limit
                       << " s a simulation can time (int64 nanoseconds)";
                    throw ChakraError(os.str());
                }
                compute[r] += s;
                if (!x.isCpuOp)
                {
                    m_flops += x.hasNumOps ? x.numOps : s * m_flopRate;
                }
            }
            else if (x.type == ChakraNode::METADATA)
            {
                ++m_skipped;
            }
        }
    }
    m_computeTime = *std::max_element(compute.begin(), compute.end());
    for (uint32_t r = 0; r < n; ++r)
    {
        if (!(compute[r] <= limit))
        {
            std::ostringstream os;
            os << m_files[r] << ": the COMP nodes add up to " << compute[r] << " s, beyond the "
               << limit << " s a simulation can time (int64 nanoseconds)";
            throw ChakraError(os.str());
        }
    }
    if (m_computeTime == 0 && m_collMembers.empty() && m_pointToPoint == 0)
    {
        throw ChakraError(m_files[0] +
                          ": no compute time and no communication in any rank's "
                          "file (" +
                          std::to_string(m_skipped) +
                          " metadata nodes): an iteration would take no time, so throughput "
                          "and utilization are undefined");
    }
    // earliest starts with free communication
    std::vector<double> finish(nv, 0.0);
    m_firstComm = -1;
    for (uint32_t v : m_order)
    {
        double start = 0;
        for (uint32_t p : preds[v])
        {
            start = std::max(start, finish[p]);
        }
        const Vertex& vx = m_vertices[v];
        const ChakraNode& x = m_nodes[vx.rank][vx.index];
        finish[v] = start + (x.type == ChakraNode::COMP ? seconds(x) : 0.0);
        if (x.type == ChakraNode::COMM_SEND || x.type == ChakraNode::COMM_COLL)
        {
            m_firstComm = m_firstComm < 0 ? start : std::min(m_firstComm, start);
        }
    }
    m_firstComm = std::max(0.0, m_firstComm);
}

} // namespace ns3
