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

// Tests of the flow-level transport (suite "crux-flow"): max-min fair sharing inside a traffic
// class, strict priority between classes, the classic two-link max-min example, per-connection
// message order, intra-host messages, per-link byte counters, agreement with the packet-level
// RdmaTransport on a small Clos (completion time and ECMP path), and a DLT job run on it.

#include "crux-test-util.h"

#include "ns3/boolean.h"
#include "ns3/crux-compat.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/crux-topology.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job.h"
#include "ns3/flow-transport-helper.h"
#include "ns3/flow-transport.h"
#include "ns3/node.h"
#include "ns3/qbb-net-device.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

/**
 * A FlowTransport on a hand-made link set: `hosts` one-GPU hosts, the given links, and a
 * resolver that maps a connection's flowId to paths[flowId] (the hosts do not matter). Pure
 * fluid (PacketPayload 0), so completion times are bytes × 8 / rate + link delays.
 */
Ptr<FlowTransport>
MakeFluid(uint32_t hosts,
          const std::vector<std::pair<double, double>>& links, // (bit/s, delay in µs)
          const std::vector<std::vector<uint32_t>>& paths)
{
    Ptr<FlowTransport> t = CreateObject<FlowTransport>();
    t->SetAttribute("PacketPayload", UintegerValue(0));
    for (uint32_t h = 0; h < hosts; ++h)
    {
        t->AddHost(h, 1);
    }
    for (const auto& [rate, delayUs] : links)
    {
        t->AddLink(DataRate(static_cast<uint64_t>(rate)), MicroSeconds(delayUs));
    }
    t->SetPathResolver(
        crux::MakeFunctorCallback([paths](const RdmaQpKey& key, uint16_t) -> std::vector<uint32_t> {
            return paths.at(key.flowId);
        }));
    return t;
}

/// Records completion times of messages by an integer tag.
struct Completions
{
    std::map<uint32_t, double> at; //!< tag → completion time, seconds

    /// \return a callback storing Now() under \p tag \param tag tag
    Callback<void> Make(uint32_t tag)
    {
        return crux::MakeFunctorCallback<void>(
            [this, tag]() { at[tag] = Simulator::Now().GetSeconds(); });
    }
};

constexpr double US = 1e-6; //!< one microsecond in seconds
constexpr double NS = 1e-9; //!< one nanosecond in seconds

} // namespace

// ================================================================================== (a) sharing

/// Two flows of one TC on one bottleneck get half the rate each; rates are recomputed when one
/// leaves; per-link byte counters; MessageComplete trace.
class FairShareTestCase : public TestCase
{
  public:
    FairShareTestCase()
        : TestCase("(a) two flows on one bottleneck share it equally; rate recomputed on departure")
    {
    }

  private:
    void DoRun() override
    {
        // links: 0 = host0 uplink, 1 = host1 uplink, 2 = shared downlink to host2; 100 Gbit/s
        const double c = 100e9;
        Ptr<FlowTransport> t = MakeFluid(3, {{c, 1}, {c, 1}, {c, 1}}, {{0, 2}, {1, 2}});
        Completions done;
        const uint64_t a = 1000000;
        const uint64_t b = 2000000;
        t->Send(Req(1, 0, Gpu(0, 0), Gpu(2, 0), a), done.Make(0));
        t->Send(Req(1, 1, Gpu(1, 0), Gpu(2, 0), b), done.Make(1));
        std::vector<std::vector<double>> traced;
        t->TraceConnectWithoutContext(
            "MessageComplete",
            crux::MakeFunctorCallback<void, uint32_t, uint32_t, uint64_t, Time, Time>(
                [&traced](uint32_t job, uint32_t flow, uint64_t bytes, Time s, Time e) {
                    traced.push_back(
                        {double(job), double(flow), double(bytes), s.GetSeconds(), e.GetSeconds()});
                }));
        double rateA = -1;
        double rateB = -1;
        uint64_t midBytes = 0;
        uint32_t midActive = 0;
        crux::Schedule(MicroSeconds(80), [&]() {
            rateA = t->GetFlowRate(Key(1, 0, Gpu(0, 0), Gpu(2, 0)));
            rateB = t->GetFlowRate(Key(1, 1, Gpu(1, 0), Gpu(2, 0)));
            midBytes = t->GetLinkBytes(2, 0);
            midActive = t->GetNActiveFlows();
        });
        Simulator::Run();

        // hand-computed: both at c/2 until A is done, then B alone at c
        const double tA = a * 8.0 / (c / 2);      // 160 µs
        const double tB = tA + (b - a) * 8.0 / c; // + 80 µs
        const double delay = 2 * US;              // two links of 1 µs
        std::cout << "[crux-flow] (a) A done " << done.at[0] / US << " us (expected "
                  << (tA + delay) / US << "), B done " << done.at[1] / US << " us (expected "
                  << (tB + delay) / US << ")" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(rateA, c / 2, 1e-6 * c, "A gets half the bottleneck");
        NS_TEST_ASSERT_MSG_EQ_TOL(rateB, c / 2, 1e-6 * c, "B gets half the bottleneck");
        NS_TEST_ASSERT_MSG_EQ(midActive, 2, "two flows in transfer");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(midBytes), 2 * 80 * US * c / 2 / 8, 2, "rate x time");
        NS_TEST_ASSERT_MSG_EQ_TOL(done.at[0], tA + delay, NS, "A: a*8/(c/2) + delays");
        NS_TEST_ASSERT_MSG_EQ_TOL(done.at[1], tB + delay, NS, "B: full rate after A left");
        NS_TEST_ASSERT_MSG_EQ(t->GetLinkBytes(2, 0), a + b, "shared link carried both, TC 0");
        NS_TEST_ASSERT_MSG_EQ(t->GetLinkBytes(0, 0), a, "A's uplink");
        NS_TEST_ASSERT_MSG_EQ(t->GetLinkBytes(1, 0), b, "B's uplink");
        NS_TEST_ASSERT_MSG_EQ(t->GetLinkBytes(2), a + b, "all TCs");
        NS_TEST_ASSERT_MSG_EQ(t->GetLinkBytes(2, 7), 0, "nothing in TC 7");
        NS_TEST_ASSERT_MSG_EQ(t->GetDeliveredMessages(), 2, "2 messages");
        NS_TEST_ASSERT_MSG_EQ(t->GetNActiveFlows(), 0, "all done");
        NS_TEST_ASSERT_MSG_EQ(traced.size(), 2, "MessageComplete twice");
        NS_TEST_ASSERT_MSG_EQ(traced[0][1], 0, "A first");
        NS_TEST_ASSERT_MSG_EQ(traced[0][2], double(a), "traced bytes");
        NS_TEST_ASSERT_MSG_EQ(traced[0][3], 0, "traced start = Send time");
        NS_TEST_ASSERT_MSG_EQ_TOL(traced[1][4], done.at[1], 1e-15, "traced end = delivery");
        Simulator::Destroy();
    }
};

