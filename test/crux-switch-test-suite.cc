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

// Tests of the switch layer (suite "crux-switch"): shared-buffer MMU with PFC (lossless incast,
// lossy incast with drop reasons, headroom sizing), ECMP spread and path prediction, pinned
// routes, UDP source-port steering, topology builders and addressing, ECMP seeds.
// Traffic comes from a minimal raw RoCEv2-like frame generator (Ethernet/IPv4/UDP 4791 +
// payload) written here, independent of the RDMA transport.

#include "crux-test-util.h"

#include "ns3/boolean.h"
#include "ns3/crux-compat.h"
#include "ns3/crux-switch.h"
#include "ns3/crux-topology-helper.h"
#include "ns3/crux-topology.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-header.h"
#include "ns3/qbb-net-device.h"
#include "ns3/simulator.h"
#include "ns3/switch-mmu.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint16_t IPV4 = 0x0800;
constexpr uint32_t HDR_BYTES = 20 + 8; //!< IPv4 + UDP header bytes of a generated frame

/**
 * Build one frame: IPv4 (TTL, protocol 17, DSCP) / UDP (tuple ports) / payload.
 * \param t flow key \param dscp DSCP \param payload payload bytes \param ttl IPv4 TTL
 * \return the packet, starting at the IPv4 header
 */
Ptr<Packet>
MakeFrame(const FiveTuple& t, uint8_t dscp, uint32_t payload, uint8_t ttl = 64)
{
    Ptr<Packet> p = Create<Packet>(payload);
    UdpHeader udp;
    udp.SetSourcePort(t.srcPort);
    udp.SetDestinationPort(t.dstPort);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(t.srcIp);
    ip.SetDestination(t.dstIp);
    ip.SetProtocol(17);
    ip.SetTtl(ttl);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
    ip.SetPayloadSize(p->GetSize());
    p->AddHeader(ip);
    return p;
}

/**
 * Parse the flow key of a frame that starts at its IPv4 header (test side: uses the ns-3
 * header classes, independent of the switch's own byte parser).
 * \param p packet \return the tuple
 */
FiveTuple
ParseTuple(Ptr<const Packet> p)
{
    Ptr<Packet> c = p->Copy();
    Ipv4Header ip;
    c->RemoveHeader(ip);
    UdpHeader udp;
    c->PeekHeader(udp);
    FiveTuple t;
    t.srcIp = ip.GetSource();
    t.dstIp = ip.GetDestination();
    t.protocol = ip.GetProtocol();
    t.srcPort = udp.GetSourcePort();
    t.dstPort = udp.GetDestinationPort();
    return t;
}

/// \return the MAC address of the peer of host NIC \p nic
Address
PeerMac(Ptr<CruxTopology> topo, uint32_t host, uint32_t nic)
{
    return topo->GetLink(topo->GetHost(host).nics[nic].uplink).rxDev->GetAddress();
}

/**
 * A host NIC sending one flow of fixed-size frames at line rate: it keeps two frames queued in
 * the device and adds one each time the device starts serializing one (DequeueHandler).
 */
class LineRateSender : public SimpleRefCount<LineRateSender>
{
  public:
    /**
     * \param dev the NIC \param dest peer MAC \param t flow key \param dscp DSCP
     * \param tc traffic class \param totalBytes payload bytes to send \param payload per frame
     */
    LineRateSender(Ptr<QbbNetDevice> dev,
                   Address dest,
                   FiveTuple t,
                   uint8_t dscp,
                   uint8_t tc,
                   uint64_t totalBytes,
                   uint32_t payload)
        : m_dev(dev),
          m_dest(dest),
          m_tuple(t),
          m_dscp(dscp),
          m_tc(tc),
          m_remaining(totalBytes),
          m_payload(payload)
    {
    }

    /// Start sending (installs the dequeue handler).
    void Start()
    {
        m_dev->SetDequeueHandler(MakeCallback(&LineRateSender::OnDequeue, this));
        SendOne();
        SendOne();
    }

    uint64_t m_sentBytes{0};  //!< payload bytes handed to the device
    uint64_t m_sentFrames{0}; //!< frames handed to the device

  private:
    void OnDequeue(Ptr<QbbNetDevice>, Ptr<const Packet>, uint8_t)
    {
        SendOne();
    }

    void SendOne()
    {
        if (m_remaining == 0)
        {
            return;
        }
        const auto n = static_cast<uint32_t>(std::min<uint64_t>(m_remaining, m_payload));
        m_remaining -= n;
        m_sentBytes += n;
        ++m_sentFrames;
        m_dev->SendInTc(MakeFrame(m_tuple, m_dscp, n), m_dest, IPV4, m_tc);
    }

    Ptr<QbbNetDevice> m_dev;
    Address m_dest;
    FiveTuple m_tuple;
    uint8_t m_dscp;
    uint8_t m_tc;
    uint64_t m_remaining;
    uint32_t m_payload;
};

/// Counts payload bytes and frames arriving at a host NIC.
struct Receiver
{
    uint64_t bytes{0};  //!< payload bytes received
    uint64_t frames{0}; //!< frames received
    Time last;          //!< arrival time of the last frame

    /// FrameHandler
    void OnFrame(Ptr<QbbNetDevice>, Ptr<Packet> p, uint16_t)
    {
        bytes += p->GetSize() - HDR_BYTES;
        ++frames;
        last = Simulator::Now();
    }
};

/// Records, per flow, how many of its frames each directed link carried (device MacTx).
struct LinkObserver
{
    std::map<FiveTuple, std::map<uint32_t, uint32_t>> perFlow; //!< flow → link → frames
    std::vector<uint64_t> perLink;                             //!< link → frames (all flows)

    /// Hook MacTx of every link's transmitting device.
    void Attach(Ptr<CruxTopology> topo)
    {
        perLink.assign(topo->GetNLinks(), 0);
        for (uint32_t id = 0; id < topo->GetNLinks(); ++id)
        {
            topo->GetLink(id).txDev->TraceConnectWithoutContext(
                "MacTx",
                crux::MakeBoundMemberCallback(&LinkObserver::OnMacTx, this, id));
        }
    }

    /// MacTx sink (link id bound).
    void OnMacTx(uint32_t link, Ptr<const Packet> p, uint8_t)
    {
        ++perLink[link];
        ++perFlow[ParseTuple(p)][link];
    }

    /// \return the set of links that carried at least one frame of \p t
    std::set<uint32_t> LinksOf(const FiveTuple& t) const
    {
        std::set<uint32_t> s;
        auto it = perFlow.find(t);
        if (it != perFlow.end())
        {
            for (const auto& [l, n] : it->second)
            {
                if (n > 0)
                {
                    s.insert(l);
                }
            }
        }
        return s;
    }
};

/// \return a RoCEv2 tuple between two NICs
FiveTuple
Tuple(Ptr<CruxTopology> topo, uint32_t src, uint32_t dst, uint16_t sport)
{
    FiveTuple t;
    t.srcIp = topo->GetNicAddress(src, 0);
    t.dstIp = topo->GetNicAddress(dst, 0);
    t.protocol = 17;
    t.srcPort = sport;
    t.dstPort = 4791;
    return t;
}

/// Queue \p frames frames of flow \p t on host \p src's NIC 0 at time 0.
void
SendFrames(Ptr<CruxTopology> topo, uint32_t src, const FiveTuple& t, uint32_t frames)
{
    for (uint32_t i = 0; i < frames; ++i)
    {
        topo->GetHost(src).nics[0].device->SendInTc(MakeFrame(t, 0, 512),
                                                    PeerMac(topo, src, 0),
                                                    IPV4,
                                                    0);
    }
}

/// Wall-clock timer printing the duration of a test case.
class WallTimer
{
  public:
    /// \param name printed label
    explicit WallTimer(std::string name)
        : m_name(std::move(name)),
          m_start(std::chrono::steady_clock::now())
    {
    }

    ~WallTimer()
    {
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        std::cout << "  [" << m_name << "] wall " << s << " s" << std::endl;
    }

