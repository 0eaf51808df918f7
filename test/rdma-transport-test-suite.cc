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

// Tests of the packet-level RoCEv2 transport (suite "crux-rdma"): BTH/AETH wire format, line-rate
// goodput, ordering and round robin of queue pairs, traffic classes, go-back-N and the
// retransmission timeout under loss, PSN wraparound, incast through a PFC switch, the stall
// watchdog, RdmaTransport's GPU/port mapping, and PCAP decoding by tshark.

#include "crux-test-util.h"

#include "ns3/boolean.h"
#include "ns3/collectives.h"
#include "ns3/comm-dag-runner.h"
#include "ns3/comm-dag.h"
#include "ns3/config.h"
#include "ns3/crux-compat.h"
#include "ns3/crux-switch.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/crux-topology.h"
#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/qbb-helper.h"
#include "ns3/qbb-net-device.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-transport-helper.h"
#include "ns3/rdma-transport.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/switch-mmu.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

/// A RoCEv2 packet taken apart (IPv4 header first).
struct Parsed
{
    bool ok{false};      //!< IPv4/UDP 4791/BTH present
    Ipv4Header ip;       //!< IPv4 header
    UdpHeader udp;       //!< UDP header
    RoceBthHeader bth;   //!< BTH
    bool hasAeth{false}; //!< an AETH follows (ACK/NAK)
    RoceAethHeader aeth; //!< the AETH
    uint32_t rest{0};    //!< bytes after BTH/AETH (payload + ICRC)
};

Parsed
Parse(Ptr<const Packet> p)
{
    Parsed r;
    Ptr<Packet> c = p->Copy();
    if (c->GetSize() < 40)
    {
        return r;
    }
    c->RemoveHeader(r.ip);
    if (r.ip.GetProtocol() != 17)
    {
        return r;
    }
    c->RemoveHeader(r.udp);
    if (r.udp.GetDestinationPort() != roce::UDP_PORT)
    {
        return r;
    }
    c->RemoveHeader(r.bth);
    if (r.bth.GetOpcode() == roce::RC_ACK)
    {
        c->RemoveHeader(r.aeth);
        r.hasAeth = true;
    }
    r.rest = c->GetSize();
    r.ok = true;
    return r;
}

/// Bytes a data packet with \p payload bytes occupies on the wire of \p dev: RoCE headers from
/// the ns-3 header classes, Ethernet header + 4-byte FCS, and the device's preamble + gap.
uint64_t
WireBytes(uint64_t payload, Ptr<QbbNetDevice> dev)
{
    Ipv4Header ip;
    UdpHeader udp;
    RoceBthHeader bth;
    EthernetHeader eth(false);
    UintegerValue ifg;
    dev->GetAttribute("InterframeGapBytes", ifg);
    return payload + ip.GetSerializedSize() + udp.GetSerializedSize() + bth.GetSerializedSize() +
           roce::ICRC_SIZE + eth.GetSerializedSize() + 4 + ifg.Get();
}

/// Exact time a burst of back-to-back data packets of the given payloads takes to serialize.
double
BurstSeconds(const std::vector<uint64_t>& payloads, Ptr<QbbNetDevice> dev)
{
    double bits = 0;
    for (uint64_t p : payloads)
    {
        bits += 8.0 * WireBytes(p, dev);
    }
    return bits / static_cast<double>(dev->GetDataRate().GetBitRate());
}

/// Payload sizes of the packets of a message.
std::vector<uint64_t>
Segments(uint64_t bytes, uint32_t mtu)
{
    std::vector<uint64_t> v;
    while (bytes > mtu)
    {
        v.push_back(mtu);
        bytes -= mtu;
    }
    v.push_back(bytes);
    return v;
}

/// Two one-NIC hosts cabled back to back.
struct TwoHosts
{
    QbbHelper qbb;                //!< link builder (kept for PCAP)
    Ptr<Node> a;                  //!< host 0
    Ptr<Node> b;                  //!< host 1
    Ptr<QbbNetDevice> da;         //!< NIC of host 0
    Ptr<QbbNetDevice> db;         //!< NIC of host 1
    Ptr<RdmaTransport> transport; //!< transport over both
    Ptr<RdmaNic> nicA;            //!< RDMA NIC of host 0
    Ptr<RdmaNic> nicB;            //!< RDMA NIC of host 1
};

std::unique_ptr<TwoHosts>
MakeTwoHosts(RdmaTransportHelper& rdma,
             const std::string& rate = "100Gb/s",
             Time delay = MicroSeconds(1),
             uint32_t gpus = 1)
{
    auto h = std::make_unique<TwoHosts>();
    h->qbb.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate)));
    h->qbb.SetChannelAttribute("Delay", TimeValue(delay));
    h->a = CreateObject<Node>();
    h->b = CreateObject<Node>();
    NetDeviceContainer d = h->qbb.Install(h->a, h->b);
    h->da = DynamicCast<QbbNetDevice>(d.Get(0));
    h->db = DynamicCast<QbbNetDevice>(d.Get(1));
    h->transport = rdma.Install({{h->da}, {h->db}}, gpus);
    h->nicA = h->transport->GetNic(0, 0);
    h->nicB = h->transport->GetNic(1, 0);
    return h;
}

/// Completion record of one message: how often its callback ran and when it last did.
struct Delivery
{
    int calls{0}; //!< times the completion callback ran
    Time at;      //!< simulation time of the last run

    /// \return a completion callback recording into this object (which must outlive the run)
    Callback<void> Make()
    {
        return crux::MakeFunctorCallback<void>([this]() {
            ++calls;
            at = Simulator::Now();
        });
    }
};

/// Put a drop decision in front of an RdmaNic's receive path.
void
InterposeDrop(Ptr<QbbNetDevice> dev, Ptr<RdmaNic> nic, std::function<bool(Ptr<const Packet>)> drop)
{
    dev->SetFrameHandler(
        crux::MakeFunctorCallback([nic, drop](Ptr<QbbNetDevice> d, Ptr<Packet> p, uint16_t proto) {
            if (!drop(p))
            {
                nic->ReceiveFrame(d, p, proto);
            }
        }));
}

/**
 * Drop each frame arriving at \p dev (for \p nic) with probability \p rate, independently
 * (an ns-3 RateErrorModel per packet on RNG stream \p stream); \p dropped counts the drops and
 * must outlive the simulation run.
 */
void
DropRandomly(Ptr<QbbNetDevice> dev,
             Ptr<RdmaNic> nic,
             double rate,
             int64_t stream,
             uint64_t& dropped)
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(rate);
    em->AssignStreams(stream);
    InterposeDrop(dev, nic, [em, &dropped](Ptr<const Packet> p) {
        const bool drop = em->IsCorrupt(p->Copy());
        dropped += drop;
        return drop;
    });
}

/**
 * Drop the first RoCE frame arriving at \p dev (for \p nic) that \p match accepts; later frames
 * pass. \p dropped is set to true when that happens and must outlive the simulation run.
 */
void
DropFirst(Ptr<QbbNetDevice> dev,
          Ptr<RdmaNic> nic,
          std::function<bool(const Parsed&)> match,
          bool& dropped)
{
    InterposeDrop(dev, nic, [&dropped, match](Ptr<const Packet> p) {
        Parsed x = Parse(p);
        if (!dropped && x.ok && match(x))
        {
            dropped = true;
            return true;
        }
        return false;
    });
}

/// What a forked child wrote on stderr and how it ended.
struct ChildResult
{
    std::string err;    //!< everything written on stderr
    bool exited{false}; //!< ended by exit() (not a signal)
    int status{-1};     //!< exit status when exited
};

/**
 * Run \p body in a forked child whose stderr is captured. The child does what a crux program
 * does with an error that leaves the simulation: catches it as std::exception, prints what()
 * as one line and exits with status 1 (crux-experiment's main); status 0 if \p body returns.
 */
ChildResult
RunChild(std::function<void()> body)
{
    int fds[2];
    ChildResult r;
    if (::pipe(fds) != 0)
    {
        return r;
    }
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = ::fork();
    if (pid == 0)
    {
        ::close(fds[0]);
        ::dup2(fds[1], 2);
        try
        {
            body();
        }
        catch (const std::exception& e)
        {
            std::cerr << "error: " << e.what() << std::endl;
            ::_exit(1);
        }
        ::_exit(0);
    }
    ::close(fds[1]);
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof(buf))) > 0)
    {
        r.err.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.exited = WIFEXITED(status);
    r.status = r.exited ? WEXITSTATUS(status) : -1;
    return r;
}

/// A small Clos: 2 ToRs x 2 hosts (one 100 Gbit/s NIC each), one aggregation switch, so that
/// cross-ToR traffic takes the ToR 0 - agg cable.
Ptr<CruxTopology>
MakeSmallClos()
{
    ClosConfig cfg = SmallClosConfig();
    cfg.hostsPerTor = 2;
    cfg.aggs = 1;
    cfg.nicsPerHost = 1;
    cfg.gpusPerHost = 1;
    CruxTopologyHelper th;
    return th.BuildClos(cfg);
}

/// Both directed links of the cable between ToR 0 and the aggregation switch.
std::vector<uint32_t>
Tor0AggLinks(Ptr<CruxTopology> topo)
{
    std::vector<uint32_t> ids;
    for (uint32_t id = 0; id < topo->GetNLinks(); ++id)
    {
        const CruxLinkInfo& l = topo->GetLink(id);
        if (!l.from.isHost && !l.to.isHost &&
            ((l.from.index == 0 && topo->GetSwitch(l.to.index).layer == CruxSwitchLayer::AGG) ||
             (l.to.index == 0 && topo->GetSwitch(l.from.index).layer == CruxSwitchLayer::AGG)))
        {
            ids.push_back(id);
        }
    }
    return ids;
}

