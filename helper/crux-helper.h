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

#ifndef CRUX_CRUX_HELPER_H
#define CRUX_CRUX_HELPER_H

#include "ns3/cluster-model.h"
#include "ns3/crux-topology.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job.h"
#include "ns3/ptr.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-constants.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief The path services of a fabric that CruxHelper enforces a decision's paths with.
 *
 * A flow is a connection (RdmaQpKey: job, flow, source GPU, destination GPU); what path it
 * takes depends on its RoCEv2 UDP source port (ECMP entropy) and, where the fabric supports
 * them, on pinned routes. Implemented by CruxTopologySteering (the switches' own ECMP hash of
 * the packet fabric, which the flow fabric of scenario runs predicts too) and by
 * LiveClusterFabric (the trace runs' flow engine: the port selects the path index).
 */
class PathSteering
{
  public:
    virtual ~PathSteering() = default;

    /**
     * \param key the connection
     * \param port its UDP source port; 0 = the connection's default port
     * \return the directed link ids the flow takes with that port (pinned routes included)
     */
    virtual std::vector<uint32_t> PathOf(const RdmaQpKey& key, uint16_t port) const = 0;

    /**
     * \param key the connection
     * \param path the wanted path (a candidate of the flow's SchedFlow)
     * \return a UDP source port that puts the flow on \p path (ECMP steering, Crux §5), or
     *         std::nullopt if no port does
     */
    virtual std::optional<uint16_t> PortFor(const RdmaQpKey& key,
                                            const std::vector<uint32_t>& path) const = 0;

    /**
     * \param key the connection \param path a path
     * \return "" if \p path is a route of the fabric for the connection, else why not (see
     *         ClusterTopology::CheckPath)
     */
    virtual std::string CheckPath(const RdmaQpKey& key,
                                  const std::vector<uint32_t>& path) const = 0;

    /// \return true if Pin() is supported (exact per-flow routes on the switches)
    virtual bool CanPin() const
    {
        return false;
    }

    /**
     * \brief The network part of a scheduler path (candidate paths of a ClusterModel include
     * the intra-host links of a ClusterTopology with AddIntraHostLinks(); ports steer only the
     * network part).
     * \param path link ids \return the ids of \p path that are network links (default: all)
     */
    virtual std::vector<uint32_t> NetworkPart(const std::vector<uint32_t>& path) const
    {
        return path;
    }

    /**
     * \brief Pin \p path for the connection (its packets follow it whatever the hash says).
     * \param key the connection \param port its UDP source port (0 = default)
     * \param path the path
     * Throws std::logic_error if CanPin() is false.
     */
    virtual void Pin(const RdmaQpKey& key, uint16_t port, const std::vector<uint32_t>& path);
};

/**
 * \ingroup crux
 * \brief PathSteering of the packet fabric (and of the flow fabric of scenario runs, which
 * predicts the same switches): paths follow the CruxSwitches' ECMP hash of the 5-tuple
 * (CruxTopology::PredictPath), ports are found by CruxTopology::TryFindUdpSourcePort starting
 * at the connection's default port (RdmaTransport::DefaultSourcePort), pinned routes are
 * CruxTopology::InstallPinnedRoute.
 */
class CruxTopologySteering : public PathSteering
{
  public:
    /// \param topo the built fabric (non-null)
    explicit CruxTopologySteering(Ptr<CruxTopology> topo);

    /**
     * \param key a connection between GPUs of different hosts
     * \param port UDP source port; 0 = RdmaTransport::DefaultSourcePort(key)
     * \return its data packets' 5-tuple (NIC addresses, UDP, port, RoCEv2 destination port)
     */
    FiveTuple TupleOf(const RdmaQpKey& key, uint16_t port) const;

    std::vector<uint32_t> PathOf(const RdmaQpKey& key, uint16_t port) const override;
    std::optional<uint16_t> PortFor(const RdmaQpKey& key,
                                    const std::vector<uint32_t>& path) const override;
    std::string CheckPath(const RdmaQpKey& key, const std::vector<uint32_t>& path) const override;
    bool CanPin() const override;
    /// \return \p path without the description's intra-host links \param path link ids
    std::vector<uint32_t> NetworkPart(const std::vector<uint32_t>& path) const override;
    void Pin(const RdmaQpKey& key, uint16_t port, const std::vector<uint32_t>& path) override;

  private:
    Ptr<CruxTopology> m_topo; //!< the fabric
};

/**
 * \ingroup crux
 * \brief What CruxHelper::Install changed for one job.
 */
struct CruxJobInstall
{
    uint32_t level{0};        //!< installed priority level (K-1 highest)
    uint8_t dscp{0};          //!< installed DSCP (CruxHelper::DscpOfLevel(level))
    uint32_t rerouted{0};     //!< flows now off their ECMP default path (the port-0 path)
    uint32_t pathsChanged{0}; //!< flows whose path differs from the one before this install
    /// flow id -> the path the flow takes after the install (directed link ids; empty for
    /// intra-host flows)
    std::map<uint32_t, std::vector<uint32_t>> paths;
};

/**
 * \ingroup crux
 * \brief Installs a communication scheduler's decision on a fabric: the one decision installer
 * of crux (Crux §5, "enforcement"), used by the scenario runs (both fabrics), the trace runs'
 * flow engine and the Python bindings.
 *
 * For every job of the decision: DSCP = DscpOfLevel(level) on all its messages (the devices'
 * default DSCP -> traffic class map sends DSCP 8L..8L+7 to TC L, InstallTrafficClasses()); for
 * every inter-host flow: the decision's candidate path, enforced by a UDP source port that the
 * ECMP hash maps onto it ("source-port", what Crux does in production) or by a pinned route
 * ("pinned", exact, for studies). Flows already on the wanted path keep their port. CASSINI-style
 * time shifts are applied before a run by delaying the job's start.
 *
 * The whole decision is checked before anything changes (jobs and flows known, level < K <= 8,
 * path index within the flow's candidates, a steering port exists): a bad decision throws
 * std::invalid_argument naming the job and flow, and the fabric is left as it was. After the
 * install, every flow's path as the fabric predicts it is compared with the wanted one
 * (std::logic_error on a mismatch: a steering bug, not bad input).
 *
 * Ten lines (doc/crux.rst, "Installing a decision"):
 * \code
 *   Ptr<CruxTopology> topo = CruxTopologyHelper().Install(BuildTwoLayerClos(cfg));
 *   ClusterModel model = ...;                 // MakeSchedJob() per DltJob, links of topo
 *   Decision d = CreateCommScheduler("crux")->Schedule(model, SchedulerConfig());
 *   CruxTopologySteering steering(topo);
 *   CruxHelper crux;                          // SetPathEnforcement("pinned") for exact routes
 *   auto report = crux.Install(model, d, jobs, steering);  // before the run: DltJob fields
 *   // ... create the DltJobApplications from jobs, run; later, on running applications:
 *   crux.Install(model, d2, apps, steering);
 * \endcode
 */
class CruxHelper
{
  public:
    CruxHelper();

    /// Traffic classes (priority queues) of every QbbNetDevice port (IEEE 802.1Q priorities).
    static constexpr uint32_t NUM_TRAFFIC_CLASSES = crux::NUM_TRAFFIC_CLASSES;

    /**
     * \param level priority level 0..7 (K-1 highest)
     * \return the DSCP of the level's messages: 8 × level (class selector CS<level>)
     * Throws std::invalid_argument if level > 7.
     */
    static uint8_t DscpOfLevel(uint32_t level);

    /**
     * \param dscp a DSCP 0..63
     * \return the priority level it carries (dscp / 8)
     */
    static uint32_t LevelOfDscp(uint8_t dscp);

    /**
     * \brief How paths are enforced.
     * \param mode "source-port" (default: ECMP steering by UDP source port) or "pinned" (exact
     *        routes on the switches; the steering must support it)
     * Throws std::invalid_argument for another value.
     */
    void SetPathEnforcement(const std::string& mode);

    /// \return "source-port" or "pinned"
    std::string GetPathEnforcement() const;

    /**
     * \brief Install the priority classes on a packet fabric: every device maps DSCP 8L..8L+7
     * to traffic class L (attribute QbbNetDevice::DscpToTc) and every switch treats the classes
     * of \p losslessMask as PFC-protected (SwitchMmu::LosslessTcMask).
     * \param topo the fabric \param losslessMask bit L = TC L lossless (default: all 8)
     */
    static void InstallTrafficClasses(Ptr<CruxTopology> topo, uint8_t losslessMask = 0xff);

    /**
     * \brief Install a decision before a run, on the jobs' descriptions: sets DltJob::dscp,
     * DltJob::udpSrcPorts (steered flows), delays startTime by a positive timeShift, and pins
     * routes (pinned mode) on the fabric.
     * \param model the cluster model the decision was made for (its candidate paths)
     * \param decision the decision (every job of \p jobs must be decided)
     * \param jobs the jobs, changed in place
     * \param steering the fabric's path services
     * \return per job id, what was installed
     */
    std::map<uint32_t, CruxJobInstall> Install(const ClusterModel& model,
                                               const Decision& decision,
                                               std::vector<DltJob>& jobs,
                                               PathSteering& steering) const;

    /**
     * \brief Install a decision during a run, on running applications (DltJobApplication::
     * SetDscp, SetFlowSourcePort: effective from each flow's next message). Jobs of the
     * decision that are not in \p apps or whose application has finished are skipped.
     * \param model the cluster model the decision was made for
     * \param decision the decision
     * \param apps job id -> its application
     * \param steering the fabric's path services
     * \return per installed job id, what was installed
     */
    std::map<uint32_t, CruxJobInstall> Install(
        const ClusterModel& model,
        const Decision& decision,
        const std::map<uint32_t, Ptr<DltJobApplication>>& apps,
        PathSteering& steering) const;

  private:
    /// One flow's planned change.
    struct FlowPlan
    {
        RdmaQpKey key;                //!< the connection
        uint16_t oldPort{0};          //!< port before the install (0 = default)
        uint16_t newPort{0};          //!< port after the install (0 = default)
        bool pin{false};              //!< pin want (pinned mode, want != current path)
        std::vector<uint32_t> before; //!< path before the install
        std::vector<uint32_t> want;   //!< the decision's path
        std::vector<uint32_t> ecmp;   //!< the default port's path (the ECMP default)
    };

    /// One job's planned change.
    struct JobPlan
    {
        uint32_t jobId{0};                  //!< job
        uint32_t level{0};                  //!< level
        double timeShift{0};                //!< start delay (before-run installs only)
        std::map<uint32_t, FlowPlan> flows; //!< flow id -> plan (inter-host flows)
    };

    /// Check the decision for one job and plan its flows; throws std::invalid_argument.
    JobPlan Plan(const ClusterModel& model,
                 const Decision& decision,
                 const DltJob& job,
                 const PathSteering& steering) const;

    /// Pin what the plan pins and check the resulting paths; \return the job's report
    CruxJobInstall Finish(const JobPlan& plan, PathSteering& steering) const;

    bool m_pinned{false}; //!< path enforcement "pinned"
};

} // namespace ns3

#endif // CRUX_CRUX_HELPER_H
