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

// NCCL's collectives as NCCL runs them (issue 28): channel rings spread over a host's NICs,
// the pipelined tree and hierarchical all-reduce against their closed forms on idle fabrics,
// packet level against flow level, and NCCL's protocol choice on the wire. Real runs only.

#include "crux-test-util.h"

#include "ns3/collective-algorithm.h"
#include "ns3/collectives.h"
#include "ns3/comm-dag-runner.h"
#include "ns3/comm-dag.h"
#include "ns3/crux-compat.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/crux-topology.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job-helper.h"
#include "ns3/dlt-job.h"
#include "ns3/flow-transport-helper.h"
#include "ns3/flow-transport.h"
#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr double US = 1e-6;          //!< one microsecond in seconds
constexpr uint64_t MIB = 1ull << 20; //!< one MiB

/// GPUs of `hosts` hosts × `gpus` GPUs, rank = host × gpus + local.
std::vector<GpuId>
Gpus(uint32_t hosts, uint32_t gpus)
{
    std::vector<GpuId> out;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        for (uint32_t g = 0; g < gpus; ++g)
        {
            out.push_back(Gpu(h, g));
        }
    }
    return out;
}

/// Ranks 0..n-1.
std::vector<uint32_t>
All(uint32_t n)
{
    std::vector<uint32_t> m(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        m[r] = r;
    }
    return m;
}

/// Run a DAG from time 0 (Simulator::Run; the caller destroys the simulator).
/// \return completion time, seconds
double
RunDag(Ptr<MessageTransport> t, std::shared_ptr<CommDag> dag, uint64_t* messages = nullptr)
{
    double end = -1;
    Ptr<CommDagRunner> runner = CreateObject<CommDagRunner>();
    runner->Setup(t, 1, dag, 0);
    runner->Start(
        crux::MakeFunctorCallback<void>([&end]() { end = Simulator::Now().GetSeconds(); }));
    Simulator::Run();
    if (messages)
    {
        *messages = runner->GetMessagesSent();
    }
    runner->Dispose();
    return end;
}

/// Rail-optimised hosts on one group of ToRs (NIC n of every host on ToR n): `hosts` hosts of
/// `gpus` GPUs and `nics` NICs of `bps`, 1 µs links.
ClusterTopology
RailHosts(uint32_t hosts, uint32_t gpus, uint32_t nics, double bps)
{
    ClosConfig c;
    c.tors = nics;
    c.aggs = 1;
    c.hostsPerTor = 0;
    c.numHosts = hosts;
    c.gpusPerHost = gpus;
    c.nicsPerHost = nics;
    c.hostLinkBps = bps;
    c.torAggBps = bps;
    c.delay = 1e-6;
    c.wiring = "rail";
    return BuildTwoLayerClos(c);
}

/// Fluid full mesh: one link of `rate` and `delay` per connection (flow id): α = delay,
/// β = 8 / rate, no framing.
Ptr<FlowTransport>
Mesh(uint32_t hosts, uint32_t flows, double rate, Time delay)
{
    Ptr<FlowTransport> t = CreateObject<FlowTransport>();
    t->SetAttribute("PacketPayload", UintegerValue(0));
    for (uint32_t h = 0; h < hosts; ++h)
    {
        t->AddHost(h, 1);
    }
    for (uint32_t f = 0; f < flows; ++f)
    {
        t->AddLink(DataRate(static_cast<uint64_t>(rate)), delay);
    }
    t->SetPathResolver(crux::MakeFunctorCallback(
        [](const RdmaQpKey& k, uint16_t) -> std::vector<uint32_t> { return {k.flowId}; }));
    return t;
}

/// Idle fluid star: host h has an uplink and a downlink of `rate` and `delay` (α = 2 delay),
/// GPUs of a host talk at `intraRate` with latency `intraDelay`; no framing.
Ptr<FlowTransport>
Star(uint32_t hosts, uint32_t gpus, double rate, Time delay, double intraRate, Time intraDelay)
{
    Ptr<FlowTransport> t = CreateObject<FlowTransport>();
    t->SetAttribute("PacketPayload", UintegerValue(0));
    t->SetAttribute("IntraHostRate", DataRateValue(DataRate(static_cast<uint64_t>(intraRate))));
    t->SetAttribute("IntraHostLatency", TimeValue(intraDelay));
    for (uint32_t h = 0; h < hosts; ++h)
    {
        t->AddHost(h, gpus);
        t->AddLink(DataRate(static_cast<uint64_t>(rate)), delay);
        t->AddLink(DataRate(static_cast<uint64_t>(rate)), delay);
    }
    t->SetPathResolver(
        crux::MakeFunctorCallback([](const RdmaQpKey& k, uint16_t) -> std::vector<uint32_t> {
            return {2 * k.src.host, 2 * k.dst.host + 1};
        }));
    return t;
}