/// A ring all-reduce of \p bytes over the 4 hosts of MakeSmallClos (job 7, DSCP 24), built by
/// the collectives library and run by a CommDagRunner; \p context and \p which describe it
/// (CommDag::SetContext).
Ptr<CommDagRunner>
StartRing(Ptr<RdmaTransport> t,
          uint64_t bytes,
          std::function<void()> done,
          const std::string& context = "",
          const std::string& which = "")
{
    auto dag =
        std::make_shared<CommDag>(std::vector<GpuId>{Gpu(0, 0), Gpu(1, 0), Gpu(2, 0), Gpu(3, 0)});
    dag->SetContext(context, which);
    Collectives::RingAllReduce(*dag, {0, 1, 2, 3}, bytes, {});
    Ptr<CommDagRunner> ring = CreateObject<CommDagRunner>();
    ring->Setup(t, 7, dag, 24);
    ring->Start(crux::MakeFunctorCallback<void>(done));
    return ring;
}

} // namespace

// ==================================================================================== headers

/// BTH / AETH byte layout and PSN arithmetic.
class RoceHeaderTestCase : public TestCase
{
  public:
    RoceHeaderTestCase()
        : TestCase("BTH and AETH serialize to the IBA byte layout; 24-bit PSN arithmetic")
    {
    }

  private:
    void DoRun() override
    {
        RoceBthHeader bth;
        bth.SetOpcode(roce::RC_SEND_FIRST);
        bth.SetSolicitedEvent(true);
        bth.SetPadCount(2);
        bth.SetTVer(0);
        bth.SetPKey(0xFFFF);
        bth.SetDestQp(0x123456);
        bth.SetAckRequest(true);
        bth.SetPsn(0xABCDEF);
        Packet p;
        p.AddHeader(bth);
        NS_TEST_ASSERT_MSG_EQ(p.GetSize(), 12, "BTH is 12 bytes");
        std::array<uint8_t, 12> b{};
        p.CopyData(b.data(), b.size());
        const std::array<uint8_t, 12> want =
            {0x00, 0xA0, 0xFF, 0xFF, 0x00, 0x12, 0x34, 0x56, 0x80, 0xAB, 0xCD, 0xEF};
        for (std::size_t i = 0; i < b.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(unsigned(b[i]), unsigned(want[i]), "BTH byte " << i);
        }
        RoceBthHeader back;
        p.RemoveHeader(back);
        NS_TEST_ASSERT_MSG_EQ(unsigned(back.GetOpcode()), 0u, "opcode");
        NS_TEST_ASSERT_MSG_EQ(back.GetSolicitedEvent(), true, "SE");
        NS_TEST_ASSERT_MSG_EQ(back.GetMigReq(), false, "M");
        NS_TEST_ASSERT_MSG_EQ(unsigned(back.GetPadCount()), 2u, "pad");
        NS_TEST_ASSERT_MSG_EQ(back.GetPKey(), 0xFFFF, "P_Key");
        NS_TEST_ASSERT_MSG_EQ(back.GetDestQp(), 0x123456u, "dest QP");
        NS_TEST_ASSERT_MSG_EQ(back.GetAckRequest(), true, "AckReq");
        NS_TEST_ASSERT_MSG_EQ(back.GetPsn(), 0xABCDEFu, "PSN");

        RoceBthHeader w;
        w.SetPsn(0x1FFFFFF);
        NS_TEST_ASSERT_MSG_EQ(w.GetPsn(), 0xFFFFFFu, "PSN keeps 24 bits");

        RoceAethHeader nak;
        nak.SetSyndrome(RoceAethHeader::SYNDROME_NAK_PSN_SEQ_ERROR);
        nak.SetMsn(7);
        Packet q;
        q.AddHeader(nak);
        std::array<uint8_t, 4> a{};
        q.CopyData(a.data(), a.size());
        NS_TEST_ASSERT_MSG_EQ(unsigned(a[0]), 0x60u, "NAK syndrome = 011 00000");
        NS_TEST_ASSERT_MSG_EQ(unsigned(a[3]), 7u, "MSN low byte");
        RoceAethHeader nakBack;
        q.RemoveHeader(nakBack);
        NS_TEST_ASSERT_MSG_EQ(nakBack.IsNakSequenceError(), true, "NAK decoded");
        NS_TEST_ASSERT_MSG_EQ(nakBack.IsAck(), false, "NAK is not an ACK");
        NS_TEST_ASSERT_MSG_EQ(RoceAethHeader().IsAck(), true, "default AETH is an ACK");
        NS_TEST_ASSERT_MSG_EQ(unsigned(RoceAethHeader().GetSyndrome()), 0x1Fu, "ACK syndrome");

        NS_TEST_ASSERT_MSG_EQ(roce::PsnDiff(5, 0xFFFFFE), 7, "distance across the wrap");
        NS_TEST_ASSERT_MSG_EQ(roce::PsnDiff(0xFFFFFE, 5), -7, "negative across the wrap");
        NS_TEST_ASSERT_MSG_EQ(roce::PsnDiff(3, 3), 0, "equal");
        NS_TEST_ASSERT_MSG_EQ(RdmaNic::GetDataHeaderBytes(),
                              Ipv4Header().GetSerializedSize() + UdpHeader().GetSerializedSize() +
                                  RoceBthHeader().GetSerializedSize() + roce::ICRC_SIZE,
                              "data header bytes = IPv4 + UDP + BTH + ICRC");
    }
};

// ==================================================================================== goodput

/// One 10 MB message between two hosts: exact bytes, line-rate goodput.
class GoodputTestCase : public TestCase
{
  public:
    GoodputTestCase()
        : TestCase("10 MB back to back: exact delivery at line rate x header efficiency")
    {
    }

  private:
    void DoRun() override
    {
        RdmaTransportHelper rdma;
        auto h = MakeTwoHosts(rdma);
        const uint64_t bytes = 10000000;
        Delivery done;
        h->transport->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), bytes), done.Make());
        uint64_t tracedBytes = 0;
        Time tracedDuration;
        h->nicB->TraceConnectWithoutContext(
            "MessageComplete",
            crux::MakeFunctorCallback<void, uint32_t, uint32_t, uint64_t, Time>(
                [&](uint32_t job, uint32_t flow, uint64_t b, Time d) {
                    tracedBytes += b;
                    tracedDuration = d;
                }));
        Simulator::Run();

        const uint32_t mtu = h->nicA->GetMtu();
        const std::vector<uint64_t> seg = Segments(bytes, mtu);
        const double expect = BurstSeconds(seg, h->da) + 1e-6; // + propagation delay
        const double t = done.at.GetSeconds();
        const double rate = static_cast<double>(h->da->GetDataRate().GetBitRate());
        const double efficiency =
            static_cast<double>(mtu) / static_cast<double>(WireBytes(mtu, h->da));
        const double goodput = 8.0 * bytes / t;
        std::cout << "[crux-rdma] 10 MB: " << seg.size() << " packets, completion " << t * 1e6
                  << " us (expected " << expect * 1e6 << " us), goodput " << goodput / 1e9
                  << " Gbit/s, line rate x efficiency " << rate * efficiency / 1e9 << " Gbit/s"
                  << std::endl;
        RdmaQpStats s = h->transport->GetStats();
        NS_TEST_ASSERT_MSG_EQ(done.calls, 1, "completion callback exactly once");
        NS_TEST_ASSERT_MSG_EQ(tracedBytes, bytes, "MessageComplete traced with the message size");
        NS_TEST_ASSERT_MSG_EQ(tracedDuration, done.at, "MessageComplete duration = post→delivery");
        NS_TEST_ASSERT_MSG_EQ(s.rxDataBytes, bytes, "exact bytes delivered");
        NS_TEST_ASSERT_MSG_EQ(s.txDataPackets, seg.size(), "one packet per MTU segment");
        NS_TEST_ASSERT_MSG_EQ(s.retransmittedPackets, 0, "no retransmission on a clean link");
        NS_TEST_ASSERT_MSG_EQ(s.acksSent,
                              seg.size() / 8 + (seg.size() % 8 != 0 ? 1 : 0),
                              "ACK every 8 packets plus the last");
        NS_TEST_ASSERT_MSG_EQ_TOL(t, expect, 1e-8, "back-to-back serialization, no gaps");
        NS_TEST_ASSERT_MSG_EQ_TOL(goodput,
                                  rate * efficiency,
                                  0.01 * rate * efficiency,
                                  "goodput within 1% of line rate x payload efficiency");
        NS_TEST_ASSERT_MSG_EQ(
            h->transport
                ->GetQueuePair(RdmaQpKey::FromRequest(Req(1, 0, Gpu(0, 0), Gpu(1, 0), bytes)))
                ->IsIdle(),
            true,
            "sender saw every ACK");
        Simulator::Destroy();
    }
};

// ========================================================================== many messages

/// Many messages on several queue pairs in both directions; round robin; traffic classes.
class ManyMessagesTestCase : public TestCase
{
  public:
    ManyMessagesTestCase()
        : TestCase("many messages on 6 queue pairs: each delivered once, in order per QP; "
                   "round robin within a TC, strict priority across TCs")
    {
    }

