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

#ifndef CRUX_NCCL_MODEL_H
#define CRUX_NCCL_MODEL_H

// Pure C++ (no ns-3 includes): NCCL's channels, protocols and cost model as the collectives
// library (collectives.h) uses them. Every constant below is a fact read in NVIDIA/nccl at
// commit 5067397c2676 (2.30.7; workloads-fabric-facts.md §5), with its file named; none was
// chosen to match a measurement.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief NCCL's protocols (src/include/device.h: NCCL_PROTO_LL, NCCL_PROTO_LL128,
 * NCCL_PROTO_SIMPLE, in that order).
 */
enum class NcclProtocol : uint8_t
{
    LL = 0,    //!< 8-byte stores of 4 data bytes + 4 flag bytes (16-byte lines of 8 data bytes)
    LL128 = 1, //!< 128-byte lines of 120 data bytes + an 8-byte flag
    SIMPLE = 2 //!< plain data, a fence and a flag per step
};

/**
 * \ingroup crux
 * \brief NCCL's ring and tree algorithms (the two crux builds with channels; NVLS, CollNet and
 * PAT are not modelled).
 */
enum class NcclAlgorithm : uint8_t
{
    TREE = 0, //!< double binary tree (NCCL_ALGO_TREE)
    RING = 1  //!< ring (NCCL_ALGO_RING)
};

/**
 * \ingroup crux
 * \brief The collective operations NCCL's cost model covers here.
 */
enum class NcclFunction : uint8_t
{
    ALL_REDUCE,     //!< ncclAllReduce: 2(N−1) ring steps
    REDUCE_SCATTER, //!< ncclReduceScatter: N−1 ring steps
    ALL_GATHER      //!< ncclAllGather: N−1 ring steps
};

/**
 * \ingroup crux
 * \brief The GPU generation NCCL's tables are indexed by (compute capability 8.x / 9.x).
 */
enum class NcclArch : uint8_t
{
    AMPERE, //!< A100 (SM80)
    HOPPER  //!< H100, H200 (SM90)
};

/// \return "LL", "LL128" or "Simple" (NCCL's names)
std::string ToString(NcclProtocol protocol);
/// \return "Tree" or "Ring" (NCCL's names)
std::string ToString(NcclAlgorithm algorithm);

/**
 * \param name "ll", "ll128" or "simple" (case-insensitive); "" or "auto" = NCCL's choice
 * \param out the protocol (reset for "" / "auto")
 * \return false if the name is unknown
 */
bool ParseNcclProtocol(const std::string& name, std::optional<NcclProtocol>& out);

/// \return the scenario names of the protocols: "auto", "simple", "ll", "ll128"
const std::vector<std::string>& NcclProtocolNames();

/**
 * \param name "a100" / "ampere" or "h100" / "h200" / "hopper" (case-insensitive)
 * \param out the architecture \return false if unknown
 */
bool ParseNcclArch(const std::string& name, NcclArch& out);

/**
 * \ingroup crux
 * \brief The hardware a job's collectives run on, as NCCL's topology detection would see it
 * (filled from the simulated cluster by the drivers; the defaults are crux's scenario defaults).
 */
struct CollectiveHardware
{
    /// GPUs of each host of the cluster; 0 = unknown: every GPU has its own NIC (NIC index =
    /// GPU index). With a value, GPU g uses NIC g × nicsPerHost / gpusPerHost
    /// (ClusterTopology::NicOfGpu()).
    uint32_t gpusPerHost{0};
    uint32_t nicsPerHost{0}; //!< NICs of each host (0 = unknown, see gpusPerHost)
    /// Rate of one NIC, bit/s (NCCL: the port speed; src/graph/topo.cc net.bw = Mb/s / 8000 in
    /// GB/s). Default: crux's scenario default hostLinkRate, 100 Gbit/s.
    double nicBps{100e9};
    /// Rate of one GPU's NVLink to the NVSwitch per direction, bit/s, or of its PCIe link when
    /// nvlink is false. Default: crux's NVLink default (A100, 12 × 25 GB/s = 300 GB/s;
    /// IntraHostConfig::nvlinkBps).
    double intraBps{2400e9};
    /// Rate of the PCIe path GPU → NIC, bit/s (crux's default: NCCL's PCIe Gen4 x16 model,
    /// 24 GB/s, IntraHostConfig::pcieBps); caps a search channel's speed as NCCL's path
    /// bandwidth GPU → NET does.
    double pcieBps{192e9};
    bool nvlink{true};               //!< GPUs of a host talk over NVLink (false: over PCIe)
    NcclArch arch{NcclArch::AMPERE}; //!< GPU generation (crux's hosts are A100 by default)

    /// \param localGpu GPU index on its host \return its NIC index
    uint32_t NicOf(uint32_t localGpu) const;
};

/**
 * \ingroup crux
 * \brief How a job's collectives run: the channels and protocol of NCCL's ring and tree, and
 * the hardware NCCL's cost model sees (CommDag::SetCollectiveConfig()).
 */