// ============================================================================ (b) priority

/// Strict priority: a TC 7 flow takes what it can use, a TC 0 flow gets only the residual.
class PriorityTestCase : public TestCase
{
  public:
    PriorityTestCase()
        : TestCase("(b) strict priority: the low-TC flow gets only the residual capacity")
    {
    }

  private:
    void DoRun() override
    {
        // Part 1. high flow H (TC 7) limited to 40 Gbit/s by its uplink (link 0); low flow L
        // (TC 0) on a 100 Gbit/s uplink (link 1); both cross the 100 Gbit/s link 2.
        {
            Ptr<FlowTransport> t =
                MakeFluid(3, {{40e9, 1}, {100e9, 1}, {100e9, 1}}, {{0, 2}, {1, 2}});
            Completions done;
            const uint64_t h = 1000000;
            const uint64_t l = 3000000;
            t->Send(Req(1, 0, Gpu(0, 0), Gpu(2, 0), h, 56), done.Make(0)); // DSCP 56 → TC 7
            t->Send(Req(1, 1, Gpu(1, 0), Gpu(2, 0), l, 0), done.Make(1));
            double rH = -1;
            double rL = -1;
            uint64_t tc7 = 0;
            uint64_t tc0 = 0;
            crux::Schedule(MicroSeconds(100), [&]() {
                rH = t->GetFlowRate(Key(1, 0, Gpu(0, 0), Gpu(2, 0)));
                rL = t->GetFlowRate(Key(1, 1, Gpu(1, 0), Gpu(2, 0)));
                tc7 = t->GetLinkBytes(2, 7);
                tc0 = t->GetLinkBytes(2, 0);
            });
            Simulator::Run();
            const double tH = h * 8.0 / 40e9;                 // 200 µs
            const double sentL = 60e9 * tH / 8;               // 1.5 MB at the residual
            const double tL = tH + (l - sentL) * 8.0 / 100e9; // then alone at 100G
            std::cout << "[crux-flow] (b) high " << done.at[0] / US << " us, low "
                      << done.at[1] / US << " us (expected " << (tH + 2 * US) / US << ", "
                      << (tL + 2 * US) / US << ")" << std::endl;
            NS_TEST_ASSERT_MSG_EQ_TOL(rH, 40e9, 1, "high class limited by its own uplink");
            NS_TEST_ASSERT_MSG_EQ_TOL(rL, 60e9, 1, "low class gets the residual 60 Gbit/s");
            NS_TEST_ASSERT_MSG_EQ_TOL(double(tc7), 40e9 * 100 * US / 8, 1, "TC 7 bytes at 100 us");
            NS_TEST_ASSERT_MSG_EQ_TOL(double(tc0), 60e9 * 100 * US / 8, 1, "TC 0 bytes at 100 us");
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[0], tH + 2 * US, NS, "high: h*8/40G + delays");
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[1], tL + 2 * US, NS, "low: residual, then all");
            NS_TEST_ASSERT_MSG_EQ(t->GetLinkBytes(2, 7), h, "TC 7 bytes on the shared link");
            NS_TEST_ASSERT_MSG_EQ(t->GetLinkBytes(2, 0), l, "TC 0 bytes on the shared link");
            Simulator::Destroy();
        }
        // Part 2. both on the same 100 Gbit/s links: the low flow is starved, then runs at
        // full rate; a TC 3 flow arriving later preempts the TC 0 flow at once.
        {
            Ptr<FlowTransport> t = MakeFluid(2, {{100e9, 1}}, {{0}, {0}, {0}});
            Completions done;
            t->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), 1000000, 63), done.Make(0)); // TC 7
            t->Send(Req(1, 1, Gpu(0, 0), Gpu(1, 0), 1000000, 0), done.Make(1));  // TC 0
            crux::Schedule(MicroSeconds(100), [&]() {
                t->Send(Req(1, 2, Gpu(0, 0), Gpu(1, 0), 250000, 24), // TC 3
                        done.Make(2));
            });
            double starved = -1;
            crux::Schedule(MicroSeconds(40),
                           [&]() { starved = t->GetFlowRate(Key(1, 1, Gpu(0, 0), Gpu(1, 0))); });
            Simulator::Run();
            // TC 7: 0-80 µs; TC 0: 80-100 µs (250 kB), TC 3: 100-120 µs, TC 0: 120-180 µs
            NS_TEST_ASSERT_MSG_EQ(starved, 0, "TC 0 starved while TC 7 fills the link");
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[0], 81 * US, NS, "TC 7 alone at line rate");
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[2], 121 * US, NS, "TC 3 preempts TC 0");
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[1], 181 * US, NS, "TC 0 finishes last");
            NS_TEST_ASSERT_MSG_EQ(t->DscpToTc(24), 3, "DSCP 24 -> TC 3 (DSCP >> 3)");
            Simulator::Destroy();
        }
    }
};

