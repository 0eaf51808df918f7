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

// NCCL's channel derivation and cost model (NcclModel) against values worked out by hand from
// NVIDIA/nccl's src/graph/search.cc, connect.cc, tuning.cc and src/enqueue.cc (the arithmetic
// is in each test's comments).

#include "ns3/nccl-model.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// DGX-A100-class host: 8 GPUs, 8 × 200 Gbit/s NICs behind PCIe Gen4 (NCCL's 24 GB/s), NVLink
/// 300 GB/s per GPU.
CollectiveHardware
A100Host()
{
    CollectiveHardware hw;
    hw.gpusPerHost = 8;
    hw.nicsPerHost = 8;
    hw.nicBps = 200e9;
    hw.pcieBps = 192e9;
    hw.intraBps = 2400e9;
    hw.arch = NcclArch::AMPERE;
    return hw;
}

} // namespace

TEST(NcclModel, ChannelsOfA100HostsWithEightNics)
{
    // one search channel per NIC at speedArrayInter's 24 GB/s (<= min(25, 24) and 8 × 24 <=
    // 300); no DupChannels (24 < 25); Postset doubles: 16
    NcclModel m(A100Host(), 128, 16, 8);
    EXPECT_EQ(m.SearchChannels(), 8u);
    EXPECT_DOUBLE_EQ(m.RingChannelBandwidth(), 24.0);
    EXPECT_EQ(m.CommChannels(), 16u);
    // two hosts: the tree's bwIntra is raised to 30 (48 > 300 / 8)
    NcclModel two(A100Host(), 16, 2, 8);
    EXPECT_DOUBLE_EQ(two.TreeIntraBandwidth(), 30.0);
}

TEST(NcclModel, ChannelsOfOneA100HostWithNcclsNvlinkFigure)
{
    // 12 NVLinks × 20 GB/s (topo.h SM80_NVLINK_BW) = 240 GB/s: speed 40, 6 channels; dup to 12
    // of 20 GB/s (Ampere); Postset: 24 (what NCCL logs on DGX A100: "24 coll channels")
    CollectiveHardware hw = A100Host();
    hw.intraBps = 1920e9;
    NcclModel m(hw, 8, 1, 8);
    EXPECT_EQ(m.SearchChannels(), 12u);
    EXPECT_DOUBLE_EQ(m.RingChannelBandwidth(), 20.0);
    EXPECT_EQ(m.CommChannels(), 24u);
    // ring Simple: 12 × 20 = 240 GB/s bus bandwidth, × 8 / 14 algorithm bandwidth
    EXPECT_NEAR(m.Bandwidth(NcclFunction::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE),
                240.0 * 8 / 14,
                1e-9);
    // ring LL: min(llMaxBw Ampere one node 87.7, 240 × 0.5) × 8 / 14
    EXPECT_NEAR(m.Bandwidth(NcclFunction::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::LL),
                87.7 * 8 / 14,
                1e-9);
}

TEST(NcclModel, ChannelsOfH100Hosts)
{
    // 8 × 400 Gbit/s behind PCIe Gen5 (48 GB/s), NVLink 450 GB/s: sm90 speed 48; no dup on
    // Hopper (48 < 50, 8 > 4 channels); Postset 16; no further doubling (16 is not < 16)
    CollectiveHardware hw = A100Host();
    hw.nicBps = 400e9;
    hw.pcieBps = 384e9;
    hw.intraBps = 3600e9;
    hw.arch = NcclArch::HOPPER;
    NcclModel m(hw, 16, 2, 8);
    EXPECT_EQ(m.SearchChannels(), 8u);
    EXPECT_DOUBLE_EQ(m.RingChannelBandwidth(), 48.0);
    EXPECT_EQ(m.CommChannels(), 16u);
}

