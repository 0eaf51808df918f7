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

#include "scenario-progress.h"

#include "ns3/crux-compat.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace
{

/// Simulated seconds between two progress polls at the start of a run: 100 µs (a few
/// all-reduce chunks at 100 Gbit/s); then adapted to the run's speed.
constexpr double FIRST_POLL_PERIOD = 100e-6;
/// Wall seconds between two progress polls the period is adapted to: between these two.
constexpr double POLL_WALL_MIN = 0.05;
/// See POLL_WALL_MIN.
constexpr double POLL_WALL_MAX = 0.5;

/// Polls the run's progress and schedules the next poll, the simulated period doubled when
/// the last one took less than POLL_WALL_MIN of wall time and halved when it took more than
/// POLL_WALL_MAX (so lines keep coming inside one long message, whose transfer completes no
/// collective for minutes). It reads and changes no model state: the run's files are the same
/// with and without progress lines (test/check-parallel-runs.sh).
void
ProgressPoll(const std::shared_ptr<ProgressPollState>& st)
{
    ++st->polls;
    st->update();
    const auto now = std::chrono::steady_clock::now();
    const double wall = std::chrono::duration<double>(now - st->lastWall).count();
    st->lastWall = now;
    if (wall < POLL_WALL_MIN && st->period < Seconds(1))
    {
        st->period = st->period * 2;
    }
    else if (wall > POLL_WALL_MAX && st->period > NanoSeconds(1))
    {
        st->period = st->period / 2;
    }
    crux::Schedule(st->period, &ProgressPoll, st);
}

} // namespace

std::shared_ptr<ProgressPollState>
ConnectProgress(const std::vector<DltJob>& jobs,
                const std::vector<Ptr<DltJobApplication>>& apps,
                const std::string& label,
                ProgressReporter& progress)
{
    if (!progress.IsOn())
    {
        return nullptr;
    }
    uint64_t total = 0;
    for (const auto& job : jobs)
    {
        total += job.iterations;
    }
    auto update =
        [&jobs, &apps, &progress, label, total](uint32_t, uint32_t, uint32_t, Time, Time) {
            uint64_t done = 0;
            for (size_t i = 0; i < jobs.size(); ++i)
            {
                done += std::min<uint64_t>(apps[i]->GetIterationTimes().size(), jobs[i].iterations);
            }
            std::ostringstream os;
            os << std::fixed << std::setprecision(4) << "sim " << Simulator::Now().GetSeconds()
               << " s, iterations " << done << "/" << total;
            progress.Update(label, os.str(), total > 0 ? static_cast<double>(done) / total : 0.0);
        };
    // within a long iteration: every 65,536 DAG nodes (a one-iteration job of millions of
    // nodes completes its first bucket only near its end)
    auto nodes =
        [&jobs, &apps, &progress, label, total](uint32_t job, uint64_t done, uint64_t all) {
            double iterations = 0;
            for (size_t i = 0; i < jobs.size(); ++i)
            {
                iterations +=
                    std::min<uint64_t>(apps[i]->GetIterationTimes().size(), jobs[i].iterations);
            }
            const double share = all > 0 ? static_cast<double>(done) / all : 0.0;
            std::ostringstream os;
            os << std::fixed << std::setprecision(4) << "sim " << Simulator::Now().GetSeconds()
               << " s, iterations " << iterations << "/" << total << ", job " << job
               << " DAG nodes " << done << "/" << all;
            progress.Update(label, os.str(), total > 0 ? (iterations + share) / total : 0.0);
        };
    for (const auto& app : apps)
    {
        app->TraceConnectWithoutContext(
            "AllReduceComplete",
            crux::MakeFunctorCallback<void, uint32_t, uint32_t, uint32_t, Time, Time>(update));
        app->TraceConnectWithoutContext(
            "NodeProgress",
            crux::MakeFunctorCallback<void, uint32_t, uint64_t, uint64_t>(nodes));
    }
    auto poll = std::make_shared<ProgressPollState>();
    poll->update = [update]() { update(0, 0, 0, Time(), Time()); };
    poll->period = Seconds(FIRST_POLL_PERIOD);
    poll->lastWall = std::chrono::steady_clock::now();
    crux::Schedule(poll->period, &ProgressPoll, poll);
    return poll;
}

DagBuildProgress::DagBuildProgress(ProgressReporter& progress, const std::string& label)
{
    if (progress.IsOn())
    {
        m_previous = CommDag::SetBuildObserver([&progress, label](uint64_t nodes) {
            progress.Update(label,
                            "building an iteration DAG: " + std::to_string(nodes >> 20) +
                                " Mi nodes",
                            0.0);
        });
    }
    else
    {
        m_previous = CommDag::SetBuildObserver(CommDag::BuildObserver());
    }
}

DagBuildProgress::~DagBuildProgress()
{
    CommDag::SetBuildObserver(m_previous);
}

} // namespace ns3
