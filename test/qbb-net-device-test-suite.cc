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

// Tests of the packet-level PFC Ethernet device (suite "crux-qbb"): strict priority and DWRR
// transmit selection, IEEE 802.1Qbb PAUSE semantics and frame format, serialization timing,
// ECN marking, egress drops, DSCP mapping, and PCAP output decoded by tshark.

#include "crux-test-util.h"

#include "ns3/boolean.h"
#include "ns3/crux-compat.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/pcap-file.h"
#include "ns3/pfc-pause-header.h"
#include "ns3/qbb-channel.h"
#include "ns3/qbb-helper.h"
#include "ns3/qbb-net-device.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <array>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint16_t IPV4 = 0x0800;

/// A two-node link built with QbbHelper.
struct TestLink
{
    Ptr<Node> a;          //!< sender side
    Ptr<Node> b;          //!< receiver side
    Ptr<QbbNetDevice> da; //!< device on a
    Ptr<QbbNetDevice> db; //!< device on b
    QbbHelper helper;     //!< the helper that built it (for PCAP)
};

/// Build a link with the given rate, delay and extra device attributes (applied to both ends).
TestLink
MakeLink(const std::string& rate,
         Time delay,
         const std::vector<std::pair<std::string, std::string>>& attrs = {})
{
    TestLink l;
    l.a = CreateObject<Node>();
    l.b = CreateObject<Node>();
    l.helper.SetDeviceAttribute("DataRate", StringValue(rate));
    for (const auto& kv : attrs)
    {
        l.helper.SetDeviceAttribute(kv.first, StringValue(kv.second));
    }
    l.helper.SetChannelAttribute("Delay", TimeValue(delay));
    NetDeviceContainer d = l.helper.Install(l.a, l.b);
    l.da = DynamicCast<QbbNetDevice>(d.Get(0));
    l.db = DynamicCast<QbbNetDevice>(d.Get(1));
    return l;
}

/**
 * Build an IPv4/UDP packet of exactly \p l3Bytes bytes (IPv4 header included).
 * The traffic class travels as DSCP = 8 * tc, a sequence number as the UDP source port.
 */
Ptr<Packet>
MakeIpv4Packet(uint32_t l3Bytes, uint8_t tc, uint16_t seq, Ipv4Header::EcnType ecn)
{
    Ptr<Packet> p = Create<Packet>(l3Bytes - 28);
    UdpHeader udp;
    udp.SetSourcePort(seq);
    udp.SetDestinationPort(4791);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.1.1"));
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetPayloadSize(l3Bytes - 20);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(8 * tc));
    ip.SetEcn(ecn);
    p->AddHeader(ip);
    return p;
}

/// One frame seen by the receiver's frame handler.
struct RxRecord
{
    Time t;                  //!< arrival time
    uint8_t tc;              //!< DSCP >> 3
    uint16_t seq;            //!< UDP source port
    Ipv4Header::EcnType ecn; //!< ECN field on arrival
    uint32_t l3Bytes;        //!< packet size without Ethernet header
};

/// Collects every data frame arriving on a device.
struct RxLog
{
    std::vector<RxRecord> frames; //!< in arrival order

    /// Attach to \p dev as its frame handler.
    void Attach(Ptr<QbbNetDevice> dev)
    {
        dev->SetFrameHandler(
            crux::MakeFunctorCallback([this](Ptr<QbbNetDevice>, Ptr<Packet> p, uint16_t type) {
                if (type != IPV4)
                {
                    return;
                }
                Ipv4Header ip;
                p->RemoveHeader(ip);
                UdpHeader udp;
                p->PeekHeader(udp);
                frames.push_back(RxRecord{Simulator::Now(),
                                          static_cast<uint8_t>(ip.GetDscp() >> 3),
                                          udp.GetSourcePort(),
                                          ip.GetEcn(),
                                          p->GetSize() + 20});
            }));
    }

    /// Wire bits (frame + FCS + 20 IFG) of TC \p tc (or all if tc > 7) received in [t0, t1).
    double WireBits(uint8_t tc, Time t0, Time t1) const
    {
        double bits = 0;
        for (const auto& r : frames)
        {
            if (r.t >= t0 && r.t < t1 && (tc > 7 || r.tc == tc))
            {
                bits += 8.0 * (std::max<uint32_t>(r.l3Bytes + 14 + 4, 64) + 20);
            }
        }
        return bits;
    }
};

/// Keeps TCs of a device backlogged: pre-fills each and sends one more per dequeued frame.
struct BacklogSource
{
    Ptr<QbbNetDevice> dev;                          //!< the device fed
    std::array<uint32_t, 8> l3Bytes;                //!< frame size per TC; 0 = TC not fed
    uint64_t sent{0};                               //!< frames handed to the device
    bool running{true};                             //!< refill on/off
    std::vector<std::pair<Time, uint8_t>> txStarts; //!< (time, tc) of every data frame start

    /// Hook to the device and pre-fill \p depth frames per fed TC.
    void Start(Ptr<QbbNetDevice> d, uint32_t depth)
    {
        dev = d;
        dev->SetDequeueHandler(
            crux::MakeFunctorCallback([this](Ptr<QbbNetDevice>, Ptr<const Packet>, uint8_t tc) {
                txStarts.emplace_back(Simulator::Now(), tc);
                // not the control class (CONTROL_CLASS = 8, beyond l3Bytes): never refilled
                if (running && tc < l3Bytes.size() && l3Bytes[tc] != 0)
                {
                    SendOne(tc);
                }
            }));
        for (uint8_t tc = 0; tc < 8; ++tc)
        {
            for (uint32_t k = 0; l3Bytes[tc] != 0 && k < depth; ++k)
            {
                SendOne(tc);
            }
        }
    }

    /// Enqueue one frame in \p tc.
    void SendOne(uint8_t tc)
    {
        dev->SendInTc(
            MakeIpv4Packet(l3Bytes[tc], tc, static_cast<uint16_t>(sent++), Ipv4Header::ECN_NotECT),
            dev->GetBroadcast(),
            IPV4,
            tc);
    }
};

/// Frame size used by the rate tests: 1212 L3 + 14 + 4 + 20 = 1250 wire bytes = 1 us at 10G.
constexpr uint32_t L3_1US = 1212;

// ============================================================================================

/// Strict priority: a 50% high-TC stream keeps its rate, a saturating low TC gets the rest.
class QbbStrictPriorityTestCase : public TestCase
{
  public:
    QbbStrictPriorityTestCase()
        : TestCase("strict priority: TC5 at 50% load keeps its rate over a saturating TC1")
    {
    }

