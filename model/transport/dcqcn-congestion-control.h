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

#ifndef CRUX_DCQCN_CONGESTION_CONTROL_H
#define CRUX_DCQCN_CONGESTION_CONTROL_H

#include "rdma-congestion-control.h"

#include "ns3/event-id.h"
#include "ns3/traced-callback.h"

#include <string>

namespace ns3
{

/**
 * \ingroup crux
 * \brief DCQCN reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM'15, §5): the sender-side rate control of a RoCEv2 queue pair.
 *
 * Variant: **the paper's algorithm** (timer and byte counter, F fast-recovery steps, additive
 * and hyper increase with i·R_HAI), with its parameters where the paper gives them; the
 * authors' simulator (bobzhuyb/ns3-rdma, qbb-net-device.cc) for what the paper leaves open.
 * Not the "Mellanox" variant of the HPCC simulator (timer only, F = 1, 1 µs α period, 4 µs
 * decrease check) nor the ConnectX firmware defaults (doc/crux.rst, "Congestion control", has
 * the three side by side and the sources).
 *
 * State: current rate Rc, target rate Rt, α, timer events T and byte-counter events BC since
 * the last CNP. Rc starts at line rate, α at InitialAlpha.
 *  - **CNP** (OnCnp): Rt ← Rc if ClampTargetRate, or on the first CNP, or if an increase
 *    event (timer or byte counter) happened since the previous CNP (the default, as NVIDIA
 *    NICs: clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1; the paper clamps always); then
 *    Rc ← max(MinRate, Rc·(1 − α/2)); α ← (1 − g)·α + g; T, BC and the byte count are reset
 *    and the increase timer restarts. (The authors' code raises α before the cut; the paper's
 *    pseudo-code cuts with the old α, as here.)
 *  - **α decay**: every AlphaUpdatePeriod K after the last CNP without a new one,
 *    α ← (1 − g)·α (applied lazily when α is next used: no event).
 *  - **Increase events**: the timer (period T after the last CNP or timer event) and the byte
 *    counter (every ByteCounter bytes sent) each count one event; then, with F =
 *    FastRecoverySteps: if max(T, BC) < F, fast recovery Rc ← (Rt + Rc)/2; if min(T, BC) ≥ F,
 *    hyper increase Rt ← Rt + i·RateHai with i = min(T, BC) − F + 1, then Rc ← (Rt + Rc)/2;
 *    otherwise additive increase Rt ← Rt + RateAi, then Rc ← (Rt + Rc)/2. Rt and Rc are capped
 *    at line rate. When Rt is at line rate and Rc is within RateAi of it, Rc snaps to line rate
 *    and the increase process stops (no timer runs at line rate).
 *  - **Idle queue pairs**: while the queue pair has nothing in flight (OnIdle to OnActive) the
 *    timer is not scheduled; the expiries that fell due meanwhile are applied, in order, when it
 *    next becomes active or receives a CNP (no byte-counter events can happen while idle, so
 *    the rates are exactly those a running timer would have given). A run therefore ends when
 *    its traffic ends, not when the last recovering queue pair has climbed back to line rate;
 *    the "Rate" trace of those expiries fires at catch-up time.
 *
 * The notification point (CNP generation at the receiver, at most one per CnpInterval per queue
 * pair) is RdmaNic's (attributes CnpEnabled, CnpInterval); the congestion point (RED-style ECN
 * marking) is QbbNetDevice's (EcnKminBytes, EcnKmaxBytes, EcnPmax).
 */
class DcqcnCongestionControl : public RdmaCongestionControl
{
  public:
    /**
     * \brief Signature of the "Rate" trace: the rates after a CNP or an increase event.
     * \param rc current rate Rc \param rt target rate Rt
     * \param event "cnp", "fast-recovery", "additive", "hyper" or "line-rate" (the increase that
     *        brought Rc back to line rate and ended the increase process)
     */
    typedef void (*RateTracedCallback)(DataRate rc, DataRate rt, const std::string& event);

    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    DcqcnCongestionControl();
    ~DcqcnCongestionControl() override;

    void Init(DataRate lineRate, Time baseRtt) override;
    DataRate GetRate() const override;
    void OnDataSent(uint32_t frameBytes) override;
    void OnCnp() override;
    void OnIdle() override;
    void OnActive() override;

    /// \return the target rate Rt (bit/s)
    DataRate GetTargetRate() const;
    /// \return α now (the lazy decays applied)
    double GetAlpha() const;
    /// \return CNPs received so far
    uint64_t GetCnpCount() const;
    /// \return true while the rate increase process runs (below line rate)
    bool IsRecovering() const;
    /// \return timer events (T) since the last CNP, the expiries still due while idle excluded
    uint32_t GetTimerEvents() const;
    /// \return byte-counter events (BC) since the last CNP
    uint32_t GetByteEvents() const;

  protected:
    void DoDispose() override;

  private:
    /// One increase event (timer or byte counter): fast recovery, additive or hyper increase.
    void Increase();
    /// The increase timer expired.
    void TimerExpired();
    /// The next timer expiry is due at \p due: schedule it, or only remember it while idle.
    /// \param due simulation time of the expiry
    void ArmTimer(Time due);
    /// No timer expiry is due any more (a CNP restarts it, or the rate is back at line rate).
    void StopTimer();
    /// Apply the timer expiries that fell due up to now while the queue pair was idle.
    void CatchUp();
    /// Apply the α decays due up to now.
    void DecayAlpha() const;

    // attributes
    double m_g;             //!< α gain g
    double m_initialAlpha;  //!< α before the first CNP
    Time m_alphaPeriod;     //!< K
    Time m_timerPeriod;     //!< T
    uint64_t m_byteCounter; //!< B, bytes
    uint32_t m_fastSteps;   //!< F
    DataRate m_rai;         //!< R_AI
    DataRate m_rhai;        //!< R_HAI
    DataRate m_minRate;     //!< lowest rate
    bool m_clampAlways;     //!< Rt <- Rc on every CNP

    // state
    double m_rc{0};            //!< current rate, bit/s
    double m_rt{0};            //!< target rate, bit/s
    mutable double m_alpha{1}; //!< α (decays applied up to m_alphaRef)
    mutable Time m_alphaRef;   //!< time of the last α update (CNP or decay)
    uint32_t m_timerEvents{0}; //!< T: timer events since the last CNP
    uint32_t m_byteEvents{0};  //!< BC: byte-counter events since the last CNP
    uint64_t m_bytes{0};       //!< bytes sent since the last byte-counter event
    bool m_recovering{false};  //!< increase process running
    EventId m_timer;           //!< increase timer (not scheduled while idle)
    Time m_timerDue;           //!< when the next timer expiry is due (if m_timerArmed)
    bool m_timerArmed{false};  //!< a timer expiry is due at m_timerDue
    bool m_idle{true};         //!< the queue pair has nothing in flight (OnIdle/OnActive)
    uint64_t m_cnps{0};        //!< CNPs received
    TracedCallback<DataRate, DataRate, const std::string&> m_rateTrace; //!< "Rate"
};

} // namespace ns3

#endif // CRUX_DCQCN_CONGESTION_CONTROL_H
