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

#ifndef CRUX_SCENARIO_PROGRESS_H
#define CRUX_SCENARIO_PROGRESS_H

// Progress lines of one scenario run (ScenarioRun): the hooks that feed the run's
// ProgressReporter while its iteration DAGs are built and while it simulates. Part of the
// experiment drivers, not of the module's interface.

#include "progress-reporter.h"

#include "ns3/comm-dag.h"
#include "ns3/dlt-job-application.h"
#include "ns3/dlt-job.h"
#include "ns3/nstime.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief The progress poll of one run (ConnectProgress): the state line, the simulated time
 * between two polls and the polls made, which are simulator events of no model.
 */
struct ProgressPollState
{
    std::function<void()> update;                   //!< prints a line if the interval passed
    Time period;                                    //!< simulated time to the next poll
    std::chrono::steady_clock::time_point lastWall; //!< wall clock at the last poll
    uint64_t polls{0}; //!< polls run: events not counted in the run's events (timing.csv)
};

/**
 * \ingroup crux
 * \brief Progress lines of one run (ProgressReporter::Update): checked whenever an all-reduce
 * completes, every 65,536 DAG nodes, and at a poll of adaptive simulated period (from 100 µs,
 * doubled or halved to keep polls 0.05-0.5 wall seconds apart, so lines keep coming inside one
 * long message); each line gives the simulated time and the iterations done of the measured
 * jobs (iterations > 0), which give the estimate of the time left. The poll reads and changes
 * no model state: the run's files are the same with and without progress lines.
 * \param jobs the run's jobs (this rank's) \param apps their applications, same order
 * \param label the run's name in the lines \param progress the reporter (kept by reference:
 *        it must outlive the simulation)
 * \return the poll's state (ProgressPollState::polls: events to leave out of the run's event
 *         count), or null when the reporter prints nothing
 */
std::shared_ptr<ProgressPollState> ConnectProgress(const std::vector<DltJob>& jobs,
                                                   const std::vector<Ptr<DltJobApplication>>& apps,
                                                   const std::string& label,
                                                   ProgressReporter& progress);

/**
 * \ingroup crux
 * \brief While alive, progress lines of this thread's iteration-DAG builds
 * (CommDag::BuildObserver): the scheduler's view and the applications of a job of millions of
 * nodes take minutes. Restores the previous observer when destroyed.
 */
class DagBuildProgress
{
  public:
    /// \param progress the run's reporter (must outlive this object) \param label the run
    DagBuildProgress(ProgressReporter& progress, const std::string& label);
    ~DagBuildProgress();
    DagBuildProgress(const DagBuildProgress&) = delete;            //!< not copyable
    DagBuildProgress& operator=(const DagBuildProgress&) = delete; //!< not copyable

  private:
    CommDag::BuildObserver m_previous; //!< the observer before
};

} // namespace ns3

#endif // CRUX_SCENARIO_PROGRESS_H
