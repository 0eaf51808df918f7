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

#include "link-throughput-sampler.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LinkThroughputSampler");
NS_OBJECT_ENSURE_REGISTERED(LinkThroughputSampler);

TypeId
LinkThroughputSampler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LinkThroughputSampler")
            .SetParent<Object>()
            .SetGroupName("Crux")
            .AddConstructor<LinkThroughputSampler>()
            .AddAttribute("Interval",
                          "Sampling interval of the per-link, per-class throughput; 0 = off "
                          "(crux-experiment writes link_throughput.csv when > 0).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&LinkThroughputSampler::m_interval),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("Sample",
                            "Bytes a link carried in one traffic class during the last interval "
                            "(fired for non-zero ones only).",
                            MakeTraceSourceAccessor(&LinkThroughputSampler::m_sampleTrace),
                            "ns3::LinkThroughputSampler::SampleTracedCallback");
    return tid;
}

LinkThroughputSampler::LinkThroughputSampler()
    : m_interval(Seconds(0))
{
}

LinkThroughputSampler::~LinkThroughputSampler() = default;

void
LinkThroughputSampler::DoDispose()
{
    m_event.Cancel();
    m_counter = nullptr;
    Object::DoDispose();
}

void
LinkThroughputSampler::SetCounter(uint32_t links, uint8_t classes, Counter counter)
{
    m_links = links;
    m_classes = classes;
    m_counter = std::move(counter);
    m_last.assign(static_cast<size_t>(links) * classes, 0);
}

bool
LinkThroughputSampler::IsEnabled() const
{
    return m_interval.IsStrictlyPositive();
}

Time
LinkThroughputSampler::GetInterval() const
{
    return m_interval;
}

void
LinkThroughputSampler::Start()
{
    if (!IsEnabled())
    {
        return;
    }
    if (!m_counter)
    {
        throw std::logic_error("LinkThroughputSampler::Start: no counter (SetCounter)");
    }
    for (uint32_t l = 0; l < m_links; ++l)
    {
        for (uint8_t tc = 0; tc < m_classes; ++tc)
        {
            m_last[static_cast<size_t>(l) * m_classes + tc] = m_counter(l, tc);
        }
    }
    m_lastTime = Simulator::Now();
    m_event = Simulator::Schedule(m_interval, &LinkThroughputSampler::Sample, this);
}

void
LinkThroughputSampler::Sample()
{
    ReadCounters();
    m_event = Simulator::Schedule(m_interval, &LinkThroughputSampler::Sample, this);
}

void
LinkThroughputSampler::Finish()
{
    if (!IsEnabled() || !m_counter)
    {
        return;
    }
    m_event.Cancel();
    if (Simulator::Now() > m_lastTime)
    {
        ReadCounters();
    }
}

void
LinkThroughputSampler::ReadCounters()
{
    const Time now = Simulator::Now();
    const Time length = now - m_lastTime;
    m_lastTime = now;
    for (uint32_t l = 0; l < m_links; ++l)
    {
        for (uint8_t tc = 0; tc < m_classes; ++tc)
        {
            const uint64_t bytes = m_counter(l, tc);
            uint64_t& last = m_last[static_cast<size_t>(l) * m_classes + tc];
            // a counter never decreases; guard anyway (a device reset would read as 0 bytes)
            const uint64_t delta = bytes >= last ? bytes - last : 0;
            last = bytes;
            if (delta > 0)
            {
                m_sampleTrace(now, length, l, tc, delta);
            }
        }
    }
    NS_LOG_LOGIC("sample at " << now.GetSeconds() << " s over " << length.GetSeconds() << " s");
}

} // namespace ns3