  private:
    void DoRun() override
    {
        // ---- ordering, exactly-once
        {
            RdmaTransportHelper rdma;
            auto h = MakeTwoHosts(rdma, "100Gb/s", MicroSeconds(1), 2);

            struct Qp
            {
                GpuId src;
                GpuId dst;
                uint32_t flow;
            };

            const std::vector<Qp> qps = {{Gpu(0, 0), Gpu(1, 0), 0},
                                         {Gpu(0, 0), Gpu(1, 0), 1},
                                         {Gpu(0, 1), Gpu(1, 1), 0},
                                         {Gpu(0, 0), Gpu(1, 1), 2},
                                         {Gpu(1, 0), Gpu(0, 0), 0},
                                         {Gpu(1, 1), Gpu(0, 0), 5}};
            const uint32_t perQp = 25;
            std::vector<std::vector<uint32_t>> order(qps.size());
            uint64_t total = 0;
            for (uint32_t i = 0; i < perQp; ++i)
            {
                for (uint32_t q = 0; q < qps.size(); ++q)
                {
                    const uint64_t bytes = 1 + (i * 7919ULL * (q + 1) + 13ULL * i) % 200000;
                    total += bytes;
                    // each QP alternates between traffic classes from message to message
                    h->transport->Send(Req(7,
                                           qps[q].flow,
                                           qps[q].src,
                                           qps[q].dst,
                                           bytes,
                                           static_cast<uint8_t>(8 * ((q + i / 3) % 3))),
                                       crux::MakeFunctorCallback<void>(
                                           [&order, q, i]() { order[q].push_back(i); }));
                }
            }
            Simulator::Run();
            for (uint32_t q = 0; q < qps.size(); ++q)
            {
                NS_TEST_ASSERT_MSG_EQ(order[q].size(), perQp, "QP " << q << ": all delivered once");
                for (uint32_t i = 0; i < perQp; ++i)
                {
                    NS_TEST_ASSERT_MSG_EQ(order[q][i], i, "QP " << q << ": in posting order");
                }
            }
            RdmaQpStats s = h->transport->GetStats();
            NS_TEST_ASSERT_MSG_EQ(h->transport->GetFlows().size(), qps.size(), "6 connections");
            NS_TEST_ASSERT_MSG_EQ(s.rxDataBytes, total, "every byte delivered exactly once");
            NS_TEST_ASSERT_MSG_EQ(s.messagesDelivered, perQp * qps.size(), "messages delivered");
            NS_TEST_ASSERT_MSG_EQ(s.messagesAcked, perQp * qps.size(), "messages acknowledged");
            NS_TEST_ASSERT_MSG_EQ(s.retransmittedPackets, 0, "no loss, no retransmission");
            NS_TEST_ASSERT_MSG_EQ(s.naksSent, 0, "class changes never reorder a QP's packets");
            NS_TEST_ASSERT_MSG_GT(s.classChangeWaits, 0, "class changes waited for their ACKs");
            std::cout << "[crux-rdma] ordering: " << perQp * qps.size() << " messages, "
                      << s.classChangeWaits << " class-change waits, done at "
                      << Simulator::Now().As(Time::US) << std::endl;
            Simulator::Destroy();
        }
        // ---- round robin: 4 equal queue pairs of one TC finish together
        {
            RdmaTransportHelper rdma;
            auto h = MakeTwoHosts(rdma);
            const uint64_t bytes = 1 << 20;
            std::vector<double> done(4, 0);
            for (uint32_t f = 0; f < 4; ++f)
            {
                h->transport->Send(Req(1, f, Gpu(0, 0), Gpu(1, 0), bytes, 16),
                                   crux::MakeFunctorCallback<void>(
                                       [&done, f]() { done[f] = Simulator::Now().GetSeconds(); }));
            }
            Simulator::Run();
            const double pkt = BurstSeconds({h->nicA->GetMtu()}, h->da);
            const double all = 4 * BurstSeconds(Segments(bytes, h->nicA->GetMtu()), h->da) + 1e-6;
            const auto [mn, mx] = std::minmax_element(done.begin(), done.end());
            std::cout << "[crux-rdma] round robin: 4 x 1 MiB done between " << *mn * 1e6 << " and "
                      << *mx * 1e6 << " us (all bytes: " << all * 1e6 << " us)" << std::endl;
            NS_TEST_ASSERT_MSG_LT(*mx - *mn, 4 * pkt, "packet-level round robin: within 4 pkts");
            NS_TEST_ASSERT_MSG_EQ_TOL(*mx, all, 1e-8, "the link never idles");
            Simulator::Destroy();
        }
        // ---- strict priority: DSCP 40 (TC 5) overtakes DSCP 8 (TC 1)
        {
            RdmaTransportHelper rdma;
            auto h = MakeTwoHosts(rdma);
            const uint64_t lowBytes = 2 << 20;
            const uint64_t highBytes = 1 << 20;
            double lowDone = 0;
            double highDone = 0;
            h->transport->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), lowBytes, 8),
                               crux::MakeFunctorCallback<void>(
                                   [&]() { lowDone = Simulator::Now().GetSeconds(); }));
            h->transport->Send(Req(2, 0, Gpu(0, 0), Gpu(1, 0), highBytes, 40),
                               crux::MakeFunctorCallback<void>(
                                   [&]() { highDone = Simulator::Now().GetSeconds(); }));
            Simulator::Run();
            const uint32_t mtu = h->nicA->GetMtu();
            const double pkt = BurstSeconds({mtu}, h->da);
            const double highAlone = BurstSeconds(Segments(highBytes, mtu), h->da) + 1e-6;
            const double both = BurstSeconds(Segments(highBytes, mtu), h->da) +
                                BurstSeconds(Segments(lowBytes, mtu), h->da) + 1e-6;
            std::cout << "[crux-rdma] priority: TC5 done " << highDone * 1e6 << " us (alone "
                      << highAlone * 1e6 << "), TC1 done " << lowDone * 1e6 << " us (both "
                      << both * 1e6 << ")" << std::endl;
            NS_TEST_ASSERT_MSG_LT(highDone,
                                  highAlone + 1.5 * pkt,
                                  "high TC waits at most for the frame on the wire");
            NS_TEST_ASSERT_MSG_EQ_TOL(lowDone, both, 1e-8, "low TC gets the rest, no idle time");
            Simulator::Destroy();
        }
    }
};

// ====================================================================================== loss

/// Random loss in both directions: go-back-N recovers everything.
class RandomLossTestCase : public TestCase
{
  public:
    RandomLossTestCase()
        : TestCase("1% random loss on data and ACK paths: every message completes, "
                   "NAK-driven retransmissions")
    {
    }

  private:
    void DoRun() override
    {
        RdmaTransportHelper rdma;
        auto h = MakeTwoHosts(rdma);
        uint64_t droppedData = 0;
        uint64_t droppedAcks = 0;
        DropRandomly(h->db, h->nicB, 0.01, 11, droppedData);
        DropRandomly(h->da, h->nicA, 0.01, 12, droppedAcks);
        const uint32_t perQp = 10;
        const uint64_t bytes = 256 * 1024;
        std::vector<std::vector<uint32_t>> order(2);
        for (uint32_t i = 0; i < perQp; ++i)
        {
            for (uint32_t q = 0; q < 2; ++q)
            {
                h->transport->Send(
                    Req(3, q, Gpu(0, 0), Gpu(1, 0), bytes),
                    crux::MakeFunctorCallback<void>([&order, q, i]() { order[q].push_back(i); }));
            }
        }
        Simulator::Run();
        RdmaQpStats s = h->transport->GetStats();
        std::cout << "[crux-rdma] 1% loss: dropped " << droppedData << " data-path and "
                  << droppedAcks << " ACK-path frames; retransmitted " << s.retransmittedPackets
                  << " packets, " << s.nakRewinds << " NAK rewinds, " << s.timeouts << " timeouts, "
                  << s.outOfOrderDrops << " out-of-order drops, " << s.duplicates
                  << " duplicates; done at " << Simulator::Now().As(Time::US) << std::endl;
        for (uint32_t q = 0; q < 2; ++q)
        {
            NS_TEST_ASSERT_MSG_EQ(order[q].size(), perQp, "QP " << q << " all messages once");
            for (uint32_t i = 0; i < perQp; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(order[q][i], i, "QP " << q << " in order");
            }
        }
        NS_TEST_ASSERT_MSG_GT(droppedData, 0, "the error model dropped data packets");
        NS_TEST_ASSERT_MSG_GT(droppedAcks, 0, "the error model dropped ACK-path packets");
        NS_TEST_ASSERT_MSG_EQ(s.rxDataBytes, 2 * perQp * bytes, "exact bytes accepted");
        NS_TEST_ASSERT_MSG_GT(s.retransmittedPackets, 0, "retransmissions happened");
        NS_TEST_ASSERT_MSG_GT(s.nakRewinds, 0, "NAKs drove go-back-N");
        NS_TEST_ASSERT_MSG_GT(s.naksSent, 0, "the responder sent NAKs");
        NS_TEST_ASSERT_MSG_GT(s.outOfOrderDrops, 0, "out-of-order packets were dropped");
        NS_TEST_ASSERT_MSG_EQ(s.messagesAcked, 2 * perQp, "sender saw every message acknowledged");
        Simulator::Destroy();
    }
};