  private:
    void DoRun() override
    {
        TestLink l = MakeLink("10Gb/s", MicroSeconds(1));
        RxLog rx;
        rx.Attach(l.db);
        BacklogSource low;
        low.l3Bytes.fill(0);
        low.l3Bytes[1] = L3_1US;
        low.Start(l.da, 4);
        uint64_t highQueuedBefore = 0; // max TC5 bytes found queued when a new TC5 frame comes
        uint16_t highSeq = 0;
        const Time period = NanoSeconds(2000); // 1250 bytes every 2 us = 5 Gbit/s
        const Time stop = MilliSeconds(11);
        std::function<void()> sendHigh = [&]() {
            highQueuedBefore = std::max(highQueuedBefore, l.da->GetTcQueueBytes(5));
            l.da->SendInTc(MakeIpv4Packet(L3_1US, 5, highSeq++, Ipv4Header::ECN_NotECT),
                           l.da->GetBroadcast(),
                           IPV4,
                           5);
            if (Simulator::Now() + period < stop)
            {
                crux::Schedule(period, sendHigh);
            }
        };
        crux::Schedule(NanoSeconds(333), sendHigh);
        Simulator::Stop(stop + MicroSeconds(20));
        Simulator::Run();

        const Time t0 = MilliSeconds(1);
        const Time t1 = MilliSeconds(11);
        const double secs = (t1 - t0).GetSeconds();
        const double high = rx.WireBits(5, t0, t1) / secs;
        const double lowRate = rx.WireBits(1, t0, t1) / secs;
        std::cout << "[crux-qbb] strict priority: TC5 " << high / 1e9 << " Gb/s, TC1 "
                  << lowRate / 1e9 << " Gb/s" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(high, 5e9, 0.01 * 5e9, "TC5 must get its offered 50%");
        NS_TEST_ASSERT_MSG_EQ_TOL(lowRate, 5e9, 0.01 * 5e9, "TC1 must get the remaining 50%");
        NS_TEST_ASSERT_MSG_EQ_TOL(high + lowRate, 10e9, 0.01 * 10e9, "link must be saturated");
        // A TC5 frame never waits behind another TC5 frame: it waits at most one TC1 frame.
        NS_TEST_ASSERT_MSG_EQ(highQueuedBefore, 0, "TC5 frames must not queue up");
        l.da = nullptr;
        l.db = nullptr;
        Simulator::Destroy();
    }
};

/// DWRR between two backlogged TCs: equal quanta share equally, 3:1 quanta share 3:1.
class QbbDwrrTestCase : public TestCase
{
  public:
    QbbDwrrTestCase()
        : TestCase("DWRR: backlogged TCs share the link in proportion to their quanta")
    {
    }

  private:
    /// Run TC1 and TC5 backlogged with \p quanta; return their wire rates (bit/s) over 10 ms.
    std::pair<double, double> Run(const std::string& quanta)
    {
        TestLink l =
            MakeLink("10Gb/s", MicroSeconds(1), {{"Scheduler", "Dwrr"}, {"DwrrQuanta", quanta}});
        RxLog rx;
        rx.Attach(l.db);
        BacklogSource src;
        src.l3Bytes.fill(0);
        src.l3Bytes[1] = L3_1US;
        src.l3Bytes[5] = L3_1US;
        src.Start(l.da, 4);
        Simulator::Stop(MilliSeconds(11) + MicroSeconds(5));
        Simulator::Run();
        const Time t0 = MilliSeconds(1);
        const Time t1 = MilliSeconds(11);
        const double secs = (t1 - t0).GetSeconds();
        std::pair<double, double> r{rx.WireBits(1, t0, t1) / secs, rx.WireBits(5, t0, t1) / secs};
        l.da = nullptr;
        l.db = nullptr;
        Simulator::Destroy();
        return r;
    }

    void DoRun() override
    {
        auto equal = Run("1500");
        std::cout << "[crux-qbb] DWRR equal quanta: TC1 " << equal.first / 1e9 << " Gb/s, TC5 "
                  << equal.second / 1e9 << " Gb/s" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(equal.first, 5e9, 0.01 * 5e9, "TC1 share with equal quanta");
        NS_TEST_ASSERT_MSG_EQ_TOL(equal.second, 5e9, 0.01 * 5e9, "TC5 share with equal quanta");

        // Quanta of 3 and 1 frames (frame = 1226 bytes incl. Ethernet header): 75% / 25%.
        auto weighted = Run("1226,3678,1226,1226,1226,1226,1226,1226");
        std::cout << "[crux-qbb] DWRR 3:1 quanta: TC1 " << weighted.first / 1e9 << " Gb/s, TC5 "
                  << weighted.second / 1e9 << " Gb/s" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(weighted.first, 7.5e9, 0.01 * 7.5e9, "TC1 share, quanta 3:1");
        NS_TEST_ASSERT_MSG_EQ_TOL(weighted.second, 2.5e9, 0.01 * 2.5e9, "TC5 share, quanta 3:1");

        // Quanta far below the frame size still share fairly (idle rounds are fast-forwarded).
        auto tiny = Run("7");
        NS_TEST_ASSERT_MSG_EQ_TOL(tiny.first, 5e9, 0.01 * 5e9, "TC1 share with tiny quanta");
        NS_TEST_ASSERT_MSG_EQ_TOL(tiny.second, 5e9, 0.01 * 5e9, "TC5 share with tiny quanta");
    }
};

/// PAUSE frame format: header round trip and raw bytes.
class QbbPauseHeaderTestCase : public TestCase
{
  public:
    QbbPauseHeaderTestCase()
        : TestCase("PFC PAUSE header: 46-byte layout and serialize-deserialize round trip")
    {
    }

  private:
    void DoRun() override
    {
        PfcPauseHeader h;
        h.SetPause(3, 0x1234);
        h.SetPause(6, 7);
        Ptr<Packet> p = Create<Packet>();
        p->AddHeader(h);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 46, "PFC payload is padded to 46 bytes");
        std::array<uint8_t, 46> raw{};
        p->CopyData(raw.data(), raw.size());
        NS_TEST_ASSERT_MSG_EQ(raw[0], 0x01, "opcode high byte");
        NS_TEST_ASSERT_MSG_EQ(raw[1], 0x01, "opcode low byte");
        NS_TEST_ASSERT_MSG_EQ(raw[2], 0x00, "class-enable vector high byte (reserved)");
        NS_TEST_ASSERT_MSG_EQ(raw[3], 0x48, "class-enable vector: classes 3 and 6");
        NS_TEST_ASSERT_MSG_EQ(raw[4 + 2 * 3], 0x12, "quanta of class 3, high byte");
        NS_TEST_ASSERT_MSG_EQ(raw[5 + 2 * 3], 0x34, "quanta of class 3, low byte");
        NS_TEST_ASSERT_MSG_EQ(raw[4 + 2 * 6], 0x00, "quanta of class 6, high byte");
        NS_TEST_ASSERT_MSG_EQ(raw[5 + 2 * 6], 0x07, "quanta of class 6, low byte");
        uint32_t nonZeroElsewhere = 0;
        for (uint32_t i = 4; i < raw.size(); ++i)
        {
            const bool quantaByte = (i >= 10 && i <= 11) || (i >= 16 && i <= 17);
            nonZeroElsewhere += (!quantaByte && raw[i] != 0) ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(nonZeroElsewhere, 0, "other quanta and padding are zero");

        PfcPauseHeader back;
        back.SetPause(0, 99); // overwritten by Deserialize
        p->RemoveHeader(back);
        NS_TEST_ASSERT_MSG_EQ(back.GetOpcode(), 0x0101, "opcode round trip");
        NS_TEST_ASSERT_MSG_EQ(back.GetClassEnableVector(), 0x48, "vector round trip");
        NS_TEST_ASSERT_MSG_EQ(back.GetQuanta(3), 0x1234, "class 3 quanta round trip");
        NS_TEST_ASSERT_MSG_EQ(back.GetQuanta(6), 7, "class 6 quanta round trip");
        NS_TEST_ASSERT_MSG_EQ(back.GetQuanta(0), 0, "class 0 quanta round trip");
        NS_TEST_ASSERT_MSG_EQ(back.IsClassEnabled(3), true, "class 3 enabled");
        NS_TEST_ASSERT_MSG_EQ(back.IsClassEnabled(0), false, "class 0 not enabled");
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 0, "whole header consumed");
    }
};

