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

// CruxDistributed with ns-3's mpi module (see distributed-run.h). Compiled only when ns-3 has
// it (CMakeLists.txt / wscript add this file instead of distributed-run-none.cc).

#include "distributed-run.h"

#include "ns3/global-value.h"
#include "ns3/mpi-interface.h"
#include "ns3/qbb-remote-channel.h"
#include "ns3/string.h"

#include <mpi.h>
#include <stdexcept>

namespace ns3
{

namespace
{
bool g_cruxMpiEnabled = false; //!< between CruxDistributed::Enable() and Disable()
} // namespace

bool
CruxDistributed::IsAvailable()
{
    return true;
}

void
CruxDistributed::Enable(int* argc, char*** argv)
{
    if (g_cruxMpiEnabled)
    {
        return;
    }
    // MPI_Init here rather than MpiInterface::Enable(argc, argv): ns-3's interface is disabled
    // and enabled again around every Simulator::Destroy() (EndRun), which its
    // Enable(MPI_Comm) form allows; MPI_Finalize is ours (Disable).
    MPI_Init(argc, argv);
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(MPI_COMM_WORLD);
    g_cruxMpiEnabled = true;
}

bool
CruxDistributed::IsEnabled()
{
    return g_cruxMpiEnabled;
}

uint32_t
CruxDistributed::GetRank()
{
    return g_cruxMpiEnabled ? MpiInterface::GetSystemId() : 0;
}

uint32_t
CruxDistributed::GetSize()
{
    return g_cruxMpiEnabled ? MpiInterface::GetSize() : 1;
}

void
CruxDistributed::EndRun()
{
    if (!g_cruxMpiEnabled)
    {
        return;
    }
    // Simulator::Destroy() released the interface's receive buffers (MpiInterface::Destroy);
    // Disable frees its communicator (no MPI_Finalize: ns-3 did not call MPI_Init), Enable
    // duplicates MPI_COMM_WORLD again and posts new receives.
    MpiInterface::Disable();
    MpiInterface::Enable(MPI_COMM_WORLD);
}

void
CruxDistributed::Disable()
{
    if (!g_cruxMpiEnabled)
    {
        return;
    }
    MpiInterface::Disable();
    MPI_Finalize();
    g_cruxMpiEnabled = false;
}

uint64_t
CruxDistributed::GetRemoteFramesSent()
{
    return QbbRemoteChannel::GetRemoteFramesSent();
}

void
CruxDistributed::Abort(int status)
{
    if (g_cruxMpiEnabled)
    {
        MPI_Abort(MPI_COMM_WORLD, status);
    }
}

std::vector<std::string>
CruxDistributed::AllGather(const std::string& bytes)
{
    if (!g_cruxMpiEnabled)
    {
        return {bytes};
    }
    const int n = static_cast<int>(GetSize());
    int mine = static_cast<int>(bytes.size());
    std::vector<int> sizes(n);
    MPI_Allgather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> offsets(n, 0);
    int total = 0;
    for (int r = 0; r < n; ++r)
    {
        offsets[r] = total;
        total += sizes[r];
    }
    std::string all(static_cast<size_t>(total), '\0');
    MPI_Allgatherv(bytes.data(),
                   mine,
                   MPI_CHAR,
                   all.data(),
                   sizes.data(),
                   offsets.data(),
                   MPI_CHAR,
                   MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (int r = 0; r < n; ++r)
    {
        out.push_back(all.substr(offsets[r], sizes[r]));
    }
    return out;
}

bool
CruxDistributed::AllTrue(bool local)
{
    if (!g_cruxMpiEnabled)
    {
        return local;
    }
    int in = local ? 1 : 0;
    int out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return out != 0;
}

} // namespace ns3
