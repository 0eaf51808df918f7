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

#include "sched-job-builder.h"

#include "crux-helper.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

/// Throws if \p fillPaths is null (MakeSchedJob's check). \param job the job (for the message)
/// \param fillPaths the filler
void
CheckFiller(const DltJob& job, const SchedFlowPathFiller& fillPaths)
{
    if (!fillPaths)
    {
        throw std::invalid_argument("MakeSchedJob: fillPaths is null (job " +
                                    std::to_string(job.id) + ")");
    }
}

/**
 * MakeSchedJob() with the job's inter-host flows already listed.
 * \param job the job \param pattern job.CommunicationPattern() \param fillPaths the filler
 * \param granularity the timeline (AddCommTimeline())
 * \return the scheduler job
 */
SchedJob
MakeSchedJobOfPattern(const DltJob& job,
                      const std::vector<DltCommFlow>& pattern,
                      const SchedFlowPathFiller& fillPaths,
                      TimelineGranularity granularity)
{
    SchedJob sj;
    sj.id = job.id;
    sj.flopsPerIteration = job.flopsPerIteration;
    sj.computeTime = job.ComputeSpan();
    // The scheduler's iteration model lets communication start after overlapStart × c. The
    // application releases the first gradient bucket at f + (c − f)/B (f = forward part):
    // that is when communication can really start (1 for a single bucket: no overlap).
    sj.overlapStart = job.overlapStart + (1.0 - job.overlapStart) / job.numBuckets;
    if (job.chakra)
    {
        // a Chakra job: FromChakra() set overlapStart to when its first communication can
        // start (compute along the trace's dependencies, free communication)
        sj.overlapStart = job.overlapStart;
    }
    sj.numGpus = job.NumGpus();
    for (const auto& f : pattern)
    {
        SchedFlow sf;
        sf.id = f.flowId;
        sf.bytesPerIteration = f.bytesPerIteration;
        fillPaths(f, sf);
        sj.flows.push_back(sf);
    }
    if (sj.flows.empty())
    {
        return sj;
    }
    // The communication timeline, from the iteration's CommDag with the transports' NVLink
    // model (the FlowTransport attribute defaults, as Config::SetDefault / the command line
    // set them).
    static const TypeId transport = TypeId::LookupByName("ns3::FlowTransport");
    TypeId::AttributeInformation info;
    transport.LookupAttributeByName("IntraHostRate", &info);
    const double rate = static_cast<double>(
        DynamicCast<const DataRateValue>(info.initialValue)->Get().GetBitRate());
    transport.LookupAttributeByName("IntraHostLatency", &info);
    const double latency = DynamicCast<const TimeValue>(info.initialValue)->Get().GetSeconds();
    AddCommTimeline(job, sj, rate, latency, granularity);
    const bool classic = sj.phases.size() == 1 && sj.endDeps.empty() &&
                         sj.span <= sj.computeTime + TimeStep(1).GetSeconds();
    if (job.plan)
    {
        sj.overlapStart =
            sj.computeTime > 0 ? std::min(1.0, sj.phases.front().release / sj.computeTime) : 0.0;
    }
    if (classic)
    {
        // one phase after the compute-driven release: the classic model (exact overlapStart)
        sj.phases.clear();
        sj.span = 0;
    }
    return sj;
}

} // namespace

SchedJob
MakeSchedJob(const DltJob& job,
             const SchedFlowPathFiller& fillPaths,
             TimelineGranularity granularity)
{
    CheckFiller(job, fillPaths);
    return MakeSchedJobOfPattern(job, job.CommunicationPattern(), fillPaths, granularity);
}

