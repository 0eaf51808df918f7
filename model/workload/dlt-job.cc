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

#include "dlt-job.h"

#include "ring-allreduce.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

namespace
{

/// Split total into parts: part i gets total/parts, plus one for the first total mod parts.
uint64_t
SplitPart(uint64_t total, uint32_t parts, uint32_t i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}

} // namespace

DltJob
DltJob::FromModel(uint32_t id, const std::string& modelName, const std::vector<GpuId>& gpus)
{
    DltJob job;
    job.id = id;
    job.modelName = modelName;
    job.model = ModelZoo::Get(modelName);
    job.gpus = gpus;
    if (gpus.empty())
    {
        throw std::invalid_argument("job " + std::to_string(id) + ": gpus is empty");
    }
    job.computeTime = job.model.computeTime;
    job.flopsPerIteration = job.model.FlopsPerIteration(gpus.size());
    job.gradientBytes = job.model.GradientBytes();
    job.overlapStart = job.model.overlapStart;
    job.numBuckets = job.model.numBuckets;
    job.Validate();
    return job;
}

void
DltJob::Validate() const
{
    const std::string who = "job " + std::to_string(id) + ": ";
    if (gpus.empty())
    {
        throw std::invalid_argument(who + "gpus is empty");
    }
    std::set<std::pair<uint32_t, uint32_t>> seen;
    std::map<uint32_t, uint32_t> perHost;
    for (const auto& g : gpus)
    {
        if (!seen.insert({g.host, g.localGpu}).second)
        {
            throw std::invalid_argument(who + "gpus lists GPU (host " + std::to_string(g.host) +
                                        ", gpu " + std::to_string(g.localGpu) + ") twice");
        }
        perHost[g.host]++;
    }
    const uint32_t first = perHost.begin()->second;
    for (const auto& kv : perHost)
    {
        if (kv.second != first)
        {
            throw std::invalid_argument(
                who + "gpus: every host must hold the same number of the job's GPUs (host " +
                std::to_string(perHost.begin()->first) + " has " + std::to_string(first) +
                ", host " + std::to_string(kv.first) + " has " + std::to_string(kv.second) + ")");
        }
    }
    if (!(computeTime >= 0))
    {
        throw std::invalid_argument(who + "computeTime must be >= 0 s");
    }
    if (!(flopsPerIteration >= 0))
    {
        throw std::invalid_argument(who + "flopsPerIteration must be >= 0");
    }
    if (!(overlapStart >= 0 && overlapStart <= 1))
    {
        throw std::invalid_argument(who + "overlapStart must be in [0, 1], got " +
                                    std::to_string(overlapStart));
    }
    if (numBuckets == 0)
    {
        throw std::invalid_argument(who + "numBuckets must be >= 1");
    }
    if (!(startTime >= 0))
    {
        throw std::invalid_argument(who + "startTime must be >= 0 s");
    }
    if (dscp > 63)
    {
        throw std::invalid_argument(who + "dscp " + std::to_string(dscp) + " > 63");
    }
}

std::vector<uint32_t>
DltJob::Hosts() const
{
    std::vector<uint32_t> hosts;
    std::set<uint32_t> seen;
    for (const auto& g : gpus)
    {
        if (seen.insert(g.host).second)
        {
            hosts.push_back(g.host);
        }
    }
    return hosts;
}

uint32_t
DltJob::NumGpus() const
{
    return gpus.size();
}

uint32_t
DltJob::DataParallel() const
{
    return Hosts().size();
}

uint32_t
DltJob::TensorParallel() const
{
    const uint32_t hosts = DataParallel();
    return hosts == 0 ? 0 : gpus.size() / hosts;
}

std::vector<GpuId>
DltJob::RailGpus(uint32_t rail) const
{
    const uint32_t tp = TensorParallel();
    if (rail >= tp)
    {
        throw std::out_of_range("job " + std::to_string(id) + ": rail " + std::to_string(rail) +
                                " >= " + std::to_string(tp) + " GPUs per host");
    }
    std::vector<GpuId> ring;
    for (uint32_t h : Hosts())
    {
        std::vector<uint32_t> local;
        for (const auto& g : gpus)
        {
            if (g.host == h)
            {
                local.push_back(g.localGpu);
            }
        }
        std::sort(local.begin(), local.end());
        GpuId id;
        id.host = h;
        id.localGpu = local.at(rail);
        ring.push_back(id);
    }
    return ring;
}

uint32_t
DltJob::FlowId(uint32_t rail, uint32_t rank) const
{
    return rail * DataParallel() + rank;
}

uint16_t
DltJob::UdpSrcPortOf(uint32_t flowId) const
{
    auto it = udpSrcPorts.find(flowId);
    return it == udpSrcPorts.end() ? 0 : it->second;
}

uint64_t
DltJob::RailBytes(uint32_t rail) const
{
    const uint32_t tp = TensorParallel();
    if (tp == 0)
    {
        return 0;
    }
    return SplitPart(gradientBytes, tp, rail);
}

uint64_t
DltJob::BucketBytes(uint32_t rail, uint32_t bucket) const
{
    if (numBuckets == 0)
    {
        throw std::invalid_argument("job " + std::to_string(id) + ": numBuckets must be >= 1");
    }
    return SplitPart(RailBytes(rail), numBuckets, bucket);
}

std::vector<DltCommFlow>
DltJob::CommunicationPattern() const
{
    Validate();
    std::vector<DltCommFlow> flows;
    const uint32_t dp = DataParallel();
    const uint32_t tp = TensorParallel();
    if (dp <= 1)
    {
        return flows;
    }
    for (uint32_t rail = 0; rail < tp; ++rail)
    {
        const auto ring = RailGpus(rail);
        for (uint32_t r = 0; r < dp; ++r)
        {
            uint64_t bytes = 0;
            for (uint32_t b = 0; b < numBuckets; ++b)
            {
                bytes += RingAllReduce::BytesSentByRank(BucketBytes(rail, b), dp, r);
            }
            DltCommFlow f;
            f.flowId = FlowId(rail, r);
            f.src = ring[r];
            f.dst = ring[(r + 1) % dp];
            f.rail = rail;
            f.rank = r;
            f.bytesPerIteration = static_cast<double>(bytes);
            flows.push_back(f);
        }
    }
    return flows;
}

} // namespace ns3
