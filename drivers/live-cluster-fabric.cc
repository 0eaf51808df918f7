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

#include "live-cluster-fabric.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/sched-job-builder.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxLiveClusterFabric");

NS_OBJECT_ENSURE_REGISTERED(LiveClusterFabric);

namespace
{

/// "job J flow F" for error messages
std::string
FlowName(uint32_t jobId, uint32_t flowId)
{
    return "job " + std::to_string(jobId) + " flow " + std::to_string(flowId);
}

} // namespace

TypeId
LiveClusterFabric::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LiveClusterFabric")
            .SetParent<Object>()
            .SetGroupName("Crux")
            .AddConstructor<LiveClusterFabric>()
            .AddAttribute("EcmpSeed",
                          "Seed of the ECMP hash (EcmpPathIndex) that picks a flow's default "
                          "path among its equal-cost candidates before any decision. Use the "
                          "same seed when building the ClusterModel (MakeClusterSchedJob).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&LiveClusterFabric::m_ecmpSeed),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MaxPaths",
                          "Cap on the equal-cost candidate paths per flow "
                          "(ClusterTopology::EqualCostPaths maxPaths), >= 1.",
                          UintegerValue(64),
                          MakeUintegerAccessor(&LiveClusterFabric::m_maxPaths),
                          MakeUintegerChecker<uint32_t>(1, 16384))
            .AddTraceSource("DecisionApplied",
                            "A decision was installed on a running job: (time, job id, level, "
                            "number of the job's flows whose path changed).",
                            MakeTraceSourceAccessor(&LiveClusterFabric::m_decisionAppliedTrace),
                            "ns3::LiveClusterFabric::DecisionAppliedTracedCallback");
    return tid;
}

LiveClusterFabric::LiveClusterFabric()
{
    NS_LOG_FUNCTION(this);
}

LiveClusterFabric::~LiveClusterFabric() = default;

void
LiveClusterFabric::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& [id, st] : m_jobs)
    {
        if (st.app)
        {
            st.app->Stop();
            st.app = nullptr;
        }
    }
    m_jobs.clear();
    if (m_transport)
    {
        m_transport->Dispose(); // drops the resolver bound to this object
        m_transport = nullptr;
    }
    m_node = nullptr;
    Object::DoDispose();
}

uint16_t
LiveClusterFabric::PortOfPathIndex(uint32_t index)
{
    if (index >= 65536U - PATH_PORT_BASE)
    {
        throw std::out_of_range("LiveClusterFabric: path index " + std::to_string(index) +
                                " does not fit the UDP source port range 49152..65535");
    }
    return static_cast<uint16_t>(PATH_PORT_BASE + index);
}

void
LiveClusterFabric::Setup(const ClusterTopology& topo)
{
    NS_LOG_FUNCTION(this << topo.name);
    if (m_setup)
    {
        throw std::logic_error("LiveClusterFabric::Setup called twice");
    }
    if (topo.NumHosts() == 0)
    {
        throw std::invalid_argument("LiveClusterFabric::Setup: topology '" + topo.name +
                                    "' has no hosts (hostNode is empty)");
    }
    if (topo.gpusPerHost == 0)
    {
        throw std::invalid_argument("LiveClusterFabric::Setup: topology '" + topo.name +
                                    "': gpusPerHost is 0");
    }
    if (topo.linkDelay.size() != topo.links.size() || topo.linkEnds.size() != topo.links.size())
    {
        throw std::invalid_argument("LiveClusterFabric::Setup: topology '" + topo.name + "' has " +
                                    std::to_string(topo.links.size()) + " links but " +
                                    std::to_string(topo.linkDelay.size()) + " linkDelay and " +
                                    std::to_string(topo.linkEnds.size()) + " linkEnds entries");
    }
    for (uint32_t l = 0; l < topo.links.size(); ++l)
    {
        if (!(topo.links[l].bandwidth > 0) || !std::isfinite(topo.links[l].bandwidth))
        {
            throw std::invalid_argument("LiveClusterFabric::Setup: links[" + std::to_string(l) +
                                        "] (" + topo.links[l].name + ").bandwidth must be > 0");
        }
        if (!(topo.linkDelay[l] >= 0) || !std::isfinite(topo.linkDelay[l]))
        {
            throw std::invalid_argument("LiveClusterFabric::Setup: linkDelay[" + std::to_string(l) +
                                        "] must be >= 0");
        }
    }
    m_topo = topo;
    m_transport = CreateObject<FlowTransport>();
    for (uint32_t h = 0; h < m_topo.NumHosts(); ++h)
    {
        m_transport->AddHost(h, m_topo.gpusPerHost);
    }
    for (uint32_t l = 0; l < m_topo.links.size(); ++l)
    {
        m_transport->AddLink(
            DataRate(static_cast<uint64_t>(std::llround(m_topo.links[l].bandwidth))),
            Seconds(m_topo.linkDelay[l]));
    }
    m_transport->SetPathResolver(MakeCallback(&LiveClusterFabric::Resolve, this));
    m_node = CreateObject<Node>();
    m_setup = true;
}

