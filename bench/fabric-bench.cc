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

/**
 * \file
 * \ingroup crux
 * Fabric speed benchmark (issue 2): packet-hops simulated per wall-clock second on the Crux
 * testbed topology (SIGCOMM'24 §6.1: 12 hosts, 4 × 200 Gbit/s NICs per host, NIC n on ToR n,
 * 2 aggregation switches; TestbedClosConfig()) with every NIC sending at line
 * rate, for one of two fabrics:
 *
 *  - `--fabric=crux`: this module's packet fabric (QbbNetDevice + CruxSwitch + SwitchMmu with
 *    PFC) carrying one large RdmaTransport message (RoCEv2 RC, go-back-N, ACK every 8 packets)
 *    per NIC pair: the path a crux experiment uses, with the congestion control `--cc` (dcqcn,
 *    the default; hpcc; none).
 *  - `--fabric=p2p`: plain ns-3 on the same link graph: PointToPoint links of the same rates and
 *    delays, InternetStack, Ipv4GlobalRouting with RandomEcmpRouting, one OnOff UDP flow at line
 *    rate per NIC pair into a PacketSink.
 *
 * The p2p twin has one ns-3 node per host NIC (48 single-interface nodes): crux hosts never
 * forward and a NIC only receives frames addressed to it, so this is the same forwarding graph.
 * A 4-NIC ns-3 host does not work with global routing: it installs host routes to all addresses
 * of a node via its nearest interface (ToR n would hand cross-rail packets straight to the
 * destination host's NIC n), and disabling forwarding on the hosts crashes ns-3 3.37's SPF.
 *
 * A packet-hop is one frame transmission by one device (QbbNetDevice::GetTxFrames(), the
 * device's own counter of the frames "MacTx" reports, or PointToPointNetDevice "PhyTxBegin"; PFC
 * PAUSE frames are reported apart; crux ACK frames are hops too, `data_hops` leaves them out).
 * `events_per_hop` is the number of simulator events executed per packet-hop. Wall and process CPU
 * time are measured around Simulator::Run() only; on a shared machine the CPU-time rate is the
 * steadier one.
 *
 * Frames have the same wire size in both fabrics, so a saturated link carries the same frame
 * rate: crux 4096 payload + 44 (IPv4, UDP, BTH, ICRC) + 14 Ethernet + 4 FCS + 20 preamble/IFG =
 * 4178 bytes; p2p 4148 UDP payload + 8 UDP + 20 IPv4 + 2 PPP = 4178 bytes.
 *
 * Load patterns (--pattern), flows (host h, NIC n) → (host (h+k) mod 12, NIC n'), k = --shift:
 *  - cross (default): n' = (n+1) mod 4. Every flow crosses the aggregation layer
 *    (host–ToR–agg–ToR–host). The ToR uplinks (2 × 200 Gbit/s per ToR) are 6:1 oversubscribed
 *    by 12 × 200 Gbit/s of host traffic: crux back-pressures the senders with PFC (lossless);
 *    plain ns-3 drops in the ToR queues.
 *  - bisection: the first 2 hosts (one per uplink) use n' = (n+1) mod 4, the others n' = n: every
 *    NIC still sends at line rate and the ToR uplinks are loaded exactly to capacity.
 *  - rail: n' = n, traffic stays under one ToR (host–ToR–host).
 *
 * The ratio crux/p2p depends on the pattern and on p2p's queue discipline: under `cross` plain
 * ns-3 spends much of its time in its default FqCoDel queue disc dropping 5/6 of the packets
 * (--p2pQdisc=none removes the queue discs and makes the baseline faster).
 *
 * Output: one line per run, `RESULT fabric=... key=value ...`, read by
 * bench/run-fabric-bench.sh.
 */

#include "ns3/applications-module.h"
#include "ns3/checked-command-line.h"
#include "ns3/core-module.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/traffic-control-module.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <time.h>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("CruxFabricBench");