/// Max depth (hops to the root) of NCCL's tree `tree` over n nodes.
uint32_t
Height(uint32_t n, uint32_t tree)
{
    const auto parent = Collectives::TreeParents(n, tree);
    uint32_t h = 0;
    for (uint32_t x = 0; x < n; ++x)
    {
        uint32_t d = 0;
        for (int32_t y = parent[x]; y >= 0; y = parent[y])
        {
            ++d;
        }
        h = std::max(h, d);
    }
    return h;
}

} // namespace

/**
 * Two DGX-A100-class hosts (8 GPUs, 8 × 200 Gbit/s NICs, rail-wired): the channel ring puts
 * the same bytes on every NIC, every host-crossing hop on one rail, and its 1 GiB bus bandwidth
 * is the α-β closed form of the multi-channel ring within 5 %.
 */
class ChannelRingNicsTestCase : public TestCase
{
  public:
    ChannelRingNicsTestCase()
        : TestCase("channel ring: 2 hosts x 8 NICs, equal NIC shares, busbw = closed form (5 %)")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t hosts = 2;
        const uint32_t k = 8;
        const uint32_t n = hosts * k;
        const double nicBps = 200e9;
        const uint64_t s = 1ull << 30;
        ClusterTopology cluster = RailHosts(hosts, k, k, nicBps);
        auto dag = std::make_shared<CommDag>(Gpus(hosts, k));
        CollectiveConfig cfg;
        cfg.hardware = CollectiveHardwareOf(cluster);
        dag->SetCollectiveConfig(cfg);
        const auto plan = Collectives::NcclPlan(*dag, All(n), s, NcclFunction::ALL_REDUCE, {});
        NS_TEST_ASSERT_MSG_EQ(plan.channels, 16u, "NCCL: 8 NICs -> 16 channels");
        NS_TEST_ASSERT_MSG_EQ((plan.protocol == NcclProtocol::SIMPLE), true, "1 GiB: Simple");
        // every host-crossing hop stays on one rail (same NIC index on both hosts)
        const auto orders = Collectives::ChannelRingOrders(*dag, All(n), plan.channels);
        std::vector<uint32_t> txPerNic(k, 0);
        for (const auto& o : orders)
        {
            for (size_t q = 0; q < o.size(); ++q)
            {
                const GpuId a = dag->Gpu(o[q]);
                const GpuId b = dag->Gpu(o[(q + 1) % o.size()]);
                if (a.host != b.host)
                {
                    NS_TEST_ASSERT_MSG_EQ(a.localGpu, b.localGpu, "rail-aligned hop");
                    ++txPerNic[a.localGpu];
                }
            }
        }
        for (uint32_t x : txPerNic)
        {
            NS_TEST_ASSERT_MSG_EQ(x,
                                  2u * plan.channels / k,
                                  "each NIC sends for 2 channels x 2 hosts");
        }
        Collectives::ChannelRingAllReduce(*dag, All(n), s, {}, plan.channels, plan.protocol);
        CruxTopologyHelper th;
        Ptr<CruxTopology> topo = th.Install(cluster);
        Ptr<FlowTransport> t = FlowTransportHelper().Install(topo);
        const double time = RunDag(t, dag);
        // bytes on each NIC's uplink: 2 (N−1)/N S per host, an eighth per NIC
        const double perNic = 2.0 * (n - 1) / n * s / k;
        for (uint32_t h = 0; h < hosts; ++h)
        {
            for (uint32_t nic = 0; nic < k; ++nic)
            {
                const double got = t->GetLinkBytes(cluster.nicUp[h][nic][0]);
                NS_TEST_ASSERT_MSG_EQ_TOL(got,
                                          perNic,
                                          1e-6 * perNic,
                                          "host " << h << " NIC " << nic << ": an equal share");
            }
        }
        // α-β of the multi-channel ring: 2(N−1) steps of S/(N C) per channel, C/K channels
        // sharing a NIC (framing 4096 + 62 + 20 bytes per 4096), α = two 1 µs links + one
        // packet's store-and-forward
        const double frame = (4096.0 + 62 + 20) / 4096;
        const double c = plan.channels;
        const double alpha = 2e-6 + (4096.0 + 62 + 20) * 8 / nicBps;
        const double closed = 2.0 * (n - 1) * (alpha + s / (n * c) * frame * 8 * (c / k) / nicBps);
        const double busbw = s / time * 2.0 * (n - 1) / n;
        const double busbwClosed = s / closed * 2.0 * (n - 1) / n;
        std::cout << "[crux-nccl] 2 hosts x 8 GPUs x 8 NICs 200G, 1 GiB ring on " << plan.channels
                  << " channels: " << time * 1e3 << " ms, busbw " << busbw / 1e9
                  << " GB/s (closed form " << busbwClosed / 1e9 << " GB/s)" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(busbw / busbwClosed, 1.0, 0.05, "busbw within 5 %");
        Simulator::Destroy();
    }
};

