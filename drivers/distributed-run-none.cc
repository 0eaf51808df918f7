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

// CruxDistributed without ns-3's mpi module: one process, one rank (see distributed-run.h).

#include "distributed-run.h"

#include <stdexcept>

namespace ns3
{

bool
CruxDistributed::IsAvailable()
{
    return false;
}

void
CruxDistributed::Enable(int*, char***)
{
    throw std::runtime_error("this build has no ns-3 mpi module: distributed runs need ns-3 "
                             "configured with --enable-mpi (scripts/intree.sh builds one)");
}

bool
CruxDistributed::IsEnabled()
{
    return false;
}

uint32_t
CruxDistributed::GetRank()
{
    return 0;
}

uint32_t
CruxDistributed::GetSize()
{
    return 1;
}

void
CruxDistributed::EndRun()
{
}

void
CruxDistributed::Disable()
{
}

void
CruxDistributed::Abort(int)
{
}

uint64_t
CruxDistributed::GetRemoteFramesSent()
{
    return 0;
}

std::vector<std::string>
CruxDistributed::AllGather(const std::string& bytes)
{
    return {bytes};
}

bool
CruxDistributed::AllTrue(bool local)
{
    return local;
}

} // namespace ns3