/// Tail loss that only the retransmission timeout can repair.
class TailLossTestCase : public TestCase
{
  public:
    TailLossTestCase()
        : TestCase("tail loss: lost last packet, then lost last ACK, recovered by the RTO")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t bytes = 100 * 4096; // 100 packets
        // ---- the last data packet is lost once: no later packet, so no NAK
        {
            RdmaTransportHelper rdma;
            auto h = MakeTwoHosts(rdma);
            bool dropped = false;
            DropFirst(
                h->db,
                h->nicB,
                [](const Parsed& x) { return x.bth.GetOpcode() == roce::RC_SEND_LAST; },
                dropped);
            std::vector<std::string> reasons;
            h->nicA->TraceConnectWithoutContext(
                "Retransmit",
                crux::MakeFunctorCallback<void,
                                          Ptr<const RdmaQueuePair>,
                                          uint32_t,
                                          const std::string&>(
                    [&](Ptr<const RdmaQueuePair>, uint32_t psn, const std::string& r) {
                        reasons.push_back(r);
                    }));
            Delivery done;
            h->transport->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), bytes), done.Make());
            Simulator::Run();
            RdmaQpStats s = h->transport->GetStats();
            TimeValue rto;
            h->nicA->GetAttribute("RetransmitTimeout", rto);
            std::cout << "[crux-rdma] tail loss: done at " << done.at.As(Time::US) << ", "
                      << s.timeouts << " timeout(s), " << s.retransmittedPackets
                      << " packets resent, " << s.duplicates << " duplicates" << std::endl;
            NS_TEST_ASSERT_MSG_EQ(dropped, true, "last packet dropped");
            NS_TEST_ASSERT_MSG_EQ(done.calls, 1, "message completes once");
            NS_TEST_ASSERT_MSG_EQ(s.timeouts, 1, "exactly one RTO");
            NS_TEST_ASSERT_MSG_EQ(s.nakRewinds, 0, "no NAK possible");
            NS_TEST_ASSERT_MSG_EQ(reasons.size(), 1, "one Retransmit trace");
            NS_TEST_ASSERT_MSG_EQ(reasons[0], "timeout", "traced reason");
            // ACKs every 8 packets: packets 97..100 were unacknowledged, 97..99 arrive twice
            NS_TEST_ASSERT_MSG_EQ(s.retransmittedPackets, 4, "go back to the last ACK (96)");
            NS_TEST_ASSERT_MSG_EQ(s.duplicates, 3, "3 duplicates re-received");
            NS_TEST_ASSERT_MSG_EQ(s.rxDataBytes, bytes, "exact bytes");
            NS_TEST_ASSERT_MSG_GT(done.at, rto.Get(), "recovered only after the RTO");
            NS_TEST_ASSERT_MSG_LT(done.at, rto.Get() + MicroSeconds(100), "right after the RTO");
            Simulator::Destroy();
        }
        // ---- the ACK of the last packet is lost: the receiver has everything, the sender not
        {
            RdmaTransportHelper rdma;
            auto h = MakeTwoHosts(rdma);
            bool dropped = false;
            DropFirst(
                h->da,
                h->nicA,
                [](const Parsed& x) { return x.hasAeth && x.aeth.IsAck() && x.aeth.GetMsn() == 1; },
                dropped);
            Delivery done;
            h->transport->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), bytes), done.Make());
            Simulator::Run();
            RdmaQpStats s = h->transport->GetStats();
            Ptr<RdmaQueuePair> qp = h->nicA->GetQueuePairByIndex(0);
            std::cout << "[crux-rdma] lost final ACK: delivered at " << done.at.As(Time::US)
                      << ", sender idle at " << Simulator::Now().As(Time::US) << ", " << s.timeouts
                      << " timeout(s), " << s.duplicates << " duplicates" << std::endl;
            NS_TEST_ASSERT_MSG_EQ(dropped, true, "final ACK dropped");
            NS_TEST_ASSERT_MSG_EQ(done.calls,
                                  1,
                                  "delivered once (duplicates are not re-delivered)");
            NS_TEST_ASSERT_MSG_LT(done.at, MicroSeconds(100), "delivery was not delayed");
            NS_TEST_ASSERT_MSG_EQ(s.timeouts, 1, "the sender needed its RTO");
            NS_TEST_ASSERT_MSG_EQ(s.duplicates, 4, "packets 97..100 resent as duplicates");
            NS_TEST_ASSERT_MSG_EQ(qp->IsIdle(), true, "the re-ACK finally acknowledged all");
            NS_TEST_ASSERT_MSG_EQ(s.messagesAcked, 1, "message acknowledged");
            Simulator::Destroy();
        }
    }
};

// ============================================================================ PSN wraparound

/// A queue pair whose PSNs cross 2^24, with losses on both sides of the wrap.
class PsnWrapTestCase : public TestCase
{
  public:
    PsnWrapTestCase()
        : TestCase("PSN wraparound: InitialPsn = 2^24 - 50, 120 packets, losses at the wrap")
    {
    }

  private:
    void DoRun() override
    {
        RdmaTransportHelper rdma;
        const uint32_t init = roce::PSN_MOD - 50;
        rdma.SetNicAttribute("InitialPsn", UintegerValue(init));
        auto h = MakeTwoHosts(rdma);
        std::set<uint32_t> droppedPsn;
        InterposeDrop(h->db, h->nicB, [&](Ptr<const Packet> p) {
            Parsed x = Parse(p);
            const uint32_t psn = x.bth.GetPsn();
            if (x.ok && (psn == roce::PSN_MASK || psn == 20) && !droppedPsn.count(psn))
            {
                droppedPsn.insert(psn);
                return true;
            }
            return false;
        });
        std::set<uint32_t> sentPsn;
        h->nicA->TraceConnectWithoutContext(
            "TxData",
            crux::MakeFunctorCallback<void, Ptr<const Packet>>(
                [&](Ptr<const Packet> p) { sentPsn.insert(Parse(p).bth.GetPsn()); }));
        uint32_t lastAckPsn = 0;
        h->nicB->GetDevice()->TraceConnectWithoutContext(
            "MacTx",
            crux::MakeFunctorCallback<void, Ptr<const Packet>, uint8_t>(
                [&](Ptr<const Packet> p, uint8_t) {
                    Parsed x = Parse(p);
                    if (x.ok && x.hasAeth && x.aeth.IsAck())
                    {
                        lastAckPsn = x.bth.GetPsn();
                    }
                }));
        const uint64_t bytes = 40 * 4096;
        std::vector<uint32_t> order;
        for (uint32_t i = 0; i < 3; ++i)
        {
            h->transport->Send(
                Req(1, 0, Gpu(0, 0), Gpu(1, 0), bytes),
                crux::MakeFunctorCallback<void>([&order, i]() { order.push_back(i); }));
        }
        Simulator::Run();
        RdmaQpStats s = h->transport->GetStats();
        Ptr<RdmaQueuePair> qp = h->nicA->GetQueuePairByIndex(0);
        std::cout << "[crux-rdma] PSN wrap: sent PSNs " << *sentPsn.begin() << ".."
                  << *sentPsn.rbegin() << " (" << sentPsn.size() << " distinct), last ACK PSN "
                  << lastAckPsn << ", " << s.nakRewinds << " NAK rewinds" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(qp->GetInitialPsn(), init, "initial PSN from the attribute");
        NS_TEST_ASSERT_MSG_EQ(droppedPsn.size(), 2, "dropped PSN 2^24-1 and PSN 20 once each");
        NS_TEST_ASSERT_MSG_EQ(order.size(), 3, "3 messages");
        for (uint32_t i = 0; i < order.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(order[i], i, "in order across the wrap");
        }
        NS_TEST_ASSERT_MSG_EQ(s.rxDataBytes, 3 * bytes, "exact bytes");
        NS_TEST_ASSERT_MSG_EQ(qp->GetAckedPackets(), 120, "all 120 packets acknowledged");
        NS_TEST_ASSERT_MSG_EQ(sentPsn.size(), 120, "120 distinct PSNs on the wire");
        NS_TEST_ASSERT_MSG_EQ(sentPsn.count(roce::PSN_MASK), 1, "PSN 2^24-1 used");
        NS_TEST_ASSERT_MSG_EQ(sentPsn.count(0), 1, "PSN 0 follows it");
        NS_TEST_ASSERT_MSG_EQ(*sentPsn.rbegin(), roce::PSN_MASK, "highest PSN 2^24-1");
        NS_TEST_ASSERT_MSG_EQ(sentPsn.count(69), 1, "last PSN (init + 119) mod 2^24 = 69");
        NS_TEST_ASSERT_MSG_EQ(sentPsn.count(70), 0, "nothing beyond it");
        NS_TEST_ASSERT_MSG_EQ(lastAckPsn, 69u, "final ACK carries PSN 69");
        NS_TEST_ASSERT_MSG_EQ(s.nakRewinds, 2, "one NAK per loss");
        NS_TEST_ASSERT_MSG_EQ(s.timeouts, 0, "no RTO needed");
        Simulator::Destroy();
    }
};

// ================================================================== congestion control hook

/// Counters of TestFixedRateCc (all instances).
uint64_t g_ccSent = 0;
uint64_t g_ccAcked = 0;

/// A rate controller pinned at 10 Gbit/s, to exercise the NIC's pacing.
class TestFixedRateCc : public RdmaCongestionControl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CruxTestFixedRateCc")
                                .SetParent<RdmaCongestionControl>()
                                .SetGroupName("Crux")
                                .AddConstructor<TestFixedRateCc>();
        return tid;
    }

    DataRate GetRate() const override
    {
        return DataRate("10Gb/s");
    }

    void OnDataSent(uint32_t frameBytes) override
    {
        ++g_ccSent;
    }

    void OnAck(const RdmaAckEvent& ack) override
    {
        g_ccAcked += ack.newlyAcked;
    }
};

/// RdmaCongestionControl below line rate paces a queue pair.
class PacingTestCase : public TestCase
{
  public:
    PacingTestCase()
        : TestCase("RdmaCongestionControl hook: a 10 Gbps controller paces a 100 Gbps NIC")
    {
    }

  private:
    void DoRun() override
    {
        g_ccSent = 0;
        g_ccAcked = 0;
        RdmaTransportHelper rdma;
        rdma.SetNicAttribute("CongestionControl", TypeIdValue(TestFixedRateCc::GetTypeId()));
        auto h = MakeTwoHosts(rdma);
        const uint64_t bytes = 1000000;
        double doneAt = 0;
        h->transport->Send(
            Req(1, 0, Gpu(0, 0), Gpu(1, 0), bytes),
            crux::MakeFunctorCallback<void>([&]() { doneAt = Simulator::Now().GetSeconds(); }));
        Simulator::Run();
        const std::vector<uint64_t> seg = Segments(bytes, h->nicA->GetMtu());
        // packet i starts at the sum of the paced gaps of packets 0..i-1 (wire bytes at
        // 10 Gbit/s); the last one then serializes at line rate and propagates
        double expect = 0;
        for (std::size_t i = 0; i + 1 < seg.size(); ++i)
        {
            expect += 8.0 * WireBytes(seg[i], h->da) / 10e9;
        }
        expect += BurstSeconds({seg.back()}, h->da) + 1e-6;
        std::cout << "[crux-rdma] paced at 10 Gbit/s: done " << doneAt * 1e6 << " us (expected "
                  << expect * 1e6 << " us)" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(doneAt, expect, 1e-3 * expect, "paced at the controller rate");
        NS_TEST_ASSERT_MSG_EQ(g_ccSent, seg.size(), "OnDataSent once per packet");
        NS_TEST_ASSERT_MSG_EQ(g_ccAcked, seg.size(), "OnAck covers every packet");
        NS_TEST_ASSERT_MSG_EQ(h->transport->GetStats().rxDataBytes, bytes, "exact bytes");
        Simulator::Destroy();
    }
};