// ======================================================================= (c) classic max-min

/// Three flows on two links: f1 crosses both, f2 only link a, f3 only link b.
class MaxMinTestCase : public TestCase
{
  public:
    MaxMinTestCase()
        : TestCase("(c) max-min on two links: f1 on a+b, f2 on a, f3 on b; a 60G, b 100G")
    {
    }

  private:
    void DoRun() override
    {
        // link a: 60 Gbit/s, 1 µs; link b: 100 Gbit/s, 2 µs.
        // max-min: a is the bottleneck (30 + 30), f3 gets b's residual 70.
        Ptr<FlowTransport> t = MakeFluid(4, {{60e9, 1}, {100e9, 2}}, {{0, 1}, {0}, {1}});
        Completions done;
        const uint64_t b1 = 750000;  // 200 µs at 30G
        const uint64_t b2 = 1500000; // 750 kB at 30G, then 750 kB at 60G (100 µs)
        const uint64_t b3 = 3500000; // 1.75 MB at 70G, then 1.75 MB at 100G (140 µs)
        t->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), b1), done.Make(1));
        t->Send(Req(1, 1, Gpu(0, 0), Gpu(2, 0), b2), done.Make(2));
        t->Send(Req(1, 2, Gpu(2, 0), Gpu(3, 0), b3), done.Make(3));
        std::vector<double> r(3, -1);
        uint64_t aBytes = 0;
        uint64_t bBytes = 0;
        crux::Schedule(MicroSeconds(100), [&]() {
            r[0] = t->GetFlowRate(Key(1, 0, Gpu(0, 0), Gpu(1, 0)));
            r[1] = t->GetFlowRate(Key(1, 1, Gpu(0, 0), Gpu(2, 0)));
            r[2] = t->GetFlowRate(Key(1, 2, Gpu(2, 0), Gpu(3, 0)));
            aBytes = t->GetLinkBytes(0, 0);
            bBytes = t->GetLinkBytes(1, 0);
        });
        Simulator::Run();
        // hand computation
        const double r1 = 60e9 / 2;
        const double r3 = 100e9 - r1;
        const double t1 = b1 * 8.0 / r1;
        const double t2 = t1 + (b2 - r1 * t1 / 8) * 8.0 / 60e9;
        const double t3 = t1 + (b3 - r3 * t1 / 8) * 8.0 / 100e9;
        std::cout << "[crux-flow] (c) rates " << r[0] / 1e9 << "/" << r[1] / 1e9 << "/"
                  << r[2] / 1e9 << " Gbit/s; done " << done.at[1] / US << ", " << done.at[2] / US
                  << ", " << done.at[3] / US << " us" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(r[0], r1, 1, "f1 = a/2");
        NS_TEST_ASSERT_MSG_EQ_TOL(r[1], r1, 1, "f2 = a/2");
        NS_TEST_ASSERT_MSG_EQ_TOL(r[2], r3, 1, "f3 = b - a/2");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(aBytes), 60e9 * 100 * US / 8, 2, "link a full");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(bBytes), 100e9 * 100 * US / 8, 2, "link b full");
        NS_TEST_ASSERT_MSG_EQ_TOL(done.at[1], t1 + 3 * US, NS, "f1 (a + b delays)");
        NS_TEST_ASSERT_MSG_EQ_TOL(done.at[2], t2 + 1 * US, NS, "f2 speeds up to 60G after f1");
        NS_TEST_ASSERT_MSG_EQ_TOL(done.at[3], t3 + 2 * US, NS, "f3 speeds up to 100G after f1");
        NS_TEST_ASSERT_MSG_EQ(t->GetLinkBytes(0, 0), b1 + b2, "link a bytes");
        NS_TEST_ASSERT_MSG_EQ(t->GetLinkBytes(1, 0), b1 + b3, "link b bytes");
        NS_TEST_ASSERT_MSG_EQ(t->GetRateComputations(),
                              4,
                              "3 arrivals at one instant coalesced + 3 departures");
        Simulator::Destroy();
    }
};

