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

#ifndef CRUX_RUN_ERROR_H
#define CRUX_RUN_ERROR_H

#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief A simulation that cannot go on: thrown from inside a simulation event (it leaves
 * Simulator::Run() like any C++ exception) when the modelled system reaches a state a real one
 * would report as an error.
 *
 * Raised by the RdmaNic watchdog (a queue pair made no progress for RdmaNic::StallTimeout: the
 * retry-exceeded error of a real RoCE NIC, e.g. after a link failure or a PFC deadlock), by the
 * CommDagRunner watchdog (a job's messages made no progress at all, e.g. a peer that never posts
 * its send), by RdmaNic when a data packet cannot fit its device's MTU, by SwitchMmu when the
 * PFC headroom does not fit in the switch buffer, and for jobs that can never finish at the end
 * of a run (DltJobApplication::DescribeStuck). The message is one line
 * naming what is stuck or wrong in the user's terms (job, flow, GPUs, queue pair; switch and
 * attribute); several stuck jobs give one line each (GetLines()). Programs catch it with
 * std::exception, print Format() and exit with status 1 (every example and driver does),
 * instead of the abort of NS_FATAL_ERROR. The simulator is left as it
 * was at the throw: call Simulator::Destroy() before another run in the same process.
 */
class CruxRunError : public std::runtime_error
{
  public:
    /// \param what the complete one-line message
    explicit CruxRunError(const std::string& what)
        : std::runtime_error(what),
          m_lines{what}
    {
    }

    /// \param lines one line per stuck thing (e.g. one per job, DltJobApplication::DescribeStuck);
    /// what() joins them with newlines
    explicit CruxRunError(const std::vector<std::string>& lines)
        : std::runtime_error(Join(lines)),
          m_lines(lines)
    {
    }

    /// \return the message's lines (one for the one-line constructor)
    const std::vector<std::string>& GetLines() const
    {
        return m_lines;
    }

    /**
     * \brief How a program prints an error: "<program>: error: <line>", one line per line of a
     * CruxRunError (several when several jobs are stuck: DltJobApplication::DescribeStuck), one
     * line for any other exception; control characters in a line (a newline in a value the user
     * typed, too) are written as \xNN so that a line stays a line.
     * \param program the program's name
     * \param e the error
     * \param linePrefix written after "error: " on every line (e.g. "rank 2: ")
     * \return the text to print, newline-terminated
     */
    static std::string Format(const std::string& program,
                              const std::exception& e,
                              const std::string& linePrefix = "")
    {
        const auto* run = dynamic_cast<const CruxRunError*>(&e);
        const std::vector<std::string> lines =
            run ? run->GetLines() : std::vector<std::string>{What(e)};
        std::string out;
        for (const std::string& line : lines)
        {
            out += program + ": error: " + linePrefix;
            for (char ch : line)
            {
                const auto c = static_cast<unsigned char>(ch);
                if (c < 0x20 || c == 0x7f)
                {
                    const char* hex = "0123456789abcdef";
                    out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
                }
                else
                {
                    out += ch;
                }
            }
            out += "\n";
        }
        return out;
    }

    /**
     * \brief The text of an exception for a user: e.what(), but for std::bad_alloc (whose
     * what() is only "std::bad_alloc") a sentence saying that the memory ran out.
     * \param e the error
     * \return the text (one line for a one-line what())
     */
    static std::string What(const std::exception& e)
    {
        if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr)
        {
            return "out of memory (std::bad_alloc): the run needs more memory than the process "
                   "was given";
        }
        return e.what();
    }

  private:
    /// \return \p lines joined with newlines \param lines the lines
    static std::string Join(const std::vector<std::string>& lines)
    {
        std::string s;
        for (const std::string& l : lines)
        {
            s += (s.empty() ? "" : "\n") + l;
        }
        return s;
    }

    std::vector<std::string> m_lines; //!< the lines of what()
};

} // namespace ns3

#endif // CRUX_RUN_ERROR_H
