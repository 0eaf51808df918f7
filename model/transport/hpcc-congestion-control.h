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

#ifndef CRUX_HPCC_CONGESTION_CONTROL_H
#define CRUX_HPCC_CONGESTION_CONTROL_H

#include "rdma-congestion-control.h"

#include <array>

namespace ns3
{

/**
 * \ingroup crux
 * \brief HPCC sender (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM'19,
 * Algorithm 1): window and rate of a RoCEv2 queue pair from in-band network telemetry.
 *
 * Every data packet carries an InbandTelemetryHeader (UsesInt()); each switch egress port it
 * leaves pushes (line rate B, time ts, txBytes, qLen); the responder echoes the stack in its ACK,
 * and the sender asks for an ACK per packet (AckReq on every packet, AckRequestInterval = 1, as
 * the HPCC simulator ACKs every packet). On an ACK with INT, against the previous sample of the
 * same hop:
 *  - per hop i: txRate_i = ΔtxBytes / Δts; u_i = min(qLen, qLen_prev) / (B_i·T) + txRate_i / B_i;
 *  - u = max_i u_i, τ = Δts of that hop, τ ← min(τ, T); U ← (1 − τ/T)·U + (τ/T)·u;
 *  - if U ≥ η or incStage ≥ maxStage: W = Wc / (U/η) + W_AI, else W = Wc + W_AI (W_AI =
 *    RateAi × T); W is clamped to [MinRate·T, LineRate·T]; rate R = W / T; the window is W;
 *  - once per RTT (the ACK acknowledges beyond lastUpdateSeq, the snd_nxt of the last
 *    update) Wc ← W and incStage is updated (0 after a multiplicative step, + 1 after an
 *    additive one) and lastUpdateSeq ← snd_nxt; on the other ACKs W is recomputed from the
 *    same Wc (the paper's per-ACK "fast reaction", FastReact).
 * T is the fabric's base RTT (BaseRtt attribute, or the NIC's BaseRtt: RdmaTransportHelper
 * computes the largest one of the topology). Initially W = Wc = LineRate·T and U = 1 (as the
 * HPCC simulator). The hop samples of the first ACK only initialise the reference; a hop with
 * Δts = 0 contributes nothing.
 */
class HpccCongestionControl : public RdmaCongestionControl
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    HpccCongestionControl();
    ~HpccCongestionControl() override;

    void Init(DataRate lineRate, Time baseRtt) override;
    DataRate GetRate() const override;
    uint64_t GetWindowBytes() const override;
    bool UsesInt() const override;
    uint32_t GetAckRequestInterval() const override;
    void OnAck(const RdmaAckEvent& ack) override;

    /// \return the smoothed utilisation estimate U
    double GetUtilization() const;
    /// \return the reference window Wc, bytes
    double GetReferenceWindow() const;
    /// \return T, the base RTT in use
    Time GetT() const;

  private:
    // attributes
    double m_eta;           //!< η, target utilisation
    uint32_t m_maxStage;    //!< maxStage
    DataRate m_rai;         //!< W_AI / T
    DataRate m_minRate;     //!< lowest rate
    Time m_baseRttOverride; //!< T if > 0
    bool m_fastReact;       //!< per-ACK updates
    uint32_t m_ackInterval; //!< AckReq every n packets

    // state
    double m_t{0};               //!< T, seconds
    double m_w{0};               //!< W, bytes
    double m_wc{0};              //!< Wc, bytes
    double m_u{1};               //!< U
    uint32_t m_incStage{0};      //!< incStage
    uint64_t m_lastUpdateSeq{0}; //!< snd_nxt at the last per-RTT update
    bool m_haveSample{false};    //!< m_hops holds a previous sample
    uint32_t m_nHops{0};         //!< hops of the previous sample
    std::array<IntHop, InbandTelemetryHeader::MAX_HOPS> m_hops; //!< previous sample per hop
};

} // namespace ns3

#endif // CRUX_HPCC_CONGESTION_CONTROL_H