  private:
    std::string m_name;
    std::chrono::steady_clock::time_point m_start;
};

// ---------------------------------------------------------------------------------- incast

/// Result of one incast run.
struct IncastResult
{
    uint64_t sentBytes{0};
    uint64_t sentFrames{0};
    uint64_t rxBytes{0};
    uint64_t rxFrames{0};
    uint64_t drops{0};
    std::map<std::string, uint64_t> dropsByReason;
    std::map<std::string, uint64_t> tracedByReason;
    uint64_t mmuPauses{0};
    uint64_t mmuResumes{0};
    uint64_t hostPauseRx{0};
    uint64_t pauseTcOther{0}; //!< PAUSEs traced for a TC other than the flow's
    uint64_t peakShared{0};
    uint64_t poolSize{0}; //!< shared pool (buffer - headroom - control-class pool)
    uint64_t peakHeadroom{0};
    uint64_t headroomSize{0};
    uint64_t endShared{0};
    uint64_t endHeadroom{0};
    uint64_t unmatched{0};
    bool anyPausedAtEnd{false};
    double finish{0}; //!< arrival time of the last frame at the receiver, seconds
};

/// Drop trace sink: counts per reason string.
void
CountDrop(std::map<std::string, uint64_t>* m,
          Ptr<const Packet>,
          uint32_t,
          uint8_t,
          const std::string& reason)
{
    ++(*m)[reason];
}

/// MMU PfcTx sink: counts PAUSEs whose TC differs from \p tc.
void
CountPfcTc(uint64_t* other, uint8_t tc, uint32_t, uint8_t pausedTc, uint16_t)
{
    if (pausedTc != tc)
    {
        ++(*other);
    }
}

/**
 * 16 → 1 incast through one switch: 17 hosts, 100 Gbit/s, 1 µs links; hosts 0..15 send
 * \p bytesPerSender each to host 16 with DSCP 24 (TC 3).
 */
IncastResult
RunIncast(bool pfc,
          uint64_t bufferSize,
          uint64_t headroomOverride,
          uint64_t bytesPerSender,
          uint64_t xoffStatic = 0,
          uint8_t losslessMask = 0xff,
          uint16_t pauseQuanta = 0xffff)
{
    const uint8_t dscp = 24;
    const uint8_t tc = 3;
    CruxTopologyHelper helper;
    helper.SetMmuAttribute("PfcEnabled", BooleanValue(pfc));
    helper.SetMmuAttribute("BufferSize", UintegerValue(bufferSize));
    helper.SetMmuAttribute("HeadroomBytes", UintegerValue(headroomOverride));
    helper.SetMmuAttribute("XoffStaticBytes", UintegerValue(xoffStatic));
    helper.SetMmuAttribute("LosslessTcMask", UintegerValue(losslessMask));
    helper.SetMmuAttribute("PauseQuanta", UintegerValue(pauseQuanta));
    Ptr<CruxTopology> topo = helper.BuildStar(17, DataRate("100Gb/s"), MicroSeconds(1));
    Ptr<CruxSwitch> sw = topo->GetSwitch(0).sw;

    IncastResult r;
    sw->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountDrop, &r.tracedByReason));
    sw->GetMmu()->TraceConnectWithoutContext("PfcTx",
                                             MakeBoundCallback(&CountPfcTc, &r.pauseTcOther, tc));
    Receiver rx;
    CruxTopologyHelper::SetHostFrameHandler(topo, 16, 0, MakeCallback(&Receiver::OnFrame, &rx));
    std::vector<Ptr<LineRateSender>> senders;
    for (uint32_t h = 0; h < 16; ++h)
    {
        FiveTuple t = Tuple(topo, h, 16, static_cast<uint16_t>(49152 + h));
        senders.push_back(Create<LineRateSender>(topo->GetHost(h).nics[0].device,
                                                 PeerMac(topo, h, 0),
                                                 t,
                                                 dscp,
                                                 tc,
                                                 bytesPerSender,
                                                 1000));
        senders.back()->Start();
    }
    Simulator::Stop(Seconds(1));
    Simulator::Run();

    for (const auto& s : senders)
    {
        r.sentBytes += s->m_sentBytes;
        r.sentFrames += s->m_sentFrames;
    }
    for (uint32_t h = 0; h < 16; ++h)
    {
        r.hostPauseRx += topo->GetHost(h).nics[0].device->GetPauseRxCount();
    }
    Ptr<SwitchMmu> mmu = sw->GetMmu();
    r.rxBytes = rx.bytes;
    r.rxFrames = rx.frames;
    r.drops = sw->GetTotalDrops();
    r.dropsByReason = sw->GetDropCounts();
    r.mmuPauses = mmu->GetPauseCount();
    r.mmuResumes = mmu->GetResumeCount();
    r.peakShared = mmu->GetPeakSharedUsed();
    r.poolSize = mmu->GetSharedPoolSize();
    r.peakHeadroom = mmu->GetPeakHeadroomUsed();
    r.headroomSize = mmu->GetHeadroomSize(0, tc);
    r.endShared = mmu->GetSharedUsed();
    r.endHeadroom = mmu->GetHeadroomUsed();
    r.unmatched = mmu->GetUnmatchedDequeues();
    for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
    {
        for (uint8_t c = 0; c < 8; ++c)
        {
            r.anyPausedAtEnd = r.anyPausedAtEnd || mmu->IsPaused(p, c);
        }
    }
    r.finish = rx.last.GetSeconds();
    Simulator::Destroy();
    return r;
}

