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

#include "crux-helper.h"

#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/switch-mmu.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxHelper");

namespace
{

/// "job <j> flow <f>"
std::string
FlowName(uint32_t jobId, uint32_t flowId)
{
    return "job " + std::to_string(jobId) + " flow " + std::to_string(flowId);
}

} // namespace

// ------------------------------------------------------------------------------ PathSteering

void
PathSteering::Pin(const RdmaQpKey& key, uint16_t /* port */, const std::vector<uint32_t>&)
{
    throw std::logic_error("PathSteering: this fabric cannot pin routes (" +
                           FlowName(key.jobId, key.flowId) + ")");
}

CruxTopologySteering::CruxTopologySteering(Ptr<CruxTopology> topo)
    : m_topo(topo)
{
    if (!m_topo)
    {
        throw std::invalid_argument("CruxTopologySteering: topology is null");
    }
}

FiveTuple
CruxTopologySteering::TupleOf(const RdmaQpKey& key, uint16_t port) const
{
    FiveTuple t;
    t.srcIp = m_topo->GetNicAddress(key.src.host, m_topo->GpuToNic(key.src.host, key.src.localGpu));
    t.dstIp = m_topo->GetNicAddress(key.dst.host, m_topo->GpuToNic(key.dst.host, key.dst.localGpu));
    t.protocol = 17;
    t.srcPort = port != 0 ? port : RdmaTransport::DefaultSourcePort(key);
    t.dstPort = CruxTopology::ROCEV2_PORT;
    return t;
}

std::vector<uint32_t>
CruxTopologySteering::PathOf(const RdmaQpKey& key, uint16_t port) const
{
    return m_topo->PredictPath(TupleOf(key, port));
}

std::optional<uint16_t>
CruxTopologySteering::PortFor(const RdmaQpKey& key, const std::vector<uint32_t>& path) const
{
    const FiveTuple t = TupleOf(key, 0);
    return m_topo->TryFindUdpSourcePort(t.srcIp, t.dstIp, path, t.srcPort);
}

std::string
CruxTopologySteering::CheckPath(const RdmaQpKey& key, const std::vector<uint32_t>& path) const
{
    return m_topo->GetDescription().CheckPath(path,
                                              key.src.host,
                                              key.src.localGpu,
                                              key.dst.host,
                                              key.dst.localGpu);
}

bool
CruxTopologySteering::CanPin() const
{
    return true;
}

std::vector<uint32_t>
CruxTopologySteering::NetworkPart(const std::vector<uint32_t>& path) const
{
    const uint32_t n = m_topo->GetDescription().NumNetworkLinks();
    std::vector<uint32_t> out;
    std::copy_if(path.begin(), path.end(), std::back_inserter(out), [n](uint32_t l) {
        return l < n;
    });
    return out;
}

void
CruxTopologySteering::Pin(const RdmaQpKey& key, uint16_t port, const std::vector<uint32_t>& path)
{
    m_topo->InstallPinnedRoute(TupleOf(key, port), path);
}

// ------------------------------------------------------------------------------ CruxHelper

CruxHelper::CruxHelper()
{
}

uint8_t
CruxHelper::DscpOfLevel(uint32_t level)
{
    if (level >= NUM_TRAFFIC_CLASSES)
    {
        throw std::invalid_argument("priority level " + std::to_string(level) + " > " +
                                    std::to_string(NUM_TRAFFIC_CLASSES - 1) +
                                    " (DSCP 8 x level must be <= 63)");
    }
    return crux::DscpOfTrafficClass(static_cast<uint8_t>(level));
}

uint32_t
CruxHelper::LevelOfDscp(uint8_t dscp)
{
    return crux::TrafficClassOfDscp(dscp);
}

void
CruxHelper::SetPathEnforcement(const std::string& mode)
{
    if (mode != "source-port" && mode != "pinned")
    {
        throw std::invalid_argument("CruxHelper: path enforcement must be \"source-port\" or "
                                    "\"pinned\" (got \"" +
                                    mode + "\")");
    }
    m_pinned = mode == "pinned";
}

std::string
CruxHelper::GetPathEnforcement() const
{
    return m_pinned ? "pinned" : "source-port";
}

