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

#include "dlt-job-helper.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxDltJobHelper");

DltJobHelper::DltJobHelper()
{
    m_factory.SetTypeId(DltJobApplication::GetTypeId());
}

void
DltJobHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

Ptr<DltJobApplication>
DltJobHelper::Install(const DltJob& job, Ptr<MessageTransport> transport, Ptr<Node> node) const
{
    NS_LOG_FUNCTION(this << job.id);
    if (!transport || !node)
    {
        NS_FATAL_ERROR("DltJobHelper::Install: job " << job.id << ": null transport or node");
    }
    Ptr<DltJobApplication> app = m_factory.Create<DltJobApplication>();
    app->SetJob(job);
    app->SetTransport(transport);
    // Application start times count from now
    app->SetStartTime(Seconds(std::max(0.0, job.startTime - Simulator::Now().GetSeconds())));
    node->AddApplication(app);
    return app;
}

} // namespace ns3
