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

#ifndef CRUX_WATER_FILLING_H
#define CRUX_WATER_FILLING_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief Max-min fair rates of fluid flows on capacitated links with strict priority between
 * classes (progressive filling, "water filling"), for a fixed set of flows of which any subset
 * may be active: the one fluid core of the module, the rate allocation of FlowEvaluator
 * (flow-evaluator.h, reduced form) and of FlowTransport (the flow-level fabric, the form whose
 * links and flows are added as they come).
 *
 * Each flow has a path (link ids) and a class (0 = highest priority). Compute() gives the active
 * flows of class 0 their max-min fair rates on the link capacities, then those of class 1 on the
 * capacity class 0 left, and so on (strict priority). Inside a class: repeatedly take the link
 * with the smallest fair share (residual capacity / unfixed active flows of the class crossing
 * it; ties to the lower constraint index, so the result is deterministic), give that share to
 * its unfixed flows and take it off the residual of every link they cross. A residual below 1e-9
 * of the link's capacity counts as zero, so a starved flow gets rate 0. Rates are bit/s (or any
 * unit of the capacities).
 *
 * The constructor reduces the links to the non-dominated constraints: a link whose flow set is a
 * subset of another link's and whose capacity is at least the other's can never be the strict
 * bottleneck (for any active subset and any higher-class load its residual share is at least
 * the other link's), so progressive filling gives the same rates without it (up to the 1e-9
 * starvation threshold); duplicates are kept once. Compute() costs O(F c log(F c)) per class for
 * F active flows crossing c constraints each (a binary heap with lazy deletion), or a linear scan
 * per bottleneck when a class crosses few constraints.
 *
 * The rates depend on the order of the floating-point operations: FlowEvaluator's results (and
 * the check-golden digests) change with it.
 */
class PriorityWaterFilling
{
  public:
    /**
     * \param linkCapacity [link] capacity (> 0), e.g. bit/s
     * \param paths [flow] the links the flow crosses (ids < linkCapacity.size(), not empty; a
     *        link listed twice counts once)
     * \param classes [flow] class index, 0 = highest priority, < numClasses
     * \param numClasses number of classes
     */
    PriorityWaterFilling(const std::vector<double>& linkCapacity,
                         const std::vector<std::vector<uint32_t>>& paths,
                         const std::vector<uint32_t>& classes,
                         std::size_t numClasses);

    /**
     * \brief A water filling without reduction whose links and flows are added as they come
     * (AddLink, AddFlow): every link is a constraint of its own, its index the link's id, so a
     * tie between bottlenecks goes to the lower link id. FlowTransport's rate allocation (the
     * flow-level fabric), where connections and their paths appear during the run; the rates are
     * those of the reduced form up to the 1e-9 starvation threshold.
     * \param numClasses number of classes
     */
    explicit PriorityWaterFilling(std::size_t numClasses);

    /**
     * \brief Add a link (a constraint of its own); only for the form built by
     * PriorityWaterFilling(std::size_t).
     * \param capacity its capacity (> 0), e.g. bit/s
     * \return its id: the number of links added before
     * \throws std::invalid_argument for a capacity <= 0 or on the reduced form
     */
    uint32_t AddLink(double capacity);

    /**
     * \brief Add a flow (inactive); only for the form built by PriorityWaterFilling(std::size_t).
     * \param path the links it crosses (ids of AddLink, not empty; a link listed twice counts
     *        once)
     * \param cls class index, 0 = highest priority, < numClasses
     * \return its flow index: the number of flows added before
     * \throws std::invalid_argument for an empty path, an unknown link or class, or on the
     *         reduced form
     */
    uint32_t AddFlow(const std::vector<uint32_t>& path, uint32_t cls);

    /// \return the number of flows
    std::size_t NumFlows() const;

    /**
     * \brief Rates of the active flows.
     * \param active the active flows (indices into paths, no duplicates), any order
     * \param[out] rate [flow] (size paths.size()): each active flow's rate, in the unit of the
     *        capacities; the other entries are left as they are
     *
     * Independent of the flows made active by Activate(); the next Update() after it refills
     * all of those.
     */
    void Compute(const std::vector<uint32_t>& active, std::vector<double>& rate);

