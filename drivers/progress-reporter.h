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

#ifndef CRUX_PROGRESS_REPORTER_H
#define CRUX_PROGRESS_REPORTER_H

#include <chrono>
#include <cstdint>
#include <set>
#include <string>

namespace ns3
{

/**
 * \ingroup crux
 * \brief The one progress printer of the experiment drivers: lines on stderr, at most one per
 * interval of wall time, each written whole (one write, so that the lines of parallel child
 * processes never mix), each with an estimate of the time left.
 *
 * Two uses, one instance each:
 *  - within one run (a simulation): Update() with the run's state and the share of its work
 *    done; prints "<program>: <run>: <state>, wall <s> s, about <s> s left";
 *  - over the runs of a driver (crux-experiment's modes, crux-trace-run's schedulers, the
 *    microbenchmark's cases): StartRuns(), RunStarted(), RunDone(), Tick(); prints
 *    "<program>: runs done <k>/<n>[, running: <names>], wall <s> s, about <s> s left" (or
 *    "cases done", see the unit).
 *
 * The first line comes one interval after the reporter was made (or StartRuns()), so a run
 * shorter than the interval prints nothing. The estimate: wall × (1 − done) / done for a run,
 * wall / k × (n − k) over the runs (the rate of completions so far); none before any work
 * is done. Printing reads the wall clock only: it never schedules a simulator event, so it
 * cannot change a result.
 */
class ProgressReporter
{
  public:
    /**
     * \param program prefix of every line (the program's name, e.g. "crux-experiment")
     * \param intervalSeconds wall seconds between two lines (>= 0); 0 = print nothing
     * \param unit what the runs are called in the lines ("runs done 3/8", "cases done 300/1500")
     */
    ProgressReporter(std::string program, double intervalSeconds, std::string unit = "runs");

    /// \return whether lines are printed at all (interval > 0)
    bool IsOn() const;

    /**
     * \brief Within a run: print a line if the interval has passed since the last one.
     * \param run the run's name ("crux", "alone:GPT")
     * \param state what the run reached ("sim 0.84 s, iterations 12/40")
     * \param done share of the run's work done, 0..1 (<= 0: no estimate yet)
     */
    void Update(const std::string& run, const std::string& state, double done);

    /// \brief Over runs: start counting \p total runs (restarts the clock).
    /// \param total number of runs
    void StartRuns(uint32_t total);
    /// \brief More runs than StartRuns() said (found later). \param more number of runs
    void AddRuns(uint32_t more);
    /// \brief A run started (named in the lines while it runs). \param run its name
    void RunStarted(const std::string& run);
    /// \brief A run finished: counted, and a line if the interval has passed. \param run its name
    void RunDone(const std::string& run);
    /// \brief Print a line over the runs if the interval has passed (while waiting for runs).
    void Tick();
    /**
     * \brief The runs counted are phase \p phase of \p phases, whose later phases' runs are
     * known only when this one ends (crux-experiment: the runs that need the t_j profiled in
     * the first): before the last phase the lines say "runs done 2/4 of phase 1/2" and the
     * time left is that of the phase ("about 30 s left in phase 1/2").
     * \param phase this phase, 1-based \param phases all phases (1 = no phases)
     */
    void SetPhase(uint32_t phase, uint32_t phases);

  private:
    /// \return wall seconds since the reporter's clock started
    double Elapsed() const;
    /// \return true (and restart the interval) if a line is due now
    bool Due();
    /// Write one whole line (prefix added) on stderr. \param text the line without prefix
    void Print(const std::string& text) const;
    /// \return ", about <s> s left" for \p seconds left (empty if not finite or negative)
    static std::string Left(double seconds);

    std::string m_program;                         //!< line prefix
    std::string m_unit;                            //!< what the runs are called
    double m_interval;                             //!< wall seconds between lines
    std::chrono::steady_clock::time_point m_start; //!< the clock's start
    double m_lastLine{0};                          //!< Elapsed() at the last line
    uint32_t m_total{0};                           //!< runs to do
    uint32_t m_done{0};                            //!< runs done
    uint32_t m_phase{1};                           //!< phase of the runs counted (SetPhase)
    uint32_t m_phases{1};                          //!< phases (SetPhase)
    std::multiset<std::string> m_running;          //!< runs started, not done
};

} // namespace ns3

#endif // CRUX_PROGRESS_REPORTER_H