/// PAUSE semantics on a running link.
class QbbPauseTestCase : public TestCase
{
  public:
    QbbPauseTestCase()
        : TestCase("PFC PAUSE: TC3 stops for q*512 bit times, resumes, XON, refresh; TC1 flows")
    {
    }

  private:
    struct PauseRx
    {
        Time t;
        uint8_t tc;
        uint16_t quanta;
    };

    void DoRun() override
    {
        const double rate = 10e9;
        const Time frameTime = NanoSeconds(1000); // 1250 wire bytes at 10 Gbit/s
        TestLink l = MakeLink("10Gb/s", MicroSeconds(1));
        RxLog rx;
        rx.Attach(l.db);
        BacklogSource src;
        src.l3Bytes.fill(0);
        src.l3Bytes[1] = L3_1US;
        src.l3Bytes[3] = L3_1US;
        src.Start(l.da, 4);

        std::vector<PauseRx> pauseRx;
        l.da->TraceConnectWithoutContext(
            "PfcRx",
            crux::MakeFunctorCallback<void, Ptr<const QbbNetDevice>, uint8_t, uint16_t>(
                [&](Ptr<const QbbNetDevice>, uint8_t tc, uint16_t q) {
                    pauseRx.push_back(PauseRx{Simulator::Now(), tc, q});
                }));
        std::vector<std::pair<uint8_t, uint16_t>> pauseTx;
        l.db->TraceConnectWithoutContext(
            "PfcTx",
            crux::MakeFunctorCallback<void, Ptr<const QbbNetDevice>, uint8_t, uint16_t>(
                [&](Ptr<const QbbNetDevice>, uint8_t tc, uint16_t q) {
                    pauseTx.emplace_back(tc, q);
                }));
        std::vector<Ptr<Packet>> bWire; // frames sent by b (PAUSE only), copies
        l.db->TraceConnectWithoutContext(
            "Sniffer",
            crux::MakeFunctorCallback<void, Ptr<const Packet>>([&](Ptr<const Packet> f) {
                EthernetHeader eth;
                f->PeekHeader(eth);
                if (eth.GetLengthType() == QbbNetDevice::PFC_ETHERTYPE)
                {
                    bWire.push_back(f->Copy());
                }
            }));

        bool pausedMid = false;
        bool pausedAfter = true;
        auto pause = [&](double us, uint16_t q) {
            crux::Schedule(MicroSeconds(us), [&l, q]() { l.db->SendPause(3, q); });
        };
        pause(100, 1000); // (a) 51.2 us pause
        crux::Schedule(MicroSeconds(130), [&]() { pausedMid = l.da->IsTcPaused(3); });
        crux::Schedule(MicroSeconds(160), [&]() { pausedAfter = l.da->IsTcPaused(3); });
        pause(300, 65535); // (b) long pause ...
        pause(400, 0);     //     ... cancelled by XON
        pause(600, 1000);  // (c) 51.2 us pause ...
        pause(620, 500);   //     ... replaced by a 25.6 us one (ends earlier)
        pause(800, 200);   // (d) 20.48 us pause ...
        pause(810, 200);   //     ... refreshed (ends later)
        Simulator::Stop(MicroSeconds(1000));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(pauseRx.size(), 7, "seven PAUSE frames arrive");
        NS_TEST_ASSERT_MSG_EQ(l.db->GetPauseTxCount(), 7, "sender counts seven PAUSE frames");
        for (uint8_t tc = 0; tc <= QbbNetDevice::N_TC; ++tc)
        {
            NS_TEST_ASSERT_MSG_EQ(l.db->GetPauseTxCount(tc),
                                  (tc == 3 ? uint64_t{7} : uint64_t{0}),
                                  "PAUSE frames counted for the paused class only (TC " << +tc
                                                                                        << ")");
        }
        NS_TEST_ASSERT_MSG_EQ(l.da->GetPauseRxCount(), 7, "receiver counts seven PAUSE frames");
        NS_TEST_ASSERT_MSG_EQ(pauseTx.size(), 7, "PfcTx fired seven times");
        NS_TEST_ASSERT_MSG_EQ(pauseTx[1].second, 65535, "PfcTx carries the quanta");
        NS_TEST_ASSERT_MSG_EQ(unsigned(pauseRx[0].tc), 3, "PAUSE for TC 3");
        NS_TEST_ASSERT_MSG_EQ(pauseRx[0].quanta, 1000, "PAUSE quanta 1000 received");
        NS_TEST_ASSERT_MSG_EQ(pausedMid, true, "TC3 paused 30 us after the PAUSE");
        NS_TEST_ASSERT_MSG_EQ(pausedAfter, false, "TC3 no longer paused after expiry");
        // b's link is idle: the PAUSE arrives after its own 84 wire bytes (67.2 ns) + 1 us.
        NS_TEST_ASSERT_MSG_EQ_TOL(pauseRx[0].t.GetNanoSeconds(),
                                  101067,
                                  1,
                                  "PAUSE arrival = send time + serialization + delay");

        // Frame format on the wire.
        NS_TEST_ASSERT_MSG_EQ(bWire.size(), 7, "seven PAUSE frames in b's sniffer");
        {
            Ptr<Packet> f = bWire[0];
            NS_TEST_ASSERT_MSG_EQ(f->GetSize(), 60, "PAUSE frame is 60 bytes before FCS");
            EthernetHeader eth;
            f->RemoveHeader(eth);
            NS_TEST_ASSERT_MSG_EQ(eth.GetDestination(),
                                  Mac48Address("01:80:c2:00:00:01"),
                                  "PAUSE destination address");
            NS_TEST_ASSERT_MSG_EQ(eth.GetSource(),
                                  Mac48Address::ConvertFrom(l.db->GetAddress()),
                                  "PAUSE source address");
            NS_TEST_ASSERT_MSG_EQ(eth.GetLengthType(), 0x8808, "MAC control EtherType");
            PfcPauseHeader h;
            f->RemoveHeader(h);
            NS_TEST_ASSERT_MSG_EQ(h.GetOpcode(), 0x0101, "PFC opcode on the wire");
            NS_TEST_ASSERT_MSG_EQ(h.GetClassEnableVector(), 0x0008, "only class 3 enabled");
            NS_TEST_ASSERT_MSG_EQ(h.GetQuanta(3), 1000, "quanta on the wire");
        }

        auto firstTc3After = [&](Time t) {
            for (const auto& s : src.txStarts)
            {
                if (s.second == 3 && s.first >= t)
                {
                    return s.first;
                }
            }
            return Time::Max();
        };
        auto countStarts = [&](uint8_t tc, Time t0, Time t1) {
            uint32_t n = 0;
            for (const auto& s : src.txStarts)
            {
                n += (s.second == tc && s.first >= t0 && s.first < t1) ? 1 : 0;
            }
            return n;
        };
        auto pauseTime = [&](uint16_t q) { return NanoSeconds(q * 512.0 / rate * 1e9); };
        // Check that TC3 is silent on [from, until) and restarts within one frame after until.
        auto checkWindow = [&](const char* what, Time from, Time until) {
            NS_TEST_EXPECT_MSG_EQ(countStarts(3, from, until), 0, what << ": no TC3 start");
            const Time first = firstTc3After(from);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(first, until, what << ": TC3 resumes after expiry");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(first,
                                        until + frameTime,
                                        what << ": TC3 resumes within one frame time");
            // TC1 flows: one frame per frame time while TC3 is paused.
            const double expected = (until - from).GetSeconds() / frameTime.GetSeconds();
            NS_TEST_EXPECT_MSG_EQ_TOL(double(countStarts(1, from, until)),
                                      expected,
                                      1.5,
                                      what << ": TC1 keeps the link busy");
            std::cout << "[crux-qbb] " << what << ": PAUSE at " << from.As(Time::US) << ", expiry "
                      << until.As(Time::US) << ", TC3 restarts " << first.As(Time::US) << std::endl;
        };

        // Before the first PAUSE, TC3 (higher priority) owns the link: no TC1 start at all.
        NS_TEST_ASSERT_MSG_EQ(countStarts(1, MicroSeconds(1), pauseRx[0].t),
                              0,
                              "strict priority: TC1 starved while TC3 backlogged");
        checkWindow("(a) PAUSE 1000", pauseRx[0].t, pauseRx[0].t + pauseTime(1000));
        checkWindow("(b) PAUSE 65535 then XON", pauseRx[1].t, pauseRx[2].t);
        checkWindow("(c) PAUSE 1000 replaced by 500", pauseRx[3].t, pauseRx[4].t + pauseTime(500));
        checkWindow("(d) PAUSE 200 refreshed", pauseRx[5].t, pauseRx[6].t + pauseTime(200));

        l.da = nullptr;
        l.db = nullptr;
        Simulator::Destroy();
    }
};