TEST(NcclModel, LatenciesOfSixteenHosts)
{
    // 128 ranks on 16 hosts: ring nsteps 254, 30 of them across hosts; intra hops cost at
    // least the network overhead (1 µs, × 3 for Simple); ppn 8 uses the ring's NET latency
    NcclModel m(A100Host(), 128, 16, 8);
    const auto AR = NcclFunction::ALL_REDUCE;
    EXPECT_NEAR(m.Latency(AR, NcclAlgorithm::RING, NcclProtocol::LL),
                6.6 + 224 * 1.0 + 30 * 2.7,
                1e-9);
    EXPECT_NEAR(m.Latency(AR, NcclAlgorithm::RING, NcclProtocol::LL128),
                14.0 + 224 * 1.9 + 30 * 4.0,
                1e-9);
    EXPECT_NEAR(m.Latency(AR, NcclAlgorithm::RING, NcclProtocol::SIMPLE),
                8.4 + 224 * 3.4 + 30 * 14.0,
                1e-9);
    // tree: base + 2 ((ppn − 1) intra + log2(16) NET)
    EXPECT_NEAR(m.Latency(AR, NcclAlgorithm::TREE, NcclProtocol::LL),
                6.8 + 2 * (7 * 0.6 + 4 * 5.0),
                1e-9);
    EXPECT_NEAR(m.Latency(AR, NcclAlgorithm::TREE, NcclProtocol::SIMPLE),
                8.4 + 2 * (7 * 4.0 + 4 * 14.0),
                1e-9);
    // two hosts, 16 ranks: 8.4 + 28 × 3.4 + 2 × 14
    NcclModel two(A100Host(), 16, 2, 8);
    EXPECT_NEAR(two.Latency(AR, NcclAlgorithm::RING, NcclProtocol::SIMPLE),
                8.4 + 28 * 3.4 + 2 * 14.0,
                1e-9);
}

TEST(NcclModel, BandwidthsOfSixteenHosts)
{
    NcclModel m(A100Host(), 128, 16, 8);
    const auto AR = NcclFunction::ALL_REDUCE;
    // ring Simple: 8 × 24 = 192 bus, × 128 / 254
    EXPECT_NEAR(m.Bandwidth(AR, NcclAlgorithm::RING, NcclProtocol::SIMPLE),
                192.0 * 128 / 254,
                1e-9);
    // ring LL128: min(192 × 0.92, 8 × 20) × 128 / 254
    EXPECT_NEAR(m.Bandwidth(AR, NcclAlgorithm::RING, NcclProtocol::LL128), 160.0 * 128 / 254, 1e-9);
    // ring LL: min(llMaxBw Intel > 2 nodes 20.4, 96)
    EXPECT_NEAR(m.Bandwidth(AR, NcclAlgorithm::RING, NcclProtocol::LL), 20.4 * 128 / 254, 1e-9);
    // tree Simple: min(176.64, 8 × 17.8) × 0.5
    EXPECT_NEAR(m.Bandwidth(AR, NcclAlgorithm::TREE, NcclProtocol::SIMPLE), 142.4 * 0.5, 1e-9);
    // tree: no reduce-scatter
    EXPECT_EQ(m.Bandwidth(NcclFunction::REDUCE_SCATTER, NcclAlgorithm::TREE, NcclProtocol::SIMPLE),
              0.0);
    // LL128 needs NVLink inside the host
    CollectiveHardware pcie = A100Host();
    pcie.nvlink = false;
    EXPECT_EQ(NcclModel(pcie, 128, 16, 8).Bandwidth(AR, NcclAlgorithm::RING, NcclProtocol::LL128),
              0.0);
}

TEST(NcclModel, ChoiceAcrossSizes)
{
    NcclModel m(A100Host(), 128, 16, 8);
    // 8 KiB: tree LL, 55.2 + 8192 / (1000 × 10.2 × 0.7 (correction at 2^7 × 64 B)) µs, on 2
    // channels (8192 B = 2 × 512 threads × 8 B)
    const auto small = m.Choose(NcclFunction::ALL_REDUCE, 8192, {}, {}, 0);
    EXPECT_EQ(small.algorithm, NcclAlgorithm::TREE);
    EXPECT_EQ(small.protocol, NcclProtocol::LL);
    EXPECT_EQ(small.channels, 2u);
    EXPECT_NEAR(small.predictedMicros, 55.2 + 8192 / (1000 * 10.2 * 0.7), 1e-9);
    // 1 GiB: ring Simple (1.4 × latency), 16 channels
    const uint64_t gib = 1ull << 30;
    const auto big = m.Choose(NcclFunction::ALL_REDUCE, gib, {}, {}, 0);
    EXPECT_EQ(big.algorithm, NcclAlgorithm::RING);
    EXPECT_EQ(big.protocol, NcclProtocol::SIMPLE);
    EXPECT_EQ(big.channels, 16u);
    EXPECT_NEAR(big.predictedMicros,
                1.4 * (8.4 + 224 * 3.4 + 30 * 14.0) + gib / (1000 * 192.0 * 128 / 254),
                1e-6);
    // restricted to the ring and to a protocol
    const auto ring = m.Choose(NcclFunction::ALL_REDUCE, 8192, NcclAlgorithm::RING, {}, 0);
    EXPECT_EQ(ring.algorithm, NcclAlgorithm::RING);
    EXPECT_EQ(ring.protocol, NcclProtocol::LL);
    const auto simple = m.Choose(NcclFunction::ALL_REDUCE, 8192, {}, NcclProtocol::SIMPLE, 0);
    EXPECT_EQ(simple.protocol, NcclProtocol::SIMPLE);
    // a forced tree reduce-scatter does not exist: the ring runs
    const auto rs = m.Choose(NcclFunction::REDUCE_SCATTER, gib, NcclAlgorithm::TREE, {}, 0);
    EXPECT_EQ(rs.algorithm, NcclAlgorithm::RING);
}

