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

#ifndef CRUX_CRUX_TOPOLOGY_HELPER_H
#define CRUX_CRUX_TOPOLOGY_HELPER_H

#include "qbb-helper.h"

#include "ns3/attribute.h"
#include "ns3/cluster-topology.h"
#include "ns3/crux-topology.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Turns a cluster description (ClusterTopology) into the packet fabric: ns-3 Nodes for
 * hosts and switches (CruxSwitch + SwitchMmu aggregated), one QbbNetDevice pair per cable in
 * the description's link order (switch ports in cabling order), every switch's ECMP groups
 * from the description's shortest paths; returns the CruxTopology. A NIC with several ports
 * (the double-sided topology: two, one to each ToR of the host's pair) gets one QbbNetDevice
 * per port on its host node, all with the NIC's one address (CruxNicInfo::ports).
 *
 * Host NICs are bare QbbNetDevices on the host nodes (no Internet stack): the RDMA transport
 * attaches to them with QbbNetDevice::SetFrameHandler()/SetDequeueHandler() (see
 * SetHostFrameHandler()). Links are made with QbbHelper, so its device attributes apply.
 */
class CruxTopologyHelper
{
  public:
    CruxTopologyHelper();

    /**
     * \brief Set an attribute of every QbbNetDevice created afterwards (NICs and switch ports).
     * "DataRate" is overridden per link by the builder's configuration.
     * \param name attribute name \param value value
     */
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Set an attribute of every CruxSwitch created afterwards (e.g. "DecrementTtl";
     * "EcmpSeed" is overridden by SetEcmpSeedBase()).
     * \param name attribute name \param value value
     */
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Set an attribute of every switch's SwitchMmu created afterwards (e.g. "BufferSize",
     * "PfcEnabled", "Alpha").
     * \param name attribute name \param value value
     */
    void SetMmuAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Give switch s the ECMP hash seed base + s (attribute CruxSwitch::EcmpSeed) in the
     * fabrics built afterwards, so that another base gives other ECMP choices. Default 0.
     * \param base seed of switch 0
     */
    void SetEcmpSeedBase(uint32_t base);

    /**
     * \brief Split the fabrics built afterwards over \p nRanks MPI ranks (ns-3's distributed
     * simulator): every node gets the system id AssignRanks() gives it, and a cable whose two
     * nodes have different ranks gets a QbbRemoteChannel (which exists only when ns-3 has its mpi
     * module). 1 (the default) builds the usual single-process fabric.
     * \param nRanks number of ranks (> 0)
     */
    void SetRanks(uint32_t nRanks);

    /**
     * \brief The rank rule: ToR t (in the description's ToR order, so the ToRs of a pod are
     * consecutive) goes to rank floor(t × nRanks / T) with T ToRs, a host to the rank of its first
     * ToR (ClusterTopology::hostTor), the i-th aggregation switch of A to rank
     * floor(i × nRanks / A) and the i-th core switch of C to floor(i × nRanks / C). Contiguous
     * blocks of ToRs with their hosts per rank: a job whose hosts are under the ToRs of one block
     * runs on one rank; aggregation and core switches are spread evenly, so traffic between the
     * ToRs of one block may cross ranks on its way through an aggregation switch.
     * \param desc the cluster description
     * \param nRanks number of ranks
     * \return rank of every network node (node id = index; hosts first, as in \p desc)
     * \throws std::invalid_argument if \p nRanks is 0 or exceeds the number of ToRs (a rank
     *         without a ToR would simulate nothing)
     */
    static std::vector<uint32_t> AssignRanks(const ClusterTopology& desc, uint32_t nRanks);

    /**
     * \brief Build the packet fabric of a cluster description.
     * \param desc the description (one device per cable: a NIC with P ports gets P devices)
     * \return the finalized topology; its link ids, host, NIC and switch indices are the
     *         description's
     */
    Ptr<CruxTopology> Install(const ClusterTopology& desc);

    /**
     * \brief Build a two-layer Clos: Install(BuildTwoLayerClos(cfg)).
     * \param cfg parameters (NS_FATAL_ERROR naming the field if inconsistent)
     * \return the finalized topology
     */
    Ptr<CruxTopology> BuildClos(const ClosConfig& cfg);

    /**
     * \brief Build the Crux paper's testbed (§6.1): BuildClos(TestbedClosConfig()).
     * \return the finalized topology
     */
    Ptr<CruxTopology> BuildTestbed();

    /**
     * \brief A single switch with \p nHosts one-NIC hosts (e.g. for incast experiments).
     * \param nHosts hosts (> 0) \param rate line rate \param delay propagation delay
     * \param gpusPerHost GPUs per host
     * \return the finalized topology (one ToR, no aggs)
     */
    Ptr<CruxTopology> BuildStar(uint32_t nHosts,
                                DataRate rate,
                                Time delay,
                                uint32_t gpusPerHost = 8);

    /**
     * \brief Deliver every non-PAUSE frame received by a host NIC to \p handler.
     * \param topo topology \param host host index \param nic NIC index
     * \param handler the frame handler (see QbbNetDevice::FrameHandler)
     */
    static void SetHostFrameHandler(Ptr<CruxTopology> topo,
                                    uint32_t host,
                                    uint32_t nic,
                                    QbbNetDevice::FrameHandler handler);

    /**
     * \brief Make ns-3's binary-heap event scheduler (ns3::PriorityQueueScheduler) the one of
     * the simulations started afterwards, unless the global value "SchedulerType" already names
     * another than ns-3's default ns3::MapScheduler (set with NS_GLOBAL_VALUE or an earlier
     * GlobalValue::Bind).
     *
     * The choice changes the simulation's speed only: every ns-3 scheduler executes the events
     * in the same order (time stamp, then insertion order), so the results are identical. On the
     * packet fabric, whose queue holds about one event per frame in flight, the heap took
     * 9-27 % less CPU time than the red-black tree of ns3::MapScheduler on the three patterns
     * of bench/run-fabric-bench.sh (doc/performance.rst, "Packet fabric"). crux-experiment and
     * the fabric benchmark call it before parsing their command line, so --SchedulerType=...
     * still overrides it. The smaller examples (crux-minimal, user-scheduler) keep ns-3's default.
     */
    static void PreferFastScheduler();

  private:
    QbbHelper m_qbb;               //!< link builder
    ObjectFactory m_switchFactory; //!< creates CruxSwitch objects
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_mmuAttributes; //!< MMU settings
    uint32_t m_ecmpSeedBase{0}; //!< switch s gets EcmpSeed m_ecmpSeedBase + s
    uint32_t m_ranks{1};        //!< MPI ranks the fabric is split over (SetRanks)
};

} // namespace ns3

#endif // CRUX_CRUX_TOPOLOGY_HELPER_H
