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

#include "rdma-transport-helper.h"

#include "ns3/boolean.h"
#include "ns3/crux-compat.h"
#include "ns3/data-rate.h"
#include "ns3/fatal-error.h"
#include "ns3/inband-telemetry-header.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/qbb-channel.h"
#include "ns3/roce-header.h"
#include "ns3/uinteger.h"
#include "ns3/wire-time.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxRdmaTransportHelper");

namespace
{
/// \return bytes of a full data frame with an INT stack (HPCC), Ethernet header included
/// \param nic the sending NIC (its Mtu)
uint32_t
DataFrameBytes(Ptr<RdmaNic> nic)
{
    return nic->GetMtu() + RdmaNic::GetDataHeaderBytes() + InbandTelemetryHeader::SERIALIZED_SIZE +
           crux::ETH_HEADER_BYTES;
}

/// \return bytes of an ACK frame with an INT echo, Ethernet header included
uint32_t
AckFrameBytes()
{
    return 20 + 8 + RoceBthHeader::SERIALIZED_SIZE + RoceAethHeader::SERIALIZED_SIZE +
           InbandTelemetryHeader::SERIALIZED_SIZE + roce::ICRC_SIZE + crux::ETH_HEADER_BYTES;
}
} // namespace

RdmaTransportHelper::RdmaTransportHelper()
{
    m_nicFactory.SetTypeId(RdmaNic::GetTypeId());
    m_transportFactory.SetTypeId(RdmaTransport::GetTypeId());
}

void
RdmaTransportHelper::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

std::string
RdmaTransportHelper::CongestionControlTypeName(const std::string& name)
{
    if (name == "dcqcn")
    {
        return "ns3::DcqcnCongestionControl";
    }
    if (name == "hpcc")
    {
        return "ns3::HpccCongestionControl";
    }
    if (name == "none")
    {
        return "ns3::RdmaCongestionControl";
    }
    return "";
}

void
RdmaTransportHelper::SetCongestionControl(const std::string& name)
{
    const std::string known = CongestionControlTypeName(name);
    const std::string typeName = known.empty() ? name : known;
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        NS_FATAL_ERROR("RdmaTransportHelper::SetCongestionControl: unknown congestion control '"
                       << name << "' (dcqcn, hpcc, none or a TypeId name)");
    }
    m_nicFactory.Set("CongestionControl", TypeIdValue(tid));
    if (!known.empty())
    {
        m_nicFactory.Set("CnpEnabled", BooleanValue(name == "dcqcn"));
    }
    m_ccAttributes.clear();
}

void
RdmaTransportHelper::SetCongestionControlAttribute(const std::string& name,
                                                   const AttributeValue& value)
{
    m_ccAttributes.emplace_back(name, value.Copy());
}

void
RdmaTransportHelper::DefaultBaseRtt(Ptr<RdmaNic> nic, Time rtt)
{
    TimeValue v;
    nic->GetAttribute("BaseRtt", v);
    if (v.Get().IsZero())
    {
        nic->SetAttribute("BaseRtt", TimeValue(rtt));
    }
}

void
RdmaTransportHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transportFactory.Set(name, value);
}

Ptr<RdmaNic>
RdmaTransportHelper::InstallNic(Ptr<QbbNetDevice> dev, Ipv4Address address) const
{
    if (!dev)
    {
        NS_FATAL_ERROR("RdmaTransportHelper::InstallNic: device is null (" << address << ")");
    }
    Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
    for (const auto& [name, value] : m_ccAttributes)
    {
        nic->SetCongestionControlAttribute(name, *value);
    }
    nic->Attach(dev, address);
    return nic;
}

Ptr<RdmaTransport>
RdmaTransportHelper::Install(Ptr<CruxTopology> topo)
{
    if (!topo)
    {
        NS_FATAL_ERROR("RdmaTransportHelper::Install: topology is null");
    }
    Ptr<RdmaTransport> t = m_transportFactory.Create<RdmaTransport>();
    const ClusterTopology& desc = topo->GetDescription();
    if (desc.HasIntraHostLinks())
    {
        // NVLink messages: the description's GPU -> NVSwitch -> GPU rate and latency
        t->SetAttribute("IntraHostRate",
                        DataRateValue(DataRate(static_cast<uint64_t>(desc.intraHost.nvlinkBps))));
        t->SetAttribute("IntraHostLatency", TimeValue(Seconds(2 * desc.intraHost.nvlinkDelay)));
    }
    Time baseRtt(0);
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        const CruxHostInfo& host = topo->GetHost(h);
        t->AddHost(h, host.gpus);
        for (uint32_t n = 0; n < host.nics.size(); ++n)
        {
            Ptr<RdmaNic> nic = InstallNic(host.nics[n].device, host.nics[n].address);
            if (host.nics[n].ports.size() > 1)
            {
                // a multi-port NIC (double-sided): one RdmaNic on every port's device; the
                // topology picks each queue pair's port (pinned route, else the NIC's ECMP hash)
                for (uint32_t p = 1; p < host.nics[n].ports.size(); ++p)
                {
                    nic->AddPort(host.nics[n].ports[p].device);
                }
                nic->SetPortSelector(MakeCallback(&CruxTopology::SelectNicPort, PeekPointer(topo)));
            }
            if (desc.HasIntraHostLinks())
            {
                // the NIC's PCIe switch uplink (ClusterTopology::pcieNic), shared by its GPUs
                nic->SetAttribute(
                    "PcieRate",
                    DataRateValue(DataRate(static_cast<uint64_t>(desc.intraHost.pcieBps))));
                // GPU -> PCIe switch -> NIC: the two PCIe links of ClusterTopology::GpuPath()
                nic->SetAttribute("PcieLatency", TimeValue(Seconds(2 * desc.intraHost.pcieDelay)));
            }
            if (baseRtt.IsZero())
            {
                baseRtt = topo->GetMaxBaseRtt(DataFrameBytes(nic), AckFrameBytes());
            }
            DefaultBaseRtt(nic, baseRtt);
            t->AddNic(h, n, nic);
        }
    }
    return t;
}

Ptr<RdmaTransport>
RdmaTransportHelper::Install(const std::vector<std::vector<Ptr<QbbNetDevice>>>& hostNics,
                             uint32_t gpusPerHost)
{
    Ptr<RdmaTransport> t = m_transportFactory.Create<RdmaTransport>();
    for (uint32_t h = 0; h < hostNics.size(); ++h)
    {
        t->AddHost(h, gpusPerHost);
        for (uint32_t n = 0; n < hostNics[h].size(); ++n)
        {
            Ptr<RdmaNic> nic = InstallNic(hostNics[h][n], CruxTopology::MakeNicAddress(h, n));
            // back to back: the NIC's own link, both ways (as CruxTopology::GetBaseRtt)
            Ptr<QbbNetDevice> dev = hostNics[h][n];
            Ptr<QbbChannel> ch = DynamicCast<QbbChannel>(dev->GetChannel());
            if (ch)
            {
                const DataRate rate = dev->GetDataRate();
                DefaultBaseRtt(
                    nic,
                    ch->GetDelay() * 2 +
                        crux::BytesTxTime(rate, crux::FrameWireBytes(DataFrameBytes(nic))) +
                        crux::BytesTxTime(rate, crux::FrameWireBytes(AckFrameBytes())));
            }
            t->AddNic(h, n, nic);
        }
    }
    return t;
}

} // namespace ns3