namespace
{

/// Wire bytes of one full-size data frame (see the file comment), equal in both fabrics.
constexpr uint32_t WIRE_FRAME_BYTES = 4178;
/// RdmaNic payload bytes per data packet (its default Mtu).
constexpr uint32_t RDMA_PAYLOAD_BYTES = 4096;
/// UDP payload bytes of the p2p flows: 4178 − 2 (PPP) − 20 (IPv4) − 8 (UDP).
constexpr uint32_t UDP_PAYLOAD_BYTES = WIRE_FRAME_BYTES - 2 - 20 - 8;
/// UDP port of the p2p sinks.
constexpr uint16_t SINK_PORT = 9;

/// One flow: source (host, NIC) → destination (host, NIC).
struct Flow
{
    uint32_t srcHost; //!< source host index
    uint32_t srcNic;  //!< source NIC index (0..3)
    uint32_t dstHost; //!< destination host index
    uint32_t dstNic;  //!< destination NIC index (0..3)
};

/// Benchmark parameters (command line).
struct Params
{
    std::string fabric{"crux"};      //!< crux or p2p
    double simTime{0.002};           //!< simulated seconds
    uint32_t seed{1};                //!< ns-3 RNG seed (crux: also the ECMP seed base)
    std::string pattern{"cross"};    //!< cross, bisection or rail
    uint32_t shift{1};               //!< destination host offset k
    std::string p2pQdisc{"default"}; //!< p2p: ns-3's default queue disc or none
    std::string cc{"dcqcn"};         //!< crux: congestion control (dcqcn, hpcc, none)
};

/// Counters filled during a run.
struct Result
{
    uint64_t hops{0};           //!< frames transmitted by every device (data + ACK)
    uint64_t dataHops{0};       //!< of which data frames
    uint64_t pauseFrames{0};    //!< PFC PAUSE frames (crux only, not in hops)
    uint64_t srcFrames{0};      //!< data frames transmitted by the host NICs
    uint64_t deliveredBytes{0}; //!< payload bytes received by the destinations
    uint64_t deliveredPkts{0};  //!< data packets received by the destinations
    double setupSeconds{0};     //!< wall time of the topology and traffic setup
    double runSeconds{0};       //!< wall time of Simulator::Run()
    double runCpuSeconds{0};    //!< process CPU time of Simulator::Run()
    uint64_t events{0};         //!< simulator events executed
    std::string transport;      //!< what carried the load
};

/// The flows of a pattern on the testbed (12 hosts × 4 NICs, 2 uplinks per ToR).
std::vector<Flow>
MakeFlows(const std::string& pattern,
          uint32_t shift,
          uint32_t nHosts,
          uint32_t nNics,
          uint32_t uplinksPerTor)
{
    if (shift % nHosts == 0)
    {
        NS_ABORT_MSG("fabric-bench: --shift=" << shift << " must not be a multiple of the "
                                              << nHosts << " hosts (a host cannot send to itself)");
    }
    std::vector<Flow> flows;
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        for (uint32_t n = 0; n < nNics; ++n)
        {
            uint32_t dn;
            if (pattern == "cross")
            {
                dn = (n + 1) % nNics;
            }
            else if (pattern == "rail")
            {
                dn = n;
            }
            else if (pattern == "bisection")
            {
                dn = h < uplinksPerTor ? (n + 1) % nNics : n;
            }
            else
            {
                NS_ABORT_MSG("fabric-bench: --pattern=" << pattern
                                                        << " is not one of cross, bisection, rail");
            }
            flows.push_back(Flow{h, n, (h + shift) % nHosts, dn});
        }
    }
    return flows;
}

/// Trace sink: count a PointToPointNetDevice PhyTxBegin frame.
void
CountP2pTx(uint64_t* counter, Ptr<const Packet> /* p */)
{
    ++*counter;
}

/// Seconds elapsed since \p t0.
double
Since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Process CPU time (user + system) in seconds.
double
CpuSeconds()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Run the simulation for \p simTime seconds; record its wall and CPU time in \p r.
void
TimedRun(double simTime, Result& r)
{
    Simulator::Stop(Seconds(simTime));
    const double c0 = CpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    r.runSeconds = Since(t0);
    r.runCpuSeconds = CpuSeconds() - c0;
    r.events = Simulator::GetEventCount();
}

