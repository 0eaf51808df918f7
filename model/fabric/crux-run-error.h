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

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup crux
 * \brief A simulation that cannot go on: thrown from inside a simulation event (it leaves
 * Simulator::Run() like any C++ exception) when the modelled system reaches a state a real one
 * would report as an error.
 *
 * Raised by the RdmaNic watchdog (a queue pair made no progress for RdmaNic::StallTimeout: the
 * retry-exceeded error of a real RoCE NIC, e.g. after a link failure or a PFC deadlock) and by
 * SwitchMmu when the PFC headroom does not fit in the switch buffer. The message is one line
 * naming what is stuck or wrong in the user's terms (job, flow, GPUs, queue pair; switch and
 * attribute). Programs catch it with std::exception, print what() and exit with status 1
 * (crux-experiment does), instead of the abort of NS_FATAL_ERROR. The simulator is left as it
 * was at the throw: call Simulator::Destroy() before another run in the same process.
 */
class CruxRunError : public std::runtime_error
{
  public:
    /// \param what the complete one-line message
    explicit CruxRunError(const std::string& what)
        : std::runtime_error(what)
    {
    }
};

} // namespace ns3

#endif // CRUX_RUN_ERROR_H