// ================================================================ max-min property, random

/// Random flow sets on a Clos: the allocation is feasible, and every flow has a bottleneck link
/// (saturated by its own and higher classes, where no flow of its class has a larger rate): the
/// definition of max-min fairness inside a class under strict priority.
class MaxMinPropertyTestCase : public TestCase
{
  public:
    MaxMinPropertyTestCase()
        : TestCase("random flows on a Clos: feasibility and the max-min bottleneck property")
    {
    }

  private:
    void DoRun() override
    {
        ClosConfig cfg = SmallClosConfig();
        cfg.tors = 4;
        cfg.aggs = 2;
        cfg.hostsPerTor = 4;
        cfg.gpusPerHost = 2;
        cfg.torAggBps = 50e9; // oversubscribed: fabric bottlenecks too
        Ptr<UniformRandomVariable> rv = CreateObject<UniformRandomVariable>();
        rv->SetStream(42);
        for (uint32_t round = 0; round < 5; ++round)
        {
            CruxTopologyHelper th;
            Ptr<CruxTopology> topo = th.BuildClos(cfg);
            Ptr<FlowTransport> t = FlowTransportHelper().Install(topo);
            const uint32_t hosts = topo->GetNHosts();
            std::vector<MessageRequest> reqs;
            for (uint32_t i = 0; i < 60 + 30 * round; ++i)
            {
                const uint32_t sh = rv->GetInteger(0, hosts - 1);
                const uint32_t dh = (sh + rv->GetInteger(1, hosts - 1)) % hosts;
                reqs.push_back(Req(round,
                                   i,
                                   Gpu(sh, rv->GetInteger(0, 1)),
                                   Gpu(dh, rv->GetInteger(0, 1)),
                                   1000000 + rv->GetInteger(0, 1000000),
                                   static_cast<uint8_t>(8 * rv->GetInteger(0, 3)),
                                   static_cast<uint16_t>(rv->GetInteger(49152, 65535))));
                t->Send(reqs.back(), Callback<void>());
            }
            uint32_t violations = 0;
            uint32_t overloads = 0;
            uint32_t starved = 0;
            crux::Schedule(NanoSeconds(1), [&]() {
                std::vector<double> rate(reqs.size());
                std::vector<std::vector<uint32_t>> path(reqs.size());
                std::vector<uint8_t> tc(reqs.size());
                std::map<uint32_t, std::vector<size_t>> onLink;
                for (size_t i = 0; i < reqs.size(); ++i)
                {
                    const RdmaQpKey k = RdmaQpKey::FromRequest(reqs[i]);
                    rate[i] = t->GetFlowRate(k);
                    path[i] = t->GetPath(k);
                    tc[i] = t->DscpToTc(reqs[i].dscp);
                    starved += rate[i] == 0 ? 1 : 0;
                    for (uint32_t l : path[i])
                    {
                        onLink[l].push_back(i);
                    }
                }
                for (const auto& [l, fs] : onLink)
                {
                    double sum = 0;
                    for (size_t i : fs)
                    {
                        sum += rate[i];
                    }
                    const double cap = t->GetLinkRate(l).GetBitRate();
                    overloads += sum > cap * (1 + 1e-9) ? 1 : 0;
                }
                for (size_t i = 0; i < reqs.size(); ++i)
                {
                    bool bottleneck = false;
                    for (uint32_t l : path[i])
                    {
                        double used = 0; // by this class and higher ones
                        bool largest = true;
                        for (size_t j : onLink[l])
                        {
                            used += tc[j] >= tc[i] ? rate[j] : 0;
                            largest =
                                largest && !(tc[j] == tc[i] && rate[j] > rate[i] * (1 + 1e-9));
                        }
                        const double cap = t->GetLinkRate(l).GetBitRate();
                        bottleneck = bottleneck || (largest && used >= cap * (1 - 1e-9));
                    }
                    violations += bottleneck ? 0 : 1;
                }
            });
            Simulator::Run();
            std::cout << "[crux-flow] max-min property, " << reqs.size() << " flows: " << violations
                      << " without bottleneck, " << overloads << " overloaded links, " << starved
                      << " starved flows" << std::endl;
            NS_TEST_ASSERT_MSG_EQ(overloads, 0, "no link above capacity");
            NS_TEST_ASSERT_MSG_EQ(violations, 0, "every flow has a bottleneck link");
            NS_TEST_ASSERT_MSG_EQ(t->GetDeliveredMessages(), reqs.size(), "all delivered");
            Simulator::Destroy();
        }
    }
};

// ====================================================== connection order, intra-host, framing

