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
 * \brief Parameters of a two-layer Clos (leaf-spine) fabric built by
 * CruxTopologyHelper::BuildClos().
 *
 * Hosts are arranged in groups of `nicsPerHost` ToRs ("rails"): group g owns ToRs
 * g·N … g·N+N−1 and `hostsPerTor` hosts; NIC n of every host of group g is cabled to ToR g·N+n.
 * With nicsPerHost = 1 this is the ordinary one-ToR-per-host Clos (host h under ToR
 * h / hostsPerTor); with nicsPerHost = numTors every host has one NIC on every ToR (the Crux
 * testbed). Hence numTors must be a multiple of nicsPerHost, and the fabric has
 * (numTors / nicsPerHost) × hostsPerTor hosts. Every ToR is cabled to every aggregation switch
 * with `linksPerTorAgg` parallel cables. numAggs = 0 is allowed only with one ToR (a star).
 *
 * Switch indices: ToRs 0 … numTors−1, then aggregation switches. Node creation order: hosts,
 * ToRs, aggs. Port order on a ToR: host NICs (by host, then NIC), then uplinks (by agg, then
 * parallel cable).
 */
struct CruxClosConfig
{
    uint32_t numTors{2};                          //!< ToR (leaf) switches, > 0
    uint32_t hostsPerTor{4};                      //!< hosts per ToR group, > 0
    uint32_t numAggs{2};                          //!< aggregation (spine) switches
    uint32_t linksPerTorAgg{1};                   //!< parallel cables per ToR–agg pair, > 0
    uint32_t nicsPerHost{1};                      //!< NICs per host (divides numTors)
    uint32_t gpusPerHost{8};                      //!< GPUs per host, > 0
    DataRate hostLinkRate{DataRate("100Gb/s")};   //!< NIC ↔ ToR line rate
    Time hostLinkDelay{MicroSeconds(1)};          //!< NIC ↔ ToR propagation delay
    DataRate fabricLinkRate{DataRate("100Gb/s")}; //!< ToR ↔ agg line rate
    Time fabricLinkDelay{MicroSeconds(1)};        //!< ToR ↔ agg propagation delay
    /// false: NIC n of every host on ToR n of its group (rail-aligned); true: NIC n of host h on
    /// ToR (n + h) mod nicsPerHost of its group, so same-index GPUs of different hosts sit on
    /// different ToRs and ring traffic crosses the aggregation layer.
    bool rotateNics{false};
    bool assignEcmpSeeds{true}; //!< set each switch's EcmpSeed to ecmpSeedBase + switch index
    uint32_t ecmpSeedBase{0};   //!< base of the per-switch ECMP seeds
};

/**
 * \ingroup crux
 * \brief Builds hosts, switches (CruxSwitch + SwitchMmu aggregated to plain Nodes) and
 * QbbNetDevice links, fills every switch's destination table (BFS, all shortest paths) and
 * returns the CruxTopology description.
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
     * "EcmpSeed" is overridden when CruxClosConfig::assignEcmpSeeds is set).
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
     * \brief Build a two-layer Clos.
     * \param cfg parameters (NS_FATAL_ERROR naming the field if inconsistent)
     * \return the finalized topology
     */
    Ptr<CruxTopology> BuildClos(const CruxClosConfig& cfg);

    /**
     * \brief Build the Crux paper's testbed (§6.1): BuildClos(TestbedConfig()).
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
     * \brief The Crux testbed (SIGCOMM'24 §6.1): 12 hosts × 8 GPUs, 4 × 200 Gbit/s NICs per host
     * (one NIC per GPU pair), NIC n of every host on ToR n (4 ToRs), two-layer Clos.
     *
     * The paper does not give the aggregation layer; we use 2 aggregation switches (the count of
     * the paper's §4.4 microbenchmark topologies), one 200 Gbit/s cable per ToR–agg pair, 1 µs
     * propagation delay everywhere. Traffic between NICs of equal index stays under one ToR;
     * cross-rail traffic has 2 equal-cost paths.
     * \return the configuration
     */
    static CruxClosConfig TestbedConfig();

    /**
     * \brief The §2.2 production measurement shape: 2 ToRs with 6 hosts each (4 GPT hosts + 2
     * BERT hosts per ToR), 8 GPUs and one 100 Gbit/s NIC per host, 2 aggregation switches
     * (the paper does not specify the aggregation layer or the rates: these are our choices).
     * \return the configuration
     */
    static CruxClosConfig Sec22Config();

    /**
     * \brief Deliver every non-PAUSE frame received by a host NIC to \p handler.
     * \param topo topology \param host host index \param nic NIC index
     * \param handler the frame handler (see QbbNetDevice::FrameHandler)
     */
    static void SetHostFrameHandler(Ptr<CruxTopology> topo,
                                    uint32_t host,
                                    uint32_t nic,
                                    QbbNetDevice::FrameHandler handler);

  private:
    /// \return a new switch node registered in \p topo \param topo topology \param layer layer
    uint32_t CreateSwitch(Ptr<CruxTopology> topo, CruxSwitchLayer layer);
    /// Cable two switch ports; \return link id a→b
    uint32_t ConnectSwitches(Ptr<CruxTopology> topo,
                             uint32_t a,
                             uint32_t b,
                             DataRate rate,
                             Time delay);
    /// Cable a new NIC of \p host to switch \p sw
    void ConnectHost(Ptr<CruxTopology> topo, uint32_t host, uint32_t sw, DataRate rate, Time delay);

    QbbHelper m_qbb;               //!< link builder
    ObjectFactory m_switchFactory; //!< creates CruxSwitch objects
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_mmuAttributes; //!< MMU settings
};

} // namespace ns3

#endif // CRUX_CRUX_TOPOLOGY_HELPER_H