/// Run the crux fabric.
Result
RunCrux(const Params& prm)
{
    Result r;
    const auto t0 = std::chrono::steady_clock::now();
    const ClosConfig cfg = TestbedClosConfig();
    CruxTopologyHelper th;
    th.SetEcmpSeedBase(prm.seed);
    Ptr<CruxTopology> topo = th.BuildClos(cfg);
    RdmaTransportHelper rdma;
    rdma.SetCongestionControl(prm.cc);
    Ptr<RdmaTransport> transport = rdma.Install(topo);

    const std::vector<Flow> flows =
        MakeFlows(prm.pattern, prm.shift, topo->GetNHosts(), cfg.nicsPerHost, cfg.aggs);
    const uint32_t gpusPerNic = cfg.gpusPerHost / cfg.nicsPerHost;
    // More bytes than a NIC can send in simTime: every queue pair stays backlogged.
    const auto bytes = static_cast<uint64_t>(cfg.hostLinkBps / 8.0 * prm.simTime) + (1u << 20);
    uint32_t flowId = 0;
    for (const Flow& f : flows)
    {
        MessageRequest req;
        req.jobId = 0;
        req.flowId = flowId++;
        req.src = GpuId{f.srcHost, f.srcNic * gpusPerNic};
        req.dst = GpuId{f.dstHost, f.dstNic * gpusPerNic};
        req.bytes = bytes;
        req.dscp = 0;
        transport->Send(req, MakeNullCallback<void>());
    }
    r.setupSeconds = Since(t0);

    TimedRun(prm.simTime, r);

    // Frames of every device (each directed link has exactly one transmitting device), from
    // the devices' counters: TC 0 carries the data, the control class ACKs and CNPs.
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        const CruxLinkInfo& link = topo->GetLink(l);
        for (uint8_t c = 0; c < QbbNetDevice::N_CLASSES; ++c)
        {
            r.hops += link.txDev->GetTxFrames(c);
        }
        r.dataHops += link.txDev->GetTxFrames(0);
        if (link.from.isHost)
        {
            r.srcFrames += link.txDev->GetTxFrames(0);
        }
        r.pauseFrames += link.txDev->GetPauseTxCount();
    }
    const RdmaQpStats st = transport->GetStats();
    r.deliveredBytes = st.rxDataBytes;
    r.deliveredPkts = st.rxDataPackets;
    std::ostringstream os;
    os << "RdmaTransport(RoCEv2 RC, one " << bytes << "-byte message per NIC pair, "
       << RDMA_PAYLOAD_BYTES << " B payload/packet, PFC on, congestion control " << prm.cc
       << ", CNPs " << st.cnpsReceived << ", retransmits " << st.retransmittedPackets << ")";
    r.transport = os.str();
    return r;
}