/// PFC on: lossless incast.
class IncastLosslessTestCase : public TestCase
{
  public:
    IncastLosslessTestCase()
        : TestCase("16->1 incast with PFC: zero drops, PAUSEs sent, every byte delivered")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("incast PFC on");
        const uint64_t perSender = 2000000;
        IncastResult r = RunIncast(true, 32 * 1024 * 1024, 0, perSender);
        std::cout << "  incast PFC on: sent " << r.sentBytes << " B in " << r.sentFrames
                  << " frames, received " << r.rxBytes << " B / " << r.rxFrames << " frames, drops "
                  << r.drops << ", MMU PAUSE " << r.mmuPauses << " resume " << r.mmuResumes
                  << ", host PAUSE rx " << r.hostPauseRx << ", peak shared " << r.peakShared
                  << " B, peak headroom/pair " << r.peakHeadroom << " of " << r.headroomSize
                  << " B, finished at " << r.finish * 1e3 << " ms" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(r.sentBytes, 16 * perSender, "every sender sent its bytes");
        NS_TEST_ASSERT_MSG_EQ(r.drops, 0, "PFC: no frame dropped");
        NS_TEST_ASSERT_MSG_EQ(r.rxBytes, 16 * perSender, "every byte delivered");
        NS_TEST_ASSERT_MSG_EQ(r.rxFrames, r.sentFrames, "every frame delivered");
        NS_TEST_ASSERT_MSG_GT(r.mmuPauses, 0, "the MMU sent PAUSE frames");
        NS_TEST_ASSERT_MSG_GT(r.hostPauseRx, 0, "senders received PAUSE frames");
        NS_TEST_ASSERT_MSG_EQ(r.pauseTcOther, 0, "PAUSE only for the flows' TC 3");
        NS_TEST_ASSERT_MSG_GT(r.mmuResumes, 0, "paused pairs were resumed");
        NS_TEST_ASSERT_MSG_EQ(r.anyPausedAtEnd, false, "nothing stays paused");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.peakHeadroom, r.headroomSize, "headroom never exceeded");
        NS_TEST_ASSERT_MSG_EQ(r.endShared, 0, "shared pool released");
        NS_TEST_ASSERT_MSG_EQ(r.endHeadroom, 0, "headroom released");
        NS_TEST_ASSERT_MSG_EQ(r.unmatched, 0, "every dequeue matched an admission");
        // Every frame occupies 1000 + 28 (IPv4/UDP) + 18 (Ethernet + FCS) + 20 (preamble, IFG)
        // bytes of the receiver's 100 Gbit/s link: 32000 frames need 2.729 ms at least.
        const double ideal = static_cast<double>(r.sentFrames) * (1000 + 28 + 18 + 20) * 8 / 100e9;
        NS_TEST_ASSERT_MSG_GT(r.finish, ideal, "cannot beat the bottleneck");
        NS_TEST_ASSERT_MSG_LT(r.finish, ideal * 1.05, "bottleneck kept busy (within 5 %)");

        // The same 1 MB buffer that drops 90 % of the frames without PFC (next test case), with
        // TC 3 alone lossless: 17 x 50218 B of headroom leave a 146 kB shared pool.
        IncastResult s = RunIncast(true, 1000000, 0, perSender, 0, 0x08);
        std::cout << "  incast PFC on, 1 MB buffer: received " << s.rxBytes << " B, drops "
                  << s.drops << ", MMU PAUSE " << s.mmuPauses << " resume " << s.mmuResumes
                  << ", peak shared " << s.peakShared << " B, peak headroom/pair " << s.peakHeadroom
                  << " of " << s.headroomSize << " B, finished at " << s.finish * 1e3 << " ms"
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(s.drops, 0, "small buffer, PFC: no frame dropped");
        NS_TEST_ASSERT_MSG_EQ(s.rxBytes, 16 * perSender, "small buffer: every byte delivered");
        NS_TEST_ASSERT_MSG_GT(s.mmuPauses, r.mmuPauses, "small buffer: more PAUSEs");
        NS_TEST_ASSERT_MSG_EQ(s.anyPausedAtEnd, false, "small buffer: nothing stays paused");
        NS_TEST_ASSERT_MSG_EQ(s.endShared + s.endHeadroom, 0, "small buffer: all released");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(s.peakHeadroom, s.headroomSize, "headroom respected");

        // Short PAUSEs (1000 quanta = 5.12 us at 100 Gbit/s) must be refreshed every 2.56 us
        // while the pair stays above Xon, or the senders would resume and overflow.
        IncastResult q = RunIncast(true, 1000000, 0, perSender, 0, 0x08, 1000);
        std::cout << "  incast PFC on, 1 MB buffer, 1000-quanta PAUSEs: received " << q.rxBytes
                  << " B, drops " << q.drops << ", MMU PAUSE (incl. refresh) " << q.mmuPauses
                  << " resume " << q.mmuResumes << ", finished at " << q.finish * 1e3 << " ms"
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(q.drops, 0, "short PAUSEs: no frame dropped");
        NS_TEST_ASSERT_MSG_EQ(q.rxBytes, 16 * perSender, "short PAUSEs: every byte delivered");
        NS_TEST_ASSERT_MSG_GT(q.mmuPauses, q.mmuResumes, "PAUSEs were refreshed");
    }
};

/// PFC off, small buffer: drops, all "buffer-full".
class IncastLossyTestCase : public TestCase
{
  public:
    IncastLossyTestCase()
        : TestCase("16->1 incast without PFC, 1 MB buffer: drops, all traced as buffer-full")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("incast PFC off");
        const uint64_t perSender = 2000000;
        IncastResult r = RunIncast(false, 1000000, 0, perSender);
        std::cout << "  incast PFC off: sent " << r.sentFrames << " frames, received " << r.rxFrames
                  << ", drops " << r.drops << " (buffer-full " << r.dropsByReason["buffer-full"]
                  << "), MMU PAUSE " << r.mmuPauses << ", peak shared " << r.peakShared << " B"
                  << std::endl;
        NS_TEST_ASSERT_MSG_GT(r.drops, 0, "a lossy incast on a small buffer drops");
        NS_TEST_ASSERT_MSG_EQ(r.dropsByReason["buffer-full"], r.drops, "all drops: buffer-full");
        NS_TEST_ASSERT_MSG_EQ(r.tracedByReason["buffer-full"], r.drops, "every drop traced");
        NS_TEST_ASSERT_MSG_EQ(r.tracedByReason.size(), 1, "no other traced reason");
        NS_TEST_ASSERT_MSG_EQ(r.rxFrames + r.drops, r.sentFrames, "frames received + dropped");
        NS_TEST_ASSERT_MSG_EQ(r.mmuPauses, 0, "no PAUSE without PFC");
        NS_TEST_ASSERT_MSG_EQ(r.hostPauseRx, 0, "no PAUSE received without PFC");
        // data may fill the pool but for its control-class part: 17 ports x 256 bytes
        // (SwitchMmu::ControlReserveBytes)
        NS_TEST_ASSERT_MSG_EQ(r.poolSize, 1000000, "shared pool = the buffer (no headroom)");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.peakShared, 1000000 - 17 * 256, "data left the control pool");
        NS_TEST_ASSERT_MSG_GT(r.peakShared,
                              1000000 - 17 * 256 - 1100,
                              "buffer filled to the last frame");
        NS_TEST_ASSERT_MSG_EQ(r.endShared, 0, "buffer released");
    }
};

/// The state traces in a PFC incast: what the trace sinks collect equals the getters' counts.
class IncastTracesTestCase : public TestCase
{
  public:
    IncastTracesTestCase()
        : TestCase("16->1 PFC incast seen through the trace sources: queue peaks, MMU occupancy "
                   "and PAUSE transitions equal the getters' counts")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("incast traces");
        const uint8_t tc = 3;
        CruxTopologyHelper helper;
        helper.SetMmuAttribute("BufferSize", UintegerValue(1000000));
        helper.SetMmuAttribute("LosslessTcMask", UintegerValue(0x08));
        Ptr<CruxTopology> topo = helper.BuildStar(17, DataRate("100Gb/s"), MicroSeconds(1));
        Ptr<SwitchMmu> mmu = topo->GetSwitch(0).sw->GetMmu();

