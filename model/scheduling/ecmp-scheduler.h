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

#ifndef CRUX_ECMP_SCHEDULER_H
#define CRUX_ECMP_SCHEDULER_H

// Scheduling layer: ns-3 core only (Object, TypeId, Attributes), never the Simulator; compiled
// into the crux-scheduling library.

#include "comm-scheduler.h"

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief The no-scheduling baseline: every flow keeps its ECMP default path and every job
 * shares level 0 (one traffic class). commTime and intensity are filled in on the default
 * paths for reporting; rank is 0 for every job (no order).
 */
class EcmpScheduler : public CommScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId (ns3::EcmpScheduler; no attributes)
     */
    static TypeId GetTypeId();

    /// Named "ecmp"
    EcmpScheduler();

  protected:
    /**
     * \param model the cluster
     * \param config only numLevels is used (copied into the decision)
     * \return default paths, level 0 for every job
     */
    Decision DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const override;
};

} // namespace ns3

#endif // CRUX_ECMP_SCHEDULER_H
