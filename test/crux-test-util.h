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

#ifndef CRUX_TEST_UTIL_H
#define CRUX_TEST_UTIL_H

// Shared helpers of the ns-3 TestSuites in test/*.cc (compiled into the crux test library):
// terse builders for GPU ids, message requests, connection keys and one-link scheduler jobs
// (OneLinkJob), and what the PCAP tests need to write a capture to a private directory and decode
// it with tshark. Header-only (every function is inline), so it needs no entry in the file lists
// of cmake/crux-sources.cmake.

#include "ns3/cluster-model.h"
#include "ns3/cluster-topology.h"
#include "ns3/dlt-job-application.h"
#include "ns3/message-transport.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/ptr.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

// Module root, for the shipped scenario files: set by the standalone CMakeLists.txt; in an ns-3
// source tree, build_lib() defines NS_TEST_SOURCEDIR (the module's test directory, relative to
// the ns-3 root where test.py runs the tests).
#ifndef CRUX_SOURCE_DIR
#define CRUX_SOURCE_DIR NS_TEST_SOURCEDIR "/.."
#endif

namespace ns3
{

/**
 * \return the small rail-wired Clos most fabric tests start from: 2 ToRs with 4 hosts each,
 *         2 aggregation switches, one 100 Gbit/s NIC and 8 GPUs per host, 1 us links
 */
inline ClosConfig
SmallClosConfig()
{
    ClosConfig c;
    c.tors = 2;
    c.aggs = 2;
    c.hostsPerTor = 4;
    c.numHosts = 0;
    c.nicsPerHost = 1;
    c.gpusPerHost = 8;
    c.hostLinkBps = 100e9;
    c.torAggBps = 100e9;
    c.delay = 1e-6;
    c.wiring = "rail";
    return c;
}

/**
 * \param hosts hosts under the one ToR (>= 1)
 * \param intra add the intra-host links (AddIntraHostLinks)
 * \param ih their configuration (default: IntraHostConfig(), PCIe 192 Gbit/s)
 * \return testbed-like hosts (8 GPUs, 4 x 200 Gbit/s NICs: one per GPU pair, so one PCIe switch
 *         per GPU pair) on one ToR, 1 us links, with or without the intra-host links
 */
inline ClusterTopology
TestbedHostsOnOneTor(uint32_t hosts, bool intra, const IntraHostConfig& ih = IntraHostConfig())
{
    ClosConfig c;
    c.tors = 1;
    c.aggs = 0;
    c.hostsPerTor = hosts;
    c.numHosts = 0;
    c.gpusPerHost = 8;
    c.nicsPerHost = 4;
    c.hostLinkBps = 200e9;
    c.torAggBps = 200e9;
    c.delay = 1e-6;
    c.wiring = "tor";
    ClusterTopology t = BuildTwoLayerClos(c);
    if (intra)
    {
        AddIntraHostLinks(t, ih);
    }
    return t;
}

namespace test
{

/**
 * \brief A GPU id.
 * \param host host index, 0-based (GpuId::host)
 * \param local GPU index inside the host, 0-based (GpuId::localGpu)
 * \return the GpuId
 */
inline GpuId
Gpu(uint32_t host, uint32_t local)
{
    GpuId g;
    g.host = host;
    g.localGpu = local;
    return g;
}

/**
 * \brief A transport that delivers every message at once (zero latency, infinite bandwidth):
 * a job on it shows its compute and dependencies only.
 */
class FreeTransport : public MessageTransport
{
  public:
    void Send(const MessageRequest& req, CompletionCallback done) override
    {
        if (req.bytes == 0)
        {
            NS_FATAL_ERROR("FreeTransport: req.bytes must be > 0");
        }
        ++m_messages;
        m_bytes += req.bytes;
        Simulator::ScheduleNow(&FreeTransport::Deliver, done);
    }

    /// \param done the completion to call
    static void Deliver(CompletionCallback done)
    {
        done();
    }

