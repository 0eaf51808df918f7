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

#ifndef CRUX_EPOCH_RATE_MODEL_H
#define CRUX_EPOCH_RATE_MODEL_H

#include "ns3/cluster-model.h"
#include "ns3/flow-evaluator.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief How the weak-link cut (ExactEpochRateModel::SetWeakLinkBound) rates a link shared by
 * jobs of one class: what it compares with the bound for each job j on the link (u: a job's
 * mean load there, bytes per iteration x 8 / its stand-alone iteration / the capacity; F the
 * flows across the link, f_j j's).
 */
enum class WeakLinkRule
{
    /// min(sum of the others' u, (F - f_j) u_j): a bound of the fraction by which the others
    /// can lengthen j's iteration there (the default).
    BOUND,
    /// min(the bound above, u_j x sum of the others' u x (F - f_j) / f_j): the expected
    /// lengthening when the jobs' transfers meet at random (j needs the link a fraction u_j of
    /// its iteration, the others are on it a fraction sum u of the time, and then j's flows get
    /// f_j / F of it); not a bound: phase-locked jobs can meet more often.
    OVERLAP,
};

/**
 * \ingroup crux
 * \brief What an EpochRateModel is asked for one epoch: the running jobs under one installed
 * decision. Every vector has one entry per job of \c model->jobs, in that order.
 */
struct EpochRateInput
{
    /// The running jobs (the scheduler's input; links = every directed link of the topology).
    const ClusterModel* model{nullptr};
    std::vector<PathChoice> choice; //!< installed path index per flow of each job
    /// Bytes per iteration per link of each job on its installed paths (JobLinkBytes()); not
    /// owned, valid for the call.
    std::vector<const LinkLoad*> load;
    /// Priority class of each job, larger = higher (only the order matters): its installed
    /// level, or one class per job from its rank (EpochEngineConfig::uniquePriorities).
    std::vector<uint32_t> priorityClass;
    std::vector<double> timeShift; //!< JobDecision::timeShift of each job, seconds
    /// Start of the epoch, seconds on the trace clock (for a model that carries state from one
    /// epoch to the next; ExactEpochRateModel does not use it).
    double time{0};
};

/**
 * \ingroup crux
 * \brief How the epoch engine (EpochEngine) turns an epoch's decision into the jobs' steady
 * iteration rates: the interchangeable evaluation of the trace runs.
 *
 * Between two events (arrival, completion) the running jobs and the decision are constant; an
 * EpochRateModel gives every running job its steady rate (iterations/s) for that epoch, and
 * every job its rate alone in the cluster on given paths (the stand-alone rates behind the work
 * of a job and the contention decomposition). ExactEpochRateModel is today's exact evaluation
 * (the fluid FlowEvaluator per connected component); a cheaper steady-state evaluation plugs in
 * as another subclass (issue 30) and can be cross-checked against it on the same engine.
 *
 * Implementations must be deterministic: the same inputs in the same order give the same rates.
 */
class EpochRateModel
{
  public:
    /// Destructor.
    virtual ~EpochRateModel();

    /**
     * \brief Steady rates of the running jobs under one decision.
     * \param in the epoch (see EpochRateInput)
     * \return iterations per second of each job of in.model->jobs, in that order (>= 0)
     */
    virtual std::vector<double> Rates(const EpochRateInput& in) = 0;

    /**
     * \brief Rate of a job alone in the cluster on given paths (class 0, no time shift).
     * \param job the job (its flows' candidate paths index into the topology's links)
     * \param choice path index per flow
     * \return iterations per second (>= 0)
     */
    virtual double AloneRate(const SchedJob& job, const PathChoice& choice) = 0;

    /// \return fluid evaluations run so far (FlowEvaluator runs: components, stand-alone jobs
    ///         with traffic, and each part of a component CoarseEpochRateModel splits)
    virtual uint64_t GetEvaluations() const = 0;
    /// \return component rates served from a cache so far (0 for a model without one; each
    ///         piece of a cut component counts as one)
    virtual uint64_t GetCacheHits() const = 0;
    /// \return wall-clock seconds spent evaluating so far (not deterministic)
    virtual double GetEvaluatorSeconds() const = 0;
    /// \return fluid simulation steps (FlowEvaluation::events) of all evaluations so far: the
    ///         evaluation's work, deterministic
    virtual uint64_t GetFluidEvents() const = 0;
};

/**
 * \ingroup crux
 * \brief The exact epoch evaluation of the trace runs (engine "epoch", doc/crux.rst
 * "Engine "epoch" and its approximation"): the pure fluid FlowEvaluator (strict priority
 * between classes, max-min inside one, one fluid transfer per flow and iteration or the job's
 * communication timeline) run per connected component of link-sharing jobs.
 *
 * Rates(): jobs are joined when their installed paths share a link with traffic; each component
 * is evaluated on a sub-model holding only the links its paths use (flows without bytes or path
 * dropped), its classes normalised to dense ranks 0..n-1 (so a component whose classes were
 * only shifted keeps its cache entry). A job without modelled traffic runs at
 * 1 / StandaloneIterationTime(job, 0), i.e. 1 / c_j. The FlowEvaluator runs with
 * FlowEvaluatorOptions (horizon = horizonIterations × the component's longest stand-alone
 * iteration, warm-up discarded, steady-state extension). Results are cached by (job ids, class,
 * time shift, chosen path per flow) in component order; the cache is emptied when it exceeds
 * 200,000 entries. The components that miss the cache are evaluated on SetThreads() threads.
 * AloneRate() is the one-job component (class 0, shift 0) through the same
 * cache (a hit there is not counted in GetCacheHits()).
 */
class ExactEpochRateModel : public EpochRateModel
{
  public:
    /**
     * \param links every directed link of the topology (SchedLink::bandwidth, bit/s); path
     *        link ids index this vector
     * \param options the FlowEvaluator's options (horizonIterations, warmupFraction,
     *        steadyHorizonLimit; horizon 0 = automatic)
     */
    ExactEpochRateModel(std::vector<SchedLink> links, const FlowEvaluatorOptions& options);

    /// \copydoc EpochRateModel::Rates
    std::vector<double> Rates(const EpochRateInput& in) override;
    /// \copydoc EpochRateModel::AloneRate
    double AloneRate(const SchedJob& job, const PathChoice& choice) override;
    /// \copydoc EpochRateModel::GetEvaluations
    uint64_t GetEvaluations() const override;
    /// \copydoc EpochRateModel::GetCacheHits
    uint64_t GetCacheHits() const override;
    /// \copydoc EpochRateModel::GetEvaluatorSeconds
    double GetEvaluatorSeconds() const override;
    /// \copydoc EpochRateModel::GetFluidEvents
    uint64_t GetFluidEvents() const override;

    /**
     * \brief Threads for the component evaluations of one Rates() call that miss the cache
     * (independent fluid simulations of disjoint sub-models, run on a pool of this many
     * threads, this one included). The rates, the cache's contents and every counter but
     * GetEvaluatorSeconds() are identical for every value: the evaluations are pure and their
     * results enter the cache in component order, as one thread would.
     * \param threads threads, >= 1 (1 = one after another, the default)
     * \throws std::invalid_argument if threads is 0
     */
    void SetThreads(uint32_t threads);

    /**
     * \brief Weak-link cut of the coarse evaluation (CoarseEpochRateModel; ignored by the exact
     * one): a component of one class and more than two jobs is evaluated in the pieces that
     * WeakCut() with this bound leaves, each with the dilation factors and the horizon of the
     * whole component; with SetWeakLinkClasses(), a component of several classes too, each
     * piece as a component of its own. 0 = no cut (the default). A new value empties the
     * cache. What is compared with the bound: SetWeakLinkRule().
     * \param bound fraction of an iteration, in [0, 1)
     * \throws std::invalid_argument for a bound outside [0, 1) or NaN
     */
    void SetWeakLinkBound(double bound);

    /**
     * \brief What the weak-link cut compares with its bound (WeakLinkRule; BOUND by default).
     * A new rule empties the cache. Like the bound, ignored by the exact evaluation and without
     * a cut (bound 0).
     * \param rule the rule
     */
    void SetWeakLinkRule(WeakLinkRule rule);

    /**
     * \brief Weak-link cut across classes: a component of several classes is cut too, each
     * job's bound then counting the mean loads of the jobs of higher classes on the link in
     * full, those of its own class as in WeakCut(), and none of lower classes (under strict
     * priority they take nothing from it). Each piece is evaluated as a component of its own
     * (its own horizon, time-scale split and coarsening; a piece is not cut across classes
     * again). Off by default; a new value empties the cache. Ignored without a cut (bound 0)
     * and by the exact evaluation.
     * \param on whether to cut components of several classes
     */
    void SetWeakLinkClasses(bool on);

    /**
     * \brief Steady rates of one set of jobs evaluated together (no cache): the FlowEvaluator on
     * the sub-model of the links their paths use (CoarseEpochRateModel: after its time-scale
     * split and coarsening).
     * \param jobs the jobs \param choice path index per flow of each job \param prio class of
     * each job (larger = higher) \param shift time shift of each job, seconds
     * \return iterations per second of each job, in the order of \p jobs
     * \throws std::invalid_argument if choice, prio or shift has not one entry per job
     */
    std::vector<double> EvaluateComponent(const std::vector<const SchedJob*>& jobs,
                                          const std::vector<PathChoice>& choice,
                                          const std::vector<int64_t>& prio,
                                          const std::vector<double>& shift);

  protected:
    /**
     * \brief The component evaluation with time-scale coarsening (CoarseEpochRateModel).
     * \param links every directed link of the topology \param options the FlowEvaluator's
     * options \param timescaleRatio K of the coarsening (> 0), or 0 = none (exact)
     * \throws std::invalid_argument if timescaleRatio is negative or not finite, or in (0, 2)
     */
    ExactEpochRateModel(std::vector<SchedLink> links,
                        const FlowEvaluatorOptions& options,
                        double timescaleRatio);

  private:
    /**
     * Sets an option of the weak-link cut; a new value empties the component cache and the cut
     * plans (what was cached under the old value, whole components, pieces and plans, is not
     * valid).
     * \param field the option \param value its new value
     */
    template <typename T>
    void SetCutOption(T& field, T value)
    {
        if (value != field)
        {
            m_cache.clear();
            m_cuts.clear();
        }
        field = value;
    }

    /// The deterministic work counters of evaluations (summed in component order) and the wall
    /// time they took.
    struct EvalCounts
    {
        uint64_t evaluations{0}; //!< FlowEvaluator runs
        uint64_t fluidEvents{0}; //!< FlowEvaluation::events
        double seconds{0};       //!< wall-clock seconds
    };

    /// What a piece of a cut component keeps of the whole component's evaluation (and what a
    /// component the cut leaves whole takes from its plan: the same factors and horizon).
    struct Kept
    {
        std::vector<double> factors; //!< dilation factor of each job (Coarsen() of the whole)
        double horizon{0};           //!< the whole component's FlowEvaluator horizon, s
    };

    /// A one-class component's weak-link cut (SetWeakLinkBound): its pieces and the dilation
    /// factors and horizon of the whole component, which every piece keeps.
    struct CutPlan
    {
        std::vector<std::vector<uint32_t>> pieces; //!< positions in the component, WeakCut()
        Kept whole;                                //!< factors per job of the component
    };

    /// EvaluateComponent() with its counts in \p counts instead of the members (safe on
    /// several threads at once). \param jobs \param choice \param prio \param shift as
    /// EvaluateComponent() \param[in,out] counts incremented \param kept the dilation factors
    /// (one per job) and horizon to use instead of Coarsen()'s and the automatic one (a piece
    /// of a cut component, or one the cut leaves whole), or nullptr \return as
    /// EvaluateComponent()
    std::vector<double> EvaluateCounted(const std::vector<const SchedJob*>& jobs,
                                        const std::vector<PathChoice>& choice,
                                        const std::vector<int64_t>& prio,
                                        const std::vector<double>& shift,
                                        EvalCounts& counts,
                                        const Kept* kept = nullptr) const;

    /**
     * The sub-model of a set of jobs: the links their chosen paths use (renumbered in order of
     * first use), their flows on path 0 (flows without bytes or path dropped, phases remapped).
     * \param jobs the jobs \param choice path index per flow of each job \return the sub-model
     */
    ClusterModel BuildSubModel(const std::vector<const SchedJob*>& jobs,
                               const std::vector<PathChoice>& choice) const;

    /**
     * The weak-link cut of a one-class component, memoised by its cache key.
     * \param key the component's cache key \param js its jobs \param ch their path choices
     * \param prio their dense classes (all equal) \return its pieces, the whole component's
     * dilation factors and its horizon
     */
    const CutPlan& PlanCut(const std::string& key,
                           const std::vector<const SchedJob*>& js,
                           const std::vector<PathChoice>& ch,
                           const std::vector<int64_t>& prio);

    /**
     * Pieces of a sub-model once its weak links are cut: a link is weak when, for every job j
     * on it, (the sum of the mean loads of the jobs of higher classes on it) + min(sum of the
     * mean loads of the others of j's class, (F - f_j) x j's mean load) <= \p bound, a bound of
     * the fraction by which the others can lengthen j's iteration there in the long run (each
     * sends at most its mean load's bits meanwhile; strict priority: a lower class takes
     * nothing; max-min fairness per flow within the class leaves each transfer of j at least
     * 1 / (F - f_j + 1) of what the class has, F the class's flows across it, f_j j's). Over a
     * horizon of a few iterations a cut job can be off by somewhat more (doc/crux.rst, "The cut
     * across classes"). Mean load: bytes per iteration x 8 / stand-alone iteration / capacity.
     * Jobs joined by a link that is not weak share a piece.
     * With WeakLinkRule::OVERLAP the smaller of that bound and u_j x (the others' mean loads)
     * x (F - f_j) / f_j is compared instead (the expected lengthening, see WeakLinkRule).
     * \param sub the sub-model \param alone every job's stand-alone iteration, seconds
     * \param prio class of each job (larger = higher priority; all equal for one class)
     * \param bound the weak-link bound (fraction of an iteration) \param rule what is compared
     * with it (the part within j's class)
     * \return the pieces: positions in sub.jobs, ascending, pieces in order of first member
     */
    static std::vector<std::vector<uint32_t>> WeakCut(const ClusterModel& sub,
                                                      const std::vector<double>& alone,
                                                      const std::vector<int64_t>& prio,
                                                      double bound,
                                                      WeakLinkRule rule);

    /**
     * Applies dilation factors (Coarsen()) to a sub-model: computation, compute span, phase
     * releases and lags, iteration-end lags, bytes and time shift of job k times factor[k].
     * \param sub the sub-model (changed) \param in its input (timeShift changed)
     * \param factor one factor per job of sub.jobs (1 = unchanged)
     */
    static void Dilate(ClusterModel& sub, EvaluationInput& in, const std::vector<double>& factor);

    /**
     * Time-scale coarsening of a component's sub-model (see CoarseEpochRateModel): the factors
     * by which Dilate() dilates jobs whose stand-alone iteration is at most longest / (2K), and
     * their time shifts, powers of two (>= 2): one factor per group of such jobs on common
     * links within a factor 2 of each other, the largest that keeps the group's slowest at most
     * longest / K and every member at most half as long as each slower job outside the group
     * on its links (a group held at factor 1 is not dilated). All factors are 1 with K = 0,
     * fewer than two jobs or more than one class (in.priority).
     * \param sub the component's sub-model
     * \param in its evaluation input (paths: the chosen path per flow; priority)
     * \param alone every job's stand-alone iteration on \p sub's capacities, seconds, order of
     *        sub.jobs (before the dilation)
     * \param longestCap upper bound of "longest", seconds (0 = none; EvaluateSubModel() sets it
     *        for a slow part whose reduced capacities stretch its iterations)
     * \return the dilation factor of each job (1 = unchanged), order of sub.jobs
     */
    std::vector<double> Coarsen(const ClusterModel& sub,
                                const EvaluationInput& in,
                                const std::vector<double>& alone,
                                double longestCap) const;

    /**
     * The rates of a component's sub-model: split by time scale when SplitByTimescale() finds
     * a boundary (the fast part evaluated alone, the slow part on the capacity the fast part's
     * mean load leaves, each through this function again), else Coarsen(), Dilate() and one
     * FlowEvaluator run. On reduced capacities the horizon and the coarsening's longest iteration
     * are capped at twice their values on \p nominal (a job slower than that gets rate 0, as a
     * starved job of the exact run). With \p kept (a piece of a cut component, or one it leaves
     * whole) neither the split nor the cap applies: the piece is dilated by kept->factors and
     * evaluated over kept->horizon.
     * \param sub the sub-model (path 0 of every flow; jobs may be changed) \param in its input
     * \param nominal the sub-model's links at their full capacities (same order as sub.links)
     * \param[in,out] counts the FlowEvaluator runs and fluid events, incremented
     * \param kept the whole component's factors (one per job of sub.jobs) and horizon, or
     * nullptr
     * \return iterations per second of each job of sub.jobs
     */
    std::vector<double> EvaluateSubModel(ClusterModel& sub,
                                         EvaluationInput& in,
                                         const std::vector<SchedLink>& nominal,
                                         EvalCounts& counts,
                                         const Kept* kept) const;

    /**
     * Time-scale separation across classes (see CoarseEpochRateModel): finds the slowest
     * boundary in the jobs' stand-alone iteration times (sorted) where the next slower job is at
     * least K times slower and a fast part with traffic is left once every faster job that a
     * slow job of its class or above shares a link with has joined the slow part (repeated).
     * Never with K = 0, fewer than two jobs or one class.
     * \param sub the sub-model \param in its input (priority: larger = higher)
     * \param alone every job's stand-alone iteration on \p sub's capacities, seconds
     * \param[out] fast positions of the fast jobs (with the jobs without traffic), ascending
     * \param[out] slow positions of the slow jobs, ascending
     * \return whether a boundary was found
     */
    bool SplitByTimescale(const ClusterModel& sub,
                          const EvaluationInput& in,
                          const std::vector<double>& alone,
                          std::vector<uint32_t>& fast,
                          std::vector<uint32_t>& slow) const;

    /// Append one job's part of a component's cache key: its id, priority class, time shift
    /// (hexadecimal, exact) and path choice.
    /// \param key the key \param id job id \param prio class \param shift time shift, s
    /// \param choice path index per flow
    static void AppendCacheKey(std::string& key,
                               uint32_t id,
                               int64_t prio,
                               double shift,
                               const PathChoice& choice);

    /// EvaluateComponent() through the cache. \param key the component's key (AppendCacheKey
    /// per job) \param js jobs \param ch choices \param prio classes \param shift time shifts
    /// \param countHit count a hit in GetCacheHits() \return the jobs' rates, order of \p js
    std::vector<double> CachedEvaluate(const std::string& key,
                                       const std::vector<const SchedJob*>& js,
                                       const std::vector<PathChoice>& ch,
                                       const std::vector<int64_t>& prio,
                                       const std::vector<double>& shift,
                                       bool countHit);

    std::vector<SchedLink> m_links;                               //!< topology links
    FlowEvaluatorOptions m_options;                               //!< evaluator options
    std::unordered_map<std::string, std::vector<double>> m_cache; //!< component rates
    uint64_t m_evaluations{0};                                    //!< FlowEvaluator runs
    uint64_t m_cacheHits{0};                                      //!< counted cache hits
    double m_evaluatorSeconds{0};                                 //!< wall time evaluating
    uint64_t m_fluidEvents{0};                                    //!< FlowEvaluation::events
    double m_timescaleRatio{0}; //!< K of the time-scale coarsening, 0 = exact
    uint32_t m_threads{1};      //!< threads of one Rates() call's cache misses (SetThreads)
    double m_weakLinkBound{0};  //!< the weak-link cut's bound, 0 = no cut (SetWeakLinkBound)
    WeakLinkRule m_weakLinkRule{WeakLinkRule::BOUND}; //!< what it bounds (SetWeakLinkRule)
    bool m_weakLinkClasses{false}; //!< cut components of several classes (SetWeakLinkClasses)
    std::unordered_map<std::string, CutPlan> m_cuts; //!< cut plans by component key
};

/**
 * \ingroup crux
 * \brief The default evaluation of the trace runs (issue 30): ExactEpochRateModel's component
 * evaluation with **time-scale coarsening**, so that one evaluation's work no longer grows with
 * the ratio between the component's longest and shortest iteration times.
 *
 * Why. The exact evaluation simulates a component for horizonIterations × its longest
 * stand-alone iteration T; a job of iteration t runs T/t × horizonIterations iterations in that
 * time, each with its phase starts and transfer ends as fluid events that refill the water
 * filling of the whole component. Measured on two days of the generated trace at twice its
 * arrival rate (Clos, random placement, ECMP): components of 7-17 jobs mixing 15 ms and 8 s
 * iterations, a ratio near 2,000, and up to 1.2 million fluid events per evaluation.
 *
 * What. Inside the evaluation of a component whose jobs all share one priority class (max-min
 * sharing only), a job whose stand-alone iteration t_k (on its installed paths,
 * StandaloneIterationTime) is at most T / (2K) is replaced by its **time-dilated copy** with
 * a factor m_k, a power of two >= 2 (below); computation, compute span, phase releases and
 * lags, iteration-end lags, bytes per flow and phase and its time shift all multiplied by m_k
 * (overlapStart is a fraction and stays). One dilated iteration stands for m_k iterations:
 * alone it takes exactly m_k t_k (every duration of the fluid model scales with the bytes), and
 * it puts the same bytes per second on every link, in bursts m_k times longer and m_k times
 * rarer. The job's rate is m_k × the dilated copy's rate.
 *
 * The factors. Dilatable jobs that share a link and are within a factor 2 of each other
 * (DILATION_GROUP_RATIO) form groups, joined transitively; every member of a group gets the
 * group's factor, so their periods keep their exact ratios. Groups are taken slowest first; a
 * group's factor is the largest power of two m with m × (its slowest member's iteration) <=
 * T/K and m t_k <= P_j / 2 (DILATION_SEPARATION) for every member k and every slower job j on
 * one of k's links outside the group (P_j: j's period, dilated if its group was decided, else
 * its stand-alone iteration); a group held to m = 1 is not dilated. With no slower neighbour
 * in the way a lone job's factor is 2^floor(log2(T / (K t_k))), the power of two that brings
 * its iteration into (T/(2K), T/K]. Why each part (doc/crux.rst, "Dilation by powers of two"
 * and "Groups and separation", have the trace runs):
 * - powers of two, not floor(T / (K t_k)), the factor at first: that one gave every dilated job
 *   nearly the same period T/K, froze their relative phases at the start's and put a job's rate
 *   up to 9 % off (test crux-coarse-evaluator, "keep drifting");
 * - groups: a power of two per job maps the ratio of any two dilated periods into (1/2, 2) and
 *   so can reverse two jobs within a factor 2 of each other (17.8 and 21.7 ms became 2.28 and
 *   1.39 s in a trace component);
 * - separation: dilated on its own, a fast job can reach the period of a slower neighbour that
 *   is not dilated (a 22 ms job beside a 1.27 s one would become 1.44 s) and lock into its gaps,
 *   where in the exact run its bursts meet the neighbour's transfers all along (test
 *   crux-coarse-evaluator, "slower neighbour's time scale").
 * A dilated job runs at most 2K × horizonIterations × (its group's slowest / t_k) iterations in
 * the horizon when no slower neighbour holds its group, so the fluid events of one evaluation
 * are then bounded by
 * Σ_k (2K × horizonIterations × g_k × steadyHorizonLimit + 2) × (transfers + phases of job k +
 * 2), g_k that ratio, whatever T/t is. A slower job of period P on k's links leaves k's
 * dilated iteration longer than P / 4 (fewer than 4 × horizonIterations × T / P iterations),
 * or k undilated when P < 4 t_k: the events then grow with T / P. Jobs within a factor 2K of
 * the longest, every job of a component of more than one class and a component of one job
 * (AloneRate) are simulated as they are: stand-alone rates are exact, and a component of
 * several classes that the split below leaves whole costs what the exact evaluation costs.
 *
 * What it approximates. A fast job's transfers meet the other jobs' traffic in coarser bursts:
 * its mean load on every link is kept, the fine interleaving with other fast jobs is not. Under
 * max-min sharing a burst only halves the others' rates for longer stretches; under strict
 * priority it preempts them (or waits) for whole stretches their computation cannot hide, and a
 * lower class lives on a residual capacity whose fine time structure the dilation changes even
 * when the dilated job only meets its own class: with coarsening in every component, per-job
 * JCTs moved by up to 2x on the Clos with 25 Gbit/s uplinks (crux-pa, varys).
 *
 * Time-scale separation across classes. A component of several classes is first split when
 * its fast jobs sit above its slow ones: sorted by stand-alone iteration time, at the slowest
 * boundary where the next job is at least K times slower (not the dilation's 2K; doc/crux.rst,
 * "Evaluator of the trace runs", has the measurement), the slow part is the jobs beyond it plus
 * every faster job that a job of the slow part at its class or above shares a link with
 * (repeated until none is left); the fast part is the rest, and is kept only if it has a job
 * with traffic. Under strict priority nothing of the slow part can move the fast part: it is
 * evaluated alone, over its own horizon (horizonIterations × its own longest iteration), as any
 * component: exactly if it mixes classes (up to the measurement window), coarsened if it is of
 * one class. The slow part is evaluated on the links less the fast part's mean load (bytes per
 * iteration × 8 × its undilated rate, each link once per flow; at least 1e-6 of the capacity,
 * an assumption: the fluid model cannot run on a full link), with its horizon and its
 * coarsening's longest iteration capped at twice their values on the full capacities (an
 * assumption bounding the cost; a job slower than that gets rate 0, as the exact run starves
 * it). Each part goes through the same rules again. Measured by the sub-models of the Lingjun runs
 * under Crux: the slow jobs of seconds are in the lowest class, the fast ones of 0.10-0.15 s above
 * them.
 *
 * What the split approximates. The slow part sees the fast part's traffic as its mean: a slow
 * transfer that crosses two links with bursts of different fast jobs meets the union of their
 * bursts in the exact run (the test crux-coarse-evaluator: 0.7 % on S's rate), and a fast job
 * in the slow part (moved there by a slow job of its class or above) sees the fast part's mean
 * load, not its bursts, on its own time scale (1.1 % on F2's rate in that test).
 *
 * Weak-link cut (SetWeakLinkBound(); 0 = none, the trace runs' default 0.01). Rates() evaluates a
 * component of one class and more than two jobs (with SetWeakLinkClasses(), also one of
 * several classes: then each piece as a component of its own) in pieces when only weak links
 * join them
 * (WeakCut(): each job's mean load on a link, bytes per iteration × 8 over its stand-alone
 * iteration and the capacity, bounds the fraction by which it can lengthen another's iteration
 * there; a link where min(the others' sum, (F - f_j) × job j's own; F the flows across it, f_j
 * j's) is within the bound for every job j does not join them). Each piece keeps the dilation
 * factors and the horizon of the whole component, so that only the weak links' traffic is left out:
 * with each piece's own, the pieces' shorter horizons and other factors moved the trace results by
 * more than the weak links did (doc/crux.rst, "Weak-link cut"). Pieces are cached under their jobs,
 * factors and horizon. A component the cut leaves whole is evaluated with its plan's factors and
 * horizon, which are those Coarsen() and the automatic horizon give it (not computed twice).
 * SetWeakLinkRule(WeakLinkRule::OVERLAP) compares the expected lengthening instead of the bound
 * (cuts more; doc/crux.rst, "The overlap rule"). The error against the exact evaluation is
 * measured on the trace runs by scripts/compare-evaluators.sh (doc/crux.rst, "Evaluator of the
 * trace runs").
 */
class CoarseEpochRateModel : public ExactEpochRateModel
{
  public:
    /**
     * \param links every directed link of the topology \param options the FlowEvaluator's
     * options \param timescaleRatio K (>= 2): jobs at most T / (2K) are dilated
     * \throws std::invalid_argument if timescaleRatio < 2 or not finite
     */
    CoarseEpochRateModel(std::vector<SchedLink> links,
                         const FlowEvaluatorOptions& options,
                         double timescaleRatio);
};

} // namespace ns3

#endif // CRUX_EPOCH_RATE_MODEL_H
