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

#ifndef CRUX_GPU_INTENSITY_H
#define CRUX_GPU_INTENSITY_H

#include <cstdint>
#include <functional>
#include <map>

/**
 * \file
 * \ingroup crux
 * The one definition of a job's per-iteration communication time t_j and GPU intensity I_j
 * (Crux §3, Definition 2), shared by the schedulers' analytic t_j (ClusterModel:
 * AnalyticCommTime), the profiled t_j (GpuIntensityTracker::FinalizeProfile, fed by the
 * scenario driver's profiling runs) and the tracker's analytic t_j. A bottom-layer header: it
 * includes nothing of crux.
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief t_j = max over links e of M_{j,e} × 8 / B_e: the time the job's per-iteration traffic
 * needs on its busiest link (Crux §3), network and intra-host links alike (whatever links carry
 * the bytes: NVLink-only traffic enters only NVLink links' times).
 * \param bytesPerIteration link id → bytes the job puts on that link per iteration (M_{j,e},
 *        >= 0); links with 0 bytes do not count
 * \param bandwidthOf link id → its capacity B_e in bit/s
 * \return seconds per iteration; 0 for a job that puts no bytes on any link
 * \throws std::invalid_argument naming the link if a link carrying bytes has a bandwidth that
 *         is not a positive finite number
 */
double BusiestLinkTime(const std::map<uint32_t, double>& bytesPerIteration,
                       const std::function<double(uint32_t)>& bandwidthOf);

/**
 * \ingroup crux
 * \brief GPU intensity I_j = W_j / t_j (Crux §3, Definition 2), FLOPs/s.
 *
 * Degenerate cases, the same for every caller: W_j = 0 (a job that computes nothing) gives 0
 * whatever t_j is; otherwise t_j = 0 (a job that communicates nothing on a modelled link) gives
 * +infinity. Such a job never contends for a link, so the infinity never enters a link's
 * weight; result tables print it as "–" (doc/crux.rst, "Output files").
 * \param flops W_j, FLOPs per iteration (>= 0)
 * \param commTime t_j, seconds per iteration (>= 0)
 * \return I_j in FLOPs/s
 */
double GpuIntensity(double flops, double commTime);

} // namespace ns3

#endif // CRUX_GPU_INTENSITY_H
