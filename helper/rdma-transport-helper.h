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

#ifndef CRUX_RDMA_TRANSPORT_HELPER_H
#define CRUX_RDMA_TRANSPORT_HELPER_H

#include "ns3/attribute.h"
#include "ns3/crux-topology.h"
#include "ns3/ipv4-address.h"
#include "ns3/object-factory.h"
#include "ns3/qbb-net-device.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-transport.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Installs an RdmaNic on every host NIC and returns the packet-level RdmaTransport over
 * them.
 *
 * Usage:
 * \code
 *   RdmaTransportHelper rdma;
 *   rdma.SetCongestionControl("ns3::HpccCongestionControl");
 *   rdma.SetCongestionControlAttribute("TargetUtilization", DoubleValue(0.9));
 *   Ptr<RdmaTransport> transport = rdma.Install(topology);
 *   transport->Send(request, MakeCallback(&OnDone));
 * \endcode
 *
 * Every NIC whose attribute "BaseRtt" is 0 (the default) gets the fabric's base RTT: with a
 * topology, CruxTopology::GetMaxBaseRtt() for a full data packet with an INT stack and its ACK
 * with the echo; for back-to-back hosts, that of the NIC's own link.
 */
class RdmaTransportHelper
{
  public:
    /// Helper with default ns3::RdmaNic and ns3::RdmaTransport attributes.
    RdmaTransportHelper();

    /**
     * \brief Set an attribute of every RdmaNic created afterwards (e.g. "Mtu", "InitialPsn").
     * \param name attribute name \param value value
     */
    void SetNicAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Choose the congestion control of every NIC created afterwards, by name, and
     * whether receivers generate CNPs: "dcqcn" (ns3::DcqcnCongestionControl, CnpEnabled true),
     * "hpcc" (ns3::HpccCongestionControl, CnpEnabled false) or "none" (ns3::RdmaCongestionControl,
     * CnpEnabled false); any other string is taken as a TypeId name (CnpEnabled unchanged).
     * Attributes given before with SetCongestionControlAttribute() are dropped.
     * \param name "dcqcn", "hpcc", "none" or a TypeId name (NS_FATAL_ERROR if unknown)
     */
    void SetCongestionControl(const std::string& name);

    /**
     * \brief Set an attribute of the congestion control of every queue pair of the NICs created
     * afterwards (RdmaNic::SetCongestionControlAttribute).
     * \param name attribute of the congestion control's TypeId \param value value
     */
    void SetCongestionControlAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief The TypeId name of a congestion control given by its short name.
     * \param name "dcqcn", "hpcc" or "none"
     * \return "ns3::DcqcnCongestionControl", "ns3::HpccCongestionControl",
     *         "ns3::RdmaCongestionControl", or "" for another name
     */
    static std::string CongestionControlTypeName(const std::string& name);

    /**
     * \brief Set an attribute of the RdmaTransport created by Install() (e.g. "IntraHostRate").
     * \param name attribute name \param value value
     */
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief One RdmaNic per NIC of every host of a built topology; a NIC with several ports
     * (CruxNicInfo::ports) drives all of them, its port selector CruxTopology::SelectNicPort.
     * \param topo a finalized CruxTopology (non-null)
     * \return the transport; host h, NIC n of the topology is GetNic(h, n) of the transport
     */
    Ptr<RdmaTransport> Install(Ptr<CruxTopology> topo);

    /**
     * \brief One RdmaNic per given device, without a CruxTopology (e.g. two hosts cabled back to
     * back with QbbHelper). NIC n of host h gets the conventional address
     * CruxTopology::MakeNicAddress(h, n) = 10.(h>>8).(h&255).(n+1).
     * \param hostNics hostNics[h][n] = device of NIC n of host h (non-null)
     * \param gpusPerHost GPUs of every host (> 0)
     * \return the transport
     */
    Ptr<RdmaTransport> Install(const std::vector<std::vector<Ptr<QbbNetDevice>>>& hostNics,
                               uint32_t gpusPerHost);

    /**
     * \brief Create one RdmaNic with this helper's attributes and attach it.
     * \param dev the NIC device \param address its IPv4 address
     * \return the attached NIC
     */
    Ptr<RdmaNic> InstallNic(Ptr<QbbNetDevice> dev, Ipv4Address address) const;

  private:
    /// Set the NIC's BaseRtt to \p rtt if it is 0. \param nic the NIC \param rtt base RTT
    static void DefaultBaseRtt(Ptr<RdmaNic> nic, Time rtt);

    ObjectFactory m_nicFactory;       //!< creates RdmaNics
    ObjectFactory m_transportFactory; //!< creates the RdmaTransport
    /// congestion-control attributes for every NIC, in the order given
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_ccAttributes;
};

} // namespace ns3

#endif // CRUX_RDMA_TRANSPORT_HELPER_H