/// Messages of one connection are carried one at a time; intra-host messages mirror
/// RdmaTransport; wire bytes and store-and-forward latency of the packet framing.
class ConnectionAndIntraHostTestCase : public TestCase
{
  public:
    ConnectionAndIntraHostTestCase()
        : TestCase("connection FIFO, intra-host NVLink alpha-beta, packet framing and latency")
    {
    }

  private:
    void DoRun() override
    {
        // FIFO on one connection vs two connections
        {
            Ptr<FlowTransport> t = MakeFluid(2, {{100e9, 1}}, {{0}, {0}});
            Completions done;
            t->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), 1000000), done.Make(0));
            t->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), 1000000), done.Make(1)); // same connection
            t->Send(Req(1, 1, Gpu(0, 0), Gpu(1, 0), 1000000), done.Make(2)); // another one
            Simulator::Run();
            // 0 and 2 share the link (50G each) for 160 µs, then message 1 runs alone for 80
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[0], 161 * US, NS, "first message of connection 0");
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[2], 161 * US, NS, "connection 1 in parallel");
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[1], 241 * US, NS, "second message waits its turn");
            Simulator::Destroy();
        }
        // intra-host: same times as RdmaTransport's NVLink model (TransportApiTestCase values)
        {
            Ptr<FlowTransport> t = CreateObject<FlowTransport>();
            t->AddHost(0, 8);
            t->SetAttribute("IntraHostRate", DataRateValue(DataRate("2400Gb/s")));
            t->SetAttribute("IntraHostLatency", TimeValue(MicroSeconds(1)));
            Completions done;
            const uint64_t mb = 1000000;
            t->Send(Req(1, 0, Gpu(0, 0), Gpu(0, 1), mb), done.Make(0));
            t->Send(Req(1, 1, Gpu(0, 0), Gpu(0, 2), mb), done.Make(1));
            t->Send(Req(1, 2, Gpu(0, 3), Gpu(0, 2), mb), done.Make(2));
            Simulator::Run();
            const double one = 8.0 * mb / 2.4e12;
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[0], one + 1 * US, NS, "alpha + bytes / rate");
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[1], 2 * one + 1 * US, NS, "same GPU serializes");
            NS_TEST_ASSERT_MSG_EQ_TOL(done.at[2], one + 1 * US, NS, "other GPU in parallel");
            NS_TEST_ASSERT_MSG_EQ(t->GetIntraHostMessages(), 3, "3 NVLink messages");
            NS_TEST_ASSERT_MSG_EQ(t->GetDeliveredMessages(), 0, "no network message");
            Simulator::Destroy();
        }
        // framing: 4096-byte packets, 62 header bytes, 20 gap bytes, 64-byte minimum frame
        {
            Ptr<FlowTransport> t = CreateObject<FlowTransport>();
            NS_TEST_ASSERT_MSG_EQ(t->GetWireBytes(4096), 4096 + 82, "one full packet");
            NS_TEST_ASSERT_MSG_EQ(t->GetWireBytes(10000),
                                  2 * (4096 + 82) + (10000 - 2 * 4096 + 82),
                                  "two full packets and a short one");
            NS_TEST_ASSERT_MSG_EQ(t->GetWireBytes(1), 64 + 20, "padded minimum frame");
            t->AddLink(DataRate("100Gb/s"), MicroSeconds(1));
            t->AddLink(DataRate("50Gb/s"), MicroSeconds(2));
            t->AddLink(DataRate("100Gb/s"), MicroSeconds(1));
            // store-and-forward: first packet serialized on every link, minus the slowest one
            const double ser100 = (4096 + 82) * 8.0 / 100e9;
            NS_TEST_ASSERT_MSG_EQ_TOL(t->GetPathLatency({0, 1, 2}, 1000000).GetSeconds(),
                                      4 * US + 2 * ser100,
                                      NS,
                                      "delays + pipeline latency");
            t->SetAttribute("StoreAndForward", BooleanValue(false));
            NS_TEST_ASSERT_MSG_EQ_TOL(t->GetPathLatency({0, 1, 2}, 1000000).GetSeconds(),
                                      4 * US,
                                      NS,
                                      "delays only");
            t->SetAttribute("PacketPayload", UintegerValue(0));
            NS_TEST_ASSERT_MSG_EQ(t->GetWireBytes(10000), 10000, "fluid: no framing");
            Simulator::Destroy();
        }
    }
};

// ============================================================== (d) packet level vs flow level