/// The state traces: TcBytesInQueue, BytesInQueue and TcPauseState against the getters and the
/// closed forms of a known PAUSE schedule.
class QbbStateTracesTestCase : public TestCase
{
  public:
    QbbStateTracesTestCase()
        : TestCase("state traces: TcBytesInQueue and BytesInQueue match the getters and the "
                   "queue depths, TcPauseState fires once per PAUSE on or off transition")
    {
    }

  private:
    /// One TcPauseState firing.
    struct PauseChange
    {
        Time t;      //!< when
        uint8_t tc;  //!< class
        bool paused; //!< new state
    };

    void DoRun() override
    {
        TestLink l = MakeLink("10Gb/s", MicroSeconds(1));
        BacklogSource src; // TC 1 and TC 3 backlogged, 4 frames each, refilled per dequeue
        src.l3Bytes.fill(0);
        src.l3Bytes[1] = L3_1US;
        src.l3Bytes[3] = L3_1US;
        const uint64_t frame = L3_1US + 14; // queue accounting: L3 + Ethernet header
        const uint32_t ctrlL3 = 100;
        const uint64_t ctrlFrame = ctrlL3 + 14;

        // per class: the value the trace last reported, its largest value, steps up and down
        std::array<uint64_t, QbbNetDevice::N_CLASSES> now{};
        std::array<uint64_t, QbbNetDevice::N_CLASSES> peak{};
        std::array<uint64_t, QbbNetDevice::N_CLASSES> ups{};
        std::array<uint64_t, QbbNetDevice::N_CLASSES> downs{};
        uint64_t badSteps = 0;      // |new - old| not one frame of the class
        uint64_t discontinuity = 0; // old != the previous new of the class
        l.da->TraceConnectWithoutContext(
            "TcBytesInQueue",
            crux::MakeFunctorCallback<void, uint8_t, uint64_t, uint64_t>(
                [&](uint8_t c, uint64_t oldBytes, uint64_t newBytes) {
                    discontinuity += oldBytes != now[c] ? 1 : 0;
                    const uint64_t step =
                        newBytes > oldBytes ? newBytes - oldBytes : oldBytes - newBytes;
                    badSteps += step != (c == QbbNetDevice::CONTROL_CLASS ? ctrlFrame : frame);
                    (newBytes > oldBytes ? ups : downs)[c]++;
                    now[c] = newBytes;
                    peak[c] = std::max(peak[c], newBytes);
                }));
        uint64_t total = 0;
        uint64_t totalPeak = 0;
        uint64_t totalFirings = 0;
        uint64_t totalNotSum = 0; // BytesInQueue != the sum of the classes' traced values
        l.da->TraceConnectWithoutContext("BytesInQueue",
                                         crux::MakeFunctorCallback<void, uint64_t, uint64_t>(
                                             [&](uint64_t oldBytes, uint64_t newBytes) {
                                                 ++totalFirings;
                                                 totalNotSum += oldBytes != total ? 1 : 0;
                                                 uint64_t sum = 0;
                                                 for (uint64_t b : now)
                                                 {
                                                     sum += b;
                                                 }
                                                 totalNotSum += newBytes != sum ? 1 : 0;
                                                 total = newBytes;
                                                 totalPeak = std::max(totalPeak, newBytes);
                                             }));
        std::vector<PauseChange> changes;
        uint64_t stateMismatch = 0; // IsTcPaused() disagrees with the trace
        l.da->TraceConnectWithoutContext(
            "TcPauseState",
            crux::MakeFunctorCallback<void, uint8_t, bool>([&](uint8_t tc, bool paused) {
                changes.push_back(PauseChange{Simulator::Now(), tc, paused});
                stateMismatch += l.da->IsTcPaused(tc) != paused ? 1 : 0;
            }));
        std::vector<std::pair<Time, uint16_t>> pauseRx; // (arrival, quanta)
        l.da->TraceConnectWithoutContext(
            "PfcRx",
            crux::MakeFunctorCallback<void, Ptr<const QbbNetDevice>, uint8_t, uint16_t>(
                [&](Ptr<const QbbNetDevice>, uint8_t, uint16_t q) {
                    pauseRx.emplace_back(Simulator::Now(), q);
                }));

        src.Start(l.da, 4);
        // three control-class frames in the middle of a TC 3 frame's serialization
        crux::Schedule(NanoSeconds(50500), [&l, ctrlL3]() {
            for (uint16_t k = 0; k < 3; ++k)
            {
                l.da->SendInTc(MakeIpv4Packet(ctrlL3, 0, k, Ipv4Header::ECN_NotECT),
                               l.da->GetBroadcast(),
                               IPV4,
                               QbbNetDevice::CONTROL_CLASS);
            }
        });
        auto pause = [&l](double us, uint8_t tc, uint16_t q) {
            crux::Schedule(MicroSeconds(us), [&l, tc, q]() { l.db->SendPause(tc, q); });
        };
        pause(100, 3, 1000);  // on, off when 51.2 us run out
        pause(300, 3, 65535); // on ...
        pause(400, 3, 0);     // ... off by XON
        pause(600, 3, 1000);  // on ...
        pause(620, 3, 500);   // ... refreshed (no transition), off 25.6 us later
        pause(800, 5, 200);   // TC 5 (not fed): on, off 10.24 us later
        Simulator::Stop(MicroSeconds(1000));
        Simulator::Run();

        // queue bytes: the trace against the getters and the closed forms
        for (uint8_t c : {uint8_t{1}, uint8_t{3}, QbbNetDevice::CONTROL_CLASS})
        {
            const uint64_t bytes = c == QbbNetDevice::CONTROL_CLASS ? ctrlFrame : frame;
            NS_TEST_ASSERT_MSG_EQ(peak[c],
                                  l.da->GetPeakTcQueueBytes(c),
                                  "class " << +c << ": largest traced value = peak getter");
            NS_TEST_ASSERT_MSG_EQ(now[c],
                                  l.da->GetTcQueueBytes(c),
                                  "class " << +c << ": last traced value = queue getter");
            NS_TEST_ASSERT_MSG_EQ(downs[c],
                                  l.da->GetTxFrames(c),
                                  "class " << +c << ": one step down per frame sent");
            NS_TEST_ASSERT_MSG_EQ((ups[c] - downs[c]) * bytes,
                                  l.da->GetTcQueueBytes(c),
                                  "class " << +c << ": frames enqueued - sent = frames queued");
        }
        NS_TEST_ASSERT_MSG_EQ(peak[1], 4 * frame, "TC 1 never holds more than its 4 frames");
        NS_TEST_ASSERT_MSG_EQ(peak[3], 4 * frame, "TC 3 never holds more than its 4 frames");
        NS_TEST_ASSERT_MSG_EQ(peak[QbbNetDevice::CONTROL_CLASS],
                              3 * ctrlFrame,
                              "the three control frames queued together");
        NS_TEST_ASSERT_MSG_EQ(ups[QbbNetDevice::CONTROL_CLASS], 3, "three control frames");
        NS_TEST_ASSERT_MSG_GT(downs[1], 0, "TC 1 sent while TC 3 was paused");
        NS_TEST_ASSERT_MSG_EQ(badSteps, 0, "every change is one frame");
        NS_TEST_ASSERT_MSG_EQ(discontinuity, 0, "old value = the previous new value");
        NS_TEST_ASSERT_MSG_EQ(totalNotSum, 0, "BytesInQueue = the classes' sum at every change");
        NS_TEST_ASSERT_MSG_EQ(total, l.da->GetQueueBytes(), "last BytesInQueue = getter");
        NS_TEST_ASSERT_MSG_EQ(totalPeak,
                              8 * frame + 3 * ctrlFrame,
                              "BytesInQueue peaks at 4 + 4 data frames and 3 control frames");
        uint64_t classFirings = 0;
        for (uint8_t c = 0; c < QbbNetDevice::N_CLASSES; ++c)
        {
            classFirings += ups[c] + downs[c];
        }
        NS_TEST_ASSERT_MSG_EQ(totalFirings, classFirings, "BytesInQueue fires with every class");

        // PAUSE state: one change per transition, at the closed-form times
        NS_TEST_ASSERT_MSG_EQ(pauseRx.size(), 6, "six PAUSE frames arrive");
        NS_TEST_ASSERT_MSG_EQ(l.da->GetPauseRxCount(), 6, "six PAUSE frames counted");
        NS_TEST_ASSERT_MSG_EQ(stateMismatch, 0, "TcPauseState agrees with IsTcPaused()");
        const auto pauseTime = [](uint16_t q) { return NanoSeconds(q * 512 / 10); }; // 10 Gb/s
        const std::vector<PauseChange> expected{
            {pauseRx[0].first, 3, true},
            {pauseRx[0].first + pauseTime(1000), 3, false}, // timer
            {pauseRx[1].first, 3, true},
            {pauseRx[2].first, 3, false}, // XON
            {pauseRx[3].first, 3, true},  // pauseRx[4] refreshes: no change
            {pauseRx[4].first + pauseTime(500), 3, false},
            {pauseRx[5].first, 5, true},
            {pauseRx[5].first + pauseTime(200), 5, false},
        };
        NS_TEST_ASSERT_MSG_EQ(changes.size(), expected.size(), "four on and four off transitions");
        for (size_t i = 0; i < expected.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(changes[i].t, expected[i].t, "transition " << i << ": time");
            NS_TEST_EXPECT_MSG_EQ(+changes[i].tc, +expected[i].tc, "transition " << i << ": TC");
            NS_TEST_EXPECT_MSG_EQ(changes[i].paused,
                                  expected[i].paused,
                                  "transition " << i << ": state");
        }
        uint64_t ons = 0;
        for (const PauseChange& c : changes)
        {
            ons += c.paused ? 1 : 0;
        }
        uint64_t pausesReceived = 0; // PAUSE frames with quanta > 0 (the sixth is an XON)
        for (const auto& rx : pauseRx)
        {
            pausesReceived += rx.second > 0 ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(pausesReceived, 5, "five PAUSE frames with quanta > 0");
        NS_TEST_ASSERT_MSG_EQ(ons,
                              pausesReceived - 1,
                              "an 'on' per PAUSE frame but the one that refreshed a paused class");

        l.da = nullptr;
        l.db = nullptr;
        Simulator::Destroy();
    }
};

/// Exact serialization + propagation timing.
class QbbTimingTestCase : public TestCase
{
  public:
    QbbTimingTestCase()
        : TestCase("timing: arrival = (frame + FCS + IFG) * 8 : rate + delay, exactly")
    {
    }