// ==================================================================================== incast

/// 4 → 1 incast through a PFC switch.
class IncastTestCase : public TestCase
{
  public:
    IncastTestCase()
        : TestCase("4-to-1 incast through a CruxSwitch with PFC: lossless, full receiver rate")
    {
    }

  private:
    void DoRun() override
    {
        CruxTopologyHelper topoHelper;
        topoHelper.SetMmuAttribute("BufferSize", UintegerValue(4 * 1024 * 1024));
        Ptr<CruxTopology> topo = topoHelper.BuildStar(5, DataRate("100Gb/s"), MicroSeconds(1), 1);
        // No congestion control: every sender at line rate, PFC alone keeps the fabric lossless
        // (DCQCN and HPCC have their tests in crux-cc); the receivers still answer CE with CNPs.
        RdmaTransportHelper rdma;
        rdma.SetCongestionControl("none");
        rdma.SetNicAttribute("CnpEnabled", BooleanValue(true));
        Ptr<RdmaTransport> t = rdma.Install(topo);
        const uint64_t bytes = 4 * 1024 * 1024;
        std::vector<double> done(4, 0);
        for (uint32_t s = 1; s <= 4; ++s)
        {
            t->Send(Req(1, 0, Gpu(s, 0), Gpu(0, 0), bytes, 24),
                    crux::MakeFunctorCallback<void>(
                        [&done, s]() { done[s - 1] = Simulator::Now().GetSeconds(); }));
        }
        Simulator::Run();
        Ptr<CruxSwitch> sw = topo->GetSwitch(0).sw;
        RdmaQpStats st = t->GetStats();
        uint64_t pausesRx = 0;
        for (uint32_t s = 1; s <= 4; ++s)
        {
            pausesRx += topo->GetHost(s).nics[0].device->GetPauseRxCount();
        }
        Ptr<QbbNetDevice> rxDev = topo->GetHost(0).nics[0].device;
        const uint32_t mtu = t->GetNic(0, 0)->GetMtu();
        const double last = *std::max_element(done.begin(), done.end());
        const double first = *std::min_element(done.begin(), done.end());
        // the receiver's downlink is the bottleneck: 4 messages back to back on it, plus two
        // propagation delays and one store-and-forward frame time on the uplink
        const double ideal = 4 * BurstSeconds(Segments(bytes, mtu), rxDev);
        std::cout << "[crux-rdma] incast 4x4 MiB: done " << first * 1e6 << ".." << last * 1e6
                  << " us (bottleneck-bound " << ideal * 1e6 << " us), switch drops "
                  << sw->GetTotalDrops() << ", PAUSE sent by switch "
                  << sw->GetMmu()->GetPauseCount() << ", PAUSE received by senders " << pausesRx
                  << ", retransmitted " << st.retransmittedPackets << ", timeouts " << st.timeouts
                  << ", CE marked " << st.ceReceived << ", CNPs " << st.cnpsSent << "/"
                  << st.cnpsReceived << std::endl;
        for (uint32_t s = 0; s < 4; ++s)
        {
            NS_TEST_ASSERT_MSG_GT(done[s], 0, "sender " << s + 1 << " completed");
        }
        NS_TEST_ASSERT_MSG_EQ(sw->GetTotalDrops(), 0, "PFC: zero drops");
        NS_TEST_ASSERT_MSG_GT(sw->GetMmu()->GetPauseCount(), 0, "the switch paused its senders");
        NS_TEST_ASSERT_MSG_GT(pausesRx, 0, "sender NICs received PAUSE");
        NS_TEST_ASSERT_MSG_EQ(st.retransmittedPackets, 0, "lossless: no retransmission");
        NS_TEST_ASSERT_MSG_EQ(st.timeouts, 0, "lossless: no RTO");
        NS_TEST_ASSERT_MSG_EQ(st.rxDataBytes, 4 * bytes, "exact bytes");
        NS_TEST_ASSERT_MSG_GT(st.ceReceived, 0, "the congested switch port marked CE");
        NS_TEST_ASSERT_MSG_GT(st.cnpsSent, 0, "the receiver answered CE with CNPs");
        NS_TEST_ASSERT_MSG_LT(st.cnpsSent, st.ceReceived, "CNPs are rate-limited per QP");
        NS_TEST_ASSERT_MSG_EQ(st.cnpsReceived, st.cnpsSent, "every CNP reached its sender");
        NS_TEST_ASSERT_MSG_EQ_TOL(last,
                                  ideal,
                                  0.02 * ideal,
                                  "the receiver link runs at line rate x efficiency");
        Simulator::Destroy();
    }
};

// ================================================================================ dual port

/**
 * A NIC with two ports (the double-sided topology, BuildDoubleSided: one ToR pair, every NIC's
 * port p on ToR p): hosts 1..4 send 4 MiB each to host 0, steered by UDP source port onto the
 * path via ToR (s mod 2). Each sender's data leaves on the port its path starts on (the other
 * port sends no data), PredictPath() gives that path, the receiver gets data on both ports and
 * answers on the arrival port, PFC keeps it lossless (PAUSE received), and the two receiver
 * ports together run at twice one port's rate: all bytes arrive in 2 message times of one port.
 */
class DualPortTestCase : public TestCase
{
  public:
    DualPortTestCase()
        : TestCase("two-port NIC: data on the path's first port, ACKs on the arrival port, "
                   "PFC per port, receiver at 2 x port rate")
    {
    }

  private:
    void DoRun() override
    {
        DoubleSidedConfig dc;
        dc.tors = 2;
        dc.aggs = 1;
        dc.cores = 1;
        dc.numHosts = 5;
        dc.gpusPerHost = 1;
        dc.nicsPerHost = 1;
        dc.portsPerNic = 2;
        dc.hostLinkBps = 100e9;
        dc.torAggBps = 100e9;
        dc.aggCoreBps = 100e9;
        CruxTopologyHelper topoHelper;
        topoHelper.SetMmuAttribute("BufferSize", UintegerValue(4 * 1024 * 1024));
        Ptr<CruxTopology> topo = topoHelper.Install(BuildDoubleSided(dc));
        NS_TEST_ASSERT_MSG_EQ(topo->GetHost(0).nics.size(), 1, "one NIC");
        NS_TEST_ASSERT_MSG_EQ(topo->GetHost(0).nics[0].ports.size(), 2, "with two ports");
        RdmaTransportHelper rdma;
        rdma.SetCongestionControl("none");
        Ptr<RdmaTransport> t = rdma.Install(topo);
        NS_TEST_ASSERT_MSG_EQ(t->GetNic(0, 0)->GetNPorts(), 2, "the RdmaNic drives both ports");
        const uint64_t bytes = 4 * 1024 * 1024;
        std::vector<double> done(4, 0);
        std::vector<CruxPath> wanted(5);
        for (uint32_t s = 1; s <= 4; ++s)
        {
            const std::vector<CruxPath> paths = topo->GetEqualCostPaths(s, 0, 0, 0);
            NS_TEST_ASSERT_MSG_EQ(paths.size(), 2, "via either ToR of the pair");
            const CruxPath& want = paths[s % 2];
            wanted[s] = want;
            const RdmaQpKey key = Key(1, s, Gpu(s, 0), Gpu(0, 0));
            FiveTuple tuple = t->GetFiveTuple(key);
            tuple.srcPort = topo->FindUdpSourcePort(tuple.srcIp, tuple.dstIp, want);
            NS_TEST_ASSERT_MSG_EQ((topo->PredictPath(tuple) == want), true, "predicted path");
            t->SetQpSourcePort(key, tuple.srcPort);
            t->Send(Req(1, s, Gpu(s, 0), Gpu(0, 0), bytes),
                    crux::MakeFunctorCallback<void>(
                        [&done, s]() { done[s - 1] = Simulator::Now().GetSeconds(); }));
        }
        Simulator::Run();
        auto dataBytes = [](Ptr<QbbNetDevice> dev) {
            uint64_t b = 0;
            for (uint8_t tc = 0; tc < QbbNetDevice::N_TC; ++tc)
            {
                b += dev->GetTxBytes(tc);
            }
            return b;
        };
        uint64_t pausesRx = 0;
        for (uint32_t s = 1; s <= 4; ++s)
        {
            NS_TEST_ASSERT_MSG_GT(done[s - 1], 0, "sender " << s << " completed");
            const CruxNicInfo& nic = topo->GetHost(s).nics[0];
            for (uint32_t p = 0; p < 2; ++p)
            {
                const bool used = nic.ports[p].uplink == wanted[s].front();
                NS_TEST_ASSERT_MSG_EQ((dataBytes(nic.ports[p].device) > 0),
                                      used,
                                      "sender " << s << " port " << p << " sends data iff its "
                                                << "path starts there");
                pausesRx += nic.ports[p].device->GetPauseRxCount();
            }
        }
        // the receiver: data in on both ports, ACKs out on both (each port's senders' ACKs)
        const CruxNicInfo& rx = topo->GetHost(0).nics[0];
        for (uint32_t p = 0; p < 2; ++p)
        {
            NS_TEST_ASSERT_MSG_EQ(dataBytes(rx.ports[p].device), 0, "the receiver sends no data");
            NS_TEST_ASSERT_MSG_GT(rx.ports[p].device->GetTxBytes(QbbNetDevice::CONTROL_CLASS),
                                  0,
                                  "ACKs leave on receiver port " << p);
        }
        const RdmaQpStats st = t->GetStats();
        const uint32_t mtu = t->GetNic(0, 0)->GetMtu();
        const double last = *std::max_element(done.begin(), done.end());
        // two messages back to back on each receiver port, both ports in parallel
        const double ideal = 2 * BurstSeconds(Segments(bytes, mtu), rx.ports[0].device);
        std::cout << "[crux-rdma] dual-port 4-to-1: last done " << last * 1e6 << " us (2 x port "
                  << "bound " << ideal * 1e6 << " us), PAUSE received by senders " << pausesRx
                  << ", retransmitted " << st.retransmittedPackets << ", timeouts " << st.timeouts
                  << std::endl;
        uint64_t drops = 0;
        for (uint32_t sw = 0; sw < topo->GetNSwitches(); ++sw)
        {
            drops += topo->GetSwitch(sw).sw->GetTotalDrops();
        }
        NS_TEST_ASSERT_MSG_EQ(drops, 0, "PFC: zero drops");
        NS_TEST_ASSERT_MSG_GT(pausesRx, 0, "sender ports received PAUSE");
        NS_TEST_ASSERT_MSG_EQ(st.retransmittedPackets, 0, "lossless: no retransmission");
        NS_TEST_ASSERT_MSG_EQ(st.timeouts, 0, "lossless: no RTO");
        NS_TEST_ASSERT_MSG_EQ(st.rxDataBytes, 4 * bytes, "exact bytes");
        NS_TEST_ASSERT_MSG_EQ_TOL(last, ideal, 0.02 * ideal, "both receiver ports at line rate");
        Simulator::Destroy();
    }
};

