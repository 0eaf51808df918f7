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

#include "nccl-model.h"

#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

// Facts from NVIDIA/nccl @ 5067397c2676 (2.30.7), file by file (own words and numbers only).

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxNcclModel");

namespace
{

// src/graph/search.cc: the per-channel speeds (GB/s) the topology search tries, fastest first.
const std::vector<double>
    SPEED_INTRA_SM80{40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
const std::vector<double> SPEED_INTER_SM80{48.0,
                                           30.0,
                                           28.0,
                                           24.0,
                                           20.0,
                                           18.0,
                                           15.0,
                                           12.0,
                                           10.0,
                                           9.0,
                                           7.0,
                                           6.0,
                                           5.0,
                                           4.0,
                                           3.0,
                                           2.4,
                                           1.2,
                                           0.24,
                                           0.12};
const std::vector<double>
    SPEED_INTRA_SM90{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
const std::vector<double> SPEED_INTER_SM90{48.0,
                                           45.0,
                                           42.0,
                                           40.0,
                                           30.0,
                                           24.0,
                                           22.0,
                                           20.0,
                                           17.5,
                                           15.0,
                                           12.0,
                                           6.0,
                                           3.0,
                                           2.4,
                                           1.2,
                                           0.24,
                                           0.12};

// src/graph/tuning.cc, ncclTunerConstantsDefaults: [algorithm Tree, Ring][protocol LL, LL128,
// Simple], µs.
constexpr double BASE_LATENCY[2][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};
// hwLatencies [NVLINK, PCI, NET][Tree, Ring][LL, LL128, Simple], µs
constexpr double HW_LATENCY[3][2][3] = {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},
                                        {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},
                                        {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}}};
constexpr int HW_NVLINK = 0;
constexpr int HW_PCI = 1;
constexpr int HW_NET = 2;
// llMaxBws [Volta/Intel, Ampere/AMD, Hopper, Blackwell][1 node, 2 nodes, more], GB/s
constexpr double LL_MAX_BW[4][3] = {{39.0, 39.0, 20.4},
                                    {87.7, 22.5, 19.0},
                                    {141.0, 45.0, 35.0},
                                    {2 * 141.0, 2 * 45.0, 2 * 35.0}};
// per-channel caps [Volta, Ampere, Hopper, Blackwell][1, 2, more nodes], GB/s
constexpr double RING_LL128_CAP[4][3] = {{20.0, 20.0, 20.0},
                                         {20.0, 20.0, 20.0},
                                         {36.7, 36.7, 36.7},
                                         {40.0, 40.0, 40.0}};
constexpr double TREE_LL128_CAP[4][3] = {{20.0, 20.0, 20.0},
                                         {20.0, 20.0, 20.0},
                                         {36.7, 36.7, 29.0},
                                         {55.6, 31.67, 20.0}};
constexpr double TREE_CAP[4][3] = {{26.5, 18.5, 10.0},
                                   {24.0, 23.6, 17.8},
                                   {38.7, 41.4, 36.0},
                                   {70.0, 42.8, 24.0}};
// treeCorrectionFactor [LL, LL128, Simple][log2(S / 64)], 64 B .. 256 MiB
constexpr double TREE_CORRECTION[3][24] = {{1.0, 1.0, 1.0, 1.0, .9,  .8,  .7,  .7,
                                            .7,  .7,  .6,  .5,  .4,  .4,  .5,  .6,
                                            .7,  .8,  .9,  1.0, 1.0, 1.0, 1.0, 1.0},
                                           {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
                                            .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
                                           {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
                                            .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};
// Network post overhead, µs (tuning.cc getNetOverhead; ASSUMPTION: Intel x86 hosts, 1 µs)
constexpr double NET_OVERHEAD = 1.0;
// src/include/device.h / comm.h: threads per channel and the bytes per thread below which a
// collective uses fewer channels
constexpr double SIMPLE_MAX_THREADS = 512;
constexpr double LL_MAX_THREADS = 512;
constexpr double LL128_MAX_THREADS = 640;
constexpr double SIMPLE_THREAD_THRESHOLD = 64;
constexpr double LL_THREAD_THRESHOLD = 8;
constexpr double LL128_THREAD_THRESHOLD = 8;
constexpr double PCI_BW = 12.0; // topo.h PCI_BW (GB/s): fewer Simple ring threads below it
// Buffers (init.cc): Simple 4 MiB; LL 8 lines × 512 threads × 8 steps × 16 B; LL128 120
// elements × 640 threads × 8 steps × 8 B. NCCL_STEPS = 8 slots per buffer (device.h).
constexpr uint64_t NCCL_STEPS = 8;
constexpr uint64_t SIMPLE_BUFFER = 4ull << 20;
constexpr uint64_t LL_BUFFER = 8ull * 512 * NCCL_STEPS * 16;
constexpr uint64_t LL128_BUFFER = 120ull * 640 * NCCL_STEPS * 8;
constexpr uint32_t MAX_CHANNELS = 64; // device.h MAXCHANNELS

int
Log2i(uint64_t n)
{
    int l = -1;
    while (n > 0)
    {
        n >>= 1;
        ++l;
    }
    return l;
}

int
CcIndex(NcclArch a)
{
    return a == NcclArch::HOPPER ? 2 : 1;
}

/// The largest speed of \p speeds that is <= \p cap (the slowest if none).
double
Speed(const std::vector<double>& speeds, double cap)
{
    for (double s : speeds)
    {
        if (s <= cap + 1e-9)
        {
            return s;
        }
    }
    return speeds.back();
}

std::string
Lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

} // namespace

std::string
ToString(NcclProtocol protocol)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return "LL";
    case NcclProtocol::LL128:
        return "LL128";
    case NcclProtocol::SIMPLE:
        return "Simple";
    }
    return "?";
}