void
CruxHelper::InstallTrafficClasses(Ptr<CruxTopology> topo, uint8_t losslessMask)
{
    std::string map;
    for (uint32_t tc = 0; tc < NUM_TRAFFIC_CLASSES; ++tc)
    {
        map += (tc ? "," : "") + std::to_string(8 * tc) + "-" + std::to_string(8 * tc + 7) + ":" +
               std::to_string(tc);
    }
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        topo->GetLink(l).txDev->SetAttribute("DscpToTc", StringValue(map));
    }
    for (uint32_t s = 0; s < topo->GetNSwitches(); ++s)
    {
        topo->GetSwitch(s).sw->GetMmu()->SetAttribute("LosslessTcMask",
                                                      UintegerValue(losslessMask));
    }
}

CruxHelper::JobPlan
CruxHelper::Plan(const ClusterModel& model,
                 const Decision& decision,
                 const DltJob& job,
                 const PathSteering& steering) const
{
    const std::string where = "CruxHelper (" + decision.scheduler + "): ";
    auto jd = decision.jobs.find(job.id);
    if (jd == decision.jobs.end())
    {
        throw std::invalid_argument(where + "the decision has no job " + std::to_string(job.id));
    }
    auto mj = std::find_if(model.jobs.begin(), model.jobs.end(), [&job](const SchedJob& s) {
        return s.id == job.id;
    });
    if (mj == model.jobs.end())
    {
        throw std::invalid_argument(where + "job " + std::to_string(job.id) +
                                    " is not in the model");
    }
    if (jd->second.level >= NUM_TRAFFIC_CLASSES)
    {
        throw std::invalid_argument(where + "job " + std::to_string(job.id) + ": level " +
                                    std::to_string(jd->second.level) + " > 7 (DSCP 8 x level " +
                                    "must be <= 63)");
    }
    std::vector<DltCommFlow> pattern = job.CommunicationPattern();
    if (std::any_of(mj->flows.begin(), mj->flows.end(), [&pattern](const SchedFlow& f) {
            return std::none_of(pattern.begin(), pattern.end(), [&f](const DltCommFlow& p) {
                return p.flowId == f.id;
            });
        }))
    {
        // the model has intra-host flows (AddIntraHostFlows): they take no network path
        const std::vector<DltCommFlow> intra = job.IntraHostPattern();
        pattern.insert(pattern.end(), intra.begin(), intra.end());
    }
    for (const auto& [flowId, index] : jd->second.flowPath)
    {
        if (std::none_of(pattern.begin(), pattern.end(), [flowId = flowId](const DltCommFlow& f) {
                return f.flowId == flowId;
            }))
        {
            throw std::invalid_argument(where + "the decision names " + FlowName(job.id, flowId) +
                                        ", which the job does not have (it has " +
                                        std::to_string(pattern.size()) + " flows)");
        }
    }
    JobPlan plan;
    plan.jobId = job.id;
    plan.level = jd->second.level;
    plan.timeShift = jd->second.timeShift;
    for (const DltCommFlow& f : pattern)
    {
        if (f.src.host == f.dst.host)
        {
            continue; // intra-host (NVLink): no network path
        }
        const std::string name = FlowName(job.id, f.flowId);
        auto mf = std::find_if(mj->flows.begin(), mj->flows.end(), [&f](const SchedFlow& s) {
            return s.id == f.flowId;
        });
        if (mf == mj->flows.end())
        {
            throw std::invalid_argument(where + "the cluster model has no " + name);
        }
        auto dp = jd->second.flowPath.find(f.flowId);
        if (dp == jd->second.flowPath.end())
        {
            throw std::invalid_argument(where + "the decision has no path for " + name);
        }
        if (dp->second >= mf->candidatePaths.size())
        {
            throw std::invalid_argument(where + name + ": path index " +
                                        std::to_string(dp->second) + " but the model has " +
                                        std::to_string(mf->candidatePaths.size()) +
                                        " candidate paths");
        }
        FlowPlan fp;
        fp.key.jobId = job.id;
        fp.key.flowId = f.flowId;
        fp.key.src = f.src;
        fp.key.dst = f.dst;
        fp.oldPort = job.UdpSrcPortOf(f.flowId);
        fp.newPort = fp.oldPort;
        fp.want = steering.NetworkPart(mf->candidatePaths[dp->second]);
        const std::string bad = steering.CheckPath(fp.key, fp.want);
        if (!bad.empty())
        {
            throw std::invalid_argument(where + name + ": candidatePaths[" +
                                        std::to_string(dp->second) + "]: " + bad);
        }
        fp.before = steering.PathOf(fp.key, fp.oldPort);
        fp.ecmp = fp.oldPort == 0 ? fp.before : steering.PathOf(fp.key, 0);
        if (fp.want != fp.before)
        {
            if (m_pinned)
            {
                if (!steering.CanPin())
                {
                    throw std::invalid_argument(where + "this fabric cannot pin routes; use " +
                                                "\"source-port\" path enforcement");
                }
                fp.pin = true;
            }
            else
            {
                std::optional<uint16_t> port = steering.PortFor(fp.key, fp.want);
                if (!port)
                {
                    std::string path;
                    for (uint32_t l : fp.want)
                    {
                        path += (path.empty() ? "l" : " l") + std::to_string(l);
                    }
                    throw std::invalid_argument("no UDP source port steers " + name +
                                                " onto path " + path +
                                                "; use \"pathEnforcement\": \"pinned\"");
                }
                fp.newPort = *port;
            }
        }
        plan.flows[f.flowId] = fp;
    }
    return plan;
}