// ================================================================================== watchdog

/// A queue pair that can never progress ends the run with one error line naming it.
class WatchdogTestCase : public TestCase
{
  public:
    WatchdogTestCase()
        : TestCase("watchdog: a black-holed queue pair ends the run with one line naming the "
                   "job, flow, GPUs and queue pair")
    {
    }

  private:
    void DoRun() override
    {
        const ChildResult r = RunChild([]() {
            RdmaTransportHelper rdma;
            rdma.SetNicAttribute("StallTimeout", TimeValue(MilliSeconds(20)));
            auto h = MakeTwoHosts(rdma);
            InterposeDrop(h->db, h->nicB, [](Ptr<const Packet>) { return true; });
            h->transport->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), 100000), Callback<void>());
            Simulator::Stop(Seconds(1));
            Simulator::Run(); // the CruxRunError leaves Run()
        });
        std::cout << "[crux-rdma] watchdog child (exit " << r.status << "): " << r.err;
        NS_TEST_ASSERT_MSG_EQ(r.exited, true, "the run ended by exit, not by an abort");
        NS_TEST_ASSERT_MSG_EQ(r.status, 1, "exit status 1");
        NS_TEST_ASSERT_MSG_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1, "one line");
        for (const char* s : {"watchdog",
                              "job 1 flow 0",
                              "GPU 0.0 (host.GPU) -> GPU 1.0",
                              "QPN 0x100",
                              "10.0.0.1",
                              "0 of 25 packets acknowledged"})
        {
            NS_TEST_ASSERT_MSG_NE(r.err.find(s), std::string::npos, "names " << s);
        }
    }
};

/// A link cut in the middle of a ring all-reduce: the watchdog names the stuck job.
class LinkCutTestCase : public TestCase
{
  public:
    LinkCutTestCase()
        : TestCase("link cut mid-transfer: exit 1 with one line naming the job, its collective "
                   "and step, GPUs and queue pair")
    {
    }

  private:
    void DoRun() override
    {
        double cutAt = 0;
        const ChildResult r = RunChild([&cutAt]() {
            Ptr<CruxTopology> topo = MakeSmallClos();
            Ptr<RdmaTransport> t = RdmaTransportHelper().Install(topo);
            t->SetJobLabel(7, "gpt-ring");
            Ptr<CommDagRunner> ring = StartRing(
                t,
                64 * 1000 * 1000,
                []() {},
                "DP",
                "bucket 3");
            // 200 us in, the ToR 0 - agg cable fails: every frame on it is lost from then on
            crux::Schedule(MicroSeconds(200), [topo]() {
                for (uint32_t id : Tor0AggLinks(topo))
                {
                    Ptr<RateErrorModel> cut = CreateObject<RateErrorModel>();
                    cut->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                    cut->SetRate(1.0);
                    topo->GetLink(id).rxDev->SetAttribute("ReceiveErrorModel", PointerValue(cut));
                }
            });
            Simulator::Stop(Seconds(100));
            Simulator::Run();
        });
        std::cout << "[crux-rdma] link cut child (exit " << r.status << "): " << r.err;
        NS_TEST_ASSERT_MSG_EQ(r.exited, true, "no abort");
        NS_TEST_ASSERT_MSG_EQ(r.status, 1, "exit status 1");
        NS_TEST_ASSERT_MSG_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1, "one line");
        NS_TEST_ASSERT_MSG_NE(r.err.find("job 7 (gpt-ring) flow "), std::string::npos, "job");
        // the collective and its step in the user's terms (CommDag::Describe via the runner)
        NS_TEST_ASSERT_MSG_NE(r.err.find(" is stuck in DP all-reduce (ring) bucket 3, step "),
                              std::string::npos,
                              "collective");
        NS_TEST_ASSERT_MSG_NE(r.err.find(" of 6: GPU "), std::string::npos, "step of 2(n-1), GPUs");
        NS_TEST_ASSERT_MSG_NE(r.err.find("queue pair QPN 0x"), std::string::npos, "queue pair");
        NS_TEST_ASSERT_MSG_NE(r.err.find("34.36"), std::string::npos, "after 8 x the IB timeout");
    }
};

/// A peer that never posts its send: the runner's watchdog, and the report at the end of a run.
class SilentPeerTestCase : public TestCase
{
  public:
    SilentPeerTestCase()
        : TestCase("a rank that never posts its sends: the runner's watchdog ends the run with "
                   "one line naming the job and the send it waits on; without the watchdog the "
                   "end of the run reports the graph")
    {
    }

  private:
    void DoRun() override
    {
        // the watchdog: rank 2 hangs from 100 us on (its sends are never handed over)
        const ChildResult r = RunChild([]() {
            Config::SetDefault("ns3::CommDagRunner::HungRank", UintegerValue(2));
            Config::SetDefault("ns3::CommDagRunner::HangTime", TimeValue(MicroSeconds(100)));
            Config::SetDefault("ns3::CommDagRunner::StallTimeout", TimeValue(MilliSeconds(20)));
            Ptr<CruxTopology> topo = MakeSmallClos();
            Ptr<RdmaTransport> t = RdmaTransportHelper().Install(topo);
            Ptr<CommDagRunner> ring = StartRing(
                t,
                64 * 1000 * 1000,
                []() {},
                "DP",
                "bucket 0");
            ring->SetJobName("gpt-ring");
            Simulator::Stop(Seconds(100));
            Simulator::Run();
        });
        std::cout << "[crux-rdma] silent peer child (exit " << r.status << "): " << r.err;
        NS_TEST_ASSERT_MSG_EQ(r.exited, true, "no abort");
        NS_TEST_ASSERT_MSG_EQ(r.status, 1, "exit status 1");
        NS_TEST_ASSERT_MSG_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1, "one line");
        for (const char* w : {"CommDagRunner watchdog: job 7 (gpt-ring)",
                              "no message delivered for 0.02 s",
                              "never ran: it waits on rank 2's send to rank 3",
                              "DP all-reduce (ring) bucket 0, step ",
                              "never posted: rank 2 hangs from 0.1000 ms"})
        {
            NS_TEST_ASSERT_MSG_NE(r.err.find(w), std::string::npos, "names " << w);
        }

        // no watchdog: the simulation runs out of events; DescribeStuck reports the graph
        Config::SetDefault("ns3::CommDagRunner::HungRank", UintegerValue(2));
        Config::SetDefault("ns3::CommDagRunner::HangTime", TimeValue(Time(0)));
        Config::SetDefault("ns3::CommDagRunner::StallTimeout", TimeValue(Time(0)));
        Ptr<CruxTopology> topo = MakeSmallClos();
        Ptr<RdmaTransport> t = RdmaTransportHelper().Install(topo);
        Ptr<CommDagRunner> ring = StartRing(
            t,
            64 * 1000 * 1000,
            []() {},
            "DP",
            "bucket 0");
        Simulator::Run();
        const Time end = Simulator::Now();
        const std::string why = ring->DescribeUnfinished();
        std::cout << "[crux-rdma] silent peer, no watchdog: run over at " << end.As(Time::MS)
                  << ": " << why << std::endl;
        NS_TEST_ASSERT_MSG_EQ(ring->IsComplete(), false, "the all-reduce cannot finish");
        NS_TEST_ASSERT_MSG_EQ(ring->IsStalled(), true, "stalled");
        NS_TEST_ASSERT_MSG_LT(end, MilliSeconds(50), "nothing keeps the simulation going");
        NS_TEST_ASSERT_MSG_NE(why.find("the communication graph did not finish ("),
                              std::string::npos,
                              "graph");
        NS_TEST_ASSERT_MSG_NE(why.find("never ran: it waits on rank 2's send to rank 3"),
                              std::string::npos,
                              "first node that never ran and the send it waits on");
        NS_TEST_ASSERT_MSG_NE(why.find("never posted: rank 2 hangs"), std::string::npos, "why");
        Simulator::Destroy();
        Config::Reset();
    }
};