    uint64_t m_messages{0}; //!< messages carried
    uint64_t m_bytes{0};    //!< bytes carried
};

/**
 * \brief Run a job alone: a DltJobApplication with \p job on \p transport on a new node, the
 * simulation to its end, then Simulator::Destroy().
 * \param job the job \param transport its transport
 * \param jct if not null, receives the job completion time (DltJobApplication::GetJct)
 * \return its iteration times, seconds, in order
 */
inline std::vector<double>
RunJobAlone(const DltJob& job, Ptr<MessageTransport> transport, Time* jct = nullptr)
{
    Ptr<Node> node = CreateObject<Node>();
    Ptr<DltJobApplication> app = CreateObject<DltJobApplication>();
    app->SetJob(job);
    app->SetTransport(transport);
    node->AddApplication(app);
    Simulator::Run();
    if (jct)
    {
        *jct = app->GetJct();
    }
    std::vector<double> times = app->GetIterationTimes();
    Simulator::Destroy();
    return times;
}

/**
 * \brief A message request with every field given (defaults: DSCP 0, transport-chosen port).
 * \param job owning job (MessageRequest::jobId)
 * \param flow job-local connection index (MessageRequest::flowId)
 * \param src sending GPU
 * \param dst receiving GPU
 * \param bytes payload, bytes
 * \param dscp DSCP 0..63 (selects the traffic class)
 * \param port RoCEv2 UDP source port; 0 = transport default
 * \return the request
 */
inline MessageRequest
Req(uint32_t job,
    uint32_t flow,
    GpuId src,
    GpuId dst,
    uint64_t bytes,
    uint8_t dscp = 0,
    uint16_t port = 0)
{
    MessageRequest r;
    r.jobId = job;
    r.flowId = flow;
    r.src = src;
    r.dst = dst;
    r.bytes = bytes;
    r.dscp = dscp;
    r.udpSrcPort = port;
    return r;
}

/**
 * \brief The key of the connection (queue pair / flow) a request of this job, flow and GPU pair
 * is carried on (RdmaQpKey::FromRequest; the key does not depend on bytes, DSCP or port).
 * \param job owning job
 * \param flow job-local connection index
 * \param src sending GPU
 * \param dst receiving GPU
 * \return the key
 */
inline RdmaQpKey
Key(uint32_t job, uint32_t flow, GpuId src, GpuId dst)
{
    return RdmaQpKey::FromRequest(Req(job, flow, src, dst, 1));
}

/**
 * \brief Run a shell command (popen) and return everything it wrote to standard output.
 * \param cmd the command line, run by /bin/sh
 * \return its standard output; empty if the command could not be started
 */
inline std::string
RunCommand(const std::string& cmd)
{
    std::string out;
    if (FILE* pipe = ::popen(cmd.c_str(), "r"))
    {
        char chunk[4096];
        std::size_t n;
        while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0)
        {
            out.append(chunk, n);
        }
        ::pclose(pipe);
    }
    return out;
}

/// Absolute path of the tshark binary the PCAP tests decode with.
inline const char* const TSHARK = "/usr/bin/tshark";

/**
 * \brief Whether tshark is installed at #TSHARK (the PCAP decode checks are skipped otherwise).
 * \return true if the file exists
 */
inline bool
HaveTshark()
{
    return std::filesystem::exists(TSHARK);
}

/**
 * \brief Create (if needed) and return a private directory for PCAP files:
 * `<temp dir>/<tag>-<process id>`.
 * \param tag directory name prefix, e.g. "crux-qbb-pcap"
 * \return the directory
 */
inline std::filesystem::path
PcapTempDir(const std::string& tag)
{
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / (tag + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

/**
 * \brief The file name ns-3's PcapHelperForDevice::EnablePcap(prefix, dev) writes:
 * `<dir>/<prefix>-<node id>-<device ifindex>.pcap`.
 * \param dir directory the prefix lies in
 * \param prefix file name prefix given to EnablePcap (without the directory)
 * \param dev the captured device (must be installed on a node)
 * \return the path, as a string
 */
inline std::string
PcapFileName(const std::filesystem::path& dir, const std::string& prefix, Ptr<NetDevice> dev)
{
    return (dir / (prefix + "-" + std::to_string(dev->GetNode()->GetId()) + "-" +
                   std::to_string(dev->GetIfIndex()) + ".pcap"))
        .string();
}

/**
 * \brief A scheduler job of one flow on one link, sent after the whole computation
 * (overlapStart 1): alone, compute + bytes x 8 / the link's bandwidth per iteration.
 * \param id job id (SchedJob::id)
 * \param link the flow's one link (its only candidate path is {link})
 * \param compute computation per iteration, s
 * \param bytes the flow's bytes per iteration
 * \param flops FLOPs per iteration (SchedJob::flopsPerIteration)
 * \return the job
 */
inline SchedJob
OneLinkJob(uint32_t id, uint32_t link, double compute, double bytes, double flops = 0)
{
    SchedJob j;
    j.id = id;
    j.computeTime = compute;
    j.overlapStart = 1;
    j.flopsPerIteration = flops;
    SchedFlow f;
    f.id = 0;
    f.bytesPerIteration = bytes;
    f.candidatePaths = {{link}};
    j.flows.push_back(f);
    return j;
}

} // namespace test
} // namespace ns3

#endif // CRUX_TEST_UTIL_H
