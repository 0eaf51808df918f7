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

#ifndef CRUX_GPU_INTENSITY_TRACKER_H
#define CRUX_GPU_INTENSITY_TRACKER_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief GPU intensity and GPU utilization accounting (Crux §3, Definitions 1–2, Theorem 1).
 *
 * Per job j: W_j (FLOPs per iteration), t_j (seconds of traffic per iteration on the job's most
 * loaded link) and I_j = W_j / t_j (FLOP/s).
 *  - t_j analytic: from the job's per-link bytes per iteration M_{j,e} and the link bandwidths
 *    B_e (bit/s): t_j = max_e M_{j,e} × 8 / B_e (SetAnalyticLinkLoad).
 *  - t_j measured: bytes recorded per (job, link) with RecordLinkBytes while the job runs alone
 *    at top priority (Crux §5 profiling), divided by the iterations it completed meanwhile
 *    (MarkProfileStart, FinalizeProfile). The measured value wins once available.
 *
 * Cluster GPU utilization over [t0, t1] (Definition 1, normalised):
 *   U = FLOPs computed in [t0, t1] / (TotalGpus × PeakFlops × (t1 − t0)).
 * FLOPs are pro-rated by compute span: iteration i of job j (reported by the
 * DltJobApplication "IterationComplete" trace, sink NotifyIterationComplete) computes its W_j
 * FLOPs uniformly over [start_i, start_i + c_j] (c_j = the job's compute time, clamped to the
 * iteration's end; c_j = 0 means the whole iteration span), and a window gets the overlapping
 * share. So a window ending in the middle of a compute phase counts the part already computed,
 * and communication tails are not counted as computation.
 * Busy-time utilization = GPU-seconds inside compute spans / (TotalGpus × (t1 − t0)).
 *
 * Theorem 1 (one bottleneck link e): F_T = ∫_T f(t) dt with f(t) = I_j of the job whose data
 * e is sending at t. GetLinkIntensityIntegral computes F_T = Σ_j I_j × (bits of j sent on e in
 * T) / B_e, in FLOPs, comparable with GetFlopsInWindow (U_T in FLOPs).
 *
 * Link bytes are kept per (job, link) as a running total and as a time series in bins of
 * attribute BinWidth (windows are pro-rated within a bin, exact on bin boundaries).
 *
 * Fluid input (NotifyIterationRate; the trace runs' epoch engine): a job completes iterations
 * at a rate r that holds from the call's time until the job's next call. Over a window it
 * computes W_j × r × overlap FLOPs and is busy c_j × r × gpus × overlap GPU-seconds (c_j × r is
 * the fraction of time its GPUs compute; c_j = 0 counts no busy time). The window and series
 * getters add these to the iterations reported by NotifyIterationComplete, so one job may be
 * reported either way (or both, for different times). GetCurrentBusyUtilization is the busy
 * fraction of the rates in force, the row value of the trace runs' utilization.csv.
 *
 * Trace source "Utilization" (Time t, double u): fired by every NotifyIterationComplete (not by
 * the fluid input, whose utilization changes continuously), with t = the iteration's end and
 * u = GetUtilization(0, t), the cluster FLOP utilization from time 0 to t over the iterations
 * reported so far (dimensionless, 0..1). An iteration still running at t is not reported yet and
 * does not count. Computed only while a sink is connected (one pass over the reported
 * iterations per report).
 */
class GpuIntensityTracker : public Object
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    GpuIntensityTracker();
    ~GpuIntensityTracker() override;

    /**
     * \brief Register a job (before its first iteration or link record).
     * \param jobId job id
     * \param flopsPerIteration W_j, FLOPs the whole job computes per iteration (>= 0)
     * \param numGpus GPUs of the job (>= 1)
     * \param computeTime c_j, compute seconds per iteration (>= 0; 0 = pro-rate over the
     *        whole iteration span)
     * \throws std::invalid_argument on a duplicate id or an invalid value
     */
    void RegisterJob(uint32_t jobId,
                     double flopsPerIteration,
                     uint32_t numGpus,
                     double computeTime);

    /// \return true if the job is registered
    bool HasJob(uint32_t jobId) const;

    /**
     * \brief Set a link's capacity.
     * \param linkId link id (the lead's numbering, e.g. ClusterModel link index)
     * \param bitPerSecond bandwidth B_e in bit/s (> 0)
     * \throws std::invalid_argument if bitPerSecond <= 0
     */
    void SetLinkBandwidth(uint32_t linkId, double bitPerSecond);

    /**
     * \param linkId link id
     * \return B_e in bit/s
     * \throws std::out_of_range if the link has no bandwidth set
     */
    double GetLinkBandwidth(uint32_t linkId) const;

    /**
     * \brief t = max_e bytes_e × 8 / B_e: BusiestLinkTime (ns3/gpu-intensity.h), the one
     * definition of t_j.
     * \param bytesPerIteration link id → bytes per iteration (M_{j,e})
     * \param bandwidth link id → bit/s, must cover every link of bytesPerIteration
     * \return seconds per iteration (0 for an empty map)
     * \throws std::invalid_argument if a link has no or a non-positive bandwidth
     */
    static double CommTime(const std::map<uint32_t, double>& bytesPerIteration,
                           const std::map<uint32_t, double>& bandwidth);

    /**
     * \brief Give a job's analytic per-link load; t_j analytic uses SetLinkBandwidth's values.
     * \param jobId registered job
     * \param bytesPerIteration link id → bytes per iteration
     * \throws std::invalid_argument for an unknown job or a link without bandwidth
     */
    void SetAnalyticLinkLoad(uint32_t jobId, const std::map<uint32_t, double>& bytesPerIteration);

    /**
     * \brief Account bytes of a job sent on a link (call once per packet/message hop).
     * \param jobId registered job
     * \param linkId link id
     * \param bytes bytes sent
     * \param time simulation time of the transmission (bins the bytes)
     *
     * Unknown jobs are a fatal error (wiring bug).
     */
    void RecordLinkBytes(uint32_t jobId, uint32_t linkId, uint64_t bytes, Time time);

    /// \brief Start a profile of the job now: FinalizeProfile counts bytes recorded from here.
    /// \param jobId registered job \throws std::invalid_argument for an unknown job
    void MarkProfileStart(uint32_t jobId);

    /**
     * \brief Measured t_j = max_e (bytes recorded on e since MarkProfileStart, or since the
     * beginning) / iterations × 8 / B_e.
     * \param jobId registered job
     * \param iterations iterations the job completed during the profile (>= 1)
     * \return the measured t_j, seconds (also stored; it then overrides the analytic value)
     * \throws std::invalid_argument for an unknown job, 0 iterations or a link without bandwidth
     */
    double FinalizeProfile(uint32_t jobId, uint32_t iterations);

    /// \return analytic t_j, seconds (-1 if not given) \throws std::invalid_argument unknown job
    double GetAnalyticCommTime(uint32_t jobId) const;
    /// \return measured t_j, seconds (-1 if not finalized) \throws std::invalid_argument unknown
    double GetMeasuredCommTime(uint32_t jobId) const;
    /**
     * \return t_j in seconds: measured if finalized, else analytic
     * \throws std::invalid_argument for an unknown job or if neither is known
     */
    double GetCommTime(uint32_t jobId) const;
    /**
     * \return I_j = GpuIntensity(W_j, t_j) in FLOP/s (ns3/gpu-intensity.h: 0 if W_j = 0, else
     *         +infinity if t_j = 0, a job without traffic on a modelled link)
     * \throws std::invalid_argument as GetCommTime
     */
    double GetIntensity(uint32_t jobId) const;
    /// \return W_j in FLOPs per iteration \throws std::invalid_argument for an unknown job
    double GetFlopsPerIteration(uint32_t jobId) const;

    /**
     * \brief Trace sink for DltJobApplication "IterationComplete"; same signature.
     * \param jobId registered job (else fatal error)
     * \param iteration iteration index
     * \param start iteration start
     * \param end iteration end
     * \param flops FLOPs computed in the iteration
     */
    void NotifyIterationComplete(uint32_t jobId,
                                 uint32_t iteration,
                                 Time start,
                                 Time end,
                                 double flops);

    /// \return iterations reported for a job
    uint32_t GetIterationCount(uint32_t jobId) const;

    /**
     * \brief Fluid input: from time t on, the job completes iterations at a constant rate
     * (until its next call). A call at the time of the job's last call replaces that rate (a
     * provisional rate filled in later); a call with the rate in force records nothing.
     * \param jobId registered job
     * \param t start of the rate (not before the job's last call)
     * \param iterationsPerSecond rate r (>= 0, finite), iterations per second
     * \throws std::invalid_argument for an unknown job, a bad rate or a time before the job's
     *         last call
     */
    void NotifyIterationRate(uint32_t jobId, Time t, double iterationsPerSecond);

    /**
     * \return Σ_j gpus_j × c_j × r_j / GetTotalGpus() over the rates in force (the fluid
     *         input's busy fraction now), dimensionless; 0 without GPUs
     */
    double GetCurrentBusyUtilization() const;

    /**
     * TracedCallback signature of "Utilization".
     * \param time end of the iteration just reported (the end of the window)
     * \param utilization GetUtilization(0, time), dimensionless (0..1)
     */
    typedef void (*UtilizationTracedCallback)(Time time, double utilization);

    /**
     * \param t0 window start \param t1 window end (> t0)
     * \return FLOPs computed by all jobs in [t0, t1] (pro-rated by compute span), FLOPs
     */
    double GetFlopsInWindow(Time t0, Time t1) const;
    /// \return FLOPs computed by one job in [t0, t1] (pro-rated), FLOPs
    double GetJobFlopsInWindow(uint32_t jobId, Time t0, Time t1) const;
    /// \return GPU-seconds spent computing in [t0, t1] by all jobs, GPU·s
    double GetBusyGpuSeconds(Time t0, Time t1) const;

    /// \return TotalGpus attribute, or the sum of registered jobs' GPUs if it is 0
    uint32_t GetTotalGpus() const;

    /**
     * \return cluster GPU utilization in [t0, t1] = FLOPs / (GPUs × PeakFlops × (t1 − t0)),
     *         dimensionless (0..1); 0 if t1 <= t0 or no GPUs
     */
    double GetUtilization(Time t0, Time t1) const;
    /// \return busy-time utilization in [t0, t1] = GPU-seconds computing / (GPUs × (t1 − t0))
    double GetBusyUtilization(Time t0, Time t1) const;

    /**
     * \param binWidth bin width (> 0)
     * \param t0 series start
     * \param t1 series end; the last bin may be shorter
     * \return FLOP utilization per bin, ceil((t1 − t0) / binWidth) values
     */
    std::vector<double> GetUtilizationSeries(Time binWidth, Time t0, Time t1) const;
    /// \return busy-time utilization per bin (same shape as GetUtilizationSeries)
    std::vector<double> GetBusyUtilizationSeries(Time binWidth, Time t0, Time t1) const;

    /// \return total bytes recorded for (job, link)
    uint64_t GetLinkBytes(uint32_t jobId, uint32_t linkId) const;
    /// \return link id → job id → total bytes recorded
    std::map<uint32_t, std::map<uint32_t, uint64_t>> GetLinkBytesByJob() const;
    /// \return bytes of (job, link) in [t0, t1] (pro-rated inside bins)
    double GetLinkBytesInWindow(uint32_t jobId, uint32_t linkId, Time t0, Time t1) const;

    /**
     * \brief F_T on a link (Theorem 1): Σ_j I_j × bits_j(e, [t0, t1]) / B_e.
     * \param linkId link with a bandwidth
     * \param t0 window start \param t1 window end
     * \return FLOPs; jobs with infinite intensity (t_j = 0) cannot send and are skipped
     * \throws std::invalid_argument if the link has no bandwidth or a sending job has no t_j
     */
    double GetLinkIntensityIntegral(uint32_t linkId, Time t0, Time t1) const;

  private:
    /// One completed iteration.
    struct IterationRecord
    {
        double start;      //!< s
        double computeEnd; //!< end of the compute span, s
        double end;        //!< s
        double flops;      //!< FLOPs
    };

    /// One rate of the fluid input: r iterations per second from start until the next one.
    struct RateSegment
    {
        double start; //!< s
        double rate;  //!< iterations per second
    };

    /// Per-job state.
    struct JobState
    {
        double flops{0};                         //!< W_j, FLOPs per iteration
        uint32_t gpus{1};                        //!< GPUs
        double computeTime{0};                   //!< c_j, s
        double analyticT{-1};                    //!< analytic t_j, s (-1 unknown)
        double measuredT{-1};                    //!< measured t_j, s (-1 unknown)
        std::vector<IterationRecord> iterations; //!< completed iterations
        std::vector<RateSegment> rates;          //!< fluid input, in time order
        double lastRateCall{
            -std::numeric_limits<double>::infinity()}; //!< s, last NotifyIterationRate
        std::map<uint32_t, uint64_t> profileStart;     //!< link → bytes at MarkProfileStart
    };

    /// Per-(job, link) byte counters.
    struct LinkCounter
    {
        uint32_t jobId{0};        //!< job
        uint32_t linkId{0};       //!< link
        uint64_t total{0};        //!< bytes
        std::vector<double> bins; //!< bytes per BinWidth bin from t = 0
    };

    /// \return the job's state \throws std::invalid_argument if unknown
    const JobState& Job(uint32_t jobId) const;
    /// \return the job's state \throws std::invalid_argument if unknown
    JobState& Job(uint32_t jobId);

    double m_peakFlops;                                //!< peak FLOP/s per GPU
    uint32_t m_totalGpus;                              //!< cluster GPUs (0 = sum of jobs)
    Time m_binWidth;                                   //!< link byte series bin width
    std::map<uint32_t, JobState> m_jobs;               //!< job id → state
    std::set<uint32_t> m_ratedJobs;                    //!< jobs whose fluid rate is > 0
    std::map<uint32_t, double> m_bandwidth;            //!< link id → bit/s
    std::unordered_map<uint64_t, LinkCounter> m_links; //!< (job << 32 | link) → counters
    TracedCallback<Time, double> m_utilizationTrace;   //!< "Utilization"
};

} // namespace ns3

#endif // CRUX_GPU_INTENSITY_TRACKER_H