namespace
{

/**
 * The job's local GPUs, host by host.
 * \param job the job
 * \param hosts job.Hosts()
 * \return element p = the local GPUs the job holds on hosts[p], ascending (the rank order of
 *         TrainingIteration::RankGpus())
 */
std::vector<std::vector<uint32_t>>
LocalGpusByHost(const DltJob& job, const std::vector<uint32_t>& hosts)
{
    std::vector<std::vector<uint32_t>> local(hosts.size());
    for (const GpuId& g : job.gpus)
    {
        local[std::find(hosts.begin(), hosts.end(), g.host) - hosts.begin()].push_back(g.localGpu);
    }
    for (auto& l : local)
    {
        std::sort(l.begin(), l.end());
    }
    return local;
}

/// \param local a host's local GPUs of the job, ascending \param gpu one of them
/// \return its position in \p local
uint32_t
PositionOf(const std::vector<uint32_t>& local, uint32_t gpu)
{
    return static_cast<uint32_t>(std::lower_bound(local.begin(), local.end(), gpu) - local.begin());
}

/**
 * SchedJobTemplates::LayoutKey() of a job from its local GPUs by host.
 * \param hw the job's collectives.hardware \param byHost LocalGpusByHost() of the job
 * \return the key
 */
std::string
KeyOfLayout(const CollectiveHardware& hw, const std::vector<std::vector<uint32_t>>& byHost)
{
    std::string key;
    uint32_t pos = 0;
    for (const std::vector<uint32_t>& local : byHost)
    {
        // the host's NICs in use, ascending; each GPU is named by its NIC's index among them
        std::vector<uint32_t> nics;
        for (uint32_t g : local)
        {
            nics.push_back(hw.NicOf(g));
        }
        std::vector<uint32_t> distinct = nics;
        std::sort(distinct.begin(), distinct.end()); // NicOf wraps above gpusPerHost
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        for (uint32_t n : nics)
        {
            key += std::to_string(pos) + ":" + std::to_string(PositionOf(distinct, n)) + ",";
        }
        ++pos;
    }
    return key;
}

} // namespace

std::string
SchedJobTemplates::LayoutKey(const DltJob& job)
{
    return KeyOfLayout(job.collectives.hardware, LocalGpusByHost(job, job.Hosts()));
}

SchedJob
SchedJobTemplates::Make(const DltJob& job, const SchedFlowPathFiller& fillPaths)
{
    CheckFiller(job, fillPaths);
    if (job.chakra)
    {
        // every Chakra job is named "chakra": its trace, not its name, defines it
        return MakeSchedJob(job, fillPaths, m_granularity);
    }
    const std::vector<uint32_t> hosts = job.Hosts();
    const std::vector<std::vector<uint32_t>> local = LocalGpusByHost(job, hosts);
    const std::string key = job.modelName + "|" + KeyOfLayout(job.collectives.hardware, local);
    auto it = m_templates.find(key);
    if (it == m_templates.end())
    {
        const std::vector<DltCommFlow> pattern = job.CommunicationPattern();
        SchedJob sj = MakeSchedJobOfPattern(job, pattern, fillPaths, m_granularity);
        Template t;
        t.job = sj;
        for (SchedFlow& f : t.job.flows)
        {
            f.candidatePaths.clear();
            f.defaultPath = 0;
        }
        // the endpoints as positions: the host's among the job's hosts (order of first
        // appearance), the GPU's among the job's GPUs on that host (ascending)
        auto relative = [&hosts, &local](GpuId& g) {
            const auto pos = std::find(hosts.begin(), hosts.end(), g.host) - hosts.begin();
            g.localGpu = PositionOf(local[pos], g.localGpu);
            g.host = static_cast<uint32_t>(pos);
        };
        t.flows = pattern;
        for (DltCommFlow& f : t.flows)
        {
            relative(f.src);
            relative(f.dst);
        }
        t.gradientBytes = job.gradientBytes;
        m_templates.emplace(key, std::move(t));
        ++m_misses;
        return sj;
    }
    job.Validate(); // what CommunicationPattern() checks for a key's first job
    const Template& t = it->second;
    if (job.NumGpus() != t.job.numGpus || job.ComputeSpan() != t.job.computeTime ||
        job.flopsPerIteration != t.job.flopsPerIteration || job.gradientBytes != t.gradientBytes)
    {
        throw std::logic_error("SchedJobTemplates: job " + std::to_string(job.id) + " (" +
                               job.modelName +
                               ") differs from the template of its model and layout in GPUs, "
                               "compute time, FLOPs or gradient bytes");
    }
    SchedJob sj = t.job;
    sj.id = job.id;
    auto absolute = [&hosts, &local](GpuId& g) {
        g.localGpu = local.at(g.host).at(g.localGpu);
        g.host = hosts.at(g.host);
    };
    for (std::size_t i = 0; i < t.flows.size(); ++i)
    {
        DltCommFlow f = t.flows[i];
        absolute(f.src);
        absolute(f.dst);
        fillPaths(f, sj.flows[i]);
    }
    ++m_hits;
    return sj;
}

