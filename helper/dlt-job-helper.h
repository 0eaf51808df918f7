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

#ifndef CRUX_DLT_JOB_HELPER_H
#define CRUX_DLT_JOB_HELPER_H

#include "ns3/attribute.h"
#include "ns3/cluster-topology.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job.h"
#include "ns3/message-transport.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Installs DLT jobs as DltJobApplications (ns-3's ApplicationHelper style): one
 * application per job, bound to a MessageTransport (packet or flow fabric) and added to a node.
 *
 * The application starts at the job's DltJob::startTime, counted from the moment the helper
 * installs it (ns-3 application start times are relative to Simulator::Now() at
 * Node::AddApplication): installing at time t0 a job with startTime s >= t0 starts it at s,
 * and one with s < t0 starts it at once.
 */
class DltJobHelper
{
  public:
    DltJobHelper();

    /**
     * \brief Set an attribute of every DltJobApplication installed afterwards (e.g.
     * "Iterations", "NumBuckets"; see DltJobApplication::GetTypeId()).
     * \param name attribute name \param value value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Install one job.
     * \param job the job (DltJob::Validate() must accept it)
     * \param transport the fabric the job's messages go to (non-null)
     * \param node the node holding the application (e.g. the host of the job's first GPU)
     * \return the application (already added to \p node)
     */
    Ptr<DltJobApplication> Install(const DltJob& job,
                                   Ptr<MessageTransport> transport,
                                   Ptr<Node> node) const;

  private:
    ObjectFactory m_factory; //!< creates the applications
};

/**
 * \ingroup crux
 * \brief The hardware NCCL's topology detection would see on a simulated cluster
 * (CollectiveHardware): its GPUs and NICs per host (GPU → NIC as ClusterTopology::NicOfGpu()),
 * the rate of one NIC (the sum of its ports' links), each GPU's NVLink rate and the PCIe rate
 * GPU → NIC when the cluster has intra-host links (AddIntraHostLinks()); without them the
 * transports' default NVLink rate (300 GB/s, FlowTransport/RdmaTransport IntraHostRate) and no
 * PCIe limit (none is simulated). Architecture: Ampere (crux's hosts are A100).
 * \param cluster the cluster description (hosts with NICs)
 * \return the hardware
 */
CollectiveHardware CollectiveHardwareOf(const ClusterTopology& cluster);

/**
 * \brief A job's collective configuration: the cluster's hardware (CollectiveHardwareOf())
 * with the channels and protocol of the scenario's "collectives" object.
 * \param cluster the cluster \param request the job's request (channels, protocol)
 * \return the configuration
 * \throws std::invalid_argument for an unknown protocol name
 */
CollectiveConfig CollectiveConfigOf(const ClusterTopology& cluster,
                                    const ParallelismRequest& request);

/**
 * \brief The trace runs' job (crux-trace-run's job builder, both engines): the zoo model
 * (DltJob::FromModel) on \p gpus; with intra-host links a single-host job all-reduces over
 * NVLink; an LLM (ModelMapper::IsLlm) gets the trace plan (ModelMapper::TracePlanRequest(): its
 * real size, the default TP/PP/DP plan, the classic ring all-reduce) and the cluster's
 * collectives (CollectiveConfigOf()).
 * \param cluster the cluster \param id job id \param model zoo model name
 * \param gpus the job's GPUs, rank order
 * \return the job (iterations as FromModel sets them)
 * \throws what DltJob::FromModel() and DltJob::ApplyPlan() throw (unknown model, a plan that
 *         does not fit the GPUs)
 */
DltJob MakeTraceRunJob(const ClusterTopology& cluster,
                       uint32_t id,
                       const std::string& model,
                       const std::vector<GpuId>& gpus);

} // namespace ns3

#endif // CRUX_DLT_JOB_HELPER_H
