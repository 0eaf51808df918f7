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

#include "progress-reporter.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace ns3
{

ProgressReporter::ProgressReporter(std::string program, double intervalSeconds, std::string unit)
    : m_program(std::move(program)),
      m_unit(std::move(unit)),
      m_interval(intervalSeconds > 0 && std::isfinite(intervalSeconds) ? intervalSeconds : 0),
      m_start(std::chrono::steady_clock::now())
{
}

bool
ProgressReporter::IsOn() const
{
    return m_interval > 0;
}

double
ProgressReporter::Elapsed() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

bool
ProgressReporter::Due()
{
    if (m_interval <= 0)
    {
        return false;
    }
    const double now = Elapsed();
    if (now - m_lastLine < m_interval)
    {
        return false;
    }
    m_lastLine = now;
    return true;
}

std::string
ProgressReporter::Left(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
    {
        return "";
    }
    std::ostringstream os;
    os << std::fixed << std::setprecision(0) << ", about " << seconds << " s left";
    return os.str();
}

void
ProgressReporter::Print(const std::string& text) const
{
    // one insertion of the whole line: stderr is unbuffered, so this is one write()
    std::cerr << (m_program + ": " + text + "\n") << std::flush;
}

void
ProgressReporter::Update(const std::string& run, const std::string& state, double done)
{
    if (!Due())
    {
        return;
    }
    const double wall = Elapsed();
    std::ostringstream os;
    os << run << ": " << state << ", wall " << std::fixed << std::setprecision(0) << wall << " s"
       << (done > 0 ? Left(wall * (1 - std::min(done, 1.0)) / done) : "");
    Print(os.str());
}

void
ProgressReporter::StartRuns(uint32_t total)
{
    m_total = total;
    m_done = 0;
    m_running.clear();
    m_start = std::chrono::steady_clock::now();
    m_lastLine = 0;
}

void
ProgressReporter::AddRuns(uint32_t more)
{
    m_total += more;
}

void
ProgressReporter::RunStarted(const std::string& run)
{
    m_running.insert(run);
}

void
ProgressReporter::RunDone(const std::string& run)
{
    auto it = m_running.find(run);
    if (it != m_running.end())
    {
        m_running.erase(it);
    }
    ++m_done;
    Tick();
}

void
ProgressReporter::Tick()
{
    if (!Due())
    {
        return;
    }
    const double wall = Elapsed();
    std::ostringstream os;
    const bool partial = m_phase < m_phases; // later phases' runs not counted yet
    std::ostringstream phase;
    phase << "phase " << m_phase << "/" << m_phases;
    os << m_unit << " done " << m_done << "/" << m_total << (partial ? " of " + phase.str() : "");
    if (!m_running.empty())
    {
        os << ", running:";
        for (const auto& r : m_running)
        {
            os << " " << r;
        }
    }
    const std::string left = m_done > 0 ? Left(wall / m_done * (m_total - m_done)) : "";
    os << ", wall " << std::fixed << std::setprecision(0) << wall << " s" << left
       << (partial && !left.empty() ? " in " + phase.str() : "");
    Print(os.str());
}

void
ProgressReporter::SetPhase(uint32_t phase, uint32_t phases)
{
    m_phase = std::max<uint32_t>(phase, 1);
    m_phases = std::max(phases, m_phase);
}

} // namespace ns3
