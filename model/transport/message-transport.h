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

#ifndef CRUX_MESSAGE_TRANSPORT_H
#define CRUX_MESSAGE_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \defgroup crux Crux: communication scheduling for deep-learning training clusters
 *
 * Packet-level lossless RoCEv2 fabric, DLT job workloads, GPU-intensity accounting and the
 * Crux scheduler (Cao et al., SIGCOMM'24) with its baselines.
 */

/**
 * \ingroup crux
 * \brief Identifies one GPU of the cluster as (host index, local GPU index on that host).
 */
struct GpuId
{
    uint32_t host{0};     //!< host index, 0-based, as numbered by the topology helper
    uint32_t localGpu{0}; //!< GPU index inside the host, 0-based
};

/**
 * \ingroup crux
 * \brief One point-to-point message a collective asks the transport to carry.
 *
 * The workload layer (DltJobApplication, collectives) fills this in; it never knows which
 * transport (packet-level RDMA NIC or flow-level model) carries it.
 */
struct MessageRequest
{
    uint32_t jobId{0};      //!< owning DLT job (used for per-job accounting and scheduling)
    uint32_t flowId{0};     //!< job-local connection index (identifies the queue pair / flow)
    GpuId src;              //!< sending GPU
    GpuId dst;              //!< receiving GPU
    uint64_t bytes{0};      //!< payload size in bytes (> 0)
    uint8_t dscp{0};        //!< DSCP (0..63) carried in the IPv4 header; selects the traffic class
    uint16_t udpSrcPort{0}; //!< RoCEv2 UDP source port (ECMP entropy); 0 = transport default
    uint32_t tag{0xffffffffu}; //!< the sender's id of the message (CommDagRunner: its DAG node),
                               //!< given to the job's describer (SetMessageDescriber); none = ~0
};

/**
 * \ingroup crux
 * \brief Abstract message transport: "send B bytes from GPU a to GPU b in traffic class c,
 * call me back when the receiver has all of it".
 *
 * Implemented at packet level by RdmaTransport (RoCEv2 queue pairs on QbbNetDevices) and, later,
 * by a flow-level model. Completion is reported when the last byte is delivered at the receiver.
 */
class MessageTransport : public Object
{
  public:
    /// Completion callback: invoked once, at simulation time of delivery of the last byte.
    typedef Callback<void> CompletionCallback;

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    ~MessageTransport() override;

    /**
     * \brief Start carrying one message.
     * \param req what to send; req.bytes must be > 0 and both GPUs must exist (else NS_FATAL_ERROR
     *        naming the field: these are programming errors, not user input).
     * \param done invoked once when the destination has received every byte.
     */
    virtual void Send(const MessageRequest& req, CompletionCallback done) = 0;

    /// Describer: the message tag (MessageRequest::tag) -> what it belongs to in the user's
    /// words, e.g. "DP all-reduce (ring) bucket 3, step 5 of 14" (empty: unknown).
    typedef Callback<std::string, uint32_t> DescribeCallback;

    /**
     * \brief Register who describes the messages of a job, for error messages such as the
     * packet transport's stall watchdog (RdmaNic::StallTimeout). The transport does not know the
     * workload layer: it only calls the callback. One describer per job; a later call replaces
     * it, a null callback removes it. A transport that forwards to another one overrides it to
     * forward the describer too.
     * \param jobId the job (MessageRequest::jobId)
     * \param describe the describer (CommDagRunner registers its DAG's)
     */
    virtual void SetMessageDescriber(uint32_t jobId, DescribeCallback describe);

    /**
     * \brief What a message is, through the job's describer.
     * \param jobId the job \param tag the message's MessageRequest::tag
     * \return the description; empty without a describer or for the tag "none"
     */
    std::string DescribeMessage(uint32_t jobId, uint32_t tag);

  protected:
    void DoDispose() override;

    /**
     * \brief Validates a request at the top of an implementation's Send().
     *
     * Checks, in this order: req.bytes > 0 ("<transport>::Send: req.bytes must be > 0 (job j,
     * flow f)"), req.dscp in 0..63 ("<transport>::Send: req.dscp = d out of range 0..63"), then
     * req.src and req.dst with CheckGpu. Every failure is an NS_FATAL_ERROR (programming errors
     * of the workload layer, not user input).
     * \param req the request
     * \param transport the implementation's name used in the messages (e.g. "RdmaTransport")
     * \param gpusPerHost number of GPUs of every registered host, indexed by host
     */
    static void CheckRequest(const MessageRequest& req,
                             const std::string& transport,
                             const std::vector<uint32_t>& gpusPerHost);

    /**
     * \brief Checks that a GPU exists (NS_FATAL_ERROR naming the field otherwise:
     * "<transport>: <field>.host = h but only n hosts exist" or "<transport>: <field>.localGpu =
     * g but host h has n GPUs").
     * \param gpu the GPU
     * \param field name of the checked field for the message (e.g. "req.src")
     * \param transport the implementation's name used in the messages
     * \param gpusPerHost number of GPUs of every registered host, indexed by host
     */
    static void CheckGpu(const GpuId& gpu,
                         const char* field,
                         const std::string& transport,
                         const std::vector<uint32_t>& gpusPerHost);

    /**
     * \brief Validates a host registration at the top of an implementation's AddHost().
     *
     * Hosts must be added in order 0, 1, 2, ... ("<transport>::AddHost: host h added out of
     * order (expected n)") and have at least one GPU ("<transport>::AddHost: host h has 0 GPUs").
     * Every failure is an NS_FATAL_ERROR.
     * \param host the host being added
     * \param gpus its number of GPUs
     * \param transport the implementation's name used in the messages (e.g. "RdmaTransport")
     * \param gpusPerHost number of GPUs of every host registered so far, indexed by host
     */
    static void CheckNewHost(uint32_t host,
                             uint32_t gpus,
                             const std::string& transport,
                             const std::vector<uint32_t>& gpusPerHost);

    /**
     * \brief The intra-host (NVLink) alpha-beta model shared by the transports.
     *
     * The message occupies its source GPU's NVLink egress for bytes x 8 / rate seconds, starting
     * when that egress is free (messages of one GPU serialize, different GPUs are independent);
     * \p done runs \p latency after the egress finishes.
     * \param req the request (req.src.host == req.dst.host; req.bytes in bytes)
     * \param done completion callback (may be null)
     * \param busy [in,out] per host, per GPU: time until which that GPU's NVLink egress is busy;
     *        the source GPU's entry is advanced by the message's serialization time
     * \param rate NVLink bandwidth per GPU egress, bit/s
     * \param latency NVLink latency added after serialization
     */
    static void SendOverNvlink(const MessageRequest& req,
                               CompletionCallback done,
                               std::vector<std::vector<Time>>& busy,
                               DataRate rate,
                               Time latency);

  private:
    std::map<uint32_t, DescribeCallback> m_describers; //!< SetMessageDescriber: job -> describer
};

} // namespace ns3

#endif // CRUX_MESSAGE_TRANSPORT_H
