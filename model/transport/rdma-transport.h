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

#ifndef CRUX_RDMA_TRANSPORT_H
#define CRUX_RDMA_TRANSPORT_H

#include "message-transport.h"
#include "rdma-nic.h"
#include "rdma-queue-pair.h"

#include "ns3/data-rate.h"
#include "ns3/five-tuple.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Identifies one RDMA connection of RdmaTransport: (job, job-local flow, source GPU,
 * destination GPU). Each distinct key gets its own queue pair (and so its own UDP source port /
 * ECMP path); ordered lexicographically in that field order.
 */
struct RdmaQpKey
{
    uint32_t jobId{0};  //!< job
    uint32_t flowId{0}; //!< job-local flow / connection index
    GpuId src;          //!< sending GPU
    GpuId dst;          //!< receiving GPU

    /// \return the key of a message request \param req the request
    static RdmaQpKey FromRequest(const MessageRequest& req);
    /// \return lexicographic order \param o other key
    bool operator<(const RdmaQpKey& o) const;
    /// \return true if all fields are equal \param o other key
    bool operator==(const RdmaQpKey& o) const;
};

/**
 * \ingroup crux
 * \brief One inter-host connection of RdmaTransport, for path prediction and pinning.
 */
struct RdmaFlowInfo
{
    RdmaQpKey key;         //!< connection key
    FiveTuple tuple;       //!< 5-tuple of its data packets (source NIC → destination NIC)
    Ptr<RdmaQueuePair> qp; //!< requester queue pair (on the source NIC)
};

/**
 * \ingroup crux
 * \brief MessageTransport at packet level: RoCEv2 RC queue pairs on the hosts' RdmaNics.
 *
 * Hosts and NICs are registered with AddHost()/AddNic() (RdmaTransportHelper does it from a
 * CruxTopology). Send():
 *  - source and destination GPU on the same host: intra-host (NVLink) transfer, modelled as
 *    alpha-beta: it occupies the source GPU's NVLink egress for bytes × 8 / "IntraHostRate"
 *    (messages from one GPU serialize, different GPUs are independent) and completes
 *    "IntraHostLatency" after that. Default 300 GB/s (2400 Gbit/s) per direction, the NVLink 3
 *    bandwidth of an A100 (12 links × 25 GB/s), and 1 µs;
 *  - otherwise: source NIC = NIC floor(g·N/G) of the source host (likewise the destination), the
 *    queue pair of the key (jobId, flowId, src GPU, dst GPU) is created on first use (a
 *    connection between the two NICs), and the message is posted on it; the completion callback
 *    fires when the last byte reaches the destination NIC.
 *
 * UDP source port of a queue pair, first match: a non-zero udpSrcPort of the request, the port
 * given to SetQpSourcePort() for its key, DefaultSourcePort(key) (49152 + a fixed hash of the key
 * mod 16384: deterministic, independent of the RNG seed). Changing the port of an existing queue
 * pair (a later request with another non-zero udpSrcPort, or SetQpSourcePort()) takes effect as
 * soon as it has no unacknowledged packets (RdmaQueuePair::SetSourcePort()).
 */
