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

#ifndef CRUX_PARALLEL_RUNS_H
#define CRUX_PARALLEL_RUNS_H

#include "ns3/crux-run-error.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

class ProgressReporter;

/**
 * \ingroup crux
 * \brief A run that failed in its child process (an exception, an exit status other than 0 or
 * a signal): the message is one line, "run <name>: <what happened>", or one such line per line
 * of a CruxRunError of several lines (e.g. one per stuck job), which CruxRunError::Format
 * prints as they are.
 */
class ParallelRunError : public CruxRunError
{
  public:
    using CruxRunError::CruxRunError;
};

/**
 * \ingroup crux
 * \brief One independent run of a driver (a whole simulation): its name, for the progress lines
 * and an error, and its work, which returns the run's result serialized as bytes.
 */
struct ParallelRun
{
    std::string name;                  //!< "alone:GPT", "crux", ...
    std::function<std::string()> work; //!< runs the simulation, returns the result's bytes
};

/**
 * \ingroup crux
 * \brief Run independent simulations on the local cores. ns-3's Simulator is one per process,
 * so each run goes into a forked child process (fork/waitpid), at most \p jobs at a time; the
 * child sends the bytes of its result back over a pipe and ends with _exit. Results come back in
 * the order of \p runs, whatever the order the children finish in. A run's result must not
 * depend on what ran before it in the process (every run sets its own seed:
 * RngSeedManager::SetSeed / SetRun, and the streams it uses are numbered per run).
 *
 * With \p jobs = 1, or a single run, the runs go one after another in this process without a
 * fork (the Python bindings' path); their exceptions then propagate unchanged.
 *
 * \param runs the runs
 * \param jobs runs at a time (>= 1)
 * \param progress counts the runs (RunStarted, RunDone, Tick; the caller starts the count with
 *        ProgressReporter::StartRuns), or null
 * \return each run's bytes, in the order of \p runs
 * \throws ParallelRunError "run <name>: <message>" if a child failed: its exception's message,
 *         or its exit status, or the signal that killed it. The failure thrown is the one of the
 *         first failing run in the order of \p runs, as with \p jobs = 1, whatever the order the
 *         children end in: the runs after it are killed, the ones before it run to their end;
 *         nothing is left running
 * \throws std::runtime_error if no child process or pipe can be made
 */
std::vector<std::string> RunParallel(const std::vector<ParallelRun>& runs,
                                     uint32_t jobs,
                                     ProgressReporter* progress);

/// \return the default number of parallel runs: the cores (std::thread::hardware_concurrency),
/// at least 1
uint32_t DefaultParallelJobs();

} // namespace ns3

#endif // CRUX_PARALLEL_RUNS_H