        // per link and class: the last and the largest value TcBytesInQueue reported (the
        // collection RunStatistics does for the experiment driver)
        const uint32_t nLinks = topo->GetNLinks();
        std::vector<std::array<uint64_t, QbbNetDevice::N_CLASSES>> last(nLinks);
        std::vector<std::array<uint64_t, QbbNetDevice::N_CLASSES>> peak(nLinks);
        for (uint32_t l = 0; l < nLinks; ++l)
        {
            topo->GetLink(l).txDev->TraceConnectWithoutContext(
                "TcBytesInQueue",
                crux::MakeFunctorCallback<void, uint8_t, uint64_t, uint64_t>(
                    [&last, &peak, l](uint8_t c, uint64_t, uint64_t bytes) {
                        last[l][c] = bytes;
                        peak[l][c] = std::max(peak[l][c], bytes);
                    }));
        }
        // the MMU's occupancies (TracedValues)
        uint64_t shared = 0;
        uint64_t sharedPeak = 0;
        uint64_t headroom = 0;
        uint64_t headroomPeak = 0;
        mmu->TraceConnectWithoutContext(
            "SharedPoolUsed",
            crux::MakeFunctorCallback<void, uint64_t, uint64_t>([&](uint64_t, uint64_t bytes) {
                shared = bytes;
                sharedPeak = std::max(sharedPeak, bytes);
            }));
        mmu->TraceConnectWithoutContext(
            "HeadroomUsed",
            crux::MakeFunctorCallback<void, uint64_t, uint64_t>([&](uint64_t, uint64_t bytes) {
                headroom = bytes;
                headroomPeak = std::max(headroomPeak, bytes);
            }));
        // the senders' PAUSE state and the PAUSE frames they receive
        uint64_t ons = 0;
        uint64_t offs = 0;
        uint64_t notAlternating = 0; // an 'on' while on or an 'off' while off
        uint64_t otherTc = 0;
        uint64_t pauseRx = 0; // PAUSE frames with quanta > 0
        uint64_t xonRx = 0;   // quanta 0
        std::vector<bool> paused(16, false);
        Receiver rx;
        CruxTopologyHelper::SetHostFrameHandler(topo, 16, 0, MakeCallback(&Receiver::OnFrame, &rx));
        std::vector<Ptr<LineRateSender>> senders;
        const uint64_t perSender = 500000;
        for (uint32_t h = 0; h < 16; ++h)
        {
            Ptr<QbbNetDevice> nic = topo->GetHost(h).nics[0].device;
            nic->TraceConnectWithoutContext(
                "TcPauseState",
                crux::MakeFunctorCallback<void, uint8_t, bool>([&, h](uint8_t c, bool on) {
                    otherTc += c != tc ? 1 : 0;
                    notAlternating += paused[h] == on ? 1 : 0;
                    paused[h] = on;
                    (on ? ons : offs)++;
                }));
            nic->TraceConnectWithoutContext(
                "PfcRx",
                crux::MakeFunctorCallback<void, Ptr<const QbbNetDevice>, uint8_t, uint16_t>(
                    [&](Ptr<const QbbNetDevice>, uint8_t, uint16_t q) {
                        (q > 0 ? pauseRx : xonRx)++;
                    }));
            senders.push_back(Create<LineRateSender>(nic,
                                                     PeerMac(topo, h, 0),
                                                     Tuple(topo, h, 16, 49152 + h),
                                                     24,
                                                     tc,
                                                     perSender,
                                                     1000));
            senders.back()->Start();
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(rx.bytes, 16 * perSender, "every byte delivered");
        uint64_t mismatches = 0;
        uint64_t switchPauseTx = 0;
        uint64_t deepest = 0;
        for (uint32_t l = 0; l < nLinks; ++l)
        {
            const Ptr<QbbNetDevice>& dev = topo->GetLink(l).txDev;
            for (uint8_t c = 0; c < QbbNetDevice::N_CLASSES; ++c)
            {
                mismatches += peak[l][c] != dev->GetPeakTcQueueBytes(c) ? 1 : 0;
                mismatches += last[l][c] != dev->GetTcQueueBytes(c) ? 1 : 0;
                deepest = std::max(deepest, peak[l][c]);
            }
            if (topo->GetLink(l).fromNode == topo->GetSwitch(0).node)
            {
                switchPauseTx += dev->GetPauseTxCount(tc);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(mismatches, 0, "per link and class: traced peak and last = getters");
        NS_TEST_ASSERT_MSG_GT(deepest, 100000, "the egress to the receiver built a deep queue");
        NS_TEST_ASSERT_MSG_EQ(sharedPeak, mmu->GetPeakSharedUsed(), "SharedPoolUsed peak = getter");
        NS_TEST_ASSERT_MSG_EQ(shared, mmu->GetSharedUsed(), "SharedPoolUsed last = getter");
        NS_TEST_ASSERT_MSG_EQ(shared, 0, "shared pool released");
        NS_TEST_ASSERT_MSG_EQ(headroom, mmu->GetHeadroomUsed(), "HeadroomUsed last = getter");
        NS_TEST_ASSERT_MSG_EQ(headroom, 0, "headroom released");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(headroomPeak,
                                    mmu->GetPeakHeadroomUsed(),
                                    "all pairs together hold at least the fullest pair");
        NS_TEST_ASSERT_MSG_GT(mmu->GetPeakHeadroomUsed(), 0, "headroom was used");
        // PAUSE: every episode of a (port, TC) pair is one PAUSE that stops its sender (an
        // 'on'), refreshes that change nothing, and one XON (an 'off'); the 65535-quanta PAUSE
        // (335 us) is refreshed every half of it, so no timer runs out
        NS_TEST_ASSERT_MSG_GT(ons, 0, "senders were paused");
        NS_TEST_ASSERT_MSG_EQ(otherTc, 0, "only TC 3 paused");
        NS_TEST_ASSERT_MSG_EQ(notAlternating, 0, "on and off alternate per sender");
        NS_TEST_ASSERT_MSG_EQ(ons, offs, "every sender resumed");
        NS_TEST_ASSERT_MSG_EQ(ons, mmu->GetResumeCount(), "an on/off pair per MMU episode");
        NS_TEST_ASSERT_MSG_EQ(offs, xonRx, "an 'off' per XON received");
        NS_TEST_ASSERT_MSG_EQ(pauseRx, mmu->GetPauseCount(), "PAUSE frames received = sent");
        NS_TEST_ASSERT_MSG_EQ(pauseRx - ons,
                              mmu->GetPauseCount() - mmu->GetResumeCount(),
                              "the PAUSE frames that changed no state are the refreshes");
        NS_TEST_ASSERT_MSG_EQ(switchPauseTx,
                              pauseRx + xonRx,
                              "the switch ports' PfcTx counts = the frames the senders received");
        std::cout << "  incast traces: " << ons << " PAUSE episodes, " << pauseRx - ons
                  << " refreshes, deepest queue " << deepest << " B, peak shared " << sharedPeak
                  << " B, peak headroom (all pairs) " << headroomPeak << " B" << std::endl;
        Simulator::Destroy();
    }
};

/// Issue 29: lossless data that holds the whole shared pool drops no control frame.
class ControlPoolTestCase : public TestCase
{
  public:
    ControlPoolTestCase()
        : TestCase("control-class pool: with the shared pool full of lossless data, ACKs are "
                   "admitted into the control pool (dropped as buffer-full without it)")
    {
    }

  private:
    /// Admit lossless bytes from port 0 (TC 0) to port 1 until the shared pool is full to the
    /// last byte, then \p acks control frames of 118 bytes from port 1 to port 0.
    /// \return the verdicts of the control frames
    static std::vector<SwitchMmu::Verdict> FillThenAck(uint64_t reserve,
                                                       uint32_t acks,
                                                       Ptr<SwitchMmu>* keep)
    {
        CruxTopologyHelper helper;
        helper.SetMmuAttribute("BufferSize", UintegerValue(1000000));
        helper.SetMmuAttribute("LosslessTcMask", UintegerValue(0x01));
        helper.SetMmuAttribute("XoffStaticBytes", UintegerValue(10000000)); // no PAUSE first
        helper.SetMmuAttribute("ControlReserveBytes", UintegerValue(reserve));
        Ptr<CruxTopology> topo = helper.BuildStar(3, DataRate("100Gb/s"), MicroSeconds(1));
        Ptr<SwitchMmu> mmu = topo->GetSwitch(0).sw->GetMmu();
        *keep = mmu;
        // 4218-byte frames, then the remainder: what data may take is full to the byte
        const uint64_t data = mmu->GetSharedPoolSize() - mmu->GetControlPoolSize();
        while (mmu->GetSharedUsed() < data)
        {
            const uint64_t room = data - mmu->GetSharedUsed();
            mmu->Admit(0, 0, 1, 0, static_cast<uint32_t>(std::min<uint64_t>(room, 4218)));
        }
        std::vector<SwitchMmu::Verdict> v;
        for (uint32_t k = 0; k < acks; ++k)
        {
            v.push_back(
                mmu->Admit(1, QbbNetDevice::CONTROL_CLASS, 0, QbbNetDevice::CONTROL_CLASS, 118));
        }
        return v;
    }

    void DoRun() override
    {
        Ptr<SwitchMmu> mmu;
        // without the reserve: the full shared pool drops the ACK
        std::vector<SwitchMmu::Verdict> v = FillThenAck(0, 1, &mmu);
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsed(), mmu->GetSharedPoolSize(), "pool full");
        // a lossless frame more goes to the headroom, not the (absent) control pool
        NS_TEST_ASSERT_MSG_EQ(mmu->Admit(0, 0, 1, 0, 100), SwitchMmu::ADMIT, "into headroom");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomUsed(), 100, "headroom");
        NS_TEST_ASSERT_MSG_EQ(v[0], SwitchMmu::DROP_BUFFER_FULL, "no reserve: ACK dropped");
        Simulator::Destroy();
        // 3 ports x 256 bytes: six 118-byte ACKs fit (708 <= 768), the seventh does not
        v = FillThenAck(256, 7, &mmu);
        NS_TEST_ASSERT_MSG_EQ(mmu->GetControlPoolSize(), 768, "ports x ControlReserveBytes");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolSize(),
                              1000000 - 3 * mmu->GetHeadroomSize(0, 0),
                              "shared pool = buffer - headroom");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsed(),
                              mmu->GetSharedPoolSize() - 768,
                              "data stopped short of the control pool");
        // lossless data beyond goes to the headroom: the control pool stays the ACKs'
        NS_TEST_ASSERT_MSG_EQ(mmu->GetControlPoolUsed(), 6 * 118, "charged to the control pool");
        for (uint32_t k = 0; k < 6; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(v[k], SwitchMmu::ADMIT, "ACK " << k << " in the control pool");
        }
        NS_TEST_ASSERT_MSG_EQ(v[6], SwitchMmu::DROP_BUFFER_FULL, "the control pool is full too");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPeakControlPoolUsed(), 6 * 118, "peak");
        // the ACKs leave port 0: their bytes go back to the control pool, not the shared one
        const uint64_t shared = mmu->GetSharedUsed();
        for (uint32_t k = 0; k < 6; ++k)
        {
            mmu->OnDequeue(0, QbbNetDevice::CONTROL_CLASS);
        }
        NS_TEST_ASSERT_MSG_EQ(mmu->GetControlPoolUsed(), 0, "released");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsed(), shared, "shared pool untouched");
        Simulator::Destroy();
    }
};