SchedJob
LiveClusterFabric::GetSchedJob(const DltJob& job) const
{
    if (!m_setup)
    {
        throw std::logic_error("LiveClusterFabric::GetSchedJob before Setup");
    }
    return MakeClusterSchedJob(job, m_topo, m_ecmpSeed, m_maxPaths);
}

void
LiveClusterFabric::StartJob(const DltJob& jobIn, Callback<void, uint32_t> onFinish)
{
    NS_LOG_FUNCTION(this << jobIn.id);
    if (!m_setup)
    {
        throw std::logic_error("LiveClusterFabric::StartJob (job " + std::to_string(jobIn.id) +
                               ") before Setup");
    }
    if (m_jobs.count(jobIn.id))
    {
        throw std::invalid_argument("LiveClusterFabric::StartJob: job id " +
                                    std::to_string(jobIn.id) +
                                    " was already started on this fabric");
    }
    jobIn.Validate();
    // Candidate paths and ECMP defaults exactly as the scheduler's model sees them.
    const SchedJob sj = GetSchedJob(jobIn); // checks the GPUs against the topology

    JobState st;
    st.job = jobIn;
    st.job.udpSrcPorts.clear();
    st.onFinish = onFinish;
    for (const auto& f : jobIn.CommunicationPattern())
    {
        auto sf = std::find_if(sj.flows.begin(), sj.flows.end(), [&](const SchedFlow& x) {
            return x.id == f.flowId;
        });
        FlowState fs;
        fs.key.jobId = jobIn.id;
        fs.key.flowId = f.flowId;
        fs.key.src = f.src;
        fs.key.dst = f.dst;
        fs.paths = sf->candidatePaths;
        fs.current = sf->defaultPath;
        for (const auto& p : fs.paths)
        {
            const std::string bad = CheckPath(p, fs);
            if (!bad.empty())
            {
                throw std::invalid_argument(
                    "LiveClusterFabric::StartJob: " + FlowName(jobIn.id, f.flowId) +
                    ": candidate path invalid: " + bad);
            }
        }
        st.job.udpSrcPorts[f.flowId] = PortOfPathIndex(fs.current);
        st.flows[f.flowId] = fs;
    }

    Ptr<DltJobApplication> app = CreateObject<DltJobApplication>();
    app->SetJob(st.job);
    app->SetTransport(m_transport);
    const double now = Simulator::Now().GetSeconds();
    // Application start times are relative to its initialization (now)
    app->SetStartTime(Seconds(std::max(0.0, st.job.startTime - now)));
    app->TraceConnectWithoutContext("JobComplete",
                                    MakeCallback(&LiveClusterFabric::OnJobComplete, this));
    st.app = app;
    m_jobs[jobIn.id] = st;
    m_node->AddApplication(app);
    NS_LOG_INFO("t=" << now << " s: job " << jobIn.id << " started on " << jobIn.Hosts().size()
                     << " hosts, " << st.flows.size() << " flows, DSCP " << unsigned(st.job.dscp));
}

void
LiveClusterFabric::OnJobComplete(uint32_t jobId, Time jct)
{
    NS_LOG_FUNCTION(this << jobId << jct);
    auto it = m_jobs.find(jobId);
    if (it == m_jobs.end() || !it->second.running)
    {
        return;
    }
    it->second.running = false;
    // after the application's own completion handling (it may start/stop jobs, apply decisions)
    Simulator::ScheduleNow(&LiveClusterFabric::NotifyFinish, Ptr<LiveClusterFabric>(this), jobId);
}