SchedJobTemplates::SchedJobTemplates(TimelineGranularity granularity)
    : m_granularity(granularity)
{
}

TimelineGranularity
SchedJobTemplates::GetGranularity() const
{
    return m_granularity;
}

uint64_t
SchedJobTemplates::GetHits() const
{
    return m_hits;
}

uint64_t
SchedJobTemplates::GetMisses() const
{
    return m_misses;
}

void
CheckJobOnClusterTopology(const DltJob& job, const ClusterTopology& topo)
{
    for (size_t i = 0; i < job.gpus.size(); ++i)
    {
        const GpuId& g = job.gpus[i];
        if (g.host >= topo.NumHosts())
        {
            throw std::invalid_argument(
                "job " + std::to_string(job.id) + ": gpus[" + std::to_string(i) + "] is on host " +
                std::to_string(g.host) + ", but topology '" + topo.name + "' has hosts 0.." +
                std::to_string(topo.NumHosts()) + " (exclusive)");
        }
        if (g.localGpu >= topo.gpusPerHost)
        {
            throw std::invalid_argument(
                "job " + std::to_string(job.id) + ": gpus[" + std::to_string(i) + "] is GPU " +
                std::to_string(g.localGpu) + " of host " + std::to_string(g.host) +
                ", but hosts of topology '" + topo.name + "' have " +
                std::to_string(topo.gpusPerHost) + " GPUs");
        }
    }
}

void
AddIntraHostFlows(const DltJob& job, const ClusterTopology& topo, SchedJob& sj)
{
    if (!topo.HasIntraHostLinks())
    {
        return; // intra-host traffic uses no modelled link
    }
    SchedPhase intra; // with a communication timeline: the intra-host connections' phase
    for (const DltCommFlow& f : job.IntraHostPattern())
    {
        SchedFlow sf;
        sf.id = f.flowId;
        sf.bytesPerIteration = f.bytesPerIteration;
        sf.candidatePaths = {
            topo.GpuPath(f.src.host, f.src.localGpu, f.dst.host, f.dst.localGpu, {})};
        sf.defaultPath = 0;
        intra.flows.push_back(static_cast<uint32_t>(sj.flows.size()));
        intra.bytes.push_back(f.bytesPerIteration);
        sj.flows.push_back(std::move(sf));
    }
    if (!sj.phases.empty() && !intra.flows.empty())
    {
        // A job with a timeline (a plan's TP over NVLink): its timeline already holds the time
        // of these transfers (AddCommTimeline's NVLink model), so their bytes go into one phase
        // released at the iteration start without dependencies. It makes them count in t_j and
        // occupy the job's own NVLink links (no other job's GPU uses them) and ends the
        // iteration only if those links are slower than the timeline's NVLink model.
        sj.phases.push_back(std::move(intra));
    }
}