/// Headroom sizing: the computed value, and a deliberately too small headroom overflowing.
class HeadroomTestCase : public TestCase
{
  public:
    HeadroomTestCase()
        : TestCase("PFC headroom: 802.1Qbb sizing formula; undersized headroom overflows")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("headroom");
        {
            CruxTopologyHelper helper;
            helper.SetMmuAttribute("PfcResponseTime", TimeValue(MicroSeconds(1)));
            Ptr<CruxTopology> topo = helper.BuildStar(2, DataRate("100Gb/s"), MicroSeconds(1));
            Ptr<SwitchMmu> mmu = topo->GetSwitch(0).sw->GetMmu();
            // F = 4200 (MTU) + 18; 3F + 64 + (2 x 1 us + 1 us + 300 ns forwarding latency) x
            // 12.5e9 B/s
            NS_TEST_ASSERT_MSG_EQ(topo->GetSwitch(0).sw->GetForwardingLatency(),
                                  NanoSeconds(300),
                                  "default forwarding latency");
            const uint64_t expected = 3 * (4200 + 18) + 64 + 37500 + 3750;
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomSize(0, 0), expected, "headroom formula");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomSize(1, 7), expected, "every lossless TC");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetControlPoolSize(),
                                  2 * 256,
                                  "control-class pool = ports x ControlReserveBytes");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolSize(),
                                  32ULL * 1024 * 1024 - 2 * 8 * expected,
                                  "shared pool = buffer - reserved headroom");
            Simulator::Destroy();
        }
        {
            CruxTopologyHelper helper;
            helper.SetMmuAttribute("LosslessTcMask", UintegerValue(0x08));
            Ptr<CruxTopology> topo = helper.BuildStar(2, DataRate("100Gb/s"), MicroSeconds(1));
            Ptr<SwitchMmu> mmu = topo->GetSwitch(0).sw->GetMmu();
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomSize(0, 0), 0, "TC 0 lossy: no headroom");
            NS_TEST_ASSERT_MSG_GT(mmu->GetHeadroomSize(0, 3), 0, "TC 3 lossless");
            Simulator::Destroy();
        }
        // Negative control: a 3000-byte headroom (2 frames) cannot absorb a 100 Gbit/s link's
        // 2 x 1 us round trip (25 kB); Xoff 20 kB so that every pair PAUSEs.
        IncastResult r = RunIncast(true, 32 * 1024 * 1024, 3000, 200000, 20000);
        std::cout << "  undersized headroom (3000 B): drops " << r.drops
                  << " pfc-headroom-exceeded " << r.dropsByReason["pfc-headroom-exceeded"]
                  << std::endl;
        NS_TEST_ASSERT_MSG_GT(r.dropsByReason["pfc-headroom-exceeded"], 0, "headroom overflow");
        NS_TEST_ASSERT_MSG_EQ(r.dropsByReason["pfc-headroom-exceeded"], r.drops, "only reason");
        NS_TEST_ASSERT_MSG_EQ(r.rxFrames + r.drops, r.sentFrames, "frames received + dropped");
    }
};

// ---------------------------------------------------------------------------------- ECMP

/// Clos with 2 ToRs (4 hosts each) and 4 aggregation switches, 100 Gbit/s, 1 µs.
Ptr<CruxTopology>
BuildSmallClos(uint32_t seedBase = 0)
{
    ClosConfig cfg = SmallClosConfig();
    cfg.tors = 2;
    cfg.hostsPerTor = 4;
    cfg.aggs = 4;
    CruxTopologyHelper helper;
    helper.SetEcmpSeedBase(seedBase);
    return helper.BuildClos(cfg);
}

/// \return link ids of ToR 0's uplinks, by aggregation switch
std::vector<uint32_t>
Tor0Uplinks(Ptr<CruxTopology> topo)
{
    std::vector<uint32_t> up;
    for (uint32_t id = 0; id < topo->GetNLinks(); ++id)
    {
        const CruxLinkInfo& l = topo->GetLink(id);
        if (!l.from.isHost && l.from.index == 0 && !l.to.isHost)
        {
            up.push_back(id);
        }
    }
    return up;
}

/// ECMP spread over the 4 uplinks and predicted == observed paths.
class EcmpSpreadTestCase : public TestCase
{
  public:
    EcmpSpreadTestCase()
        : TestCase("ECMP: 256 flows spread over 4 uplinks; PredictEcmpPath == observed path")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("ecmp");
        Ptr<CruxTopology> topo = BuildSmallClos();
        LinkObserver obs;
        obs.Attach(topo);
        const std::vector<uint32_t> up = Tor0Uplinks(topo);
        NS_TEST_ASSERT_MSG_EQ(up.size(), 4, "ToR 0 has 4 uplinks");
        const uint32_t nFlows = 256;
        const uint32_t framesPerFlow = 2;
        std::vector<FiveTuple> flows;
        for (uint32_t i = 0; i < nFlows; ++i)
        {
            const uint32_t src = i % 4;
            const uint32_t dst = 4 + (i / 4) % 4;
            flows.push_back(Tuple(topo, src, dst, static_cast<uint16_t>(49152 + i)));
            SendFrames(topo, src, flows.back(), framesPerFlow);
        }
        Simulator::Run();

        std::map<uint32_t, uint32_t> flowsPerUplink;
        uint32_t matches = 0;
        for (const FiveTuple& t : flows)
        {
            const CruxPath predicted = topo->PredictEcmpPath(t);
            const std::set<uint32_t> seen = obs.LinksOf(t);
            const std::set<uint32_t> want(predicted.begin(), predicted.end());
            NS_TEST_ASSERT_MSG_EQ(predicted.size(), 4, "cross-ToR path has 4 links");
            NS_TEST_ASSERT_MSG_EQ((seen == want), true, "observed path == predicted for " << t);
            bool allFrames = true;
            for (uint32_t l : predicted)
            {
                allFrames = allFrames && obs.perFlow[t][l] == framesPerFlow;
            }
            NS_TEST_ASSERT_MSG_EQ(allFrames, true, "every frame of " << t << " on its path");
            matches += (seen == want) ? 1 : 0;
            ++flowsPerUplink[predicted[1]];
        }
        std::cout << "  ECMP flows per ToR0 uplink:";
        for (uint32_t l : up)
        {
            std::cout << " l" << l << "=" << flowsPerUplink[l];
        }
        std::cout << " (" << matches << "/" << nFlows << " predicted paths observed)" << std::endl;
        // Binomial(256, 1/4): mean 64, sd 6.9; [15 %, 35 %] = [38.4, 89.6] is about +-3.7 sd.
        for (uint32_t l : up)
        {
            NS_TEST_ASSERT_MSG_GT_OR_EQ(flowsPerUplink[l], 39, "uplink l" << l << " >= 15 %");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(flowsPerUplink[l], 89, "uplink l" << l << " <= 35 %");
        }
        Simulator::Destroy();
    }
};

