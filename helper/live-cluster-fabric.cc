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
#include "ns3/dlt-job-helper.h"
#include "ns3/log.h"
#include "ns3/sched-job-builder.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iterator>
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
    if (m_topo.HasIntraHostLinks())
    {
        // messages between GPUs of one host become flows on GPU -> NVSwitch -> GPU
        m_transport->SetIntraHostPathResolver(
            MakeCallback(&LiveClusterFabric::ResolveIntraHost, this));
    }
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
        for (const auto& p : sf->candidatePaths)
        {
            fs.paths.push_back(NetworkPart(p)); // the table holds network paths (ports steer)
        }
        fs.ecmp = sf->defaultPath;
        for (const auto& p : fs.paths)
        {
            const std::string bad = CheckPath(fs.key, p);
            if (!bad.empty())
            {
                throw std::invalid_argument(
                    "LiveClusterFabric::StartJob: " + FlowName(jobIn.id, f.flowId) +
                    ": candidate path invalid: " + bad);
            }
        }
        st.job.udpSrcPorts[f.flowId] = PortOfPathIndex(fs.ecmp);
        st.flows[f.flowId] = fs;
    }

    const double now = Simulator::Now().GetSeconds();
    Ptr<DltJobApplication> app = DltJobHelper().Install(st.job, m_transport, m_node);
    app->TraceConnectWithoutContext("JobComplete",
                                    MakeCallback(&LiveClusterFabric::OnJobComplete, this));
    st.app = app;
    m_jobs[jobIn.id] = st;
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

void
LiveClusterFabric::ApplyDecision(const ClusterModel& model, const Decision& decision)
{
    NS_LOG_FUNCTION(this << decision.scheduler << decision.jobs.size());
    std::map<uint32_t, Ptr<DltJobApplication>> running;
    for (const auto& [jobId, jd] : decision.jobs)
    {
        auto it = m_jobs.find(jobId);
        if (it == m_jobs.end())
        {
            throw std::invalid_argument("LiveClusterFabric::ApplyDecision (" + decision.scheduler +
                                        "): job " + std::to_string(jobId) +
                                        " was never started on this fabric");
        }
        if (it->second.running)
        {
            running[jobId] = it->second.app;
        }
    }
    // The one decision installer; it checks the whole decision before changing anything.
    const auto installed = CruxHelper().Install(model, decision, running, *this);
    const Time now = Simulator::Now();
    for (const auto& [jobId, in] : installed)
    {
        NS_LOG_INFO("t=" << now.GetSeconds() << " s: job " << jobId << " level " << in.level
                         << " (DSCP " << unsigned(in.dscp) << "), " << in.pathsChanged << " of "
                         << in.paths.size() << " flows rerouted");
        m_decisionAppliedTrace(now, jobId, in.level, in.pathsChanged);
    }
}

std::vector<uint32_t>
LiveClusterFabric::PathOf(const RdmaQpKey& key, uint16_t port) const
{
    if (port == 0)
    {
        const FlowState& fs = GetFlowState(key.jobId, key.flowId, "PathOf");
        return fs.paths[fs.ecmp];
    }
    return TablePath(key, port);
}

std::vector<uint32_t>
LiveClusterFabric::NetworkPart(const std::vector<uint32_t>& path) const
{
    if (!m_topo.HasIntraHostLinks())
    {
        return path;
    }
    const uint32_t n = m_topo.NumNetworkLinks();
    std::vector<uint32_t> out;
    std::copy_if(path.begin(), path.end(), std::back_inserter(out), [n](uint32_t l) {
        return l < n;
    });
    return out;
}

std::optional<uint16_t>
LiveClusterFabric::PortFor(const RdmaQpKey& key, const std::vector<uint32_t>& path) const
{
    const FlowState& fs = GetFlowState(key.jobId, key.flowId, "PortFor");
    auto it = std::find(fs.paths.begin(), fs.paths.end(), path);
    if (it == fs.paths.end() || it - fs.paths.begin() >= 65536 - PATH_PORT_BASE)
    {
        return std::nullopt;
    }
    return PortOfPathIndex(static_cast<uint32_t>(it - fs.paths.begin()));
}

std::string
LiveClusterFabric::CheckPath(const RdmaQpKey& key, const std::vector<uint32_t>& path) const
{
    return m_topo.CheckPath(path, key.src.host, key.src.localGpu, key.dst.host, key.dst.localGpu);
}

