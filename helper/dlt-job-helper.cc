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

#include "dlt-job-helper.h"

#include "ns3/log.h"
#include "ns3/model-mapping.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxDltJobHelper");

DltJobHelper::DltJobHelper()
{
    m_factory.SetTypeId(DltJobApplication::GetTypeId());
}

void
DltJobHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

Ptr<DltJobApplication>
DltJobHelper::Install(const DltJob& job, Ptr<MessageTransport> transport, Ptr<Node> node) const
{
    NS_LOG_FUNCTION(this << job.id);
    if (!transport || !node)
    {
        NS_FATAL_ERROR("DltJobHelper::Install: job " << job.id << ": null transport or node");
    }
    Ptr<DltJobApplication> app = m_factory.Create<DltJobApplication>();
    app->SetJob(job);
    app->SetTransport(transport);
    // Application start times count from now
    app->SetStartTime(Seconds(std::max(0.0, job.startTime - Simulator::Now().GetSeconds())));
    node->AddApplication(app);
    return app;
}

CollectiveHardware
CollectiveHardwareOf(const ClusterTopology& cluster)
{
    CollectiveHardware hw;
    hw.gpusPerHost = cluster.gpusPerHost;
    hw.nicsPerHost = cluster.nicsPerHost;
    if (!cluster.nicUp.empty() && !cluster.nicUp[0].empty())
    {
        double bps = 0;
        for (uint32_t l : cluster.nicUp[0][0])
        {
            bps += cluster.links[l].bandwidth;
        }
        hw.nicBps = bps;
    }
    if (cluster.HasIntraHostLinks())
    {
        hw.intraBps = cluster.intraHost.nvlinkBps;
        hw.pcieBps = cluster.intraHost.pcieBps;
    }
    else
    {
        hw.intraBps = 2400e9;       // the transports' IntraHostRate default
        hw.pcieBps = hw.nicBps * 2; // no PCIe link is simulated: no limit below the NIC
    }
    hw.nvlink = true;
    hw.arch = NcclArch::AMPERE;
    return hw;
}

CollectiveConfig
CollectiveConfigOf(const ClusterTopology& cluster, const ParallelismRequest& request)
{
    CollectiveConfig c;
    c.hardware = CollectiveHardwareOf(cluster);
    c.channels = request.channels;
    if (!ParseNcclProtocol(request.protocol, c.protocol))
    {
        throw std::invalid_argument("collectives.protocol: unknown protocol '" + request.protocol +
                                    "'");
    }
    return c;
}

DltJob
MakeTraceRunJob(const ClusterTopology& cluster,
                uint32_t id,
                const std::string& model,
                const std::vector<GpuId>& gpus)
{
    DltJob j = DltJob::FromModel(id, model, gpus);
    // with intra-host links a single-host job all-reduces over NVLink (finite t_j), as in
    // crux-experiment's topology.intraHost
    j.intraHostAllReduce = cluster.HasIntraHostLinks();
    if (ModelMapper::IsLlm(model))
    {
        j.ApplyPlan(ModelMapper::TracePlanRequest());
        j.collectives = CollectiveConfigOf(cluster, ModelMapper::TracePlanRequest());
    }
    return j;
}

} // namespace ns3