/// A pinned flow follows its installed path hop by hop, overriding ECMP.
class PinnedRouteTestCase : public TestCase
{
  public:
    PinnedRouteTestCase()
        : TestCase("Pinned route: a pinned 5-tuple follows the installed path, not ECMP")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("pinned");
        Ptr<CruxTopology> topo = BuildSmallClos();
        LinkObserver obs;
        obs.Attach(topo);
        const FiveTuple pinnedFlow = Tuple(topo, 1, 6, 50000);
        const FiveTuple freeFlow = Tuple(topo, 1, 6, 50001);
        const CruxPath ecmp = topo->PredictEcmpPath(pinnedFlow);
        const std::vector<CruxPath> paths = topo->GetEqualCostPaths(1, 0, 6, 0);
        NS_TEST_ASSERT_MSG_EQ(paths.size(), 4, "4 equal-cost paths across the aggs");
        CruxPath pinned;
        for (const CruxPath& p : paths)
        {
            if (p[1] != ecmp[1])
            {
                pinned = p; // first path through another agg than ECMP's
                break;
            }
        }
        topo->InstallPinnedRoute(pinnedFlow, pinned);
        NS_TEST_ASSERT_MSG_EQ((topo->PredictPath(pinnedFlow) == pinned), true, "PredictPath");
        NS_TEST_ASSERT_MSG_EQ((topo->PredictEcmpPath(pinnedFlow) == ecmp), true, "ECMP intact");
        NS_TEST_ASSERT_MSG_EQ(topo->GetSwitch(0).sw->GetNPinnedRoutes(), 1, "ToR 0 pinned");
        const uint32_t n = 10;
        SendFrames(topo, 1, pinnedFlow, n);
        SendFrames(topo, 1, freeFlow, n);
        Simulator::Run();
        std::cout << "  pinned path " << CruxTopology::PathToString(pinned) << " (ECMP would be "
                  << CruxTopology::PathToString(ecmp) << ")" << std::endl;
        for (uint32_t l : pinned)
        {
            NS_TEST_ASSERT_MSG_EQ(obs.perFlow[pinnedFlow][l], n, "pinned flow on link " << l);
        }
        for (uint32_t l : ecmp)
        {
            if (std::find(pinned.begin(), pinned.end(), l) == pinned.end())
            {
                NS_TEST_ASSERT_MSG_EQ(obs.perFlow[pinnedFlow][l], 0, "not on ECMP link " << l);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(obs.LinksOf(pinnedFlow).size(), pinned.size(), "no other link");
        const CruxPath freePath = topo->PredictEcmpPath(freeFlow);
        const std::set<uint32_t> freeWant(freePath.begin(), freePath.end());
        NS_TEST_ASSERT_MSG_EQ((obs.LinksOf(freeFlow) == freeWant), true, "other port: ECMP");
        topo->RemovePinnedRoute(pinnedFlow);
        NS_TEST_ASSERT_MSG_EQ((topo->PredictPath(pinnedFlow) == ecmp), true, "unpinned: ECMP");
        Simulator::Destroy();
    }
};

/// FindUdpSourcePort steers a flow onto each of the 4 uplinks.
class SourcePortSteeringTestCase : public TestCase
{
  public:
    SourcePortSteeringTestCase()
        : TestCase("Source-port steering: FindUdpSourcePort lands a flow on each uplink")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("steering");
        Ptr<CruxTopology> topo = BuildSmallClos();
        LinkObserver obs;
        obs.Attach(topo);
        const Ipv4Address src = topo->GetNicAddress(2, 0);
        const Ipv4Address dst = topo->GetNicAddress(5, 0);
        const std::vector<CruxPath> paths = topo->GetEqualCostPaths(2, 0, 5, 0);
        NS_TEST_ASSERT_MSG_EQ(paths.size(), 4, "4 equal-cost paths");
        std::vector<FiveTuple> flows;
        std::set<uint16_t> ports;
        for (const CruxPath& p : paths)
        {
            const uint16_t port = topo->FindUdpSourcePort(src, dst, p, 49152);
            ports.insert(port);
            NS_TEST_ASSERT_MSG_GT_OR_EQ(port, 49152, "port in the dynamic range");
            flows.push_back(Tuple(topo, 2, 5, port));
            SendFrames(topo, 2, flows.back(), 5);
            std::cout << "  path " << CruxTopology::PathToString(p) << " <- UDP source port "
                      << port << std::endl;
        }
        NS_TEST_ASSERT_MSG_EQ(ports.size(), 4, "4 different ports");
        Simulator::Run();
        for (uint32_t i = 0; i < paths.size(); ++i)
        {
            const std::set<uint32_t> want(paths[i].begin(), paths[i].end());
            NS_TEST_ASSERT_MSG_EQ((obs.LinksOf(flows[i]) == want), true, "flow on wanted path");
            NS_TEST_ASSERT_MSG_EQ(obs.perFlow[flows[i]][paths[i][1]], 5, "uplink carried it");
        }
        // A path that does not exist between these NICs cannot be steered to.
        CruxPath bogus = paths[0];
        bogus.back() = topo->GetHost(6).nics[0].downlink;
        NS_TEST_ASSERT_MSG_EQ(topo->TryFindUdpSourcePort(src, dst, bogus).has_value(),
                              false,
                              "no port for an impossible path");
        Simulator::Destroy();
    }
};

// ---------------------------------------------------------------------------------- builders

