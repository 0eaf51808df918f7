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

#ifndef CRUX_SWITCH_MMU_H
#define CRUX_SWITCH_MMU_H

#include "qbb-net-device.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Shared-buffer memory management unit of a CruxSwitch, with IEEE 802.1Qbb PFC.
 *
 * **Buffer model.** BufferSize bytes in total. When PFC is enabled, every (ingress port, lossless
 * TC) pair gets a reserved headroom (see below); the rest is the shared pool, of which ports x
 * ControlReserveBytes only control frames may take (the control-class pool, below). Frames are
 * charged by their size on the wire without preamble/IFG (L3 size + Ethernet header + FCS, as
 * passed by the switch) to their (ingress port, ingress TC) and to their (egress port, egress TC).
 *
 * **Lossless admission** (PfcEnabled and the TC is in LosslessTcMask). Xoff(port,TC) is
 * XoffStaticBytes if that is > 0, else the dynamic threshold Alpha × (free shared pool bytes)
 * (Choudhury & Hahne, "Dynamic queue length thresholds for shared-memory packet switches",
 * IEEE/ACM ToN 1998). An arrival is charged to the shared pool while the pair is not in the
 * PAUSEd state, holds less than Xoff in the shared pool and the pool has room; otherwise to the
 * pair's headroom. As soon as the pair holds headroom bytes or ≥ Xoff shared bytes, a PAUSE with
 * PauseQuanta is sent on the ingress device for that TC (QbbNetDevice::SendPause) and refreshed
 * every half pause time while the pair stays paused. It resumes (PAUSE with 0 quanta) when the
 * pair holds no headroom bytes and at most Xon = max(0, Xoff − XonOffsetBytes) shared bytes.
 * A frame that does not fit in the headroom is dropped ("pfc-headroom-exceeded"): with headroom
 * sized as below this cannot happen, which is what the lossless tests check.
 *
 * **Headroom** (unless HeadroomBytes > 0 overrides it), per IEEE 802.1Qbb-2011 Annex N (PFC delay
 * model) adapted to this simulator's store-and-forward frame-level link:
 *   headroom = 2 × F + 2 × d × R + t_resp × R + P + F + L × R
 * with F = largest frame (device MTU + 18 bytes), R = link rate (bytes/s), d = one-way
 * propagation delay, t_resp = PfcResponseTime (PAUSE generation + reaction delays of both ends),
 * P = 64-byte PAUSE frame. The two F terms of the standard are the frame our egress may be
 * sending when the PAUSE is generated and the frame the upstream may have started when the
 * PAUSE arrives; 2·d·R covers the bytes on the wire in both directions; the extra F covers
 * frame-granularity accounting (a frame is charged only once fully received, so the frame that
 * triggers the PAUSE may itself land in the headroom).
 *
 * A switch's ForwardingLatency L (CruxSwitch) adds L × R: frames still in the forwarding
 * pipeline when the PAUSE is decided are charged after it.
 *
 * The PFC headroom is reserved when the first frame is admitted (or a getter asks). If it and
 * the control-class pool do not fit in BufferSize, a CruxRunError names the switch, the numbers
 * and the attributes that decide them (Mtu, link delay, PfcResponseTime, ForwardingLatency,
 * HeadroomBytes, LosslessTcMask, ControlReserveBytes, BufferSize); the run ends with that one
 * line, not with an abort.
 *
 * **Lossy admission** (PFC disabled or TC not lossless): a frame is dropped ("buffer-full") when
 * the shared pool has no room, or when EgressAlpha > 0 and the egress (port,TC) queue would
 * exceed EgressAlpha × (free shared pool bytes).
 *
 * **Control-class pool.** The control class (QbbNetDevice::CONTROL_CLASS: ACK, NAK, CNP) is never
 * PAUSEd and has a pool of its own: every port contributes ControlReserveBytes of the shared
 * pool that data (lossless or lossy) may never take, and a control frame is charged there while
 * it has room, only then to the rest of the shared pool (lossy rule above). The dynamic
 * thresholds (Alpha, EgressAlpha) still count the control pool's unused bytes as free, as
 * before it existed: a run whose data never comes within the control pool's size of filling the
 * shared pool behaves exactly as without it. Without it, lossless data can hold the whole
 * shared pool: with N ingress pairs at the dynamic threshold the pool holds Nα/(1 + Nα) of its
 * size (99.2 % for 1,000 pairs at α = 1/8) plus one frame of overshoot per pair, and a 1,000 × 1
 * incast under HPCC lost ACKs to "buffer-full", each costing a 4.29 s retransmission timeout.
 * Real MMUs keep traffic classes apart the same way: SONiC's configuration example gives lossy
 * traffic its own pool (egress_lossy_pool) and every lossy egress queue a guaranteed minimum
 * (egress_lossy_profile "size" 1518; sonic-net/sonic-swss doc/Configuration.md); Linux's
 * Spectrum driver gives each egress TC a 1,500-byte minimum and control-plane
 * traffic separate pools (drivers/net/ethernet/mellanox/mlxsw/spectrum_buffers.c,
 * MLXSW_SP_SB_CM_EGR, MLXSW_SP1_SB_PR_CPU_SIZE); the HPCC simulator reserves 4 KB per
 * (ingress port, queue) before its shared pool (simulation/src/point-to-point/model/
 * switch-mmu.cc, "reserve"). Crux pools the per-port shares (a port may use more while others
 * use less) and sizes them by its control frames, which are at most 118 bytes on the wire:
 * 256 bytes per port holds two (assumption: the control queue, served before every data class,
 * waits at most for one data frame in transmission, during which a port forwards one or two
 * control frames). GetPeakControlPoolUsed() tells what a run needed.
 *
 * **Release.** The egress device's queues are FIFO per TC, so the MMU keeps a shadow FIFO of
 * (ingress port, ingress TC, bytes) per (egress port, egress TC) and pops one entry per dequeue
 * (cheaper than a packet tag). Bytes are released from the pair's headroom first, then from the
 * shared pool.
 *
 * **Traces.** PfcTx (every PAUSE and XON sent); the occupancies as TracedValues (old, new bytes),
 * the QueueDisc "BytesInQueue" pattern: SharedPoolUsed (GetSharedUsed()) and HeadroomUsed
 * (GetHeadroomUsed(), all pairs together), fired on every admission and release that changes
 * them.
 */