/**
 * The flow form of the channel ring (RingForm::FLOW, algorithm "ring-flow") on the hosts of
 * ChannelRingNicsTestCase: N messages per channel instead of 2(N−1)N, the same bytes per member
 * and per NIC as the step form, its time the closed form α + 2(N−1)/N S/C β_c within 2 % and
 * the step form's within 1 % (two channels per NIC fill each other's per-step latency gaps, so
 * the step form loses nothing here); reduce-scatter and
 * all-gather of "ring-flow" send the bytes of the step form in N messages per channel.
 */
class ChannelRingFlowFormTestCase : public TestCase
{
  public:
    ChannelRingFlowFormTestCase()
        : TestCase("channel ring in flow form: N messages per channel, same bytes, closed form")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t hosts = 2;
        const uint32_t k = 8;
        const uint32_t n = hosts * k;
        const double nicBps = 200e9;
        const uint64_t s = 1ull << 30;
        ClusterTopology cluster = RailHosts(hosts, k, k, nicBps);
        CollectiveConfig cfg;
        cfg.hardware = CollectiveHardwareOf(cluster);
        double time[2];
        uint64_t messages[2];
        std::vector<uint64_t> sent[2];
        uint32_t channels = 0;
        for (int flow = 0; flow < 2; ++flow)
        {
            auto dag = std::make_shared<CommDag>(Gpus(hosts, k));
            dag->SetCollectiveConfig(cfg);
            const auto plan = Collectives::NcclPlan(*dag, All(n), s, NcclFunction::ALL_REDUCE, {});
            channels = plan.channels;
            Collectives::ChannelRingAllReduce(*dag,
                                              All(n),
                                              s,
                                              {},
                                              plan.channels,
                                              plan.protocol,
                                              flow ? RingForm::FLOW : RingForm::STEPS);
            sent[flow] = dag->BytesSentByRank();
            CruxTopologyHelper th;
            Ptr<CruxTopology> topo = th.Install(cluster);
            Ptr<FlowTransport> t = FlowTransportHelper().Install(topo);
            time[flow] = RunDag(t, dag, &messages[flow]);
            const double perNic = 2.0 * (n - 1) / n * s / k;
            for (uint32_t h = 0; h < hosts; ++h)
            {
                for (uint32_t nic = 0; nic < k; ++nic)
                {
                    const double got = t->GetLinkBytes(cluster.nicUp[h][nic][0]);
                    NS_TEST_ASSERT_MSG_EQ_TOL(got,
                                              perNic,
                                              1e-6 * perNic,
                                              "form " << flow << ", host " << h << " NIC " << nic);
                }
            }
            Simulator::Destroy();
        }
        NS_TEST_ASSERT_MSG_EQ(messages[0], 2ull * (n - 1) * n * channels, "steps: 2(N-1)N C");
        NS_TEST_ASSERT_MSG_EQ(messages[1], static_cast<uint64_t>(n) * channels, "flow: N C");
        NS_TEST_ASSERT_MSG_EQ((sent[0] == sent[1]), true, "the same bytes per member");
        const double frame = (4096.0 + 62 + 20) / 4096;
        const double c = channels;
        const double alpha = 2e-6 + (4096.0 + 62 + 20) * 8 / nicBps;
        const double closed = alpha + 2.0 * (n - 1) / n * s / c * frame * 8 * (c / k) / nicBps;
        std::cout << "[crux-nccl] 1 GiB ring on " << channels << " channels, 2 x 8 GPUs: steps "
                  << time[0] * 1e3 << " ms, flow form " << time[1] * 1e3 << " ms (closed form "
                  << closed * 1e3 << " ms), difference " << (time[0] - time[1]) * 1e6
                  << " us = " << (time[0] - time[1]) / alpha << " alpha" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(time[1] / closed, 1.0, 0.02, "flow form = closed form (2 %)");
        // two channels per NIC fill each other's per-step latency gaps: the step form takes the
        // flow form's time; the flow form is never slower and saves at most (2(N-1) - 1) alpha
        NS_TEST_ASSERT_MSG_EQ((time[1] <= time[0] * (1 + 1e-9)), true, "flow form not slower");
        NS_TEST_ASSERT_MSG_EQ((time[0] - time[1] <= (2.0 * (n - 1) - 1) * alpha),
                              true,
                              "at most the per-step latencies saved");
        NS_TEST_ASSERT_MSG_EQ_TOL(time[1] / time[0], 1.0, 0.01, "idle fabric: the same time");

