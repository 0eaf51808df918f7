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

#ifndef CRUX_PATH_SELECTION_H
#define CRUX_PATH_SELECTION_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include "comm-scheduler.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief Greedy least-congested path per flow, jobs in a given order (Crux §4.1; the rule
 * shared by Crux's path selection, [D1] in crux-scheduler.h, and TACCL*'s, [T2] in
 * taccl-scheduler.h, which differ only in the job order).
 *
 * Visits the jobs in \p order and, inside a job, its flows in the order of SchedJob::flows.
 * Each flow f gets the candidate path p with the smallest max_{e ∈ p} (L_e + x_f)·8/B_e, where
 * L_e is the bytes/iteration already placed on link e by earlier jobs and earlier flows of the
 * same job, x_f the flow's bytes/iteration and B_e the link bandwidth (bit/s); ties (relative
 * 1e-12) go to the smaller Σ_{e ∈ p} L_e·8/B_e, then to the lower candidate index. An empty
 * path costs 0. The chosen index is written to decision.jobs[id].flowPath[flow.id] and x_f is
 * added to L_e on its links. Afterwards commTime and intensity of every job of the model are
 * recomputed on the chosen paths (UpdateIntensities).
 *
 * \param model the cluster (already validated, e.g. by MakeDefaultDecision)
 * \param order the jobs to route, in routing order (pointers into model.jobs); jobs of the
 *        model not listed keep their paths
 * \param decision updated in place (flowPath of the listed jobs, commTime and intensity of all)
 * \throws std::out_of_range if a listed job has no entry in decision.jobs
 */
void SelectLeastCongestedPaths(const ClusterModel& model,
                               const std::vector<const SchedJob*>& order,
                               Decision& decision);

} // namespace ns3

#endif // CRUX_PATH_SELECTION_H