class SwitchMmu : public Object
{
  public:
    /// Result of an admission.
    enum Verdict : uint8_t
    {
        ADMIT = 0,             //!< admitted and charged
        DROP_BUFFER_FULL,      //!< lossy TC: no room in the shared pool / egress threshold
        DROP_HEADROOM_EXCEEDED //!< lossless TC: headroom of the (port,TC) pair overflowed
    };

    /**
     * Signature of the "PfcTx" trace source.
     * \param port ingress port index the PAUSE is sent on
     * \param tc traffic class
     * \param quanta pause quanta (0 = resume)
     */
    typedef void (*PfcTracedCallback)(uint32_t port, uint8_t tc, uint16_t quanta);

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    SwitchMmu();
    ~SwitchMmu() override;

    /**
     * \brief The forwarding latency of the owning switch (CruxSwitch sets it), counted in the
     * headroom. Takes effect at the next Configure (the first frame, or a getter).
     * \param latency the latency
     */
    void SetForwardingLatency(Time latency);

    /// \brief Name used in messages (CruxSwitch sets "switch <node id>").
    /// \param name the name
    void SetName(const std::string& name);

    /**
     * \brief Register a port (done by CruxSwitch::AddPort, in the same order).
     * \param dev the port's device (used to send PAUSE frames and to size the headroom from its
     *        rate, MTU and channel delay, read when the first frame is admitted)
     * \return the port index
     */
    uint32_t AddPort(Ptr<QbbNetDevice> dev);

    /// \return the number of registered ports
    uint32_t GetNPorts() const;