void
LiveClusterFabric::NotifyFinish(uint32_t jobId)
{
    auto it = m_jobs.find(jobId);
    if (it == m_jobs.end() || it->second.onFinish.IsNull())
    {
        return;
    }
    it->second.onFinish(jobId);
}

void
LiveClusterFabric::StopJob(uint32_t jobId)
{
    NS_LOG_FUNCTION(this << jobId);
    GetJobState(jobId, "StopJob");
    JobState& st = m_jobs.at(jobId);
    if (!st.running)
    {
        return;
    }
    st.running = false;
    st.stopped = true;
    st.app->Stop();
}

const LiveClusterFabric::JobState&
LiveClusterFabric::GetJobState(uint32_t jobId, const char* what) const
{
    auto it = m_jobs.find(jobId);
    if (it == m_jobs.end())
    {
        throw std::invalid_argument(std::string("LiveClusterFabric::") + what + ": job " +
                                    std::to_string(jobId) + " was never started on this fabric");
    }
    return it->second;
}

const LiveClusterFabric::FlowState&
LiveClusterFabric::GetFlowState(uint32_t jobId, uint32_t flowId, const char* what) const
{
    const JobState& st = GetJobState(jobId, what);
    auto it = st.flows.find(flowId);
    if (it == st.flows.end())
    {
        throw std::invalid_argument(std::string("LiveClusterFabric::") + what + ": " +
                                    FlowName(jobId, flowId) + " does not exist");
    }
    return it->second;
}

std::string
LiveClusterFabric::CheckPath(const std::vector<uint32_t>& path, const FlowState& flow) const
{
    if (path.empty())
    {
        return "the path is empty (hosts " + std::to_string(flow.key.src.host) + " and " +
               std::to_string(flow.key.dst.host) + " differ)";
    }
    std::set<uint32_t> seen;
    for (uint32_t l : path)
    {
        if (l >= m_topo.links.size())
        {
            return "link id " + std::to_string(l) + " is not in the topology (" +
                   std::to_string(m_topo.links.size()) + " links)";
        }
        if (!seen.insert(l).second)
        {
            return "link " + std::to_string(l) + " appears twice";
        }
    }
    const uint32_t srcNode = m_topo.hostNode[flow.key.src.host];
    const uint32_t dstNode = m_topo.hostNode[flow.key.dst.host];
    if (m_topo.linkEnds[path.front()].first != srcNode)
    {
        return "the first link " + std::to_string(path.front()) + " (" +
               m_topo.links[path.front()].name + ") does not leave source host " +
               std::to_string(flow.key.src.host);
    }
    for (size_t i = 0; i + 1 < path.size(); ++i)
    {
        if (m_topo.linkEnds[path[i]].second != m_topo.linkEnds[path[i + 1]].first)
        {
            return "links " + std::to_string(path[i]) + " and " + std::to_string(path[i + 1]) +
                   " are not consecutive";
        }
    }
    if (m_topo.linkEnds[path.back()].second != dstNode)
    {
        return "the last link " + std::to_string(path.back()) + " (" +
               m_topo.links[path.back()].name + ") does not enter destination host " +
               std::to_string(flow.key.dst.host);
    }
    // the NIC of each end, when the topology has routing tables
    auto nicLinks = [&](uint32_t host, uint32_t gpu) -> const std::vector<uint32_t>* {
        if (host >= m_topo.nicUp.size())
        {
            return nullptr;
        }
        const uint32_t nic = m_topo.NicOfGpu(gpu);
        return nic < m_topo.nicUp[host].size() ? &m_topo.nicUp[host][nic] : nullptr;
    };
    if (const auto* up = nicLinks(flow.key.src.host, flow.key.src.localGpu))
    {
        if (std::find(up->begin(), up->end(), path.front()) == up->end())
        {
            return "the first link " + std::to_string(path.front()) +
                   " does not leave the NIC of source GPU " + std::to_string(flow.key.src.localGpu);
        }
    }
    if (const auto* up = nicLinks(flow.key.dst.host, flow.key.dst.localGpu))
    {
        if (std::find(up->begin(), up->end(), ClusterTopology::Reverse(path.back())) == up->end())
        {
            return "the last link " + std::to_string(path.back()) +
                   " does not enter the NIC of destination GPU " +
                   std::to_string(flow.key.dst.localGpu);
        }
    }
    return "";
}