  private:
    /// Send \p n frames of \p l3 bytes at t=0; return arrival times.
    std::vector<Time> Run(const std::string& rate, Time delay, uint32_t l3, uint32_t n)
    {
        TestLink l = MakeLink(rate, delay);
        RxLog rx;
        rx.Attach(l.db);
        for (uint32_t k = 0; k < n; ++k)
        {
            l.da->SendInTc(MakeIpv4Packet(l3, 0, k, Ipv4Header::ECN_NotECT),
                           l.da->GetBroadcast(),
                           IPV4,
                           0);
        }
        Simulator::Run();
        std::vector<Time> t;
        for (const auto& r : rx.frames)
        {
            t.push_back(r.t);
        }
        l.da = nullptr;
        l.db = nullptr;
        Simulator::Destroy();
        return t;
    }

    void DoRun() override
    {
        // 1212 + 14 + 4 + 20 = 1250 bytes = 10000 bits = 1000 ns at 10 Gbit/s; + 1 us.
        auto t = Run("10Gb/s", MicroSeconds(1), 1212, 2);
        NS_TEST_ASSERT_MSG_EQ(t.size(), 2, "two frames arrive");
        NS_TEST_ASSERT_MSG_EQ(t[0], NanoSeconds(2000), "first frame arrival");
        NS_TEST_ASSERT_MSG_EQ(t[1], NanoSeconds(3000), "back-to-back frame one frame later");

        // Short frame: 28 + 14 + 4 = 46 -> padded to 64, + 20 = 84 bytes = 672 ns at 1 Gbit/s.
        t = Run("1Gb/s", NanoSeconds(500), 28, 1);
        NS_TEST_ASSERT_MSG_EQ(t.size(), 1, "one short frame arrives");
        NS_TEST_ASSERT_MSG_EQ(t[0], NanoSeconds(672 + 500), "short frame padded to 64 bytes");

        // 4096-byte frame at 100 Gbit/s: 4082 + 14 + 4 + 20 = 4120 bytes = 329.6 ns; the
        // sub-nanosecond remainder is carried, so 1000 frames take exactly 329600 ns.
        t = Run("100Gb/s", NanoSeconds(0), 4082, 1000);
        NS_TEST_ASSERT_MSG_EQ(t.size(), 1000, "1000 frames arrive");
        NS_TEST_ASSERT_MSG_EQ(t.back(), NanoSeconds(329600), "long-run rate is exact");
        NS_TEST_ASSERT_MSG_EQ(t.front(), NanoSeconds(329), "first frame: floor of 329.6 ns");
    }
};

/// ECN marking at enqueue.
class QbbEcnTestCase : public TestCase
{
  public:
    QbbEcnTestCase()
        : TestCase("ECN: CE set on ECN-capable frames enqueued above Kmin=Kmax, Pmax=1")
    {
    }