namespace
{

/**
 * MakeClusterSchedJob's path filler: equal-cost GPU paths (at most \p maxPaths) and the ECMP
 * default path of each flow.
 * \param job the job (checked on \p topo) \param topo the topology \param ecmpSeed ECMP seed
 * \param maxPaths cap (>= 1)
 * \return the filler
 */
SchedFlowPathFiller
ClusterPathFiller(const DltJob& job,
                  const ClusterTopology& topo,
                  uint64_t ecmpSeed,
                  uint32_t maxPaths)
{
    if (maxPaths == 0)
    {
        throw std::invalid_argument("MakeClusterSchedJob: maxPaths must be >= 1");
    }
    CheckJobOnClusterTopology(job, topo);
    return [&job, &topo, ecmpSeed, maxPaths](const DltCommFlow& f, SchedFlow& sf) {
        sf.candidatePaths = topo.EqualCostGpuPaths(f.src.host,
                                                   f.src.localGpu,
                                                   f.dst.host,
                                                   f.dst.localGpu,
                                                   maxPaths);
        if (sf.candidatePaths.empty())
        {
            throw std::invalid_argument("job " + std::to_string(job.id) + " flow " +
                                        std::to_string(f.flowId) + ": topology '" + topo.name +
                                        "' has no path from host " + std::to_string(f.src.host) +
                                        " to host " + std::to_string(f.dst.host));
        }
        sf.defaultPath = EcmpPathIndex(ecmpSeed,
                                       job.id,
                                       f.flowId,
                                       static_cast<uint32_t>(sf.candidatePaths.size()));
    };
}

} // namespace

SchedJob
MakeClusterSchedJob(const DltJob& job,
                    const ClusterTopology& topo,
                    uint64_t ecmpSeed,
                    uint32_t maxPaths)
{
    SchedJob sj = MakeSchedJob(job, ClusterPathFiller(job, topo, ecmpSeed, maxPaths));
    AddIntraHostFlows(job, topo, sj);
    return sj;
}

SchedJob
MakeClusterSchedJob(const DltJob& job,
                    const ClusterTopology& topo,
                    uint64_t ecmpSeed,
                    uint32_t maxPaths,
                    SchedJobTemplates& templates)
{
    SchedJob sj = templates.Make(job, ClusterPathFiller(job, topo, ecmpSeed, maxPaths));
    AddIntraHostFlows(job, topo, sj);
    return sj;
}

ClusterModel
MakeClusterModel(Ptr<CruxTopology> topo, const std::vector<DltJob>& jobs)
{
    if (!topo)
    {
        throw std::invalid_argument("MakeClusterModel: topology is null");
    }
    ClusterModel cm;
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        SchedLink sl;
        sl.bandwidth = static_cast<double>(topo->GetLink(l).rate.GetBitRate());
        sl.name = "l" + std::to_string(l);
        cm.links.push_back(sl);
    }
    // intra-host links of the description (ids after the network links)
    const ClusterTopology& desc = topo->GetDescription();
    for (std::size_t l = cm.links.size(); l < desc.links.size(); ++l)
    {
        cm.links.push_back({desc.links[l].bandwidth, desc.links[l].name});
    }
    const CruxTopologySteering steering(topo);
    for (const DltJob& job : jobs)
    {
        cm.jobs.push_back(MakeSchedJob(job, [&](const DltCommFlow& f, SchedFlow& sf) {
            const RdmaQpKey key{job.id, f.flowId, f.src, f.dst};
            const uint32_t sn = topo->GpuToNic(f.src.host, f.src.localGpu);
            const uint32_t dn = topo->GpuToNic(f.dst.host, f.dst.localGpu);
            sf.candidatePaths = topo->GetEqualCostPaths(f.src.host, sn, f.dst.host, dn);
            if (sf.candidatePaths.empty())
            {
                throw std::invalid_argument("topology: no path from host " +
                                            std::to_string(f.src.host) + " to host " +
                                            std::to_string(f.dst.host));
            }
            const CruxPath ecmp = steering.PathOf(key, 0);
            auto it = std::find(sf.candidatePaths.begin(), sf.candidatePaths.end(), ecmp);
            if (it == sf.candidatePaths.end())
            {
                throw std::logic_error("internal: ECMP path " + CruxTopology::PathToString(ecmp) +
                                       " of job " + std::to_string(job.id) + " flow " +
                                       std::to_string(f.flowId) + " is not a shortest path");
            }
            sf.defaultPath = static_cast<uint32_t>(it - sf.candidatePaths.begin());
            for (auto& p : sf.candidatePaths)
            {
                p = desc.GpuPath(f.src.host, f.src.localGpu, f.dst.host, f.dst.localGpu, p);
            }
        }));
        AddIntraHostFlows(job, desc, cm.jobs.back());
    }
    return cm;
}

} // namespace ns3