std::string
ToString(NcclAlgorithm algorithm)
{
    return algorithm == NcclAlgorithm::TREE ? "Tree" : "Ring";
}

const std::vector<std::string>&
NcclProtocolNames()
{
    static const std::vector<std::string> names{"auto", "simple", "ll", "ll128"};
    return names;
}

bool
ParseNcclProtocol(const std::string& name, std::optional<NcclProtocol>& out)
{
    const std::string n = Lower(name);
    if (n.empty() || n == "auto")
    {
        out.reset();
    }
    else if (n == "simple")
    {
        out = NcclProtocol::SIMPLE;
    }
    else if (n == "ll")
    {
        out = NcclProtocol::LL;
    }
    else if (n == "ll128")
    {
        out = NcclProtocol::LL128;
    }
    else
    {
        return false;
    }
    return true;
}

bool
ParseNcclArch(const std::string& name, NcclArch& out)
{
    const std::string n = Lower(name);
    if (n == "a100" || n == "ampere" || n.rfind("a100-", 0) == 0)
    {
        out = NcclArch::AMPERE;
        return true;
    }
    if (n == "h100" || n == "h200" || n == "hopper" || n.rfind("h100-", 0) == 0)
    {
        out = NcclArch::HOPPER;
        return true;
    }
    return false;
}

uint32_t
CollectiveHardware::NicOf(uint32_t localGpu) const
{
    if (gpusPerHost == 0 || nicsPerHost == 0)
    {
        return localGpu;
    }
    return static_cast<uint32_t>(uint64_t{localGpu % gpusPerHost} * nicsPerHost / gpusPerHost);
}