TEST(NcclModel, ChannelsForSmallBuffers)
{
    NcclModel m(A100Host(), 16, 2, 8);
    // Simple: 512 threads × 64 B = 32 KiB per channel
    EXPECT_EQ(m.ChannelsFor(NcclAlgorithm::RING, NcclProtocol::SIMPLE, 64 << 10, 16), 2u);
    EXPECT_EQ(m.ChannelsFor(NcclAlgorithm::RING, NcclProtocol::SIMPLE, 1 << 20, 16), 16u);
    EXPECT_EQ(m.ChannelsFor(NcclAlgorithm::RING, NcclProtocol::SIMPLE, 100, 16), 1u);
    // ring LL: 512 × 8 B × N (16) = 64 KiB per channel
    EXPECT_EQ(m.ChannelsFor(NcclAlgorithm::RING, NcclProtocol::LL, 256 << 10, 16), 4u);
}

TEST(NcclModel, ProtocolWireFormatAndChunks)
{
    EXPECT_EQ(NcclModel::WireBytes(NcclProtocol::SIMPLE, 1000), 1000u);
    EXPECT_EQ(NcclModel::WireBytes(NcclProtocol::LL, 1000), 2000u);
    EXPECT_EQ(NcclModel::WireBytes(NcclProtocol::LL128, 120), 128u);
    EXPECT_EQ(NcclModel::WireBytes(NcclProtocol::LL128, 1), 2u);
    EXPECT_EQ(NcclModel::RingChunkBytes(), 2u << 20);
    NcclModel m(A100Host(), 16, 2, 8);
    EXPECT_EQ(m.TreeChunkBytes(NcclProtocol::SIMPLE, 1ull << 30, 16), 512u << 10);
    EXPECT_EQ(m.TreeChunkBytes(NcclProtocol::LL, 1ull << 30, 16), 32u << 10);
    // LL128: 614,400-byte steps of which 15/16 data; halved while the buffer is small
    EXPECT_EQ(m.TreeChunkBytes(NcclProtocol::LL128, 1ull << 34, 16), 576000u);
    EXPECT_LT(m.TreeChunkBytes(NcclProtocol::LL128, 1ull << 20, 16), 576000u);
}

TEST(NcclModel, NamesAndNics)
{
    std::optional<NcclProtocol> p;
    EXPECT_TRUE(ParseNcclProtocol("LL128", p));
    EXPECT_EQ(*p, NcclProtocol::LL128);
    EXPECT_TRUE(ParseNcclProtocol("auto", p));
    EXPECT_FALSE(p.has_value());
    EXPECT_FALSE(ParseNcclProtocol("ll64", p));
    NcclArch a;
    EXPECT_TRUE(ParseNcclArch("H200", a));
    EXPECT_EQ(a, NcclArch::HOPPER);
    CollectiveHardware hw;
    EXPECT_EQ(hw.NicOf(5), 5u); // unknown: one NIC per GPU
    hw.gpusPerHost = 8;
    hw.nicsPerHost = 4;
    EXPECT_EQ(hw.NicOf(5), 2u); // GPU pairs share a NIC (ClusterTopology::NicOfGpu)
}