namespace
{

/// Small Clos of test (d): 2 ToRs, 2 aggs, 2 one-NIC hosts per ToR, 100 Gbit/s, 1 µs.
ClosConfig
SmallClos()
{
    ClosConfig cfg = SmallClosConfig();
    cfg.tors = 2;
    cfg.aggs = 2;
    cfg.hostsPerTor = 2;
    cfg.nicsPerHost = 1;
    cfg.gpusPerHost = 1;
    return cfg;
}

/// Result of one run.
struct RunResult
{
    std::vector<double> done;                     //!< completion time per request, seconds
    std::vector<std::vector<uint32_t>> flowPaths; //!< flow level: path per request
    std::vector<uint32_t> packetLinks;            //!< packet level: links with data frames
    std::vector<std::vector<uint32_t>> predicted; //!< packet level: PredictPath(5-tuple)
};

/// Run \p reqs (all sent at time 0) on the packet-level RdmaTransport of a fresh SmallClos.
RunResult
RunPacket(const std::vector<MessageRequest>& reqs)
{
    RunResult r;
    r.done.assign(reqs.size(), -1);
    CruxTopologyHelper th;
    Ptr<CruxTopology> topo = th.BuildClos(SmallClos());
    // No congestion control: the fluid model shares links max-min fairly at line rate, which is
    // what PFC-backed line-rate senders do; DCQCN's rate dynamics are tested in crux-cc.
    RdmaTransportHelper rh;
    rh.SetCongestionControl("none");
    Ptr<RdmaTransport> t = rh.Install(topo);
    std::vector<uint64_t> dataFrames(topo->GetNLinks(), 0);
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        topo->GetLink(l).txDev->TraceConnectWithoutContext(
            "MacTx",
            crux::MakeFunctorCallback<void, Ptr<const Packet>, uint8_t>(
                [&dataFrames, l](Ptr<const Packet>, uint8_t tc) {
                    if (tc != QbbNetDevice::CONTROL_CLASS) // ACKs use the control class
                    {
                        ++dataFrames[l];
                    }
                }));
    }
    for (size_t i = 0; i < reqs.size(); ++i)
    {
        t->Send(reqs[i], crux::MakeFunctorCallback<void>([&r, i]() {
                    r.done[i] = Simulator::Now().GetSeconds();
                }));
    }
    Simulator::Run();
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        if (dataFrames[l] > 0)
        {
            r.packetLinks.push_back(l);
        }
    }
    for (const MessageRequest& q : reqs)
    {
        r.predicted.push_back(topo->PredictPath(t->GetFiveTuple(RdmaQpKey::FromRequest(q))));
    }
    Simulator::Destroy();
    return r;
}

/// Run \p reqs (all sent at time 0) on the FlowTransport of a fresh SmallClos.
/// \param fluid true: PacketPayload 0 (no framing overhead, no store-and-forward latency)
RunResult
RunFlow(const std::vector<MessageRequest>& reqs, bool fluid = false)
{
    RunResult r;
    r.done.assign(reqs.size(), -1);
    CruxTopologyHelper th;
    Ptr<CruxTopology> topo = th.BuildClos(SmallClos());
    FlowTransportHelper fh;
    if (fluid)
    {
        fh.SetTransportAttribute("PacketPayload", UintegerValue(0));
    }
    Ptr<FlowTransport> t = fh.Install(topo);
    for (size_t i = 0; i < reqs.size(); ++i)
    {
        t->Send(reqs[i], crux::MakeFunctorCallback<void>([&r, i]() {
                    r.done[i] = Simulator::Now().GetSeconds();
                }));
        r.flowPaths.push_back(t->GetPath(RdmaQpKey::FromRequest(reqs[i])));
    }
    Simulator::Run();
    Simulator::Destroy();
    return r;
}

} // namespace

/// The same messages at packet level and flow level on a small Clos: same ECMP path, completion
/// times within a few percent.
class PacketVsFlowTestCase : public TestCase
{
  public:
    PacketVsFlowTestCase()
        : TestCase("(d) small Clos: RdmaTransport vs FlowTransport, same path, time gap < 5%")
    {
    }