    /**
     * \brief Incremental use: flow f becomes active (it is given a rate at the next Update()).
     * \param f flow index, not active
     */
    void Activate(uint32_t f);
    /**
     * \brief Incremental use: flow f stops being active (its rate entry is left as it is).
     * \param f flow index, active
     */
    void Deactivate(uint32_t f);
    /**
     * \brief Incremental Compute() of the flows made active by Activate() and not deactivated
     * since: recomputes only the active flows whose rate a change since the last Update() can
     * move. Strict priority bounds the reach of a change of class c: it moves the flows of
     * class >= c on the constraints of the flow (de)activated and, through each flow of class
     * c' so moved, the flows of class >= c' on that flow's other constraints, never a flow of
     * a higher class. A constraint reached first at class t enters the filling with the
     * residual that the higher classes left on it at their last filling (kept per constraint
     * and class; unchanged, since none of their flows moved). Every other active flow keeps its
     * rate, which is bit-identical to what Compute() of the whole active set gives: progressive
     * filling of one connected group of flows of a class never reads or writes a constraint of
     * another group, and within a group picks the same bottlenecks in the same order (smallest
     * share, ties to the lower constraint index) from the same residuals, whatever the other
     * groups do.
     * \param[out] rate [flow] (size paths.size()): the recomputed flows' rates
     * \return the number of flows recomputed
     */
    std::size_t Update(std::vector<double>& rate);

    /// \return the number of constraints kept (non-dominated links)
    std::size_t NumConstraints() const;

  private:
    /// Capacity constraint of one link on the flows that cross it.
    struct Constraint
    {
        double cap;                  //!< capacity
        std::vector<uint32_t> flows; //!< flow indices, ascending
    };

    /**
     * Candidate bottleneck: the fair share (residual / unfixed flows) of a constraint when it
     * was computed. The smallest share is the next bottleneck, ties go to the lower constraint
     * index; in the heap an entry whose version is out of date is skipped (lazy deletion).
     */
    struct Candidate
    {
        double share;     //!< fair share
        uint32_t k;       //!< constraint index
        uint32_t version; //!< the constraint's version when the share was computed

        /// \return true if o is the better bottleneck (smaller share, then lower index)
        bool operator>(const Candidate& o) const
        {
            return share != o.share ? share > o.share : k > o.k;
        }
    };

    /**
     * \param all every link's constraint (consumed)
     * \return the non-dominated constraints (see the class description), ordered by flow count
     *         (descending), capacity (ascending), flow set (lexicographic)
     */
    static std::vector<Constraint> NonDominated(std::vector<Constraint> all);

    /**
     * Progressive filling of one class on the residual capacities the higher classes left.
     * \param unfixed the active flows of the class
     * \param[out] rate [flow] their rates
     */
    void FillClass(const std::vector<uint32_t>& unfixed, std::vector<double>& rate);
    /// \param k constraint with unfixed flows \return its current fair share: residual (0 below
    /// the starvation threshold) / unfixed flows of the class
    double ShareOf(uint32_t k) const;
    /// \param k constraint whose current fair share is queued in the heap
    void PushCandidate(uint32_t k);
    /**
     * \param k constraint \param below class bound
     * \return the highest class index (lowest priority) < below with an active flow on k, or
     *         NO_CLASS if none
     */
    uint32_t LastActiveClassBelow(uint32_t k, uint32_t below) const;
    /// \param[out] top the valid candidate with the smallest share \return false if none is left
    bool PopBottleneck(Candidate& top);
    /// \param[out] top the constraint of the class with the smallest share (linear scan; drops
    /// constraints without unfixed flows from m_classCons) \return false if none is left
    bool ScanBottleneck(Candidate& top);
    /**
     * Gives top.share to every unfixed flow of constraint top.k and takes it off the residual of
     * each constraint those flows cross (whose versions are bumped; re-queued if useHeap).
     * \param top the bottleneck
     * \param useHeap whether the class uses the heap
     * \param[out] rate [flow] the fixed flows' rates
     * \return the number of flows fixed
     */
    std::size_t FixBottleneck(const Candidate& top, bool useHeap, std::vector<double>& rate);
    /// A flow of class cls crossing constraint k was (de)activated: k joins m_dirty.
    /// \param k constraint \param cls the flow's class
    void MarkDirty(uint32_t k, uint32_t cls);
    /// Update()'s search reaches constraint k at class cls: k is (re)queued if that is a
    /// higher-priority class than it was reached at before. \param k constraint \param cls class
    void Reach(uint32_t k, uint32_t cls);

    /// m_dirtyClass / m_reach of a constraint no change reaches
    static constexpr uint32_t NO_CLASS = UINT32_MAX;