std::vector<uint32_t>
LiveClusterFabric::Resolve(const RdmaQpKey& key, uint16_t port) const
{
    // the table's network path extended by the GPUs' PCIe links (as is without them)
    return m_topo.GpuPath(key.src.host,
                          key.src.localGpu,
                          key.dst.host,
                          key.dst.localGpu,
                          TablePath(key, port));
}

const std::vector<uint32_t>&
LiveClusterFabric::TablePath(const RdmaQpKey& key, uint16_t port) const
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
    if (port < PATH_PORT_BASE || static_cast<std::size_t>(port - PATH_PORT_BASE) >= fs.paths.size())
    {
        NS_FATAL_ERROR("LiveClusterFabric: " << FlowName(key.jobId, key.flowId) << " uses UDP port "
                                             << port << ", which encodes no path of its table ("
                                             << fs.paths.size() << " paths from port "
                                             << PATH_PORT_BASE << ")");
    }
    return fs.paths[port - PATH_PORT_BASE];
}

std::vector<uint32_t>
LiveClusterFabric::ResolveIntraHost(const RdmaQpKey& key, uint16_t /* port */) const
{
    // the one path resolver of the description (as FlowTransportHelper's): NVLink inside a host
    return m_topo.GpuPath(key.src.host, key.src.localGpu, key.dst.host, key.dst.localGpu, {});
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
    return CruxHelper::LevelOfDscp(GetInstalledDscp(jobId));
}

uint8_t
LiveClusterFabric::GetInstalledDscp(uint32_t jobId) const
{
    return GetJobState(jobId, "GetInstalledDscp").app->GetJob().dscp;
}

std::vector<uint32_t>
LiveClusterFabric::GetInstalledPath(uint32_t jobId, uint32_t flowId) const
{
    const FlowState& fs = GetFlowState(jobId, flowId, "GetInstalledPath");
    return Resolve(fs.key, GetInstalledPort(jobId, flowId));
}

uint16_t
LiveClusterFabric::GetInstalledPort(uint32_t jobId, uint32_t flowId) const
{
    GetFlowState(jobId, flowId, "GetInstalledPort");
    return GetJobState(jobId, "GetInstalledPort").app->GetJob().UdpSrcPortOf(flowId);
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

namespace
{

/// IterationComplete sink of FlowStandaloneIteration(): records the end and stops the
/// simulation once \p ends holds \p wanted entries.
struct IterationEnds
{
    std::vector<double> ends; //!< iteration ends, s
    std::size_t wanted{0};    //!< entries that end the measurement
};

/// \copydoc IterationEnds
void
RecordIterationEnd(IterationEnds* r, uint32_t, uint32_t, Time, Time end, double)
{
    r->ends.push_back(end.GetSeconds());
    if (r->ends.size() >= r->wanted)
    {
        Simulator::Stop();
    }
}

} // namespace

double
FlowStandaloneIteration(const ClusterTopology& topo,
                        const DltJob& job,
                        uint64_t ecmpSeed,
                        uint32_t iterations,
                        double limit)
{
    if (iterations == 0 || !(limit > 0))
    {
        throw std::invalid_argument("FlowStandaloneIteration: iterations must be >= 1 and the "
                                    "limit > 0");
    }
    Ptr<LiveClusterFabric> fabric = CreateObject<LiveClusterFabric>();
    fabric->SetAttribute("EcmpSeed", UintegerValue(ecmpSeed));
    fabric->Setup(topo);
    DltJob j = job;
    j.iterations = 0; // until stopped
    fabric->StartJob(j, Callback<void, uint32_t>());
    IterationEnds r;
    r.wanted = iterations + 1;
    fabric->GetApplication(j.id)->TraceConnectWithoutContext(
        "IterationComplete",
        MakeBoundCallback(&RecordIterationEnd, &r));
    Simulator::Stop(Seconds(limit));
    Simulator::Run();
    fabric->Dispose();
    Simulator::Destroy();
    if (r.ends.size() < r.wanted)
    {
        throw std::runtime_error("FlowStandaloneIteration: job " + std::to_string(job.id) +
                                 " completed " + std::to_string(r.ends.size()) + " iterations in " +
                                 std::to_string(limit) + " s");
    }
    return (r.ends[iterations] - r.ends[0]) / iterations;
}

} // namespace ns3