/// Structure, counts, addresses and path counts of the builders.
class TopologyBuilderTestCase : public TestCase
{
  public:
    TopologyBuilderTestCase()
        : TestCase("Topology builders: Clos, testbed, 2.2 scenario; addresses, path counts")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("builders");
        {
            Ptr<CruxTopology> t = BuildSmallClos();
            NS_TEST_ASSERT_MSG_EQ(t->GetNHosts(), 8, "Clos hosts");
            NS_TEST_ASSERT_MSG_EQ(t->GetNSwitches(), 6, "Clos switches");
            NS_TEST_ASSERT_MSG_EQ(t->GetSwitchesInLayer(CruxSwitchLayer::TOR).size(), 2, "ToRs");
            NS_TEST_ASSERT_MSG_EQ(t->GetSwitchesInLayer(CruxSwitchLayer::AGG).size(), 4, "aggs");
            NS_TEST_ASSERT_MSG_EQ(t->GetNLinks(), 2 * (8 + 2 * 4), "Clos directed links");
            NS_TEST_ASSERT_MSG_EQ(t->GetEqualCostPaths(0, 0, 4, 0).size(), 4, "cross-ToR paths");
            NS_TEST_ASSERT_MSG_EQ(t->GetEqualCostPaths(0, 0, 3, 0).size(), 1, "same-ToR paths");
            NS_TEST_ASSERT_MSG_EQ(t->GetEqualCostPaths(0, 0, 3, 0)[0].size(), 2, "2 hops");
            NS_TEST_ASSERT_MSG_EQ(t->GetSwitch(0).sw->GetRoute(t->GetNicAddress(5, 0)).size(),
                                  4,
                                  "ToR 0: 4 equal-cost ports to host 5");
            NS_TEST_ASSERT_MSG_EQ(t->GetSwitch(2).sw->GetRoute(t->GetNicAddress(5, 0)).size(),
                                  1,
                                  "agg: 1 port to host 5");
            NS_TEST_ASSERT_MSG_EQ(t->GetSwitch(0).sw->GetNRoutes(), 8, "ToR 0 routes");
            // link lookup and reverse links
            const CruxNicInfo& nic = t->GetHost(5).nics[0];
            NS_TEST_ASSERT_MSG_EQ(t->GetLinkId(t->GetHost(5).node, nic.device),
                                  nic.uplink,
                                  "GetLinkId(host node, NIC)");
            NS_TEST_ASSERT_MSG_EQ(t->GetReverseLink(nic.uplink), nic.downlink, "reverse link");
            NS_TEST_ASSERT_MSG_EQ(t->GetLink(nic.uplink).to.index, 1, "host 5 under ToR 1");
            const CruxLinkInfo& l = t->GetLink(nic.downlink);
            NS_TEST_ASSERT_MSG_EQ(t->GetLinkId(l.fromNode, l.txDev), nic.downlink, "switch side");
            Simulator::Destroy();
        }
        {
            CruxTopologyHelper helper;
            Ptr<CruxTopology> t = helper.BuildTestbed();
            NS_TEST_ASSERT_MSG_EQ(t->GetNHosts(), 12, "testbed hosts");
            NS_TEST_ASSERT_MSG_EQ(t->GetNSwitches(), 6, "testbed switches (4 ToR + 2 agg)");
            NS_TEST_ASSERT_MSG_EQ(t->GetNLinks(), 2 * (12 * 4 + 4 * 2), "testbed directed links");
            uint32_t gpus = 0;
            bool railOk = true;
            for (uint32_t h = 0; h < t->GetNHosts(); ++h)
            {
                gpus += t->GetHost(h).gpus;
                NS_TEST_ASSERT_MSG_EQ(t->GetHost(h).nics.size(), 4, "4 NICs per host");
                for (uint32_t n = 0; n < 4; ++n)
                {
                    railOk = railOk && t->GetHost(h).nics[n].tor == n;
                    railOk = railOk &&
                             t->GetLink(t->GetHost(h).nics[n].uplink).rate == DataRate("200Gb/s");
                }
            }
            NS_TEST_ASSERT_MSG_EQ(gpus, 96, "96 GPUs");
            NS_TEST_ASSERT_MSG_EQ(railOk, true, "NIC n on ToR n at 200 Gbit/s");
            NS_TEST_ASSERT_MSG_EQ(t->GetEqualCostPaths(0, 0, 1, 1).size(), 2, "cross-rail: 2");
            NS_TEST_ASSERT_MSG_EQ(t->GetEqualCostPaths(0, 2, 7, 2).size(), 1, "same rail: 1");
            NS_TEST_ASSERT_MSG_EQ(t->GetEqualCostPaths(3, 0, 3, 1).size(), 2, "same host x-NIC");
            NS_TEST_ASSERT_MSG_EQ(t->GetNicAddress(5, 2), Ipv4Address("10.0.5.3"), "address");
            NS_TEST_ASSERT_MSG_EQ(t->GetNicAddress(11, 0), Ipv4Address("10.0.11.1"), "address");
            NS_TEST_ASSERT_MSG_EQ(CruxTopology::MakeNicAddress(300, 1),
                                  Ipv4Address("10.1.44.2"),
                                  "address of host 300");
            const uint32_t want[8] = {0, 0, 1, 1, 2, 2, 3, 3};
            for (uint32_t g = 0; g < 8; ++g)
            {
                NS_TEST_ASSERT_MSG_EQ(t->GpuToNic(4, g), want[g], "GPU pair shares a NIC");
            }
            auto hn = t->FindNic(Ipv4Address("10.0.9.4"));
            NS_TEST_ASSERT_MSG_EQ((hn && hn->first == 9 && hn->second == 3), true, "FindNic");
            NS_TEST_ASSERT_MSG_EQ(t->FindNic(Ipv4Address("10.0.12.1")).has_value(), false, "none");
            NS_TEST_ASSERT_MSG_EQ(t->GetSwitch(0).sw->GetNRoutes(), 48, "ToR routes to all NICs");
            Simulator::Destroy();
        }
        {
            CruxTopologyHelper helper;
            Ptr<CruxTopology> t = helper.BuildClos([] {
                ClosConfig c = SmallClosConfig();
                c.hostsPerTor = 6; // the §2.2 shape: 2 ToRs x 6 hosts
                return c;
            }());
            NS_TEST_ASSERT_MSG_EQ(t->GetNHosts(), 12, "2.2: hosts");
            NS_TEST_ASSERT_MSG_EQ(t->GetNSwitches(), 4, "2.2: switches");
            NS_TEST_ASSERT_MSG_EQ(t->GetNLinks(), 2 * (12 + 2 * 2), "2.2: links");
            NS_TEST_ASSERT_MSG_EQ(t->GetEqualCostPaths(0, 0, 6, 0).size(), 2, "2.2: 2 paths");
            NS_TEST_ASSERT_MSG_EQ(t->GetHost(6).nics[0].tor, 1, "host 6 under ToR 1");
            Simulator::Destroy();
        }
        {
            // parallel ToR-agg cables and a single-NIC star
            ClosConfig cfg = SmallClosConfig();
            cfg.tors = 3;
            cfg.hostsPerTor = 2;
            cfg.aggs = 2;
            cfg.linksPerTorAgg = 2;
            CruxTopologyHelper helper;
            Ptr<CruxTopology> t = helper.BuildClos(cfg);
            NS_TEST_ASSERT_MSG_EQ(t->GetNLinks(), 2 * (6 + 3 * 2 * 2), "parallel cables");
            NS_TEST_ASSERT_MSG_EQ(t->GetEqualCostPaths(0, 0, 5, 0).size(), 8, "2 aggs x 2 x 2");
            Ptr<CruxTopology> s = helper.BuildStar(17, DataRate("100Gb/s"), MicroSeconds(1));
            NS_TEST_ASSERT_MSG_EQ(s->GetNSwitches(), 1, "star: 1 switch");
            NS_TEST_ASSERT_MSG_EQ(s->GetSwitch(0).sw->GetNPorts(), 17, "star: 17 ports");
            Simulator::Destroy();
        }
    }
};

/// EcmpSeed: different seeds → different choices for some flow; same seed → same.
class EcmpSeedTestCase : public TestCase
{
  public:
    EcmpSeedTestCase()
        : TestCase("ECMP seed: different seeds change some path choices, equal seeds do not")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("seeds");
        Ptr<CruxTopology> a = BuildSmallClos(0);
        Ptr<CruxTopology> b = BuildSmallClos(1000);
        Ptr<CruxTopology> c = BuildSmallClos(0);
        uint32_t differ = 0;
        uint32_t differSame = 0;
        const uint32_t n = 512;
        for (uint32_t i = 0; i < n; ++i)
        {
            const FiveTuple ta = Tuple(a, i % 4, 4 + (i / 4) % 4, static_cast<uint16_t>(50000 + i));
            const FiveTuple tb = Tuple(b, i % 4, 4 + (i / 4) % 4, static_cast<uint16_t>(50000 + i));
            const FiveTuple tc = Tuple(c, i % 4, 4 + (i / 4) % 4, static_cast<uint16_t>(50000 + i));
            // Topologies are built identically, so link ids correspond.
            differ += (a->PredictEcmpPath(ta) != b->PredictEcmpPath(tb)) ? 1 : 0;
            differSame += (a->PredictEcmpPath(ta) != c->PredictEcmpPath(tc)) ? 1 : 0;
        }
        std::cout << "  seeds 0 vs 1000: " << differ << "/" << n << " flows change path"
                  << std::endl;
        NS_TEST_ASSERT_MSG_GT(differ, 0, "another seed changes some choice");
        // An independent 4-way choice differs with probability 3/4: expect ~384 of 512.
        NS_TEST_ASSERT_MSG_GT(differ, n / 2, "seeds decorrelate (not a relabelling)");
        NS_TEST_ASSERT_MSG_EQ(differSame, 0, "same seed, same choices");
        FiveTuple t = Tuple(a, 0, 4, 60000);
        NS_TEST_ASSERT_MSG_EQ(CruxSwitch::EcmpHash(t, 7), CruxSwitch::EcmpHash(t, 7), "pure");
        NS_TEST_ASSERT_MSG_EQ(a->GetSwitch(0).sw->EcmpHash(t),
                              CruxSwitch::EcmpHash(t, 0),
                              "ToR 0 seed = base + index 0");
        Simulator::Destroy();
    }
};