    /**
     * \brief Admission of one arriving frame. On ADMIT the bytes are charged, a shadow entry is
     * appended to the (outPort, outTc) FIFO, and a PAUSE may be sent on \p inPort.
     * \param inPort ingress port index
     * \param inTc ingress traffic class (PFC priority) 0..7
     * \param outPort egress port index
     * \param outTc egress traffic class 0..7
     * \param bytes frame size in bytes
     * \return the verdict
     */
    Verdict Admit(uint32_t inPort, uint8_t inTc, uint32_t outPort, uint8_t outTc, uint32_t bytes);

    /**
     * \brief Undo the most recent ADMIT on (outPort, outTc) whose frame the egress device refused
     * (its shadow entry is the last one of that FIFO).
     * \param outPort egress port index
     * \param outTc egress traffic class
     */
    void CancelLastAdmit(uint32_t outPort, uint8_t outTc);

    /**
     * \brief A frame left the (outPort, outTc) queue: release the oldest shadow entry and resume
     * its ingress pair if it fell below Xon.
     * \param outPort egress port index
     * \param outTc egress traffic class
     */
    void OnDequeue(uint32_t outPort, uint8_t outTc);

    /// \return size of the shared pool in bytes (BufferSize minus reserved headroom), the
    /// control-class pool included
    uint64_t GetSharedPoolSize() const;
    /// \return bytes currently held in the shared pool outside the control-class pool (data,
    /// and control frames beyond the control pool); data may take at most GetSharedPoolSize()
    /// - GetControlPoolSize()
    uint64_t GetSharedUsed() const;
    /// \return the largest GetSharedUsed() so far
    uint64_t GetPeakSharedUsed() const;
    /// \return size of the control-class pool in bytes (ports x ControlReserveBytes, part of
    /// the shared pool)
    uint64_t GetControlPoolSize() const;
    /// \return bytes of control frames currently held in the control-class pool
    uint64_t GetControlPoolUsed() const;
    /// \return the largest number of control-pool bytes held so far
    uint64_t GetPeakControlPoolUsed() const;
    /// \return bytes currently held in all headrooms
    uint64_t GetHeadroomUsed() const;
    /// \return the largest number of headroom bytes held at once by a single (port,TC) pair
    uint64_t GetPeakHeadroomUsed() const;
    /// \return the headroom reserved for (port, tc) in bytes (0 for lossy TCs / PFC off)
    /// \param port ingress port \param tc traffic class
    uint64_t GetHeadroomSize(uint32_t port, uint8_t tc) const;
    /// \return bytes held by ingress pair (port, tc), shared + headroom
    /// \param port ingress port \param tc traffic class
    uint64_t GetIngressBytes(uint32_t port, uint8_t tc) const;
    /// \return bytes queued on egress pair (port, tc) according to the MMU
    /// \param port egress port \param tc traffic class
    uint64_t GetEgressBytes(uint32_t port, uint8_t tc) const;
    /// \return the current Xoff threshold (bytes) of ingress pair (port, tc)
    /// \param port ingress port \param tc traffic class
    uint64_t GetXoff(uint32_t port, uint8_t tc) const;
    /// \return true while ingress pair (port, tc) keeps its upstream PAUSEd
    /// \param port ingress port \param tc traffic class
    bool IsPaused(uint32_t port, uint8_t tc) const;
    /// \return PAUSE frames with non-zero quanta sent (including refreshes)
    uint64_t GetPauseCount() const;
    /// \return PAUSE frames with zero quanta (resume) sent
    uint64_t GetResumeCount() const;
    /// \return dequeues that found no shadow entry (frames not admitted through this MMU)
    uint64_t GetUnmatchedDequeues() const;
    /// \return true if PFC is enabled
    bool IsPfcEnabled() const;

  protected:
    void DoDispose() override;

  private:
    /// Per (ingress port, TC) state.
    struct IngressState
    {
        uint64_t shared{0};   //!< bytes charged to the shared pool
        uint64_t headroom{0}; //!< bytes charged to the headroom
        uint64_t hdrmSize{0}; //!< reserved headroom (0 = lossy)
        bool paused{false};   //!< PAUSE sent and not yet resumed
        EventId refresh;      //!< pending PAUSE refresh
    };

