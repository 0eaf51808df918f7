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

#ifndef CRUX_DISTRIBUTED_RUN_H
#define CRUX_DISTRIBUTED_RUN_H

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief ns-3's distributed simulator (MPI, src/mpi) as crux's drivers use it: one packet-level
 * simulation split over the ranks of an mpirun (doc/crux.rst, "Distributed packet simulation
 * (MPI)").
 *
 * Two implementations, chosen by the build: drivers/distributed-run-mpi.cc when ns-3 has its mpi
 * module (in-tree, configured with --enable-mpi), drivers/distributed-run-none.cc otherwise
 * (IsAvailable() false, one rank, the collectives return the local value).
 *
 * Life cycle: Enable() once at program start (MPI_Init, the simulator implementation
 * ns3::DistributedSimulatorImpl, i.e. the granted-time-window algorithm whose lookahead is the
 * smallest delay of a channel between ranks), one simulation after another (each ends with
 * Simulator::Destroy() and then EndRun(): ns-3's MPI interface does not survive
 * Simulator::Destroy(), so EndRun() re-enables it for the next run), Disable() at exit
 * (MPI_Finalize). Every collective must be called by every rank in the same order.
 */
class CruxDistributed
{
  public:
    /// \return true if this build has ns-3's mpi module
    static bool IsAvailable();

    /**
     * \brief Initialize MPI and make ns3::DistributedSimulatorImpl the simulator (before any
     * Simulator call). \param argc main's argc \param argv main's argv
     * \throws std::runtime_error if IsAvailable() is false
     */
    static void Enable(int* argc, char*** argv);

    /// \return true between Enable() and Disable()
    static bool IsEnabled();

    /// \return this process's rank (0 when not enabled)
    static uint32_t GetRank();

    /// \return the number of ranks (1 when not enabled)
    static uint32_t GetSize();

    /**
     * \brief The number of processes mpirun started, read from the launcher's environment
     * (OpenMPI's OMPI_COMM_WORLD_SIZE, else a PMI launcher's PMI_SIZE), also without MPI and
     * before Enable(): a program that does not run distributed refuses more than one (each
     * process would run the whole work and write the same files).
     * \return that number, 1 without mpirun
     */
    static uint32_t LauncherSize()
    {
        return LauncherValue({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, 1);
    }

    /// \return this process's rank as mpirun numbers it (OMPI_COMM_WORLD_RANK, else PMI_RANK;
    /// also before Enable()), 0 without mpirun
    static uint32_t LauncherRank()
    {
        return LauncherValue({"OMPI_COMM_WORLD_RANK", "PMI_RANK"}, 0);
    }

    /// \brief After Simulator::Destroy(): ns-3's MPI interface again for the next simulation.
    static void EndRun();

    /// \brief Finalize MPI (at program exit; nothing when not enabled).
    static void Disable();

    /**
     * \brief End every rank (MPI_Abort) after an error that only this rank may have met, so that
     * no rank waits in a collective forever. Returns only when not enabled.
     * \param status exit status
     */
    static void Abort(int status);

    /// \return frames this process has sent to other ranks (QbbRemoteChannel), 0 without MPI
    static uint64_t GetRemoteFramesSent();

    /**
     * \brief Collective: every rank's bytes, in rank order, on every rank.
     * \param bytes this rank's bytes
     * \return GetSize() strings, element r from rank r
     */
    static std::vector<std::string> AllGather(const std::string& bytes);

    /**
     * \brief Collective: logical AND over the ranks.
     * \param local this rank's value
     * \return true if every rank passed true
     */
    static bool AllTrue(bool local);

  private:
    /// \param names environment variables, in order \param otherwise the value if none is set
    /// \return the first one set, as a number (0 if it is not one)
    static uint32_t LauncherValue(std::initializer_list<const char*> names, uint32_t otherwise)
    {
        for (const char* name : names)
        {
            const char* v = std::getenv(name);
            if (v != nullptr)
            {
                return static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
            }
        }
        return otherwise;
    }
};

} // namespace ns3

#endif // CRUX_DISTRIBUTED_RUN_H