/// No route, not-IPv4: traced and counted.
class NoRouteTestCase : public TestCase
{
  public:
    NoRouteTestCase()
        : TestCase("Drops without a route are traced with reason no-route")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<CruxTopology> topo = BuildSmallClos();
        std::map<std::string, uint64_t> traced;
        Ptr<CruxSwitch> tor = topo->GetSwitch(0).sw;
        tor->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountDrop, &traced));
        FiveTuple t = Tuple(topo, 0, 4, 49152);
        t.dstIp = Ipv4Address("10.9.9.9");
        SendFrames(topo, 0, t, 3);
        topo->GetHost(0).nics[0].device->SendInTc(Create<Packet>(100),
                                                  PeerMac(topo, 0, 0),
                                                  0x86dd,
                                                  0);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(tor->GetDropCount("no-route"), 3, "3 frames without a route");
        NS_TEST_ASSERT_MSG_EQ(traced["no-route"], 3, "traced");
        NS_TEST_ASSERT_MSG_EQ(tor->GetDropCount(CruxSwitch::DROP_NOT_IPV4), 1, "not IPv4");
        NS_TEST_ASSERT_MSG_EQ(tor->GetTotalDrops(), 4, "total");
        NS_TEST_ASSERT_MSG_EQ(tor->GetForwardedFrames(), 0, "nothing forwarded");
        Simulator::Destroy();
    }
};

/// PFC back-pressure across switch-to-switch links: incast through a Clos stays lossless.
class MultiHopLosslessTestCase : public TestCase
{
  public:
    MultiHopLosslessTestCase()
        : TestCase("Clos 7->1 incast with 1 MB switch buffers: PFC propagates, zero drops")
    {
    }

  private:
    void DoRun() override
    {
        WallTimer timer("multi-hop");
        ClosConfig cfg = SmallClosConfig();
        cfg.tors = 2;
        cfg.hostsPerTor = 4;
        cfg.aggs = 2;
        CruxTopologyHelper helper;
        helper.SetMmuAttribute("BufferSize", UintegerValue(1000000));
        helper.SetMmuAttribute("LosslessTcMask", UintegerValue(0x08));
        Ptr<CruxTopology> topo = helper.BuildClos(cfg);
        Receiver rx;
        CruxTopologyHelper::SetHostFrameHandler(topo, 4, 0, MakeCallback(&Receiver::OnFrame, &rx));
        const uint64_t perSender = 1000000;
        std::vector<Ptr<LineRateSender>> senders;
        for (uint32_t h : {0, 1, 2, 3, 5, 6, 7})
        {
            senders.push_back(Create<LineRateSender>(topo->GetHost(h).nics[0].device,
                                                     PeerMac(topo, h, 0),
                                                     Tuple(topo, h, 4, 49152 + h),
                                                     24,
                                                     3,
                                                     perSender,
                                                     1000));
            senders.back()->Start();
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        uint64_t drops = 0;
        uint64_t pausesBySwitch[4] = {0, 0, 0, 0};
        for (uint32_t s = 0; s < topo->GetNSwitches(); ++s)
        {
            drops += topo->GetSwitch(s).sw->GetTotalDrops();
            pausesBySwitch[s] = topo->GetSwitch(s).sw->GetMmu()->GetPauseCount();
        }
        std::cout << "  Clos incast: received " << rx.bytes << " B, drops " << drops
                  << ", PAUSEs sent by ToR0 " << pausesBySwitch[0] << " ToR1 " << pausesBySwitch[1]
                  << " agg0 " << pausesBySwitch[2] << " agg1 " << pausesBySwitch[3]
                  << ", finished at " << rx.last.GetSeconds() * 1e3 << " ms" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(drops, 0, "no drop anywhere");
        NS_TEST_ASSERT_MSG_EQ(rx.bytes, 7 * perSender, "every byte delivered");
        NS_TEST_ASSERT_MSG_GT(pausesBySwitch[1], 0, "the congested ToR PAUSEs");
        NS_TEST_ASSERT_MSG_GT(pausesBySwitch[2] + pausesBySwitch[3], 0, "aggs PAUSE ToR 0");
        Simulator::Destroy();
    }
};

/// Records the TTL of received frames.
struct TtlRecorder
{
    std::vector<uint32_t> ttls; //!< TTL of each received frame

    /// FrameHandler
    void OnFrame(Ptr<QbbNetDevice>, Ptr<Packet> p, uint16_t)
    {
        Ipv4Header ip;
        p->PeekHeader(ip);
        ttls.push_back(ip.GetTtl());
    }
};

/// DecrementTtl: TTL decreases per switch hop; expiry traced as "ttl".
class TtlTestCase : public TestCase
{
  public:
    TtlTestCase()
        : TestCase("DecrementTtl: TTL drops by one per switch, expired frames traced as ttl")
    {
    }

  private:
    void DoRun() override
    {
        ClosConfig cfg = SmallClosConfig();
        cfg.tors = 2;
        cfg.hostsPerTor = 2;
        cfg.aggs = 2;
        CruxTopologyHelper helper;
        helper.SetSwitchAttribute("DecrementTtl", BooleanValue(true));
        Ptr<CruxTopology> topo = helper.BuildClos(cfg);
        TtlRecorder rec;
        CruxTopologyHelper::SetHostFrameHandler(topo,
                                                2,
                                                0,
                                                MakeCallback(&TtlRecorder::OnFrame, &rec));
        const FiveTuple t = Tuple(topo, 0, 2, 49152);
        Ptr<QbbNetDevice> nic = topo->GetHost(0).nics[0].device;
        nic->SendInTc(MakeFrame(t, 0, 100, 64), PeerMac(topo, 0, 0), IPV4, 0);
        nic->SendInTc(MakeFrame(t, 0, 100, 2), PeerMac(topo, 0, 0), IPV4, 0);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(rec.ttls.size(), 1, "one frame delivered");
        NS_TEST_ASSERT_MSG_EQ(rec.ttls[0], 61, "64 - 3 switch hops");
        uint64_t ttlDrops = 0;
        for (uint32_t s = 0; s < topo->GetNSwitches(); ++s)
        {
            ttlDrops += topo->GetSwitch(s).sw->GetDropCount("ttl");
        }
        NS_TEST_ASSERT_MSG_EQ(ttlDrops, 1, "TTL 2 expires at the second switch");
        Simulator::Destroy();
    }
};

} // namespace

/// The "crux-switch" test suite.
class CruxSwitchTestSuite : public TestSuite
{
  public:
    CruxSwitchTestSuite()
        : TestSuite("crux-switch", UNIT)
    {
        AddTestCase(new TopologyBuilderTestCase, TestCase::QUICK);
        AddTestCase(new EcmpSeedTestCase, TestCase::QUICK);
        AddTestCase(new NoRouteTestCase, TestCase::QUICK);
        AddTestCase(new TtlTestCase, TestCase::QUICK);
        AddTestCase(new EcmpSpreadTestCase, TestCase::QUICK);
        AddTestCase(new PinnedRouteTestCase, TestCase::QUICK);
        AddTestCase(new SourcePortSteeringTestCase, TestCase::QUICK);
        AddTestCase(new HeadroomTestCase, TestCase::QUICK);
        AddTestCase(new ControlPoolTestCase, TestCase::QUICK);
        AddTestCase(new IncastLosslessTestCase, TestCase::QUICK);
        AddTestCase(new IncastLossyTestCase, TestCase::QUICK);
        AddTestCase(new IncastTracesTestCase, TestCase::QUICK);
        AddTestCase(new MultiHopLosslessTestCase, TestCase::QUICK);
    }
};

/// Static instance registering the suite.
static CruxSwitchTestSuite g_cruxSwitchTestSuite;