NcclModel::NcclModel(const CollectiveHardware& hardware,
                     uint32_t ranks,
                     uint32_t hosts,
                     uint32_t nicsPerHost)
    : m_hw(hardware),
      m_ranks(std::max<uint32_t>(ranks, 1)),
      m_hosts(std::clamp<uint32_t>(hosts, 1, std::max<uint32_t>(ranks, 1)))
{
    const bool hopper = m_hw.arch == NcclArch::HOPPER;
    const double intraGB = m_hw.intraBps / 8e9;
    const uint32_t k = std::max<uint32_t>(nicsPerHost, 1);
    uint32_t ch;
    double bw;
    if (m_hosts > 1)
    {
        // one search channel per NIC, at a speed the NIC and the GPUs' links can carry
        const double nicGB = std::min(m_hw.nicBps, m_hw.pcieBps) / 8e9;
        const auto& speeds = hopper ? SPEED_INTER_SM90 : SPEED_INTER_SM80;
        ch = k;
        bw = Speed(speeds, std::min(nicGB, intraGB / k));
        // tree graph (same channels): bwIntra raised up to 2 × bwInter on <= 2 hosts
        m_treeIntra = bw;
        if (m_hosts <= 2)
        {
            for (double s : speeds)
            {
                if (s <= 2 * bw && s * ch <= intraGB + 1e-9)
                {
                    m_treeIntra = std::max(bw, s);
                    break;
                }
            }
        }
    }
    else
    {
        const auto& speeds = hopper ? SPEED_INTRA_SM90 : SPEED_INTRA_SM80;
        bw = Speed(speeds, intraGB);
        ch = std::clamp<uint32_t>(static_cast<uint32_t>(std::floor(intraGB / bw + 1e-9)),
                                  1,
                                  MAX_CHANNELS / 2);
        m_treeIntra = bw;
    }
    // ncclTopoDupChannels (search.cc)
    if (bw >= 25.0 && !(hopper && bw < 50.0 && ch > 4))
    {
        const uint32_t dup = std::min<uint32_t>(2 * ch, MAX_CHANNELS / 2);
        const uint32_t f = (dup + ch - 1) / ch;
        bw /= f;
        m_treeIntra /= f;
        ch = dup;
    }
    m_searchCh = ch;
    m_bw = bw;
    // ncclTopoPostset (connect.cc): every ring on two channels; Hopper across hosts once more
    m_commCh = std::min<uint32_t>(2 * ch, MAX_CHANNELS);
    if (hopper && m_hosts > 1 && bw > 45.0 && m_commCh < 16)
    {
        m_commCh = std::min<uint32_t>(2 * m_commCh, MAX_CHANNELS);
    }
    NS_LOG_DEBUG(m_ranks << " ranks on " << m_hosts << " hosts: " << m_searchCh
                         << " search channels at " << m_bw << " GB/s, " << m_commCh
                         << " communicator channels");
}

uint32_t
NcclModel::SearchChannels() const
{
    return m_searchCh;
}

double
NcclModel::RingChannelBandwidth() const
{
    return m_bw;
}

double
NcclModel::TreeIntraBandwidth() const
{
    return m_treeIntra;
}

uint32_t
NcclModel::CommChannels() const
{
    return m_commCh;
}