  private:
    void DoRun() override
    {
        // single cross-ToR messages of several sizes, default (hashed) source port
        for (uint64_t bytes : {uint64_t(64 * 1024), uint64_t(1000000), uint64_t(10000000)})
        {
            const std::vector<MessageRequest> reqs{Req(3, 5, Gpu(0, 0), Gpu(2, 0), bytes)};
            const RunResult p = RunPacket(reqs);
            const RunResult f = RunFlow(reqs);
            const RunResult fluid = RunFlow(reqs, true);
            const double gap = std::abs(f.done[0] - p.done[0]) / p.done[0];
            const double fluidGap = std::abs(fluid.done[0] - p.done[0]) / p.done[0];
            std::cout << "[crux-flow] (d) " << bytes << " B host0->host2: packet " << p.done[0] / US
                      << " us, flow " << f.done[0] / US << " us, gap " << 100 * gap
                      << " % (pure fluid, no framing: " << fluid.done[0] / US << " us, gap "
                      << 100 * fluidGap << " %)" << std::endl;
            NS_TEST_ASSERT_MSG_GT(p.done[0], 0, "packet run delivered");
            NS_TEST_ASSERT_MSG_GT(f.done[0], 0, "flow run delivered");
            NS_TEST_ASSERT_MSG_EQ(f.flowPaths[0].size(), 4, "cross-ToR: 4 links");
            NS_TEST_ASSERT_MSG_EQ((f.flowPaths[0] == p.predicted[0]),
                                  true,
                                  "flow path = PredictPath of RdmaTransport's 5-tuple");
            std::vector<uint32_t> sorted = f.flowPaths[0];
            std::sort(sorted.begin(), sorted.end());
            NS_TEST_ASSERT_MSG_EQ((sorted == p.packetLinks),
                                  true,
                                  "flow path = links the packets actually crossed");
            if (bytes >= 1000000)
            {
                NS_TEST_ASSERT_MSG_LT(gap, 0.05, "packet vs flow gap < 5% for " << bytes << " B");
            }
        }

        // steering: one explicit port per equal-cost path; both transports follow it
        CruxTopologyHelper th;
        Ptr<CruxTopology> topo = th.BuildClos(SmallClos());
        const std::vector<CruxPath> eq = topo->GetEqualCostPaths(0, 0, 2, 0);
        NS_TEST_ASSERT_MSG_EQ(eq.size(), 2, "two equal-cost paths via the two aggs");
        std::vector<uint16_t> ports;
        for (const CruxPath& path : eq)
        {
            ports.push_back(topo->FindUdpSourcePort(topo->GetNicAddress(0, 0),
                                                    topo->GetNicAddress(2, 0),
                                                    path));
        }
        // second flow host1 -> host3 forced through the same agg as eq[0]: they share links
        const uint32_t agg = topo->GetLink(eq[0][1]).to.index;
        CruxPath shared;
        for (const CruxPath& path : topo->GetEqualCostPaths(1, 0, 3, 0))
        {
            if (topo->GetLink(path[1]).to.index == agg)
            {
                shared = path;
            }
        }
        const uint16_t port13 =
            topo->FindUdpSourcePort(topo->GetNicAddress(1, 0), topo->GetNicAddress(3, 0), shared);
        Simulator::Destroy();

        for (size_t k = 0; k < eq.size(); ++k)
        {
            const std::vector<MessageRequest> reqs{
                Req(3, 6, Gpu(0, 0), Gpu(2, 0), 1000000, 0, ports[k])};
            const RunResult p = RunPacket(reqs);
            const RunResult f = RunFlow(reqs);
            NS_TEST_ASSERT_MSG_EQ((f.flowPaths[0] == eq[k]),
                                  true,
                                  "flow follows steered path " << k);
            std::vector<uint32_t> sorted = eq[k];
            std::sort(sorted.begin(), sorted.end());
            NS_TEST_ASSERT_MSG_EQ((sorted == p.packetLinks), true, "packets follow path " << k);
        }

        // two 4 MB flows sharing the ToR0 -> agg and agg -> ToR1 links: 50 Gbit/s each
        const uint64_t big = 4000000;
        const std::vector<MessageRequest> two{Req(4, 0, Gpu(0, 0), Gpu(2, 0), big, 0, ports[0]),
                                              Req(4, 1, Gpu(1, 0), Gpu(3, 0), big, 0, port13)};
        const RunResult p = RunPacket(two);
        const RunResult f = RunFlow(two);
        NS_TEST_ASSERT_MSG_EQ(f.flowPaths[0][1], f.flowPaths[1][1], "same ToR->agg link");
        NS_TEST_ASSERT_MSG_EQ(f.flowPaths[0][2], f.flowPaths[1][2], "same agg->ToR link");
        for (size_t i = 0; i < 2; ++i)
        {
            const double gap = std::abs(f.done[i] - p.done[i]) / p.done[i];
            std::cout << "[crux-flow] (d) shared uplink, flow " << i << ": packet "
                      << p.done[i] / US << " us, flow " << f.done[i] / US << " us, gap "
                      << 100 * gap << " %" << std::endl;
            NS_TEST_ASSERT_MSG_LT(gap, 0.05, "shared bottleneck: packet vs flow gap < 5%");
        }
    }
};

// ===================================================================== (e) DLT job on flows

namespace
{

/// A synthetic job: one GPU on each of hosts [0, hosts).
DltJob
RingJob(uint32_t hosts, uint64_t gradientBytes, uint32_t buckets, uint32_t iterations)
{
    DltJob job;
    job.id = 7;
    job.modelName = "synthetic";
    for (uint32_t h = 0; h < hosts; ++h)
    {
        job.gpus.push_back(Gpu(h, 0));
    }
    job.computeTime = 1e-3;
    job.flopsPerIteration = 1e12;
    job.gradientBytes = gradientBytes;
    job.overlapStart = 0.5;
    job.numBuckets = buckets;
    job.iterations = iterations;
    return job;
}

} // namespace

/// DltJobApplication runs a ring all-reduce job to completion on FlowTransport.
class DltJobOnFlowsTestCase : public TestCase
{
  public:
    DltJobOnFlowsTestCase()
        : TestCase("(e) DltJobApplication on FlowTransport: star (exact) and Clos (vs packets)")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t hosts = 4;
        const uint64_t grad = 4000000;
        const uint32_t buckets = 2;
        const DltJob job = RingJob(hosts, grad, buckets, 2);