    /// Shadow of one queued frame.
    struct ShadowEntry
    {
        uint16_t inPort;  //!< ingress port
        uint8_t inTc;     //!< ingress TC
        bool controlPool; //!< charged to the control-class pool (else shared pool / headroom)
        uint32_t bytes;   //!< charged bytes
    };

    /// Size headrooms and the shared pool (done once, when the first frame arrives).
    void Configure();
    /// \return the dynamic or static Xoff for a pair given current occupancy
    uint64_t Xoff() const;
    /// \return free bytes of the shared pool for the dynamic thresholds (the control pool's
    /// unused bytes included)
    uint64_t FreeShared() const;
    /// Send a PAUSE (non-zero quanta) on (port, tc) and schedule its refresh.
    void SendPause(uint32_t port, uint8_t tc);
    /// Refresh event handler.
    void RefreshPause(uint32_t port, uint8_t tc);
    /// Remove the pending PAUSE refresh of \p q. \param q the pair
    void StopRefresh(IngressState& q);
    /// Release \p e's bytes.
    void Release(const ShadowEntry& e, uint32_t outPort, uint8_t outTc);

    // attributes
    uint64_t m_bufferSize;           //!< BufferSize
    bool m_pfcEnabled;               //!< PfcEnabled
    uint8_t m_losslessMask;          //!< LosslessTcMask
    double m_alpha;                  //!< Alpha
    uint64_t m_xoffStatic;           //!< XoffStaticBytes
    uint64_t m_xonOffset;            //!< XonOffsetBytes
    Time m_responseTime;             //!< PfcResponseTime
    uint64_t m_headroomOverride;     //!< HeadroomBytes
    double m_egressAlpha;            //!< EgressAlpha
    uint16_t m_pauseQuanta;          //!< PauseQuanta
    uint64_t m_controlReserve;       //!< ControlReserveBytes (per port)
    Time m_forwardingLatency;        //!< owning switch's ForwardingLatency
    std::string m_name{"SwitchMmu"}; //!< name in messages

    bool m_configured{false};               //!< Configure() done
    std::vector<Ptr<QbbNetDevice>> m_ports; //!< port devices
    /// Classes accounted: the 8 traffic classes and the control class.
    static constexpr uint8_t N_CLASSES = QbbNetDevice::N_CLASSES;
    std::vector<std::array<IngressState, N_CLASSES>> m_ingress; //!< per (ingress port, class)
    std::vector<std::array<uint64_t, N_CLASSES>> m_egress;      //!< bytes per (egress port, class)
    std::vector<std::array<std::deque<ShadowEntry>, N_CLASSES>> m_shadow; //!< per (egress, class)
    std::vector<Time> m_pauseTime;                          //!< duration of one PAUSE per port
    uint64_t m_sharedSize{0};                               //!< shared pool size
    TracedValue<uint64_t> m_sharedUsed{0};                  //!< shared pool occupancy
    uint64_t m_peakSharedUsed{0};                           //!< peak shared occupancy
    uint64_t m_controlPoolSize{0};                          //!< control-class pool size
    uint64_t m_controlPoolUsed{0};                          //!< control-class pool occupancy
    uint64_t m_peakControlPoolUsed{0};                      //!< peak control-pool occupancy
    TracedValue<uint64_t> m_headroomUsed{0};                //!< headroom occupancy
    uint64_t m_peakHeadroom{0};                             //!< peak headroom of one pair
    uint64_t m_pauseCount{0};                               //!< PAUSEs sent
    uint64_t m_resumeCount{0};                              //!< resumes sent
    uint64_t m_unmatched{0};                                //!< dequeues without shadow entry
    TracedCallback<uint32_t, uint8_t, uint16_t> m_pfcTrace; //!< PfcTx
};

} // namespace ns3

#endif // CRUX_SWITCH_MMU_H
