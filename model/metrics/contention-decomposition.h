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

#ifndef CRUX_CONTENTION_DECOMPOSITION_H
#define CRUX_CONTENTION_DECOMPOSITION_H

#include <optional>

/**
 * \file
 * \ingroup crux
 * The contention decomposition of a scheduler's cluster GPU utilization (doc/crux.rst,
 * "Measurement methodology"): how much of the difference between the jobs alone under ECMP and
 * the jobs together under a scheduler comes from each job's own flows colliding, from the
 * scheduler's path choice, from the jobs sharing links, and from the scheduler's priorities.
 * One computation for the scenario driver (CruxExperiment) and the trace runner (ClusterRun).
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief Utilizations (fractions of the cluster's peak FLOP rate, over the same measurement
 * window) of one scheduler S and its references, and the terms they decompose into.
 *
 * With U_ecmp the jobs' summed stand-alone utilization under ECMP (mean over the ECMP hash
 * seeds), U_free on collision-free paths, U_paths on S's own paths (each job alone), U_1 all
 * jobs together on S's paths in one traffic class, and U_mix all jobs under S:
 *  - own-flow loss (ECMP)  = U_free − U_ecmp: what the jobs' own flows colliding under ECMP cost;
 *  - path gain             = U_paths − U_ecmp: the part of it S's path choice recovers;
 *  - inter-job loss        = U_paths − U_1: what sharing the links costs on S's paths;
 *  - priority recovery     = U_mix − U_1: the part of it S's priorities win back;
 * so that U_mix − U_ecmp = path gain − inter-job loss + priority recovery, exactly.
 * Without a one-class run (a scheduler with one class, or the trace runner) U_1 is U_mix and
 * the priority recovery 0 (HasOneClass() false: printed as "–").
 */
struct ContentionDecomposition
{
    double aloneEcmp{0};               //!< U_ecmp
    std::optional<double> aloneFree;   //!< U_free (absent: not measured)
    double alonePaths{0};              //!< U_paths
    std::optional<double> mixOneClass; //!< U_1 (absent: S has one class, or not measured)
    double mix{0};                     //!< U_mix

    /// \return U_free − U_ecmp (0 if U_free was not measured)
    double OwnFlowLoss() const;
    /// \return U_paths − U_ecmp
    double PathGain() const;
    /// \return U_paths − U_1 (U_1 = U_mix without a one-class run)
    double InterJobLoss() const;
    /// \return U_mix − U_1 (0 without a one-class run)
    double PriorityRecovery() const;
    /// \return true if U_1 was measured (the priority recovery is a measurement)
    bool HasOneClass() const;
    /// \return U_mix − U_ecmp − (PathGain() − InterJobLoss() + PriorityRecovery()): 0 up to
    /// rounding (a self-check the tests assert)
    double Residual() const;
};

} // namespace ns3

#endif // CRUX_CONTENTION_DECOMPOSITION_H