/// Run plain ns-3 on the same link graph.
Result
RunP2p(const Params& prm)
{
    Result r;
    const auto t0 = std::chrono::steady_clock::now();
    const ClosConfig cfg = TestbedClosConfig();
    const uint32_t nHosts = (cfg.tors / cfg.nicsPerHost) * cfg.hostsPerTor;
    const uint32_t nNics = cfg.nicsPerHost;
    if (cfg.tors != nNics || cfg.linksPerTorAgg != 1)
    {
        NS_ABORT_MSG("fabric-bench: the p2p twin assumes one ToR group and single ToR-agg cables");
    }
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(true));

    // One ns-3 node per host NIC. Crux hosts never forward, and a NIC only receives frames
    // addressed to it, so this is the crux forwarding graph. (A 4-NIC ns-3 host would not do:
    // global routing installs host routes to all addresses of a node towards whichever of its
    // interfaces is nearest, so ToR n would deliver cross-rail traffic straight to the
    // destination host's NIC n, and with forwarding disabled on the hosts ns-3 3.37's SPF
    // crashes.)
    NodeContainer nics; // node h * nNics + n = NIC n of host h
    nics.Create(nHosts * nNics);
    NodeContainer tors;
    tors.Create(cfg.tors);
    NodeContainer aggs;
    aggs.Create(cfg.aggs);
    InternetStackHelper stack; // list routing: static + global
    stack.Install(nics);
    stack.Install(tors);
    stack.Install(aggs);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9000)); // no fragmentation of 4176-byte packets
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    NetDeviceContainer all;
    NetDeviceContainer nicDevs;
    std::vector<Ipv4Address> nicAddr;
    p2p.SetDeviceAttribute("DataRate",
                           DataRateValue(DataRate(static_cast<uint64_t>(cfg.hostLinkBps))));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(cfg.delay)));
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        for (uint32_t n = 0; n < nNics; ++n)
        {
            NetDeviceContainer d = p2p.Install(nics.Get(h * nNics + n), tors.Get(n));
            Ipv4InterfaceContainer ifc = addr.Assign(d);
            addr.NewNetwork();
            all.Add(d);
            nicDevs.Add(d.Get(0));
            nicAddr.push_back(ifc.GetAddress(0));
        }
    }
    p2p.SetDeviceAttribute("DataRate",
                           DataRateValue(DataRate(static_cast<uint64_t>(cfg.torAggBps))));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(cfg.delay)));
    for (uint32_t t = 0; t < cfg.tors; ++t)
    {
        for (uint32_t a = 0; a < cfg.aggs; ++a)
        {
            NetDeviceContainer d = p2p.Install(tors.Get(t), aggs.Get(a));
            addr.Assign(d);
            addr.NewNetwork();
            all.Add(d);
        }
    }
    if (prm.p2pQdisc == "none")
    {
        TrafficControlHelper().Uninstall(all);
    }
    else if (prm.p2pQdisc != "default")
    {
        NS_ABORT_MSG("fabric-bench: --p2pQdisc=" << prm.p2pQdisc << " is not default or none");
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const std::vector<Flow> flows = MakeFlows(prm.pattern, prm.shift, nHosts, nNics, cfg.aggs);
    // The application rate that spaces UDP_PAYLOAD_BYTES packets by one frame time.
    const DataRate appRate(
        static_cast<uint64_t>(cfg.hostLinkBps * UDP_PAYLOAD_BYTES / WIRE_FRAME_BYTES));
    PacketSinkHelper sink("ns3::UdpSocketFactory",
                          InetSocketAddress(Ipv4Address::GetAny(), SINK_PORT));
    ApplicationContainer sinkApps = sink.Install(nics);
    sinkApps.Start(Seconds(0));
    for (const Flow& f : flows)
    {
        const Ipv4Address dst = nicAddr[f.dstHost * nNics + f.dstNic];
        OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(dst, SINK_PORT));
        onoff.SetConstantRate(appRate, UDP_PAYLOAD_BYTES);
        ApplicationContainer a = onoff.Install(nics.Get(f.srcHost * nNics + f.srcNic));
        a.Start(Seconds(0));
    }

    uint64_t hops = 0;
    uint64_t srcFrames = 0;
    for (uint32_t i = 0; i < all.GetN(); ++i)
    {
        all.Get(i)->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&CountP2pTx, &hops));
    }
    for (uint32_t i = 0; i < nicDevs.GetN(); ++i)
    {
        nicDevs.Get(i)->TraceConnectWithoutContext("PhyTxBegin",
                                                   MakeBoundCallback(&CountP2pTx, &srcFrames));
    }
    r.setupSeconds = Since(t0);

    TimedRun(prm.simTime, r);

    r.hops = hops;
    r.dataHops = hops;
    r.srcFrames = srcFrames;
    for (uint32_t i = 0; i < sinkApps.GetN(); ++i)
    {
        r.deliveredBytes += DynamicCast<PacketSink>(sinkApps.Get(i))->GetTotalRx();
    }
    r.deliveredPkts = r.deliveredBytes / UDP_PAYLOAD_BYTES;
    std::ostringstream os;
    os << "ns-3 PointToPoint+Ipv4GlobalRouting(RandomEcmp)+OnOff UDP(" << UDP_PAYLOAD_BYTES
       << " B payload/packet, one node per NIC, qdisc " << prm.p2pQdisc << ")";
    r.transport = os.str();
    return r;
}

} // namespace