  private:
    void DoRun() override
    {
        TestLink l =
            MakeLink("10Gb/s",
                     MicroSeconds(1),
                     {{"EcnKminBytes", "3000"}, {"EcnKmaxBytes", "3000"}, {"EcnPmax", "1"}});
        RxLog rx;
        rx.Attach(l.db);
        // Frame k (1-based) finds (k-2) * 1226 bytes queued (frame 1 goes straight to the wire):
        // frames 1..4 find <= 2452 bytes, frames 5..10 find >= 3678 > 3000 bytes.
        for (uint16_t k = 1; k <= 10; ++k)
        {
            l.da->SendInTc(MakeIpv4Packet(L3_1US, 2, k, Ipv4Header::ECN_ECT0),
                           l.da->GetBroadcast(),
                           IPV4,
                           2);
        }
        // Not ECN-capable, queue deep: must stay Not-ECT. ECT(1) is marked too.
        l.da->SendInTc(MakeIpv4Packet(L3_1US, 2, 11, Ipv4Header::ECN_NotECT),
                       l.da->GetBroadcast(),
                       IPV4,
                       2);
        l.da->SendInTc(MakeIpv4Packet(L3_1US, 2, 12, Ipv4Header::ECN_ECT1),
                       l.da->GetBroadcast(),
                       IPV4,
                       2);
        NS_TEST_ASSERT_MSG_EQ(l.da->GetTcQueueBytes(2), 11 * 1226, "11 frames queued");
        NS_TEST_ASSERT_MSG_EQ(l.da->GetQueueBytes(), 11 * 1226, "total queued bytes");
        // Another TC's queue is empty: its frames are not marked.
        l.da->SendInTc(MakeIpv4Packet(L3_1US, 6, 13, Ipv4Header::ECN_ECT0),
                       l.da->GetBroadcast(),
                       IPV4,
                       6);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(rx.frames.size(), 13, "all frames arrive");
        std::array<int, 14> ecn{};
        for (const auto& r : rx.frames)
        {
            ecn[r.seq] = r.ecn;
        }
        for (uint16_t k = 1; k <= 4; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(ecn[k], Ipv4Header::ECN_ECT0, "frame " << k << " not marked");
        }
        for (uint16_t k = 5; k <= 10; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(ecn[k], Ipv4Header::ECN_CE, "frame " << k << " marked CE");
        }
        NS_TEST_EXPECT_MSG_EQ(ecn[11], Ipv4Header::ECN_NotECT, "Not-ECT frame never marked");
        NS_TEST_EXPECT_MSG_EQ(ecn[12], Ipv4Header::ECN_CE, "ECT(1) frame marked CE");
        NS_TEST_EXPECT_MSG_EQ(ecn[13], Ipv4Header::ECN_ECT0, "frame of an empty TC not marked");
        l.da = nullptr;
        l.db = nullptr;
        Simulator::Destroy();

        RunLinearProfile();
    }