struct CollectiveConfig
{
    /// NCCL channels of a communicator (comm->nChannels); 0 = NCCL's default for the
    /// hardware (NcclModel::CommChannels()). A collective uses fewer for small buffers
    /// (NcclModel::ChannelsFor()).
    uint32_t channels{0};
    /// Protocol of the ring and tree; empty = NCCL's choice (NcclModel::Choose()).
    std::optional<NcclProtocol> protocol;
    CollectiveHardware hardware; //!< what NCCL's topology search and cost model see
};

/**
 * \ingroup crux
 * \brief NCCL's channel derivation and cost model (src/graph/search.cc, connect.cc, tuning.cc,
 * src/enqueue.cc) for one communicator, on the hardware crux simulates.
 *
 * **Channels** (what NCCL's topology search finds on rail-optimised hosts: one NIC per GPU or
 * GPU pair, GPUs on NVLink/NVSwitch; search.cc ncclTopoCompute, connect.cc ncclTopoPostset):
 *  - across hosts, every search channel is a ring NET n → GPU a → … → GPU x → NET n on one NIC
 *    (crossNic off first), so the search finds one channel per NIC the node's GPUs use (K), at
 *    a per-channel speed s = the largest value of NCCL's inter-node speed array (search.cc
 *    speedArrayInter / sm90SpeedArrayInter) at most the GB/s of the path GPU → NIC (NIC
 *    and PCIe) and with K × s at most one GPU's intra-host GB/s;
 *  - on one host, the channels share each GPU's NVLink: s = the largest value of the
 *    intra-node speed array at most that GB/s, and floor(GB/s / s) channels (at most 32);
 *  - ncclTopoDupChannels doubles them (s halved) when s ≥ 25 GB/s, except on Hopper with
 *    s < 50 and more than 4 channels;
 *  - ncclTopoPostset doubles again (every ring runs on two channels), and on Hopper across
 *    hosts with s > 45 GB/s and fewer than 16 channels once more; at most 64 (MAXCHANNELS).
 *  Example: 8 × 200 Gbit/s NICs per host of 8 A100 → 8 search channels of 24 GB/s, 16
 *  channels. ASSUMPTION: no NCCL_MIN/MAX_NCHANNELS, no CollNet/NVLS channels.
 *
 * **Cost model** (tuning.cc ncclTopoTuneModel and ncclTopoGetAlgoTime): for each (algorithm,
 * protocol) a latency (µs) and an algorithm bandwidth (GB/s); the predicted time of S bytes is
 * latency + S / (1000 × bandwidth) µs, and NCCL picks the smallest. Bandwidth: search channels
 * × per-channel speed (bwIntra on ≤ 2 hosts, else bwInter), then Ring LL × 0.5 (≤ llMaxBw),
 * Ring LL128 × 0.92 (≤ channels × per-channel cap), Tree all-reduce × 0.92 (≤ channels × per-
 * channel cap), Tree LL / 3.8 (≤ llMaxBw), Tree LL128 × 120/128 (7/9 on one host, ≤ cap), then
 * × N / nsteps for the ring and × 0.5 for the tree; the tree's bandwidth is also scaled by
 * NCCL's per-size correction table. Latency: base + per-hop latencies (NVLink, PCI or NET; on
 * several hosts a ring's intra-host steps cost at least the network post overhead, 1 µs,
 * × 3 for Simple; ASSUMPTION: Intel CPUs), × 1.4 for a multi-host Simple ring all-reduce once
 * S / (channels × N) ≥ 64 B. LL128 is enabled when intra-host traffic uses NVLink (tuning.cc:
 * typeIntra ≤ NVB; the GPU–NIC path is PIX on crux's hosts). Not modelled: NVLS, CollNet, PAT,
 * tuner plugins, and the tree bandwidth's 0.85 penalty when NCCL falls back to the plain tree
 * pattern.
 */
class NcclModel
{
  public:
    /**
     * \param hardware the hardware
     * \param ranks N, GPUs of the communicator (>= 1)
     * \param hosts hosts they span (1..N)
     * \param nicsPerHost K, distinct NICs one host's members use (>= 1; ignored on one host)
     */
    NcclModel(const CollectiveHardware& hardware,
              uint32_t ranks,
              uint32_t hosts,
              uint32_t nicsPerHost);

    /// \return the search channels of the ring graph after ncclTopoDupChannels
    uint32_t SearchChannels() const;
    /// \return the ring graph's per-channel speed, GB/s (bwIntra = bwInter)
    double RingChannelBandwidth() const;
    /// \return the tree graph's intra-host per-channel speed, GB/s (NCCL raises it up to twice
    ///         bwInter on ≤ 2 hosts when NVLink allows)
    double TreeIntraBandwidth() const;
    /// \return NCCL's default comm->nChannels (see the class doc)
    uint32_t CommChannels() const;