        // reduce-scatter and all-gather of the registered "ring-flow"
        auto rsSteps = std::make_shared<CommDag>(Gpus(hosts, k));
        auto rsFlow = std::make_shared<CommDag>(Gpus(hosts, k));
        rsSteps->SetCollectiveConfig(cfg);
        rsFlow->SetCollectiveConfig(cfg);
        Collectives::ChannelRingReduceScatter(*rsSteps, All(n), s, {});
        const uint64_t stepMessages = rsSteps->NumMessages();
        Ptr<const CollectiveAlgorithm> alg = GetCollectiveAlgorithm("ring-flow");
        alg->ReduceScatter(*rsFlow, All(n), s, {});
        NS_TEST_ASSERT_MSG_EQ((rsFlow->BytesSentByRank() == rsSteps->BytesSentByRank()),
                              true,
                              "ring-flow reduce-scatter: the step form's bytes");
        NS_TEST_ASSERT_MSG_EQ(rsFlow->NumMessages() * (n - 1),
                              stepMessages,
                              "ring-flow reduce-scatter: N messages per channel, not N(N-1)");
        auto agSteps = std::make_shared<CommDag>(Gpus(hosts, k));
        auto agFlow = std::make_shared<CommDag>(Gpus(hosts, k));
        agSteps->SetCollectiveConfig(cfg);
        agFlow->SetCollectiveConfig(cfg);
        Collectives::ChannelRingAllGather(*agSteps, All(n), s, {});
        alg->AllGather(*agFlow, All(n), s, {});
        NS_TEST_ASSERT_MSG_EQ((agFlow->BytesSentByRank() == agSteps->BytesSentByRank()),
                              true,
                              "ring-flow all-gather: the step form's bytes");
        NS_TEST_ASSERT_MSG_EQ(agFlow->NumMessages() * (n - 1),
                              agSteps->NumMessages(),
                              "ring-flow all-gather: N messages per channel");
    }
};

/**
 * The pipelined tree on C channels (each connection its own link: no sharing) against
 * 2hα + (m + 2h − 1)b per channel, and the pipelined hierarchical all-reduce on an idle star
 * against t_rs + P t_ar + t_ag, both within 2 %; the hierarchical one is also clearly faster
 * than its unpipelined closed form.
 */
class PipelinedClosedFormTestCase : public TestCase
{
  public:
    PipelinedClosedFormTestCase()
        : TestCase(
              "pipelined tree and hierarchical all-reduce = closed forms on idle fabrics (2 %)")
    {
    }