    /// Linear part of the profile: TC2 paused, N frames queue up, frame k is marked with
    /// probability (k-1)/N (Kmin = 0, Kmax = N frames, Pmax = 1); expected N/2 - 0.5 marks.
    void RunLinearProfile()
    {
        const uint32_t n = 400;
        const uint32_t frameBytes = L3_1US + 14;
        TestLink l = MakeLink("10Gb/s",
                              MicroSeconds(1),
                              {{"EcnKminBytes", "0"},
                               {"EcnKmaxBytes", std::to_string(n * frameBytes)},
                               {"EcnPmax", "1"},
                               {"EcnRandomStream", "7"}});
        RxLog rx;
        rx.Attach(l.db);
        l.db->SendPause(2, 65535);
        crux::Schedule(MicroSeconds(10), [&l]() {
            for (uint32_t k = 1; k <= n; ++k)
            {
                l.da->SendInTc(MakeIpv4Packet(L3_1US, 2, k, Ipv4Header::ECN_ECT0),
                               l.da->GetBroadcast(),
                               IPV4,
                               2);
            }
        });
        uint64_t queuedWhilePaused = 0;
        crux::Schedule(MicroSeconds(20), [&l, &queuedWhilePaused]() {
            queuedWhilePaused = l.da->GetTcQueueBytes(2);
            l.db->SendPause(2, 0);
        });
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(queuedWhilePaused, n * frameBytes, "paused TC2 holds all frames");
        NS_TEST_ASSERT_MSG_EQ(rx.frames.size(), n, "all frames arrive after XON");
        uint32_t marked = 0;
        uint32_t markedFirstTenth = 0;
        uint32_t markedLastTenth = 0;
        for (const auto& r : rx.frames)
        {
            if (r.ecn == Ipv4Header::ECN_CE)
            {
                ++marked;
                markedFirstTenth += r.seq <= n / 10 ? 1 : 0;
                markedLastTenth += r.seq > n - n / 10 ? 1 : 0;
            }
        }
        std::cout << "[crux-qbb] ECN linear profile: " << marked << " of " << n
                  << " marked (expected 199.5), first tenth " << markedFirstTenth << ", last tenth "
                  << markedLastTenth << std::endl;
        // Standard deviation sqrt(sum p(1-p)) ~ 8.2: allow 4 sigma.
        NS_TEST_EXPECT_MSG_EQ_TOL(double(marked), 199.5, 33.0, "marks follow the linear profile");
        NS_TEST_EXPECT_MSG_LT(markedFirstTenth, 10u, "few marks at shallow depth (mean 1.95)");
        NS_TEST_EXPECT_MSG_GT(markedLastTenth, 30u, "most marked near Kmax (mean 38)");
        l.da = nullptr;
        l.db = nullptr;
        Simulator::Destroy();
    }
};

/// Egress limits, MTU, DSCP map and the NetDevice::Send path.
class QbbConfigTestCase : public TestCase
{
  public:
    QbbConfigTestCase()
        : TestCase("MaxTcBytes and Mtu drops with reasons; DscpToTc map; Send() uses DSCP")
    {
    }

  private:
    void DoRun() override
    {
        TestLink l = MakeLink("10Gb/s",
                              MicroSeconds(1),
                              {{"MaxTcBytes", "2500"}, {"DscpToTc", "0-7:2, 46:5,48-63:6"}});
        std::vector<std::string> reasons;
        l.da->TraceConnectWithoutContext(
            "Drop",
            crux::MakeFunctorCallback<void, Ptr<const Packet>, uint8_t, const std::string&>(
                [&](Ptr<const Packet>, uint8_t, const std::string& why) {
                    reasons.push_back(why);
                }));
        std::vector<uint8_t> txTc;
        l.da->TraceConnectWithoutContext(
            "MacTx",
            crux::MakeFunctorCallback<void, Ptr<const Packet>, uint8_t>(
                [&](Ptr<const Packet>, uint8_t tc) { txTc.push_back(tc); }));

        NS_TEST_ASSERT_MSG_EQ(unsigned(l.da->DscpToTc(3)), 2, "override 0-7 -> 2");
        NS_TEST_ASSERT_MSG_EQ(unsigned(l.da->DscpToTc(46)), 5, "override 46 -> 5");
        NS_TEST_ASSERT_MSG_EQ(unsigned(l.da->DscpToTc(40)), 5, "default CS5 -> 5");
        NS_TEST_ASSERT_MSG_EQ(unsigned(l.da->DscpToTc(8)), 1, "default CS1 -> 1");
        NS_TEST_ASSERT_MSG_EQ(unsigned(l.da->DscpToTc(50)), 6, "override 48-63 -> 6");
        NS_TEST_ASSERT_MSG_EQ(unsigned(l.db->DscpToTc(63)), 6, "same map on the peer");
        NS_TEST_ASSERT_MSG_EQ(unsigned(l.da->DscpToClass(46)),
                              unsigned(QbbNetDevice::CONTROL_CLASS),
                              "ControlDscp 46 -> the control class, whatever DscpToTc says");
        NS_TEST_ASSERT_MSG_EQ(unsigned(l.da->DscpToClass(40)), 5, "other DSCPs follow DscpToTc");

        auto send = [&](uint32_t l3) {
            return l.da->SendInTc(MakeIpv4Packet(l3, 4, 0, Ipv4Header::ECN_NotECT),
                                  l.da->GetBroadcast(),
                                  IPV4,
                                  4);
        };
        NS_TEST_ASSERT_MSG_EQ(send(1212), true, "first frame goes to the wire");
        NS_TEST_ASSERT_MSG_EQ(send(1212), true, "second frame queued (1226 bytes)");
        NS_TEST_ASSERT_MSG_EQ(send(1212), true, "third frame queued (2452 bytes)");
        NS_TEST_ASSERT_MSG_EQ(send(100), false, "fourth frame exceeds MaxTcBytes 2500");
        NS_TEST_ASSERT_MSG_EQ(send(4201), false, "L3 packet above Mtu 4200");
        NS_TEST_ASSERT_MSG_EQ(reasons.size(), 2, "two drops traced");
        NS_TEST_ASSERT_MSG_EQ(reasons[0], "egress-queue-full", "queue-full reason");
        NS_TEST_ASSERT_MSG_EQ(reasons[1], "exceeds-mtu", "MTU reason");

        // NetDevice::Send maps the IPv4 DSCP through DscpToClass: DSCP 46 (ControlDscp) -> the
        // control class, CS1 -> TC 1.
        Ptr<Packet> ef = MakeIpv4Packet(500, 0, 0, Ipv4Header::ECN_NotECT);
        {
            Ipv4Header ip;
            ef->RemoveHeader(ip);
            ip.SetDscp(Ipv4Header::DSCP_EF);
            ef->AddHeader(ip);
        }
        l.da->Send(ef, l.da->GetBroadcast(), IPV4);
        l.da->Send(MakeIpv4Packet(500, 1, 0, Ipv4Header::ECN_NotECT), l.da->GetBroadcast(), IPV4);
        l.da->Send(Create<Packet>(100), l.da->GetBroadcast(), 0x86dd); // not IPv4 -> TC 0
        Simulator::Run();
        // Order on the wire: first frame (TC4), then the control class before every TC, then
        // strict priority: TC4, TC4, TC1, TC0.
        const std::vector<uint8_t> expected{4, QbbNetDevice::CONTROL_CLASS, 4, 4, 1, 0};
        NS_TEST_ASSERT_MSG_EQ(txTc.size(), expected.size(), "six frames sent");
        for (std::size_t i = 0; i < expected.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(unsigned(txTc[i]), unsigned(expected[i]), "frame " << i);
        }
        l.da = nullptr;
        l.db = nullptr;
        Simulator::Destroy();
    }
};

/// PCAP output via QbbHelper, decoded by tshark when available.
class QbbPcapTestCase : public TestCase
{
  public:
    QbbPcapTestCase()
        : TestCase("PCAP: DLT_EN10MB file with UDP and PAUSE frames; tshark decodes CBFC")
    {
    }