double
NcclModel::Bandwidth(NcclFunction function, NcclAlgorithm algorithm, NcclProtocol protocol) const
{
    if (m_ranks <= 1)
    {
        return 0;
    }
    const bool tree = algorithm == NcclAlgorithm::TREE;
    if (tree && function != NcclFunction::ALL_REDUCE)
    {
        return 0; // tuning.cc: reduce-scatter and all-gather have no tree
    }
    if (protocol == NcclProtocol::LL128 && !m_hw.nvlink)
    {
        return 0; // LL128 needs typeIntra <= NVB (tuning.cc)
    }
    const int cc = CcIndex(m_hw.arch);
    const int i2 = m_hosts <= 2 ? static_cast<int>(m_hosts) - 1 : 2;
    const int i1 = m_hosts == 1 ? cc : 0; // multi-host: CPU row (Intel)
    const double llMax = LL_MAX_BW[i1][i2];
    const double nch = m_searchCh;
    const double perCh = tree && m_hosts <= 2 ? m_treeIntra : m_bw;
    double busBw = nch * perCh;
    if (!tree && protocol == NcclProtocol::LL)
    {
        busBw = std::min(llMax, busBw * 0.5);
    }
    if (!tree && protocol == NcclProtocol::LL128)
    {
        busBw = std::min(busBw * 0.92, nch * RING_LL128_CAP[cc][i2]);
    }
    if (tree)
    {
        busBw = std::min(busBw * 0.92, nch * TREE_CAP[cc][i2]);
        if (protocol == NcclProtocol::LL)
        {
            busBw = std::min(busBw / 3.8, llMax);
        }
        if (protocol == NcclProtocol::LL128)
        {
            busBw = std::min(busBw * (m_hosts == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                             nch * TREE_LL128_CAP[cc][i2]);
        }
    }
    const double nsteps =
        function == NcclFunction::ALL_REDUCE ? 2.0 * (m_ranks - 1) : 1.0 * (m_ranks - 1);
    return tree ? busBw * 0.5 : busBw * m_ranks / nsteps;
}

double
NcclModel::Latency(NcclFunction function, NcclAlgorithm algorithm, NcclProtocol protocol) const
{
    const int a = algorithm == NcclAlgorithm::TREE ? 0 : 1;
    const int p = static_cast<int>(protocol);
    const int intraHw = m_hw.nvlink ? HW_NVLINK : HW_PCI;
    const bool allReduce = function == NcclFunction::ALL_REDUCE;
    const uint32_t n = m_ranks;
    const uint32_t h = m_hosts;
    const bool ppn1 = n == h;
    double lat = BASE_LATENCY[a][p];
    double intraLat = HW_LATENCY[intraHw][a][p];
    // graph latencyInter is 0 (no "latency" in NCCL's topology of an IB NIC)
    const double interLat = ppn1 ? HW_LATENCY[HW_NET][0][p] : HW_LATENCY[HW_NET][a][p];
    if (algorithm == NcclAlgorithm::RING)
    {
        const double nsteps = allReduce ? 2.0 * (n - 1) : 1.0 * (n - 1);
        if (h > 1)
        {
            const double overhead =
                protocol == NcclProtocol::SIMPLE ? 3 * NET_OVERHEAD : NET_OVERHEAD;
            intraLat = std::max(intraLat, overhead);
        }
        const double nInter = h == 1 ? 0 : allReduce ? 2.0 * (h - 1) : 1.0 * (h - 1);
        lat += (nsteps - nInter) * intraLat + nInter * interLat;
    }
    else if (allReduce)
    {
        lat += 2 * ((n / h - 1) * intraLat + Log2i(h) * interLat);
    }
    return lat;
}

double
NcclModel::PredictedTime(NcclFunction function,
                         NcclAlgorithm algorithm,
                         NcclProtocol protocol,
                         uint64_t bytes,
                         uint32_t channels) const
{
    double bw = Bandwidth(function, algorithm, protocol);
    if (bw <= 0)
    {
        return -1;
    }
    double lat = Latency(function, algorithm, protocol);
    const int logSize = Log2i(bytes >> 6);
    if (algorithm == NcclAlgorithm::TREE && function == NcclFunction::ALL_REDUCE && logSize >= 0 &&
        logSize < 23)
    {
        bw *= TREE_CORRECTION[static_cast<int>(protocol)][logSize];
    }
    const uint64_t ch = std::max<uint32_t>(channels, 1);
    if (algorithm == NcclAlgorithm::RING && protocol == NcclProtocol::SIMPLE && m_hosts > 1 &&
        function == NcclFunction::ALL_REDUCE && bytes / (ch * m_ranks) >= 64)
    {
        lat *= 1.4; // "plateau effect of ring", SM80 and later
    }
    return lat + static_cast<double>(bytes) / (1000.0 * bw);
}

uint32_t
NcclModel::ChannelsFor(NcclAlgorithm algorithm,
                       NcclProtocol protocol,
                       uint64_t bytes,
                       uint32_t channels) const
{
    double nt = SIMPLE_MAX_THREADS;
    double thr = SIMPLE_THREAD_THRESHOLD;
    if (protocol == NcclProtocol::LL)
    {
        nt = LL_MAX_THREADS;
        thr = LL_THREAD_THRESHOLD * (algorithm == NcclAlgorithm::RING ? m_ranks : 1);
    }
    else if (protocol == NcclProtocol::LL128)
    {
        nt = LL128_MAX_THREADS;
        thr = LL128_THREAD_THRESHOLD;
    }
    else if (algorithm == NcclAlgorithm::RING && m_bw * m_searchCh <= PCI_BW)
    {
        nt = 256;
    }
    uint32_t nc = std::max<uint32_t>(channels, 1);
    while (static_cast<double>(bytes) < nc * nt * thr && nc >= 2)
    {
        --nc;
    }
    return nc;
}

NcclModel::Choice
NcclModel::Choose(NcclFunction function,
                  uint64_t bytes,
                  std::optional<NcclAlgorithm> algorithm,
                  std::optional<NcclProtocol> protocol,
                  uint32_t channels) const
{
    const uint32_t comm = channels > 0 ? channels : m_commCh;
    Choice best;
    double minTime = std::numeric_limits<double>::max();
    bool found = false;
    for (NcclAlgorithm a : {NcclAlgorithm::TREE, NcclAlgorithm::RING})
    {
        if (algorithm && *algorithm != a)
        {
            continue;
        }
        for (NcclProtocol p : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE})
        {
            if (protocol && *protocol != p)
            {
                continue;
            }
            const double t = PredictedTime(function, a, p, bytes, comm);
            if (t >= 0 && t < minTime)
            {
                minTime = t;
                best.algorithm = a;
                best.protocol = p;
                found = true;
            }
        }
    }
    if (!found)
    {
        // e.g. a forced tree for a reduce-scatter, or LL128 without NVLink: NCCL would refuse;
        // the ring with the asked protocol (Simple if that is unavailable) runs instead
        best.algorithm = NcclAlgorithm::RING;
        best.protocol = protocol && Bandwidth(function, NcclAlgorithm::RING, *protocol) > 0
                            ? *protocol
                            : NcclProtocol::SIMPLE;
        minTime = PredictedTime(function, best.algorithm, best.protocol, bytes, comm);
    }
    best.predictedMicros = minTime;
    best.commChannels = comm;
    best.channels = ChannelsFor(best.algorithm, best.protocol, bytes, comm);
    NS_LOG_DEBUG(bytes << " bytes: " << ToString(best.algorithm) << "/" << ToString(best.protocol)
                       << " on " << best.channels << " channels, predicted " << minTime << " us"
                       << (found ? "" : " (nothing eligible: ring fallback)"));
    return best;
}