  private:
    void DoRun() override
    {
        // tree: 8 hosts x 1 GPU, 4 channels, 4 MiB each = 8 chunks of NCCL's 512 KiB
        {
            const uint32_t n = 8;
            const uint32_t c = 4;
            const uint64_t s = c * 8 * 512 * 1024;
            const double rate = 100e9;
            const double alpha = 2 * US;
            auto dag = std::make_shared<CommDag>(Gpus(n, 1));
            Collectives::ChannelTreeAllReduce(*dag, All(n), s, {}, c, NcclProtocol::SIMPLE);
            uint64_t messages = 0;
            const double t = RunDag(Mesh(n, 4096, rate, Seconds(alpha)), dag, &messages);
            Simulator::Destroy();
            const uint32_t m = 8;
            const double b = 512.0 * 1024 * 8 / rate;
            double closed = 0;
            for (uint32_t tree = 0; tree < 2; ++tree)
            {
                const double h = Height(n, tree);
                closed = std::max(closed, 2 * h * alpha + (m + 2 * h - 1) * b);
            }
            std::cout << "[crux-nccl] tree all-reduce, 8 hosts, 4 channels x 8 chunks: " << t / US
                      << " us, closed form " << closed / US << " us" << std::endl;
            NS_TEST_ASSERT_MSG_EQ(messages, uint64_t{c} * m * 2 * (n - 1), "up and down per edge");
            NS_TEST_ASSERT_MSG_EQ_TOL(t / closed, 1.0, 0.02, "tree within 2 %");
        }
        // hierarchical: 4 hosts x 4 GPUs, host links 100 Gbit/s shared by the 4 rails, GPUs at
        // 200 Gbit/s with 1 µs; 256 MiB = 8 pieces of 4 x 4 x 2 MiB
        {
            const uint32_t h = 4;
            const uint32_t k = 4;
            const uint64_t s = 256 * MIB;
            const double rate = 100e9;
            const double nvl = 200e9;
            const double alpha = 2 * US;
            const double alphaN = 1 * US;
            const uint32_t p = Collectives::HierarchicalPieces(s, k, h);
            NS_TEST_ASSERT_MSG_EQ(p, 8u, "pieces of k x H x 2 MiB");
            auto dag = std::make_shared<CommDag>(Gpus(h, k));
            Collectives::PipelinedHierarchicalAllReduce(*dag, All(h * k), s, {});
            const double t = RunDag(Star(h, k, rate, MicroSeconds(1), nvl, MicroSeconds(1)), dag);
            Simulator::Destroy();
            const double b = static_cast<double>(s) / p;
            const double tRs = (k - 1) * (alphaN + b / k * 8 / nvl);
            const double tAr = 2.0 * (h - 1) * (alpha + b / h * 8 / rate);
            const double closed = tRs + p * tAr + tRs;
            const double unpipelined = 2 * (k - 1) * (alphaN + s / k * 8.0 / nvl) +
                                       2.0 * (h - 1) * (alpha + s / h * 8.0 / rate);
            auto dagC = std::make_shared<CommDag>(Gpus(h, k));
            Collectives::HierarchicalAllReduce(*dagC, All(h * k), s, {});
            const double tc = RunDag(Star(h, k, rate, MicroSeconds(1), nvl, MicroSeconds(1)), dagC);
            Simulator::Destroy();
            std::cout
                << "[crux-nccl] hierarchical all-reduce, 4 hosts x 4 GPUs, 256 MiB: pipelined "
                << t / US << " us (closed form " << closed / US << " us), classic " << tc / US
                << " us (closed form " << unpipelined / US << " us)" << std::endl;
            NS_TEST_ASSERT_MSG_EQ_TOL(t / closed, 1.0, 0.02, "pipelined within 2 %");
            NS_TEST_ASSERT_MSG_EQ_TOL(tc / unpipelined, 1.0, 0.02, "classic within 2 %");
            NS_TEST_ASSERT_MSG_LT(t, 0.8 * tc, "pipelining hides the NVLink phases");
        }
    }
};

/**
 * Packet level (RoCEv2 NICs, no congestion control, PFC) against flow level on 2 rail-wired
 * hosts of 4 GPUs and 4 NICs: channel ring, channel tree and pipelined hierarchical all-reduce
 * within 5 %, with no retransmission.
 */
class NcclPacketVsFlowTestCase : public TestCase
{
  public:
    NcclPacketVsFlowTestCase()
        : TestCase("channel ring, tree and pipelined hierarchical: packet vs flow within 5 %")
    {
    }

  private:
    /// Add the collective `what` over every rank.
    static void Add(CommDag& dag, const std::string& what, uint64_t s)
    {
        const auto m = All(dag.NumRanks());
        if (what == "ring")
        {
            Collectives::ChannelRingAllReduce(dag, m, s, {});
        }
        else if (what == "tree")
        {
            Collectives::ChannelTreeAllReduce(dag, m, s, {}, 0, NcclProtocol::SIMPLE);
        }
        else
        {
            Collectives::PipelinedHierarchicalAllReduce(dag, m, s, {});
        }
    }

