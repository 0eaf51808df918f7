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

#ifndef CRUX_QBB_HELPER_H
#define CRUX_QBB_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

#include <string>

namespace ns3
{

class QbbNetDevice;

/**
 * \ingroup crux
 * \brief Builds point-to-point links of QbbNetDevices (IEEE 802.1Qbb PFC Ethernet) between
 * pairs of nodes, in the style of PointToPointHelper, and writes PCAP traces of them.
 *
 * Each Install() creates one QbbChannel and two QbbNetDevices configured with the attributes
 * given to SetDeviceAttribute()/SetChannelAttribute(), adds them to the nodes and gives each a
 * fresh MAC address (Mac48Address::Allocate()).
 *
 * PCAP files are DLT_EN10MB (Ethernet) and hold every frame the device sends or receives,
 * Ethernet header included, PAUSE frames too (trace source "Sniffer"); they open in
 * Wireshark/tshark, which decodes the PAUSE frames as "MAC Control / Class Based Flow Control".
 */
class QbbHelper : public PcapHelperForDevice
{
  public:
    /// Creates a helper with default ns3::QbbNetDevice and ns3::QbbChannel attributes.
    QbbHelper();
    ~QbbHelper() override = default;

    /**
     * \brief Set an attribute of every QbbNetDevice created afterwards.
     * \param name attribute name (e.g. "DataRate")
     * \param value attribute value
     */
    void SetDeviceAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Set an attribute of every QbbChannel created afterwards.
     * \param name attribute name (e.g. "Delay")
     * \param value attribute value
     */
    void SetChannelAttribute(std::string name, const AttributeValue& value);

    /**
     * \brief Connect two nodes with a new full-duplex PFC link.
     * \param a first node
     * \param b second node
     * \return the two new devices: index 0 on \p a, index 1 on \p b
     */
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);

    /**
     * \brief Connect the two nodes of a container (which must hold exactly two nodes).
     * \param c the nodes
     * \return the two new devices
     */
    NetDeviceContainer Install(NodeContainer c);

  private:
    /**
     * \brief Write a PCAP file of the device (frames sent and received, PAUSE included).
     * \param prefix file name prefix (file: prefix-<node>-<device>.pcap)
     * \param nd the device; non-QbbNetDevices are ignored with a log message
     * \param promiscuous ignored (a point-to-point device sees only its own frames)
     * \param explicitFilename use \p prefix as the whole file name
     */
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    ObjectFactory m_deviceFactory;  //!< creates the devices
    ObjectFactory m_channelFactory; //!< creates the channels
};

} // namespace ns3

#endif // CRUX_QBB_HELPER_H
