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

// Self-test of test/check-scheduling-purity.sh: a static library whose only object calls the
// ns-3 Simulator, built as crux-purity-probe. The purity check must reject it (ctest
// check-scheduling-purity-selftest); it is never linked into anything.

#include "ns3/simulator.h"

namespace ns3
{

/// \return the simulation time in seconds (a Simulator call the purity check must see)
double
CruxPurityProbeNow()
{
    return Simulator::Now().GetSeconds();
}

} // namespace ns3