    void DoRun() override
    {
        const uint32_t hosts = 2;
        const uint32_t k = 4;
        for (const std::string what : {"ring", "tree", "hierarchical"})
        {
            const uint64_t s = what == "hierarchical" ? 32 * MIB : 8 * MIB;
            ClusterTopology cluster = RailHosts(hosts, k, k, 100e9);
            CollectiveConfig cfg;
            cfg.hardware = CollectiveHardwareOf(cluster);
            double packet = 0;
            uint64_t retransmitted = 0;
            {
                auto dag = std::make_shared<CommDag>(Gpus(hosts, k));
                dag->SetCollectiveConfig(cfg);
                Add(*dag, what, s);
                CruxTopologyHelper th;
                Ptr<CruxTopology> topo = th.Install(cluster);
                RdmaTransportHelper rdma;
                rdma.SetCongestionControl("none");
                Ptr<RdmaTransport> t = rdma.Install(topo);
                packet = RunDag(t, dag);
                for (uint32_t h = 0; h < hosts; ++h)
                {
                    for (uint32_t nic = 0; nic < k; ++nic)
                    {
                        retransmitted += t->GetNic(h, nic)->GetStats().retransmittedPackets;
                    }
                }
                Simulator::Destroy();
            }
            double flow = 0;
            {
                auto dag = std::make_shared<CommDag>(Gpus(hosts, k));
                dag->SetCollectiveConfig(cfg);
                Add(*dag, what, s);
                CruxTopologyHelper th;
                flow = RunDag(FlowTransportHelper().Install(th.Install(cluster)), dag);
                Simulator::Destroy();
            }
            const double gap = std::abs(flow - packet) / packet;
            std::cout << "[crux-nccl] " << what << ", 2 hosts x 4 GPUs x 4 NICs, " << s / MIB
                      << " MiB: packet " << packet / US << " us, flow " << flow / US << " us, gap "
                      << 100 * gap << " %" << std::endl;
            NS_TEST_ASSERT_MSG_GT(packet, 0, what << ": packet level completed");
            NS_TEST_ASSERT_MSG_EQ(retransmitted, 0, what << ": no retransmission");
            NS_TEST_ASSERT_MSG_LT(gap, 0.05, what << ": packet vs flow within 5 %");
        }
    }
};

/**
 * NCCL's choice on the wire: an 8 KiB all-reduce on 4 hosts × 1 GPU (100 Gbit/s NICs) is a
 * tree with the LL protocol on 2 channels (NcclModel), so every tree edge carries the data up
 * and down at twice its size (16-byte LL lines of 8 data bytes): 2 × 2(N−1) S in all.
 */
class NcclChoiceOnTheWireTestCase : public TestCase
{
  public:
    NcclChoiceOnTheWireTestCase()
        : TestCase("NCCL's choice: small all-reduce = tree with LL, twice the bytes on the wire")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 4;
        const uint64_t s = 8192;
        auto dag = std::make_shared<CommDag>(Gpus(n, 1));
        const auto plan = Collectives::NcclPlan(*dag, All(n), s, NcclFunction::ALL_REDUCE, {});
        NS_TEST_ASSERT_MSG_EQ((plan.algorithm == NcclAlgorithm::TREE), true, "tree");
        NS_TEST_ASSERT_MSG_EQ((plan.protocol == NcclProtocol::LL), true, "LL");
        NS_TEST_ASSERT_MSG_EQ(plan.channels, 2u, "2 channels");
        Collectives::AllReduce(*dag, All(n), s, "nccl", {});
        dag->Finalize();
        uint64_t total = 0;
        for (uint64_t b : dag->BytesSentByRank())
        {
            total += b;
        }
        NS_TEST_ASSERT_MSG_EQ(total, 2 * 2 * (n - 1) * s, "LL doubles the tree's 2 (N-1) S");
        // a 1 GiB all-reduce of the same DAG is a Simple ring: 2 (N−1)/N S per rank
        auto big = std::make_shared<CommDag>(Gpus(n, 1));
        const uint64_t gib = 1ull << 30;
        const auto p2 = Collectives::NcclPlan(*big, All(n), gib, NcclFunction::ALL_REDUCE, {});
        NS_TEST_ASSERT_MSG_EQ((p2.algorithm == NcclAlgorithm::RING), true, "ring");
        NS_TEST_ASSERT_MSG_EQ((p2.protocol == NcclProtocol::SIMPLE), true, "Simple");
        Collectives::AllReduce(*big, All(n), gib, "nccl", {});
        big->Finalize();
        for (uint64_t b : big->BytesSentByRank())
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(static_cast<double>(b),
                                      2.0 * (n - 1) / n * gib,
                                      2.0 * p2.channels * n,
                                      "ring bytes per rank");
        }
    }
};