  private:
    void DoRun() override
    {
        namespace fs = std::filesystem;
        const fs::path dir = PcapTempDir("crux-qbb-pcap");
        std::string file;
        {
            TestLink l = MakeLink("10Gb/s", MicroSeconds(1));
            l.helper.EnablePcap((dir / "qbb").string(), l.da);
            file = PcapFileName(dir, "qbb", l.da);
            for (uint16_t k = 0; k < 3; ++k)
            {
                l.da->SendInTc(MakeIpv4Packet(200, 3, 1000 + k, Ipv4Header::ECN_ECT0),
                               l.da->GetBroadcast(),
                               IPV4,
                               3);
            }
            crux::Schedule(MicroSeconds(5), [&l]() { l.db->SendPause(3, 0xabcd); });
            Simulator::Run();
            l.da = nullptr;
            l.db = nullptr;
            l.a = nullptr;
            l.b = nullptr;
            Simulator::Destroy(); // closes the PCAP file
        }
        NS_TEST_ASSERT_MSG_EQ(fs::exists(file), true, "PCAP file " << file << " written");

        PcapFile pcap;
        pcap.Open(file, std::ios::in);
        NS_TEST_ASSERT_MSG_EQ(pcap.Fail(), false, "PCAP file opens");
        NS_TEST_ASSERT_MSG_EQ(pcap.GetDataLinkType(), 1, "DLT_EN10MB");
        std::vector<uint32_t> sizes;
        std::vector<uint16_t> types;
        for (;;)
        {
            std::array<uint8_t, 2000> buf{};
            uint32_t sec = 0;
            uint32_t usec = 0;
            uint32_t incl = 0;
            uint32_t orig = 0;
            uint32_t read = 0;
            pcap.Read(buf.data(), buf.size(), sec, usec, incl, orig, read);
            if (pcap.Eof() || pcap.Fail())
            {
                break;
            }
            sizes.push_back(orig);
            types.push_back(static_cast<uint16_t>(buf[12] << 8 | buf[13]));
        }
        pcap.Close();
        NS_TEST_ASSERT_MSG_EQ(sizes.size(), 4, "3 frames sent + 1 PAUSE received");
        NS_TEST_ASSERT_MSG_EQ(sizes[0], 214, "UDP frame = 200 + 14 bytes");
        NS_TEST_ASSERT_MSG_EQ(types[0], 0x0800, "IPv4 EtherType");
        NS_TEST_ASSERT_MSG_EQ(sizes[3], 60, "PAUSE frame = 14 + 46 bytes");
        NS_TEST_ASSERT_MSG_EQ(types[3], 0x8808, "MAC control EtherType");

        if (!HaveTshark())
        {
            std::cout << "[crux-qbb] SKIP tshark decode: " << TSHARK << " not installed"
                      << std::endl;
        }
        else
        {
            const std::string out =
                RunCommand(std::string(TSHARK) + " -r '" + file + "' -V 2>/dev/null");
            NS_TEST_EXPECT_MSG_NE(out.find("Class Based Flow Control"),
                                  std::string::npos,
                                  "tshark decodes the PAUSE as CBFC");
            NS_TEST_EXPECT_MSG_NE(out.find("User Datagram Protocol"),
                                  std::string::npos,
                                  "tshark decodes UDP");
            NS_TEST_EXPECT_MSG_NE(out.find("Internet Protocol Version 4"),
                                  std::string::npos,
                                  "tshark decodes IPv4");
            NS_TEST_EXPECT_MSG_NE(out.find("43981"), // 0xabcd quanta of class 3
                                  std::string::npos,
                                  "tshark shows the pause quanta");
        }
        fs::remove_all(dir);
    }
};

/// Wall-clock cost of the device: saturating 100 Gbit/s link, 4 KB frames, 1 s simulated.
class QbbThroughputBenchTestCase : public TestCase
{
  public:
    QbbThroughputBenchTestCase()
        : TestCase("benchmark: packet-hops per wall second, 100 Gbit-s, 4 KB frames, 1 s")
    {
    }

  private:
    void DoRun() override
    {
        TestLink l = MakeLink("100Gb/s", MicroSeconds(1));
        uint64_t received = 0;
        l.db->SetFrameHandler(crux::MakeFunctorCallback(
            [&received](Ptr<QbbNetDevice>, Ptr<Packet>, uint16_t) { ++received; }));
        const Address dest = l.da->GetBroadcast();
        Ptr<QbbNetDevice> dev = l.da;
        l.da->SetDequeueHandler(
            crux::MakeFunctorCallback([dev, &dest](Ptr<QbbNetDevice>, Ptr<const Packet>, uint8_t) {
                dev->SendInTc(Create<Packet>(4082), dest, IPV4, 1);
            }));
        for (int k = 0; k < 4; ++k)
        {
            l.da->SendInTc(Create<Packet>(4082), dest, IPV4, 1);
        }
        const auto w0 = std::chrono::steady_clock::now();
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        // 4082 + 14 + 4 + 20 = 4120 wire bytes = 329.6 ns; the first arrives after 1 us delay.
        const double expected = (1.0 - 1e-6) / 329.6e-9;
        std::cout << "[crux-qbb] benchmark: " << received << " frames in 1 s simulated, " << wall
                  << " s wall, " << received / wall << " packet-hops/s" << std::endl;
        NS_TEST_ASSERT_MSG_EQ_TOL(double(received), expected, 2.0, "line-rate frame count");
        l.da = nullptr;
        l.db = nullptr;
        dev = nullptr;
        Simulator::Destroy();
    }
};

} // namespace

/// The "crux-qbb" suite.
class QbbNetDeviceTestSuite : public TestSuite
{
  public:
    QbbNetDeviceTestSuite()
        : TestSuite("crux-qbb", UNIT)
    {
        AddTestCase(new QbbPauseHeaderTestCase, TestCase::QUICK);
        AddTestCase(new QbbTimingTestCase, TestCase::QUICK);
        AddTestCase(new QbbStrictPriorityTestCase, TestCase::QUICK);
        AddTestCase(new QbbDwrrTestCase, TestCase::QUICK);
        AddTestCase(new QbbPauseTestCase, TestCase::QUICK);
        AddTestCase(new QbbStateTracesTestCase, TestCase::QUICK);
        AddTestCase(new QbbEcnTestCase, TestCase::QUICK);
        AddTestCase(new QbbConfigTestCase, TestCase::QUICK);
        AddTestCase(new QbbPcapTestCase, TestCase::QUICK);
        AddTestCase(new QbbThroughputBenchTestCase, TestCase::EXTENSIVE);
    }
};

static QbbNetDeviceTestSuite g_qbbNetDeviceTestSuite; //!< static instance