/// ErrorModel loss on a switch-to-switch link under a ring all-reduce.
class ErrorModelTestCase : public TestCase
{
  public:
    ErrorModelTestCase()
        : TestCase("ErrorModel 1e-3 on a switch-to-switch link during a ring all-reduce: every "
                   "message completes, drops traced with their reason, retransmissions counted")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<CruxTopology> topo = MakeSmallClos();
        Ptr<RdmaTransport> t = RdmaTransportHelper().Install(topo);
        std::map<std::string, uint64_t> drops;
        int64_t stream = 100;
        for (uint32_t id : Tor0AggLinks(topo))
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(1e-3);
            em->AssignStreams(stream++);
            topo->GetLink(id).rxDev->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
        for (uint32_t id = 0; id < topo->GetNLinks(); ++id)
        {
            topo->GetLink(id).rxDev->TraceConnectWithoutContext(
                "Drop",
                crux::MakeFunctorCallback<void, Ptr<const Packet>, uint8_t, const std::string&>(
                    [&drops](Ptr<const Packet>, uint8_t, const std::string& why) {
                        ++drops[why];
                    }));
        }
        const uint64_t bytes = 64 * 1000 * 1000;
        Time done;
        Ptr<CommDagRunner> ring = StartRing(t, bytes, [&done]() { done = Simulator::Now(); });
        Simulator::Run();
        RdmaQpStats st = t->GetStats();
        uint64_t switchDrops = 0;
        for (uint32_t sw = 0; sw < topo->GetNSwitches(); ++sw)
        {
            switchDrops += topo->GetSwitch(sw).sw->GetTotalDrops();
        }
        std::cout << "[crux-rdma] ErrorModel 1e-3: all-reduce done at " << done.As(Time::MS) << ", "
                  << ring->GetMessagesSent() << " messages, drops " << drops["receive-error-model"]
                  << " (receive-error-model), retransmitted " << st.retransmittedPackets
                  << " packets, " << st.nakRewinds << " NAK rewinds, " << st.timeouts
                  << " timeouts, " << st.duplicates << " duplicates" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(ring->IsComplete(), true, "the all-reduce completed");
        NS_TEST_ASSERT_MSG_EQ(ring->GetMessagesSent(), 4 * 6, "N x 2(N-1) messages");
        NS_TEST_ASSERT_MSG_EQ(st.messagesDelivered, 4 * 6, "every message delivered once");
        NS_TEST_ASSERT_MSG_EQ(st.rxDataBytes, ring->GetBytesSent(), "exact bytes accepted");
        NS_TEST_ASSERT_MSG_GT(drops["receive-error-model"], 0, "the ErrorModel dropped frames");
        NS_TEST_ASSERT_MSG_EQ(drops.size(), 1, "no drop for another reason");
        NS_TEST_ASSERT_MSG_EQ(switchDrops, 0, "no switch drop");
        NS_TEST_ASSERT_MSG_GT(st.retransmittedPackets, 0, "losses were repaired by go-back-N");
        NS_TEST_ASSERT_MSG_GT(st.nakRewinds, 0, "NAKs drove the repair");
        Simulator::Destroy();
    }
};

/// Many queue pairs on one NIC without loss: the retransmission timer never fires.
class ManyQueuePairsTestCase : public TestCase
{
  public:
    ManyQueuePairsTestCase()
        : TestCase("10,000 queue pairs per NIC, no loss: zero timeouts (a 1 ms timer: spurious "
                   "timeouts and retransmissions)")
    {
    }

  private:
    /// Send \p perQp bytes on each of \p qps queue pairs from host 0 to host 1.
    RdmaQpStats Run(uint32_t qps, uint64_t perQp, Time rto, Time* done)
    {
        RdmaTransportHelper rdma;
        if (rto.IsStrictlyPositive())
        {
            rdma.SetNicAttribute("RetransmitTimeout", TimeValue(rto));
        }
        auto h = MakeTwoHosts(rdma);
        uint32_t left = qps;
        for (uint32_t q = 0; q < qps; ++q)
        {
            h->transport->Send(Req(1, q, Gpu(0, 0), Gpu(1, 0), perQp),
                               crux::MakeFunctorCallback<void>([&]() {
                                   if (--left == 0)
                                   {
                                       *done = Simulator::Now();
                                   }
                               }));
        }
        Simulator::Run();
        RdmaQpStats st = h->transport->GetStats();
        NS_TEST_EXPECT_MSG_EQ(left, 0, "every message delivered");
        NS_TEST_EXPECT_MSG_EQ(st.rxDataBytes, qps * perQp, "exact bytes");
        NS_TEST_EXPECT_MSG_EQ(h->nicA->GetNQueuePairs(), qps, "one queue pair per flow");
        Simulator::Destroy();
        return st;
    }

    void DoRun() override
    {
        Time done;
        const RdmaQpStats big = Run(10000, 64 * 1024, Time(0), &done);
        // round robin over 10,000 queue pairs: a queue pair sends one packet per 10,000 packet
        // times (3.3 ms at 100 Gbit/s) and its first packet waits 8 of them for its ACK
        std::cout << "[crux-rdma] 10,000 QPs x 64 KiB: done at " << done.As(Time::MS) << ", "
                  << big.timeouts << " timeouts, " << big.retransmittedPackets << " retransmitted"
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(big.timeouts, 0, "no timeout without loss");
        NS_TEST_ASSERT_MSG_EQ(big.retransmittedPackets, 0, "no retransmission without loss");
        NS_TEST_ASSERT_MSG_EQ(big.outOfOrderDrops + big.duplicates, 0, "nothing resent");
        // The case (1,000 queue pairs x 1 MB) with the former 1 ms timer: the timer
        // runs while a queue pair waits for its turn and for a coalesced ACK, and fires
        // although nothing is lost.
        const RdmaQpStats old = Run(1000, 1000000, MilliSeconds(1), &done);
        std::cout << "[crux-rdma] 1,000 QPs x 1 MB with a 1 ms timer: " << old.timeouts
                  << " timeouts, " << old.retransmittedPackets << " retransmitted, done at "
                  << done.As(Time::MS) << std::endl;
        NS_TEST_ASSERT_MSG_GT(old.timeouts, 1000, "a 1 ms timer fires without loss");
        NS_TEST_ASSERT_MSG_GT(old.retransmittedPackets, 0, "and resends");
    }
};

// ================================================================================ transport

/// GPU → NIC mapping, intra-host model, UDP source ports, 5-tuples.
class TransportApiTestCase : public TestCase
{
  public:
    TransportApiTestCase()
        : TestCase("RdmaTransport: GPU->NIC map, NVLink alpha-beta, source ports, 5-tuples")
    {
    }

