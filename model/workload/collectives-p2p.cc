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

// The point-to-point family of the collectives library (collectives.cc): the pipelined ring
// broadcast, the pairwise all-to-all and a single send/receive.

#include "collectives-detail.h"
#include "collectives.h"

#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxCollectivesP2p");

using namespace collectives_detail;

uint32_t
Collectives::BroadcastChunks(uint64_t bytes)
{
    return static_cast<uint32_t>(std::clamp<uint64_t>((bytes + PIPELINE_CHUNK - 1) / PIPELINE_CHUNK,
                                                      1,
                                                      MAX_PIPELINE_CHUNKS));
}

CollectiveNodes
Collectives::Broadcast(CommDag& dag,
                       const std::vector<uint32_t>& members,
                       uint64_t bytes,
                       const NodeList& ready,
                       uint32_t chunks)
{
    if (NothingToSend(dag, members, ready, bytes, "Broadcast"))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    const uint32_t c = chunks > 0 ? chunks : BroadcastChunks(bytes);
    NS_LOG_LOGIC("ring broadcast of " << bytes << " bytes over " << n << " ranks, " << c
                                      << " chunks");
    const auto stream = Streams(dag, n);
    dag.BeginCollective("broadcast (ring)");
    std::vector<NodeList> received(n);
    for (uint32_t ch = 0; ch < c; ++ch)
    {
        NodeId prev = ReadyOf(ready, 0);
        for (uint32_t i = 0; i + 1 < n; ++i)
        {
            prev = dag.AddMessage(members[i],
                                  members[i + 1],
                                  ChunkBytes(bytes, c, ch),
                                  stream[i],
                                  {prev, ReadyOf(ready, i), ReadyOf(ready, i + 1)});
            received[i + 1].push_back(prev);
        }
    }
    CollectiveNodes out;
    for (uint32_t i = 0; i < n; ++i)
    {
        NodeList deps{ReadyOf(ready, i)};
        deps.insert(deps.end(), received[i].begin(), received[i].end());
        out.rankDone.push_back(dag.AddBarrier(deps));
    }
    return out;
}

CollectiveNodes
Collectives::AllToAll(CommDag& dag,
                      const std::vector<uint32_t>& members,
                      uint64_t bytes,
                      const NodeList& ready)
{
    if (NothingToSend(dag, members, ready, bytes, "AllToAll"))
    {
        return Trivial(dag, members, ready);
    }
    const uint32_t n = members.size();
    NS_LOG_LOGIC("pairwise all-to-all of " << bytes << " bytes per rank over " << n << " ranks, "
                                           << n - 1 << " steps");
    const auto stream = Streams(dag, n);
    std::vector<NodeId> msg(static_cast<size_t>(n) * n, NONE); // [d * n + r]
    dag.BeginCollective("all-to-all", n - 1);
    for (uint32_t d = 1; d < n; ++d)
    {
        dag.SetStep(d - 1);
        for (uint32_t r = 0; r < n; ++r)
        {
            const uint32_t to = (r + d) % n;
            NodeList deps{ReadyOf(ready, r)};
            if (d > 1)
            {
                deps.push_back(msg[(d - 1) * n + r]);                   // own previous send
                deps.push_back(msg[(d - 1) * n + (r + n - d + 1) % n]); // previous receipt
            }
            msg[d * n + r] =
                dag.AddMessage(members[r], members[to], ChunkBytes(bytes, n, to), stream[r], deps);
        }
    }
    CollectiveNodes out;
    for (uint32_t r = 0; r < n; ++r)
    {
        NodeList deps{ReadyOf(ready, r)};
        for (uint32_t d = 1; d < n; ++d)
        {
            deps.push_back(msg[d * n + (r + n - d) % n]);
        }
        out.rankDone.push_back(dag.AddBarrier(deps));
    }
    return out;
}

CollectiveNodes
Collectives::SendRecv(CommDag& dag,
                      const std::vector<uint32_t>& members,
                      uint64_t bytes,
                      const NodeList& ready)
{
    Check(dag, members, ready, "SendRecv");
    if (members.size() != 2)
    {
        throw std::invalid_argument("Collectives::SendRecv: needs exactly 2 members, got " +
                                    std::to_string(members.size()));
    }
    CollectiveNodes out;
    out.rankDone.push_back(dag.AddBarrier({ReadyOf(ready, 0)}));
    dag.BeginCollective("send/receive");
    const NodeId m = dag.AddMessage(members[0],
                                    members[1],
                                    bytes,
                                    dag.NewStream(),
                                    {ReadyOf(ready, 0), ReadyOf(ready, 1)});
    out.rankDone.push_back(dag.AddBarrier({m}));
    return out;
}

} // namespace ns3