    /**
     * \param function the collective \param algorithm ring or tree \param protocol protocol
     * \return NCCL's algorithm bandwidth, GB/s (0 = not available: tree reduce-scatter or
     *         all-gather, LL128 disabled)
     */
    double Bandwidth(NcclFunction function, NcclAlgorithm algorithm, NcclProtocol protocol) const;
    /// \return NCCL's latency of the collective with this algorithm and protocol, µs
    /// \param function the collective \param algorithm ring or tree \param protocol protocol
    double Latency(NcclFunction function, NcclAlgorithm algorithm, NcclProtocol protocol) const;
    /**
     * \param function the collective \param algorithm ring or tree \param protocol protocol
     * \param bytes the buffer size S \param channels comm->nChannels (for the ring's 1.4 rule)
     * \return the predicted time, µs (ncclTopoGetAlgoTime, one operation); < 0 = unavailable
     */
    double PredictedTime(NcclFunction function,
                         NcclAlgorithm algorithm,
                         NcclProtocol protocol,
                         uint64_t bytes,
                         uint32_t channels) const;

    /// NCCL's pick for one collective.
    struct Choice
    {
        NcclAlgorithm algorithm{NcclAlgorithm::RING}; //!< algorithm
        NcclProtocol protocol{NcclProtocol::SIMPLE};  //!< protocol
        uint32_t channels{1};                         //!< channels this collective uses
        uint32_t commChannels{1};                     //!< comm->nChannels it was cut from
        double predictedMicros{0};                    //!< the cost model's time, µs
    };

    /**
     * \brief NCCL's choice (enqueue.cc topoGetAlgoInfo): the (algorithm, protocol) of smallest
     * predicted time among the allowed ones, then the channels it uses (ChannelsFor()).
     * \param function the collective \param bytes S
     * \param algorithm restrict to one algorithm (empty: ring or tree)
     * \param protocol restrict to one protocol (empty: all enabled)
     * \param channels comm->nChannels (0 = CommChannels())
     * \return the choice (ring/Simple if nothing is available)
     */
    Choice Choose(NcclFunction function,
                  uint64_t bytes,
                  std::optional<NcclAlgorithm> algorithm,
                  std::optional<NcclProtocol> protocol,
                  uint32_t channels) const;

    /**
     * \brief The channels one collective uses (enqueue.cc topoGetAlgoInfo): start from
     * comm->nChannels and drop one while S < channels × threads × threshold (threads: 512 for
     * Simple and LL, 640 for LL128, device.h; thresholds: 64 B for Simple, 8 B for LL and
     * LL128, × N for the ring's LL, comm.h), at least 1.
     * \param algorithm ring or tree \param protocol protocol \param bytes S
     * \param channels comm->nChannels
     * \return channels used
     */
    uint32_t ChannelsFor(NcclAlgorithm algorithm,
                         NcclProtocol protocol,
                         uint64_t bytes,
                         uint32_t channels) const;

    /**
     * \brief The tree's pipeline chunk per channel (enqueue.cc calcCollChunking): one step of
     * the protocol's buffer (Simple: 4 MiB / NCCL_STEPS 8 = 512 KiB; LL: 512 KiB / 8 / 2 =
     * 32 KiB of data; LL128: 4,915,200 B / 8 × 120/128 = 576,000 B of data, halved while the
     * per-channel buffer is small, as NCCL does for LL128 trees).
     * \param protocol protocol \param bytes S \param channels channels of the collective
     * \return data bytes per chunk
     */
    uint64_t TreeChunkBytes(NcclProtocol protocol, uint64_t bytes, uint32_t channels) const;

    /// \return the ring all-reduce's chunk, 4 steps of 512 KiB = 2 MiB (collectives.h
    ///         ALLREDUCE_CHUNKSTEPS = NCCL_STEPS / 2; Simple buffer 4 MiB, init.cc)
    static uint64_t RingChunkBytes();

    /**
     * \param protocol protocol \param dataBytes payload
     * \return bytes on the wire: LL 2 × (16-byte lines of 8 data bytes, device.h
     *         ncclLLFifoLine), LL128 128/120 × (NCCL_LL128_LINESIZE 128, 15 of 16 8-byte
     *         elements data), Simple 1 ×; rounded up
     */
    static uint64_t WireBytes(NcclProtocol protocol, uint64_t dataBytes);

  private:
    CollectiveHardware m_hw; //!< hardware
    uint32_t m_ranks;        //!< N
    uint32_t m_hosts;        //!< hosts
    uint32_t m_searchCh{1};  //!< ring graph channels after DupChannels
    double m_bw{0};          //!< ring graph per-channel GB/s
    double m_treeIntra{0};   //!< tree graph bwIntra, GB/s
    uint32_t m_commCh{2};    //!< comm->nChannels
};

} // namespace ns3

#endif // CRUX_NCCL_MODEL_H