class RdmaTransport : public MessageTransport
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RdmaTransport();
    ~RdmaTransport() override;

    /**
     * \brief Register a host. Hosts must be added in index order 0, 1, 2, ...
     * \param host host index (== number of hosts added so far; NS_FATAL_ERROR otherwise)
     * \param gpus number of GPUs of the host (> 0)
     */
    void AddHost(uint32_t host, uint32_t gpus);

    /**
     * \brief Register a NIC of a host. NICs of a host must be added in index order.
     * \param host a registered host index
     * \param nic NIC index (== number of NICs of the host so far)
     * \param rdmaNic the attached RdmaNic
     */
    void AddNic(uint32_t host, uint32_t nic, Ptr<RdmaNic> rdmaNic);

    /// \return number of registered hosts
    uint32_t GetNHosts() const;
    /// \return number of NICs of \p host \param host host index
    uint32_t GetNNics(uint32_t host) const;
    /// \return NIC \p nic of \p host \param host host index \param nic NIC index
    Ptr<RdmaNic> GetNic(uint32_t host, uint32_t nic) const;

    /**
     * \brief The NIC a GPU uses: NIC floor(g·N/G) of its host (N NICs, G GPUs).
     * \param gpu the GPU (NS_FATAL_ERROR naming the field if host or GPU do not exist)
     * \return the NIC
     */
    Ptr<RdmaNic> GpuToNic(const GpuId& gpu) const;

    void Send(const MessageRequest& req, CompletionCallback done) override;

    /**
     * \brief Name a job for the stall watchdog's message (RdmaNic::StallTimeout): "job 0 (gpt)
     * flow 3 is stuck: GPU 0.3 (host.GPU) -> GPU 6.3, ...". Applies to existing and later
     * queue pairs of the job.
     * \param jobId job id of the message requests
     * \param label the job's name (e.g. the scenario's job name)
     */
    void SetJobLabel(uint32_t jobId, const std::string& label);

    /**
     * \brief Fix the UDP source port (ECMP path) of a connection, e.g. the port a scheduler
     * chose with CruxTopology::FindUdpSourcePort(). Applies to the existing queue pair (when it
     * has nothing unacknowledged) or to the one created later.
     * \param key connection (GPUs on different hosts; NS_FATAL_ERROR otherwise)
     * \param port UDP source port (non-zero)
     */
    void SetQpSourcePort(const RdmaQpKey& key, uint16_t port);

    /**
     * \brief The UDP source port the connection uses now or will use when created.
     * \param key connection
     * \return the port (existing queue pair's, else SetQpSourcePort's, else the default)
     */
    uint16_t GetQpSourcePort(const RdmaQpKey& key) const;

    /**
     * \brief The 5-tuple of the connection's data packets (now, or once created).
     * \param key connection between GPUs of different hosts (NS_FATAL_ERROR otherwise)
     * \return (source NIC IP, destination NIC IP, 17, source port, 4791)
     */
    FiveTuple GetFiveTuple(const RdmaQpKey& key) const;

    /**
     * \brief The deterministic default UDP source port of a connection.
     * \param key connection
     * \return 49152 + (64-bit mix of the key's fields) mod 16384
     */
    static uint16_t DefaultSourcePort(const RdmaQpKey& key);

    /**
     * \brief Get or create the queue pair of a connection (creating connects the two NICs).
     * \param key connection between GPUs of different hosts (NS_FATAL_ERROR otherwise)
     * \param port UDP source port of a new connection (both directions) when no
     *        SetQpSourcePort() override exists; 0 = DefaultSourcePort(key). Send() passes the
     *        first message's udpSrcPort, so a port chosen before the run (CruxHelper, a job's
     *        udpSrcPorts) is the connection's port, as SetQpSourcePort() would make it.
     * \return the requester queue pair on the source NIC
     */
    Ptr<RdmaQueuePair> GetOrCreateQueuePair(const RdmaQpKey& key, uint16_t port = 0);

    /// \return the queue pair of \p key, or null if not created yet \param key connection
    Ptr<RdmaQueuePair> GetQueuePair(const RdmaQpKey& key) const;

    /// \return every connection created so far with its current 5-tuple, in key order
    std::vector<RdmaFlowInfo> GetFlows() const;

    /// \return counters summed over all NICs
    RdmaQpStats GetStats() const;
    /// \return intra-host (NVLink) messages carried so far
    uint64_t GetIntraHostMessages() const;

  protected:
    void DoDispose() override;

  private:
    /// \return the queue pairs' watchdog describer: MessageTransport::DescribeMessage of this
    /// transport (a raw pointer: the transport outlives its NICs' queue pairs' use of it)
    Callback<std::string, uint32_t, uint32_t> Describer();

    DataRate m_intraRate; //!< NVLink bandwidth per GPU egress
    Time m_intraLatency;  //!< NVLink latency

    std::vector<uint32_t> m_gpus;                  //!< GPUs per host
    std::vector<std::vector<Ptr<RdmaNic>>> m_nics; //!< [host][nic]
    std::vector<std::vector<Time>> m_nvlinkBusy;   //!< [host][gpu] NVLink egress busy until
    std::map<RdmaQpKey, Ptr<RdmaQueuePair>> m_qps; //!< connections
    std::map<RdmaQpKey, uint16_t> m_portOverride;  //!< SetQpSourcePort before creation
    std::map<uint32_t, std::string> m_jobLabels;   //!< SetJobLabel: job id → name
    uint64_t m_intraMessages{0};                   //!< intra-host messages
};

} // namespace ns3

#endif // CRUX_RDMA_TRANSPORT_H