  private:
    void DoRun() override
    {
        ClosConfig cfg = SmallClosConfig();
        cfg.tors = 4;
        cfg.hostsPerTor = 2;
        cfg.aggs = 2;
        cfg.nicsPerHost = 2;
        cfg.gpusPerHost = 8;
        CruxTopologyHelper topoHelper;
        Ptr<CruxTopology> topo = topoHelper.BuildClos(cfg);
        RdmaTransportHelper rdma;
        rdma.SetTransportAttribute("IntraHostRate", DataRateValue(DataRate("2400Gb/s")));
        rdma.SetTransportAttribute("IntraHostLatency", TimeValue(MicroSeconds(1)));
        Ptr<RdmaTransport> t = rdma.Install(topo);
        NS_TEST_ASSERT_MSG_EQ(t->GetNHosts(), topo->GetNHosts(), "hosts");
        for (uint32_t hst = 0; hst < t->GetNHosts(); ++hst)
        {
            for (uint32_t g = 0; g < 8; ++g)
            {
                const uint32_t n = topo->GpuToNic(hst, g);
                NS_TEST_ASSERT_MSG_EQ(n, g * 2 / 8, "floor(g N / G)");
                NS_TEST_ASSERT_MSG_EQ(t->GpuToNic(Gpu(hst, g))->GetAddress(),
                                      topo->GetNicAddress(hst, n),
                                      "host " << hst << " GPU " << g);
            }
        }

        // default ports: deterministic, in range, spread
        std::set<uint16_t> ports;
        for (uint32_t f = 0; f < 64; ++f)
        {
            RdmaQpKey k = Key(9, f, Gpu(0, 0), Gpu(1, 0));
            const uint16_t p = RdmaTransport::DefaultSourcePort(k);
            NS_TEST_ASSERT_MSG_EQ(p, RdmaTransport::DefaultSourcePort(k), "deterministic");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(p, 49152, "dynamic port range");
            ports.insert(p);
        }
        NS_TEST_ASSERT_MSG_GT(ports.size(), 60, "64 keys give (almost) distinct ports");

        // intra-host: NVLink egress per GPU, alpha-beta
        std::vector<double> intra(3, 0);
        const uint64_t mb = 1000000;
        t->Send(Req(1, 0, Gpu(0, 0), Gpu(0, 1), mb), crux::MakeFunctorCallback<void>([&]() {
                    intra[0] = Simulator::Now().GetSeconds();
                }));
        t->Send(Req(1, 1, Gpu(0, 0), Gpu(0, 2), mb), crux::MakeFunctorCallback<void>([&]() {
                    intra[1] = Simulator::Now().GetSeconds();
                }));
        t->Send(Req(1, 2, Gpu(0, 3), Gpu(0, 2), mb), crux::MakeFunctorCallback<void>([&]() {
                    intra[2] = Simulator::Now().GetSeconds();
                }));

        // inter-host: ports from the request, from SetQpSourcePort, and deferred changes
        const RdmaQpKey kReq = Key(2, 0, Gpu(0, 0), Gpu(2, 0));
        const RdmaQpKey kSet = Key(2, 1, Gpu(1, 7), Gpu(3, 4));
        t->SetQpSourcePort(kSet, 60001);
        NS_TEST_ASSERT_MSG_EQ(t->GetQpSourcePort(kSet), 60001, "override before creation");
        std::map<uint32_t, std::vector<uint16_t>> portsByNic; // last octet pair → ports seen
        for (uint32_t hst = 0; hst < t->GetNHosts(); ++hst)
        {
            for (uint32_t n = 0; n < t->GetNNics(hst); ++n)
            {
                const uint32_t key = hst * 16 + n;
                t->GetNic(hst, n)->TraceConnectWithoutContext(
                    "TxData",
                    crux::MakeFunctorCallback<void, Ptr<const Packet>>(
                        [&portsByNic, key](Ptr<const Packet> p) {
                            portsByNic[key].push_back(Parse(p).udp.GetSourcePort());
                        }));
            }
        }
        int interDone = 0;
        t->Send(Req(2, 0, Gpu(0, 0), Gpu(2, 0), 64 * 4096, 0, 50000),
                crux::MakeFunctorCallback<void>([&]() { ++interDone; }));
        t->Send(Req(2, 1, Gpu(1, 7), Gpu(3, 4), 64 * 4096),
                crux::MakeFunctorCallback<void>([&]() { ++interDone; }));
        // change kReq's port while its first message is in flight; a second message follows
        crux::Schedule(MicroSeconds(3), [&]() { t->SetQpSourcePort(kReq, 50001); });
        crux::Schedule(MicroSeconds(4), [&]() {
            t->Send(Req(2, 0, Gpu(0, 0), Gpu(2, 0), 4096),
                    crux::MakeFunctorCallback<void>([&]() { ++interDone; }));
        });
        crux::Schedule(MicroSeconds(200), [&]() {
            t->Send(Req(2, 0, Gpu(0, 0), Gpu(2, 0), 2 * 4096),
                    crux::MakeFunctorCallback<void>([&]() { ++interDone; }));
        });
        Simulator::Run();

        const double one = 8.0 * mb / 2.4e12;
        NS_TEST_ASSERT_MSG_EQ_TOL(intra[0], one + 1e-6, 1e-9, "alpha + bytes / rate");
        NS_TEST_ASSERT_MSG_EQ_TOL(intra[1], 2 * one + 1e-6, 1e-9, "same GPU egress serializes");
        NS_TEST_ASSERT_MSG_EQ_TOL(intra[2], one + 1e-6, 1e-9, "other GPU in parallel");
        NS_TEST_ASSERT_MSG_EQ(t->GetIntraHostMessages(), 3, "3 NVLink messages");
        NS_TEST_ASSERT_MSG_EQ(interDone, 4, "4 network messages");

        const std::vector<uint16_t>& pa = portsByNic[0 * 16 + 0];
        NS_TEST_ASSERT_MSG_EQ(pa.size(), 64 + 1 + 2, "packets of kReq");
        for (uint32_t i = 0; i < 65; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(pa[i], 50000, "request port, kept while packets are unacked");
        }
        NS_TEST_ASSERT_MSG_EQ(pa[65], 50001, "new port once drained");
        NS_TEST_ASSERT_MSG_EQ(pa[66], 50001, "new port once drained");
        const std::vector<uint16_t>& pb = portsByNic[1 * 16 + 1];
        NS_TEST_ASSERT_MSG_EQ(pb.size(), 64, "packets of kSet (GPU 7 → NIC 1)");
        NS_TEST_ASSERT_MSG_EQ(pb.front(), 60001, "SetQpSourcePort before creation");

        std::vector<RdmaFlowInfo> flows = t->GetFlows();
        NS_TEST_ASSERT_MSG_EQ(flows.size(), 2, "2 connections");
        for (const RdmaFlowInfo& f : flows)
        {
            NS_TEST_ASSERT_MSG_EQ(f.tuple, t->GetFiveTuple(f.key), "GetFiveTuple agrees");
            NS_TEST_ASSERT_MSG_EQ(f.tuple.srcIp, t->GpuToNic(f.key.src)->GetAddress(), "src IP");
            NS_TEST_ASSERT_MSG_EQ(f.tuple.dstIp, t->GpuToNic(f.key.dst)->GetAddress(), "dst IP");
            NS_TEST_ASSERT_MSG_EQ(unsigned(f.tuple.protocol), 17u, "UDP");
            NS_TEST_ASSERT_MSG_EQ(f.tuple.dstPort, 4791, "RoCEv2 port");
            NS_TEST_ASSERT_MSG_EQ(topo->PredictPath(f.tuple).empty(), false, "routable");
        }
        NS_TEST_ASSERT_MSG_EQ(flows[0].tuple.srcPort, 50001, "current port of kReq");
        NS_TEST_ASSERT_MSG_EQ(flows[1].tuple.srcPort, 60001, "current port of kSet");
        NS_TEST_ASSERT_MSG_EQ(t->GetStats().rxDataBytes, 128 * 4096 + 3 * 4096, "exact bytes");
        Simulator::Destroy();
    }
};

// ==================================================================================== tshark

/// A PCAP of RoCEv2 traffic decodes as RoCE in tshark.
class TsharkTestCase : public TestCase
{
  public:
    TsharkTestCase()
        : TestCase("PCAP of a 2-host run decodes in tshark as RRoCE RC SEND + Acknowledge, "
                   "with and without HPCC's INT stack")
    {
    }

  private:
    void DoRun() override
    {
        namespace fs = std::filesystem;
        const fs::path dir = PcapTempDir("crux-rdma-pcap");
        std::string file;
        {
            RdmaTransportHelper rdma;
            auto h = MakeTwoHosts(rdma);
            h->qbb.EnablePcap((dir / "rdma").string(), h->da);
            file = PcapFileName(dir, "rdma", h->da);
            h->transport->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), 2 * 4096 + 100, 24),
                               Callback<void>());
            Simulator::Run();
            Simulator::Destroy(); // closes the PCAP file
        }
        // HPCC frames: an INT stack after the BTH of data packets (INT flag in the BTH), after
        // the AETH of ACKs (the echo)
        std::string hpccFile;
        {
            RdmaTransportHelper rdma;
            rdma.SetCongestionControl("hpcc");
            auto h = MakeTwoHosts(rdma);
            h->qbb.EnablePcap((dir / "hpcc").string(), h->da);
            hpccFile = PcapFileName(dir, "hpcc", h->da);
            h->transport->Send(Req(1, 0, Gpu(0, 0), Gpu(1, 0), 2 * 4096 + 100, 24),
                               Callback<void>());
            Simulator::Run();
            Simulator::Destroy();
        }
        NS_TEST_ASSERT_MSG_EQ(fs::exists(file), true, "PCAP written: " << file);
        if (!HaveTshark())
        {
            std::cout << "[crux-rdma] SKIP tshark decode: " << TSHARK << " not installed"
                      << std::endl;
            fs::remove_all(dir);
            return;
        }
        const std::string summary =
            RunCommand(std::string(TSHARK) + " -r '" + file + "' 2>/dev/null");
        const std::string verbose =
            RunCommand(std::string(TSHARK) + " -r '" + file + "' -V 2>/dev/null");
        std::cout << "[crux-rdma] tshark:\n" << summary;
        for (const char* s : {"RRoCE",
                              "RC Send First",
                              "RC Send Middle",
                              "RC Send Last",
                              "RC Acknowledge",
                              "QP=0x000100"})
        {
            NS_TEST_EXPECT_MSG_NE(summary.find(s), std::string::npos, "tshark summary has " << s);
        }
        for (const char* s : {"InfiniBand",
                              "Base Transport Header",
                              "Reliable Connection (RC) - SEND First (0)",
                              "Reliable Connection (RC) - Acknowledge (17)",
                              "AETH - ACK Extended Transport Header",
                              "Acknowledge Request: True",
                              "Dst Port: 4791",
                              "Class Selector 3",
                              "ECN-Capable Transport codepoint '10'",
                              "Invariant CRC"})
        {
            NS_TEST_EXPECT_MSG_NE(verbose.find(s), std::string::npos, "tshark -V has " << s);
        }
        // HPCC: still RoCE for tshark; the INT flag shows as the BTH's reserved bits, the INT
        // stack as the first 52 bytes of the SEND payload, and the ACK's echo is not displayed
        const std::string hpccSummary =
            RunCommand(std::string(TSHARK) + " -r '" + hpccFile + "' 2>/dev/null");
        const std::string hpccVerbose =
            RunCommand(std::string(TSHARK) + " -r '" + hpccFile + "' -V 2>/dev/null");
        std::cout << "[crux-rdma] tshark, HPCC:\n" << hpccSummary;
        for (const char* s :
             {"RRoCE 4206 RC Send First", "RC Send Last", "RRoCE 114 RC Acknowledge"})
        {
            NS_TEST_EXPECT_MSG_NE(hpccSummary.find(s), std::string::npos, "HPCC summary has " << s);
        }
        for (const char* s : {"Reserved (7 bits): 64", "Data (4148 bytes)", "AETH - ACK"})
        {
            NS_TEST_EXPECT_MSG_NE(hpccVerbose.find(s), std::string::npos, "HPCC -V has " << s);
        }
        NS_TEST_EXPECT_MSG_EQ(hpccVerbose.find("Malformed"), std::string::npos, "not malformed");
        fs::remove_all(dir);
    }
};

/// The crux-rdma test suite.
class RdmaTransportTestSuite : public TestSuite
{
  public:
    RdmaTransportTestSuite()
        : TestSuite("crux-rdma", UNIT)
    {
        AddTestCase(new RoceHeaderTestCase, TestCase::QUICK);
        AddTestCase(new GoodputTestCase, TestCase::QUICK);
        AddTestCase(new ManyMessagesTestCase, TestCase::QUICK);
        AddTestCase(new RandomLossTestCase, TestCase::QUICK);
        AddTestCase(new TailLossTestCase, TestCase::QUICK);
        AddTestCase(new PsnWrapTestCase, TestCase::QUICK);
        AddTestCase(new PacingTestCase, TestCase::QUICK);
        AddTestCase(new IncastTestCase, TestCase::QUICK);
        AddTestCase(new DualPortTestCase, TestCase::QUICK);
        AddTestCase(new WatchdogTestCase, TestCase::QUICK);
        AddTestCase(new LinkCutTestCase, TestCase::QUICK);
        AddTestCase(new SilentPeerTestCase, TestCase::QUICK);
        AddTestCase(new ErrorModelTestCase, TestCase::QUICK);
        AddTestCase(new ManyQueuePairsTestCase, TestCase::QUICK);
        AddTestCase(new TransportApiTestCase, TestCase::QUICK);
        AddTestCase(new TsharkTestCase, TestCase::QUICK);
    }
};

static RdmaTransportTestSuite g_rdmaTransportTestSuite; //!< registers the suite