/**
 * The channels of a planned job's data-parallel all-reduce: NCCL's default (one NIC per host
 * of 1 GPU: 1 search channel, 2 channels), the scenario's collectives.channels
 * (DltJob::collectives) and DltJobApplication's NcclChannels attribute, counted in the
 * messages the flow fabric delivers (a ring of 2 ranks: 2 steps x 2 ranks per channel).
 */
class NcclChannelsOfAJobTestCase : public TestCase
{
  public:
    NcclChannelsOfAJobTestCase()
        : TestCase("a planned job's channels: NCCL's default, collectives.channels, NcclChannels")
    {
    }

  private:
    /// \return messages delivered in one iteration \param config channels of the job
    /// \param attribute NcclChannels (0 = none)
    static uint64_t Messages(uint32_t config, uint32_t attribute)
    {
        DltJob job = DltJob::FromModel(5, "gpt3-1.3b", Gpus(2, 1));
        ParallelismRequest req;
        req.tp = 1;
        req.pp = 1;
        req.dp = 2;
        req.allReduce = "ring";
        job.ApplyPlan(req);
        job.numBuckets = 1;
        job.iterations = 1;
        job.computeTime = 0.001;
        job.collectives.channels = config;
        Ptr<FlowTransport> t = Star(2, 1, 100e9, MicroSeconds(1), 2400e9, MicroSeconds(1));
        Ptr<Node> node = CreateObject<Node>();
        Ptr<DltJobApplication> app = CreateObject<DltJobApplication>();
        app->SetAttribute("NcclChannels", UintegerValue(attribute));
        app->SetJob(job);
        app->SetTransport(t);
        node->AddApplication(app);
        Simulator::Run();
        const uint64_t m = t->GetDeliveredMessages();
        app->Dispose();
        Simulator::Destroy();
        return m;
    }

    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(Messages(0, 0), 2u * 2 * 2, "NCCL's default: 2 channels");
        NS_TEST_ASSERT_MSG_EQ(Messages(5, 0), 5u * 2 * 2, "collectives.channels 5");
        NS_TEST_ASSERT_MSG_EQ(Messages(5, 3), 3u * 2 * 2, "NcclChannels 3 overrides");
    }
};

/**
 * A user's all-reduce, registered from this test without touching the library: every member
 * sends its whole buffer to every other member and reduces locally ("direct"), N (N−1)
 * messages of S bytes.
 */
class TestDirectAllReduce : public CollectiveAlgorithm
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestDirectAllReduce")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("Crux")
                                .AddConstructor<TestDirectAllReduce>();
        return tid;
    }

    CollectiveNodes AllReduce(CommDag& dag,
                              const std::vector<uint32_t>& members,
                              uint64_t bytes,
                              const CommDag::NodeList& ready) const override
    {
        const size_t n = members.size();
        std::vector<CommDag::NodeList> received(n);
        for (size_t i = 0; i < n; ++i)
        {
            const uint32_t stream = dag.NewStream();
            for (size_t j = 0; j < n; ++j)
            {
                if (j != i)
                {
                    received[j].push_back(dag.AddMessage(members[i],
                                                         members[j],
                                                         bytes,
                                                         stream,
                                                         {ready.empty()       ? CommDag::NONE
                                                          : ready.size() == 1 ? ready[0]
                                                                              : ready[i]}));
                }
            }
        }
        CollectiveNodes out;
        for (size_t j = 0; j < n; ++j)
        {
            out.rankDone.push_back(dag.AddBarrier(received[j]));
        }
        return out;
    }
};

/**
 * Collective algorithms are TypeIds chosen by name: a user algorithm registered here is a valid
 * plan name, builds its own DAG (bytes of its closed form), runs a planned job on the flow
 * fabric (its messages delivered), and keeps the default reduce-scatter / all-gather (NCCL's
 * channel ring); the built-in names map to their TypeIds; bad registrations are refused.
 */
class UserCollectiveAlgorithmTestCase : public TestCase
{
  public:
    UserCollectiveAlgorithmTestCase()
        : TestCase("a collective algorithm registered by TypeId from a test runs a planned job")
    {
    }