void
LiveClusterFabric::ApplyDecision(const ClusterModel& model, const Decision& decision)
{
    NS_LOG_FUNCTION(this << decision.scheduler << decision.jobs.size());
    const std::string where = "LiveClusterFabric::ApplyDecision (" + decision.scheduler + "): ";
    std::map<uint32_t, const SchedJob*> modelJobs;
    for (const auto& sj : model.jobs)
    {
        modelJobs[sj.id] = &sj;
    }

    // one planned installation per running job: level and, per flow, the path
    struct Plan
    {
        uint32_t jobId;
        uint32_t level;
        std::map<uint32_t, const std::vector<uint32_t>*> paths;
    };

    std::vector<Plan> plans;
    for (const auto& [jobId, jd] : decision.jobs)
    {
        auto it = m_jobs.find(jobId);
        if (it == m_jobs.end())
        {
            throw std::invalid_argument(where + "job " + std::to_string(jobId) +
                                        " was never started on this fabric");
        }
        const JobState& st = it->second;
        if (!st.running)
        {
            NS_LOG_LOGIC("job " << jobId << " is not running: decision skipped");
            continue;
        }
        auto mj = modelJobs.find(jobId);
        if (mj == modelJobs.end())
        {
            throw std::invalid_argument(where + "job " + std::to_string(jobId) +
                                        " is not in the model");
        }
        if (jd.level > 7)
        {
            throw std::invalid_argument(where + "job " + std::to_string(jobId) + ": level " +
                                        std::to_string(jd.level) +
                                        " > 7 (DSCP 8 x level must be <= 63)");
        }
        for (const auto& fp : jd.flowPath)
        {
            if (!st.flows.count(fp.first))
            {
                throw std::invalid_argument(where + "decision names " + FlowName(jobId, fp.first) +
                                            ", which the job does not have (it has " +
                                            std::to_string(st.flows.size()) + " flows)");
            }
        }
        std::map<uint32_t, const SchedFlow*> modelFlows;
        for (const auto& sf : mj->second->flows)
        {
            if (!st.flows.count(sf.id))
            {
                throw std::invalid_argument(where + "model has " + FlowName(jobId, sf.id) +
                                            ", which the job does not have (it has " +
                                            std::to_string(st.flows.size()) + " flows)");
            }
            modelFlows[sf.id] = &sf;
        }
        Plan plan;
        plan.jobId = jobId;
        plan.level = jd.level;
        for (const auto& [flowId, fs] : st.flows)
        {
            auto mf = modelFlows.find(flowId);
            if (mf == modelFlows.end())
            {
                throw std::invalid_argument(where + "model has no " + FlowName(jobId, flowId));
            }
            auto dp = jd.flowPath.find(flowId);
            if (dp == jd.flowPath.end())
            {
                throw std::invalid_argument(where + "decision has no path for " +
                                            FlowName(jobId, flowId));
            }
            const auto& cands = mf->second->candidatePaths;
            if (dp->second >= cands.size())
            {
                throw std::invalid_argument(where + FlowName(jobId, flowId) + ": path index " +
                                            std::to_string(dp->second) + " but the model has " +
                                            std::to_string(cands.size()) + " candidatePaths");
            }
            const std::vector<uint32_t>& path = cands[dp->second];
            const std::string bad = CheckPath(path, fs);
            if (!bad.empty())
            {
                throw std::invalid_argument(where + FlowName(jobId, flowId) + ": candidatePaths[" +
                                            std::to_string(dp->second) + "]: " + bad);
            }
            plan.paths[flowId] = &path;
        }
        plans.push_back(plan);
    }

    // everything checked: install
    const Time now = Simulator::Now();
    for (const auto& plan : plans)
    {
        JobState& st = m_jobs.at(plan.jobId);
        uint32_t changed = 0;
        for (const auto& [flowId, path] : plan.paths)
        {
            FlowState& fs = st.flows.at(flowId);
            auto pit = std::find(fs.paths.begin(), fs.paths.end(), *path);
            const uint32_t index = static_cast<uint32_t>(pit - fs.paths.begin());
            const uint16_t port = PortOfPathIndex(index); // throws before any change of fs
            if (pit == fs.paths.end())
            {
                fs.paths.push_back(*path);
            }
            if (index != fs.current)
            {
                ++changed;
                fs.current = index;
                st.app->SetFlowSourcePort(flowId, port);
                st.job.udpSrcPorts[flowId] = port;
            }
        }
        const uint8_t dscp = static_cast<uint8_t>(8 * plan.level);
        st.app->SetDscp(dscp);
        st.job.dscp = dscp;
        NS_LOG_INFO("t=" << now.GetSeconds() << " s: job " << plan.jobId << " level " << plan.level
                         << " (DSCP " << unsigned(dscp) << "), " << changed << " of "
                         << st.flows.size() << " flows rerouted");
        m_decisionAppliedTrace(now, plan.jobId, plan.level, changed);
    }
}

