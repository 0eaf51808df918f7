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

#include "ecmp-scheduler.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxEcmpScheduler");

NS_OBJECT_ENSURE_REGISTERED(EcmpScheduler);

TypeId
EcmpScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EcmpScheduler")
                            .SetParent<CommScheduler>()
                            .SetGroupName("Crux")
                            .AddConstructor<EcmpScheduler>();
    return tid;
}

EcmpScheduler::EcmpScheduler()
{
    SetName("ecmp");
}

Decision
EcmpScheduler::DoSchedule(const ClusterModel& model, const SchedulerConfig& config) const
{
    NS_LOG_FUNCTION(this << model.jobs.size() << config.numLevels);
    // every flow on its ECMP default path, every job on level 0
    return DefaultDecision(model, config);
}

} // namespace ns3
