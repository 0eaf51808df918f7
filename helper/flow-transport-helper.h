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

#ifndef CRUX_FLOW_TRANSPORT_HELPER_H
#define CRUX_FLOW_TRANSPORT_HELPER_H

#include "ns3/attribute.h"
#include "ns3/crux-topology.h"
#include "ns3/flow-transport.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Builds the flow-level FlowTransport of a CruxTopology: the counterpart of
 * RdmaTransportHelper for the same fabric.
 *
 * Install() registers every host (with its GPU count), every directed link of the topology in
 * link-id order (so FlowTransport link i is CruxTopology link i, with its line rate and
 * propagation delay), a path resolver that builds the 5-tuple RdmaTransport would use for the
 * connection (source / destination NIC addresses of the GPUs per CruxTopology::GpuToNic(),
 * protocol 17, the connection's UDP source port, destination port 4791) and returns
 * CruxTopology::PredictPath() of it (pinned routes, then the switches' ECMP hash), and the
 * DSCP → TC map of host 0's NIC 0 device. Unless set with SetTransportAttribute(), the
 * transport's "InterframeGapBytes" is copied from that device too. Packet devices are only read,
 * never used: a run with a FlowTransport sends no packets.
 *
 * Usage:
 * \code
 *   FlowTransportHelper flow;
 *   flow.SetTransportAttribute("PacketPayload", UintegerValue(4096));
 *   Ptr<FlowTransport> transport = flow.Install(topology);
 *   transport->Send(request, MakeCallback(&OnDone));
 * \endcode
 */
class FlowTransportHelper
{
  public:
    /// Helper with default ns3::FlowTransport attributes.
    FlowTransportHelper();

    /**
     * \brief Set an attribute of the FlowTransport created by Install() (e.g. "IntraHostRate",
     * "PacketPayload", "StoreAndForward").
     * \param name attribute name \param value value
     */
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Create the flow-level transport of a built topology.
     * \param topo a finalized CruxTopology (non-null; NS_FATAL_ERROR otherwise)
     * \return the transport; link ids and host indices are the topology's
     */
    Ptr<FlowTransport> Install(Ptr<CruxTopology> topo) const;

    /**
     * \brief The path resolver Install() uses: the packet fabric's path for the connection and
     * port (CruxTopologySteering::PathOf, the switches' ECMP hash and pinned routes), so both
     * fabrics route a flow alike.
     * \param topo the topology (non-null; NS_FATAL_ERROR otherwise)
     * \return the resolver (keeps a reference to \p topo)
     */
    static FlowTransport::PathResolver MakePathResolver(Ptr<CruxTopology> topo);

  private:
    ObjectFactory m_transportFactory; //!< creates the FlowTransport
    bool m_ifgSet{false};             //!< InterframeGapBytes given by the user
};

} // namespace ns3

#endif // CRUX_FLOW_TRANSPORT_HELPER_H