std::vector<uint32_t>
LiveClusterFabric::Resolve(const RdmaQpKey& key, uint16_t port) const
{
    auto it = m_jobs.find(key.jobId);
    if (it == m_jobs.end())
    {
        NS_FATAL_ERROR("LiveClusterFabric: message of unknown job " << key.jobId);
    }
    auto fit = it->second.flows.find(key.flowId);
    if (fit == it->second.flows.end())
    {
        NS_FATAL_ERROR("LiveClusterFabric: message of unknown " << FlowName(key.jobId, key.flowId));
    }
    const FlowState& fs = fit->second;
    if (port < PATH_PORT_BASE || port - PATH_PORT_BASE >= fs.paths.size())
    {
        NS_FATAL_ERROR("LiveClusterFabric: " << FlowName(key.jobId, key.flowId) << " uses UDP port "
                                             << port << ", which encodes no path of its table ("
                                             << fs.paths.size() << " paths from port "
                                             << PATH_PORT_BASE << ")");
    }
    return fs.paths[port - PATH_PORT_BASE];
}

uint64_t
LiveClusterFabric::CompletedIterations(uint32_t jobId) const
{
    return GetJobState(jobId, "CompletedIterations").app->GetCompletedIterations();
}

Ptr<FlowTransport>
LiveClusterFabric::GetTransport() const
{
    return m_transport;
}

const ClusterTopology&
LiveClusterFabric::GetTopology() const
{
    return m_topo;
}

bool
LiveClusterFabric::IsRunning(uint32_t jobId) const
{
    auto it = m_jobs.find(jobId);
    return it != m_jobs.end() && it->second.running;
}

std::vector<uint32_t>
LiveClusterFabric::GetRunningJobs() const
{
    std::vector<uint32_t> ids;
    for (const auto& [id, st] : m_jobs)
    {
        if (st.running)
        {
            ids.push_back(id);
        }
    }
    return ids;
}

Ptr<DltJobApplication>
LiveClusterFabric::GetApplication(uint32_t jobId) const
{
    return GetJobState(jobId, "GetApplication").app;
}

uint32_t
LiveClusterFabric::GetInstalledLevel(uint32_t jobId) const
{
    return GetJobState(jobId, "GetInstalledLevel").job.dscp / 8;
}

uint8_t
LiveClusterFabric::GetInstalledDscp(uint32_t jobId) const
{
    return GetJobState(jobId, "GetInstalledDscp").job.dscp;
}

std::vector<uint32_t>
LiveClusterFabric::GetInstalledPath(uint32_t jobId, uint32_t flowId) const
{
    const FlowState& fs = GetFlowState(jobId, flowId, "GetInstalledPath");
    return fs.paths[fs.current];
}

uint16_t
LiveClusterFabric::GetInstalledPort(uint32_t jobId, uint32_t flowId) const
{
    return PortOfPathIndex(GetFlowState(jobId, flowId, "GetInstalledPort").current);
}

std::vector<uint32_t>
LiveClusterFabric::GetFlows(uint32_t jobId) const
{
    std::vector<uint32_t> ids;
    for (const auto& [id, fs] : GetJobState(jobId, "GetFlows").flows)
    {
        ids.push_back(id);
    }
    return ids;
}

} // namespace ns3