CruxJobInstall
CruxHelper::Finish(const JobPlan& plan, PathSteering& steering) const
{
    CruxJobInstall r;
    r.level = plan.level;
    r.dscp = DscpOfLevel(plan.level);
    for (const auto& [flowId, fp] : plan.flows)
    {
        if (fp.pin)
        {
            steering.Pin(fp.key, fp.newPort, fp.want);
        }
        const std::vector<uint32_t> got = steering.PathOf(fp.key, fp.newPort);
        if (got != fp.want)
        {
            throw std::logic_error("CruxHelper: internal error: " + FlowName(fp.key.jobId, flowId) +
                                   " does not take the decision's path after the install");
        }
        r.rerouted += got != fp.ecmp ? 1 : 0;
        r.pathsChanged += got != fp.before ? 1 : 0;
        r.paths[flowId] = got;
    }
    return r;
}

std::map<uint32_t, CruxJobInstall>
CruxHelper::Install(const ClusterModel& model,
                    const Decision& decision,
                    std::vector<DltJob>& jobs,
                    PathSteering& steering) const
{
    NS_LOG_FUNCTION(this << decision.scheduler << jobs.size());
    std::vector<JobPlan> plans;
    for (const DltJob& job : jobs)
    {
        plans.push_back(Plan(model, decision, job, steering));
    }
    // everything checked: install
    std::map<uint32_t, CruxJobInstall> out;
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        DltJob& job = jobs[i];
        const JobPlan& plan = plans[i];
        job.dscp = DscpOfLevel(plan.level);
        // CASSINI-style decisions shift the job's iterations in time: applied once, by
        // delaying the job's start (the variant documented in cassini-scheduler.h).
        job.startTime += std::max(0.0, plan.timeShift);
        for (const auto& [flowId, fp] : plan.flows)
        {
            if (fp.newPort != fp.oldPort)
            {
                job.udpSrcPorts[flowId] = fp.newPort;
            }
        }
        out[job.id] = Finish(plan, steering);
    }
    return out;
}

std::map<uint32_t, CruxJobInstall>
CruxHelper::Install(const ClusterModel& model,
                    const Decision& decision,
                    const std::map<uint32_t, Ptr<DltJobApplication>>& apps,
                    PathSteering& steering) const
{
    NS_LOG_FUNCTION(this << decision.scheduler << apps.size());
    std::vector<std::pair<Ptr<DltJobApplication>, JobPlan>> plans;
    for (const auto& [jobId, jd] : decision.jobs)
    {
        auto it = apps.find(jobId);
        if (it == apps.end() || !it->second || it->second->IsComplete())
        {
            NS_LOG_LOGIC("job " << jobId << " is not running: decision skipped");
            continue;
        }
        plans.emplace_back(it->second, Plan(model, decision, it->second->GetJob(), steering));
    }
    // everything checked: install
    std::map<uint32_t, CruxJobInstall> out;
    for (const auto& [app, plan] : plans)
    {
        app->SetDscp(DscpOfLevel(plan.level));
        for (const auto& [flowId, fp] : plan.flows)
        {
            if (fp.newPort != fp.oldPort)
            {
                app->SetFlowSourcePort(flowId, fp.newPort);
            }
        }
        out[plan.jobId] = Finish(plan, steering);
    }
    return out;
}

} // namespace ns3