    bool m_dynamic{false};              //!< built by PriorityWaterFilling(std::size_t)
    std::vector<uint32_t> m_class;      //!< [flow] class index
    std::vector<uint32_t> m_consStart;  //!< [flow] first entry in m_consOfFlow; + end
    std::vector<uint32_t> m_consOfFlow; //!< flat: constraints of flow 0, of flow 1, ...
    std::vector<double> m_capacity;     //!< [constraint] capacity
    std::vector<double> m_threshold;    //!< [constraint] residual below it counts as 0

    // Scratch of Compute() (indexed by constraint or flow).
    std::vector<double> m_residual; //!< [constraint] capacity left
    std::vector<uint32_t> m_count;  //!< [constraint] unfixed flows of the class
    /// [constraint] the class's active flows crossing it (valid while m_count > 0 in a
    /// FillClass; refilled per class): the bottleneck step visits these, not every flow of
    /// the constraint (most of which, one per phase and flow of the timeline, are idle)
    std::vector<std::vector<uint32_t>> m_classFlowsOn;

    // State of the incremental use (Activate, Deactivate, Update).
    /// An active flow on a constraint: the flow, its entry in m_consOfFlow, and its class (a
    /// copy, so that Update()'s search skips the higher-priority classes, index < reach,
    /// without reading m_class).
    struct ActiveEntry
    {
        uint32_t flow;  //!< flow index
        uint32_t entry; //!< index into m_consOfFlow
        uint32_t cls;   //!< the flow's class
    };

    /// [constraint] the active flows crossing it
    std::vector<std::vector<ActiveEntry>> m_activeOn;
    std::vector<uint32_t> m_slotPos; //!< [entry of m_consOfFlow] position in m_activeOn
    std::vector<uint32_t> m_dirty;   //!< constraints of flows (de)activated since Update()
    /// [constraint] highest-priority (lowest) class of a flow (de)activated on it since
    /// Update(); NO_CLASS if none (not in m_dirty)
    std::vector<uint32_t> m_dirtyClass;
    /// [constraint] during Update(): the highest-priority class the changes reach on it
    std::vector<uint32_t> m_reach;
    std::vector<uint8_t> m_queued; //!< [constraint] waiting in m_queue
    std::vector<uint32_t> m_queue; //!< Update()'s search: constraints to visit
    /// [constraint x class] residual after the class's last filling on the constraint
    std::vector<double> m_after;
    /// [constraint x class] active flows of the class crossing the constraint
    std::vector<uint32_t> m_activeCount;
    /// [constraint x word] bit c % 64 of word c / 64: m_activeCount of class c > 0 (Update()
    /// finds the largest class index below a reach, the last higher-priority class with an
    /// active flow, with a few word operations, not a walk over every class: with one class
    /// per job, Crux-PA's, there are hundreds)
    std::vector<uint64_t> m_activeClasses;
    std::size_t m_classWords{0}; //!< words per constraint in m_activeClasses
    /// [constraint] fair share (residual / m_count, 0 below the threshold) of a constraint of
    /// the class being filled by linear scan, kept as FixBottleneck() changes it, so that
    /// ScanBottleneck() compares and does not divide
    std::vector<double> m_share;
    uint32_t m_fillClass{0};             //!< class of the FillClass() in progress
    std::vector<uint32_t> m_seenCons;    //!< [constraint] == m_gen: reached by Update()'s search
    std::vector<uint32_t> m_seenFlow;    //!< [flow] == m_gen: in the group being recomputed
    std::vector<uint32_t> m_group;       //!< the active flows being recomputed
    uint32_t m_gen{0};                   //!< generation of m_seenCons / m_seenFlow
    std::vector<uint32_t> m_version;     //!< [constraint] bumped when residual/count change
    std::vector<uint32_t> m_touchedMark; //!< [constraint] == m_stamp: in m_touched
    std::vector<uint32_t> m_classCons;   //!< constraints crossed by the class's flows
    /// constraints changed by one bottleneck (FixBottleneck); in Update(), first every
    /// constraint its search reached
    std::vector<uint32_t> m_touched;
    std::vector<uint32_t> m_pendingMark;          //!< [flow] == m_stamp: unfixed flow of the class
    uint32_t m_stamp{0};                          //!< generation of the marks
    std::vector<std::vector<uint32_t>> m_byClass; //!< [class] active flows
    std::vector<Candidate> m_heap;                //!< min-heap of candidate bottlenecks
};

} // namespace ns3

#endif // CRUX_WATER_FILLING_H