int
main(int argc, char* argv[])
{
    Params prm;
    CheckedCommandLine cmd(__FILE__);
    cmd.Usage("Packet-hops per wall second of the crux fabric or plain ns-3 on the Crux testbed "
              "topology with every NIC at line rate (see bench/run-fabric-bench.sh).");
    cmd.AddValue("fabric", "crux (this module) or p2p (plain ns-3)", prm.fabric);
    cmd.AddValue("simTime", "simulated time, seconds", prm.simTime);
    cmd.AddValue("seed", "RNG seed (ns-3 RngSeedManager; crux: also the ECMP seed base)", prm.seed);
    cmd.AddValue("pattern", "load pattern: cross, bisection or rail", prm.pattern);
    cmd.AddValue("shift", "destination host = (source host + shift) mod 12", prm.shift);
    cmd.AddValue("cc", "crux only: congestion control dcqcn, hpcc or none", prm.cc);
    cmd.AddValue("p2pQdisc",
                 "p2p only: default (ns-3's default queue disc per device) or none",
                 prm.p2pQdisc);
    try
    {
        cmd.Parse(argc, argv);
        if (!(prm.simTime > 0))
        {
            throw InputError("--simTime", "must be > 0 seconds");
        }
        if (RdmaTransportHelper::CongestionControlTypeName(prm.cc).empty())
        {
            throw InputError("--cc", QuoteInput(prm.cc) + " is not dcqcn, hpcc or none");
        }
        if (prm.seed == 0)
        {
            throw InputError("--seed", "must be > 0");
        }
        if (prm.fabric != "crux" && prm.fabric != "p2p")
        {
            throw InputError("--fabric", QuoteInput(prm.fabric) + " is not crux or p2p");
        }
    }
    catch (const InputError& e)
    {
        std::cerr << "fabric-bench: error: " << OneLine(e.what()) << std::endl;
        return 1;
    }
    RngSeedManager::SetSeed(prm.seed);
    // The crux fabric runs on the event scheduler crux's drivers choose (ns-3's heap; the same
    // events in the same order, CruxTopologyHelper::PreferFastScheduler()); plain ns-3 keeps
    // ns-3's default (ns3::MapScheduler). --SchedulerType=... sets either.
    bool schedulerGiven = false;
    for (int i = 1; i < argc; ++i)
    {
        schedulerGiven = schedulerGiven || std::string(argv[i]).rfind("--SchedulerType=", 0) == 0;
    }
    if (prm.fabric == "crux" && !schedulerGiven)
    {
        CruxTopologyHelper::PreferFastScheduler();
    }

    Result r;
    if (prm.fabric == "crux")
    {
        r = RunCrux(prm);
    }
    else if (prm.fabric == "p2p")
    {
        r = RunP2p(prm);
    }
    else
    {
        NS_ABORT_MSG("fabric-bench: --fabric=" << prm.fabric << " is not crux or p2p");
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    StringValue schedulerType;
    GlobalValue::GetValueByName("SchedulerType", schedulerType);
    Simulator::Destroy();

    const double hopsPerSecond = r.runSeconds > 0 ? r.hops / r.runSeconds : 0.0;
    const double dataHopsPerSecond = r.runSeconds > 0 ? r.dataHops / r.runSeconds : 0.0;
    const double hopsPerCpuSecond = r.runCpuSeconds > 0 ? r.hops / r.runCpuSeconds : 0.0;
    std::cout << "RESULT fabric=" << prm.fabric << " cc=" << (prm.fabric == "crux" ? prm.cc : "-")
              << " pattern=" << prm.pattern << " sim_s=" << prm.simTime << " seed=" << prm.seed
              << " hops=" << r.hops << " data_hops=" << r.dataHops << std::setprecision(4)
              << " wall_s=" << r.runSeconds << " cpu_s=" << r.runCpuSeconds << std::fixed
              << std::setprecision(0) << " hops_per_s=" << hopsPerSecond
              << " data_hops_per_s=" << dataHopsPerSecond << " hops_per_cpu_s=" << hopsPerCpuSecond
              << std::defaultfloat << std::setprecision(4)
              << " delivered_bytes=" << r.deliveredBytes << " delivered_pkts=" << r.deliveredPkts
              << " src_frames=" << r.srcFrames << " pause_frames=" << r.pauseFrames
              << " events=" << r.events << " events_per_hop="
              << (r.hops > 0 ? static_cast<double>(r.events) / static_cast<double>(r.hops) : 0.0)
              << " setup_s=" << r.setupSeconds << " peak_rss_kb=" << ru.ru_maxrss
              << " scheduler=" << schedulerType.Get() << " transport=\"" << r.transport << "\""
              << std::endl;
    return 0;
}