  private:
    void DoRun() override
    {
        // registered once per process (the test runner may run the case again)
        const auto names0 = AllReduceAlgorithmNames();
        if (std::find(names0.begin(), names0.end(), "test-direct") == names0.end())
        {
            RegisterCollectiveAlgorithm("test-direct", TestDirectAllReduce::GetTypeId());
        }
        const auto names = AllReduceAlgorithmNames();
        NS_TEST_ASSERT_MSG_EQ(names.front(), "nccl", "built-ins first");
        NS_TEST_ASSERT_MSG_EQ(names.back(), "test-direct", "registered last");
        NS_TEST_ASSERT_MSG_EQ(AllReduceAlgorithmTypeId("ring"), "ns3::NcclRingAllReduce", "ring");
        NS_TEST_ASSERT_MSG_EQ(AllReduceAlgorithmTypeId(""), "ns3::NcclAllReduce", "default");
        NS_TEST_ASSERT_MSG_EQ(AllReduceAlgorithmTypeId("nope"), "", "unknown");
        bool threw = false;
        try
        {
            RegisterCollectiveAlgorithm("test-direct", TestDirectAllReduce::GetTypeId());
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "a name is registered once");
        threw = false;
        try
        {
            RegisterCollectiveAlgorithm("not-a-collective", FlowTransport::GetTypeId());
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "a TypeId that is no CollectiveAlgorithm is refused");
        threw = false;
        try
        {
            Collectives::AllReduce(*std::make_shared<CommDag>(Gpus(2, 1)), All(2), 8, "nope", {});
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "an unknown name is refused");

        // its DAG: (N−1) S sent per rank; the family's reduce-scatter is NCCL's channel ring
        const uint32_t n = 4;
        const uint64_t s = 1u << 20;
        auto dag = std::make_shared<CommDag>(Gpus(n, 1));
        Collectives::AllReduce(*dag, All(n), s, "test-direct", {});
        dag->Finalize();
        for (uint64_t b : dag->BytesSentByRank())
        {
            NS_TEST_ASSERT_MSG_EQ(b, (n - 1) * s, "direct: (N-1) S per rank");
        }
        auto rs = std::make_shared<CommDag>(Gpus(n, 1));
        auto ring = std::make_shared<CommDag>(Gpus(n, 1));
        Collectives::ReduceScatter(*rs, All(n), s, "test-direct", {});
        Collectives::ChannelRingReduceScatter(*ring, All(n), s, {});
        rs->Finalize();
        ring->Finalize();
        NS_TEST_ASSERT_MSG_EQ((rs->BytesSentByRank() == ring->BytesSentByRank()),
                              true,
                              "default reduce-scatter = the channel ring");

        // a planned job (dp 3, one bucket) names it: 3 x 2 messages per iteration delivered
        DltJob job = DltJob::FromModel(5, "gpt3-1.3b", Gpus(3, 1));
        ParallelismRequest req;
        req.tp = 1;
        req.pp = 1;
        req.dp = 3;
        req.allReduce = "test-direct";
        job.ApplyPlan(req);
        NS_TEST_ASSERT_MSG_EQ(job.plan->allReduce, "test-direct", "the plan keeps the name");
        job.numBuckets = 1;
        job.iterations = 2;
        job.computeTime = 0.001;
        Ptr<FlowTransport> t = Star(3, 1, 100e9, MicroSeconds(1), 2400e9, MicroSeconds(1));
        Ptr<Node> node = CreateObject<Node>();
        Ptr<DltJobApplication> app = CreateObject<DltJobApplication>();
        app->SetJob(job);
        app->SetTransport(t);
        node->AddApplication(app);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(t->GetDeliveredMessages(), 2u * 3 * 2, "2 iterations x 3 x 2");
        NS_TEST_ASSERT_MSG_EQ(app->GetCompletedIterations(), 2u, "both iterations complete");
        app->Dispose();
        Simulator::Destroy();
    }
};

/// The NCCL collectives test suite.
class NcclCollectivesTestSuite : public TestSuite
{
  public:
    NcclCollectivesTestSuite()
        : TestSuite("crux-nccl", UNIT)
    {
        AddTestCase(new ChannelRingNicsTestCase, TestCase::QUICK);
        AddTestCase(new ChannelRingFlowFormTestCase, TestCase::QUICK);
        AddTestCase(new PipelinedClosedFormTestCase, TestCase::QUICK);
        AddTestCase(new NcclPacketVsFlowTestCase, TestCase::QUICK);
        AddTestCase(new NcclChoiceOnTheWireTestCase, TestCase::QUICK);
        AddTestCase(new NcclChannelsOfAJobTestCase, TestCase::QUICK);
        AddTestCase(new UserCollectiveAlgorithmTestCase, TestCase::QUICK);
    }
};

static NcclCollectivesTestSuite g_ncclCollectivesTestSuite; //!< registers the suite