uint64_t
NcclModel::TreeChunkBytes(NcclProtocol protocol, uint64_t bytes, uint32_t channels) const
{
    switch (protocol)
    {
    case NcclProtocol::SIMPLE:
        return SIMPLE_BUFFER / NCCL_STEPS;
    case NcclProtocol::LL:
        return LL_BUFFER / NCCL_STEPS / 2;
    case NcclProtocol::LL128: {
        uint64_t chunk = LL128_BUFFER / NCCL_STEPS / 16 * 15;
        const double ppn = static_cast<double>(m_ranks) / m_hosts;
        const double nsteps = 1 + Log2i(m_hosts) + 0.1 * ppn;
        const uint64_t nc = std::max<uint32_t>(channels, 1);
        while (static_cast<double>(bytes / (nc * chunk)) < nsteps * 64 / ppn && chunk > 131072)
        {
            chunk /= 2;
        }
        while (static_cast<double>(bytes / (nc * chunk)) < nsteps * 16 / ppn && chunk > 32768)
        {
            chunk /= 2;
        }
        return chunk;
    }
    }
    return SIMPLE_BUFFER / NCCL_STEPS;
}

uint64_t
NcclModel::RingChunkBytes()
{
    return SIMPLE_BUFFER / NCCL_STEPS * (NCCL_STEPS / 2);
}

uint64_t
NcclModel::WireBytes(NcclProtocol protocol, uint64_t dataBytes)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return 2 * dataBytes;
    case NcclProtocol::LL128:
        return (dataBytes * 128 + 119) / 120;
    case NcclProtocol::SIMPLE:
        return dataBytes;
    }
    return dataBytes;
}

} // namespace ns3