        // 1. lightweight star without packet devices: host h has uplink 2h and downlink 2h+1
        {
            Ptr<FlowTransport> t = CreateObject<FlowTransport>();
            t->SetAttribute("PacketPayload", UintegerValue(0));
            for (uint32_t h = 0; h < hosts; ++h)
            {
                t->AddHost(h, 1);
                t->AddLink(DataRate("100Gb/s"), MicroSeconds(1));
                t->AddLink(DataRate("100Gb/s"), MicroSeconds(1));
            }
            t->SetPathResolver(crux::MakeFunctorCallback(
                [](const RdmaQpKey& k, uint16_t) -> std::vector<uint32_t> {
                    return {2 * k.src.host, 2 * k.dst.host + 1};
                }));
            Time jct;
            const std::vector<double> it = RunJobAlone(job, t, &jct);
            // ring step: chunk = grad / buckets / hosts on disjoint links; 2(N-1) steps/bucket
            const double chunk = double(grad) / buckets / hosts;
            const double a = 2 * (hosts - 1) * (chunk * 8 / 100e9 + 2 * US);
            const double c = job.computeTime;
            const double f = c * job.overlapStart;
            double finish = 0;
            for (uint32_t b = 0; b < buckets; ++b)
            {
                finish = std::max(f + (b + 1) * (c - f) / buckets, finish) + a;
            }
            const double expect = std::max(c, finish);
            std::cout << "[crux-flow] (e) star: iterations " << it.size() << ", "
                      << (it.empty() ? 0 : it[0] / US) << " us (expected " << expect / US << " us)"
                      << std::endl;
            NS_TEST_ASSERT_MSG_EQ(it.size(), 2, "both iterations completed");
            NS_TEST_ASSERT_MSG_EQ_TOL(it[0], expect, 10 * NS, "iteration 0 = overlap model");
            NS_TEST_ASSERT_MSG_EQ_TOL(it[1], expect, 10 * NS, "iteration 1 = overlap model");
            NS_TEST_ASSERT_MSG_EQ_TOL(jct.GetSeconds(), 2 * expect, 20 * NS, "JCT");
        }

        // 2. the same job on a Clos: FlowTransport vs RdmaTransport; per-link bytes
        {
            std::vector<double> itFlow;
            std::vector<double> itPacket;
            Time jct;
            uint64_t uplinkBytes = 0;
            uint64_t expectUplink = 0;
            {
                CruxTopologyHelper th;
                Ptr<CruxTopology> topo = th.BuildClos(SmallClos());
                Ptr<FlowTransport> t = FlowTransportHelper().Install(topo);
                for (const DltCommFlow& fl : job.CommunicationPattern())
                {
                    if (fl.src.host == 0)
                    {
                        expectUplink +=
                            static_cast<uint64_t>(fl.bytesPerIteration) * job.iterations;
                    }
                }
                Ptr<Node> node = CreateObject<Node>();
                Ptr<DltJobApplication> app = CreateObject<DltJobApplication>();
                app->SetJob(job);
                app->SetTransport(t);
                node->AddApplication(app);
                Simulator::Run();
                itFlow = app->GetIterationTimes();
                uplinkBytes = t->GetLinkBytes(topo->GetHost(0).nics[0].uplink, 0);
                Simulator::Destroy();
            }
            {
                CruxTopologyHelper th;
                Ptr<CruxTopology> topo = th.BuildClos(SmallClos());
                Ptr<RdmaTransport> t = RdmaTransportHelper().Install(topo);
                itPacket = RunJobAlone(job, t, &jct);
            }
            NS_TEST_ASSERT_MSG_EQ(itFlow.size(), 2, "flow level: job completed");
            NS_TEST_ASSERT_MSG_EQ(itPacket.size(), 2, "packet level: job completed");
            NS_TEST_ASSERT_MSG_EQ(uplinkBytes, expectUplink, "host 0 uplink bytes = pattern");
            for (size_t i = 0; i < itFlow.size() && i < itPacket.size(); ++i)
            {
                const double gap = std::abs(itFlow[i] - itPacket[i]) / itPacket[i];
                const double commFlow = itFlow[i] - job.computeTime * 0.75;
                const double commPacket = itPacket[i] - job.computeTime * 0.75;
                std::cout << "[crux-flow] (e) Clos iteration " << i << ": packet "
                          << itPacket[i] / US << " us, flow " << itFlow[i] / US << " us, gap "
                          << 100 * gap << " % (after bucket 0 release: " << commPacket / US
                          << " vs " << commFlow / US << " us)" << std::endl;
                NS_TEST_ASSERT_MSG_LT(gap, 0.05, "iteration time gap < 5%");
                NS_TEST_ASSERT_MSG_LT(std::abs(commFlow - commPacket) / commPacket,
                                      0.05,
                                      "communication-bound part: gap < 5%");
            }
        }
    }
};

/// The crux-flow test suite.
class FlowTransportTestSuite : public TestSuite
{
  public:
    FlowTransportTestSuite()
        : TestSuite("crux-flow", UNIT)
    {
        AddTestCase(new FairShareTestCase, TestCase::QUICK);
        AddTestCase(new PriorityTestCase, TestCase::QUICK);
        AddTestCase(new MaxMinTestCase, TestCase::QUICK);
        AddTestCase(new MaxMinPropertyTestCase, TestCase::QUICK);
        AddTestCase(new ConnectionAndIntraHostTestCase, TestCase::QUICK);
        AddTestCase(new PacketVsFlowTestCase, TestCase::QUICK);
        AddTestCase(new DltJobOnFlowsTestCase, TestCase::QUICK);
    }
};

static FlowTransportTestSuite g_flowTransportTestSuite; //!< registers the suite
