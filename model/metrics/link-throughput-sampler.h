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

#ifndef CRUX_LINK_THROUGHPUT_SAMPLER_H
#define CRUX_LINK_THROUGHPUT_SAMPLER_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Sampled per-link throughput of a fabric, per traffic class: every \c Interval the
 * bytes each link carried in each class since the previous sample, as bit/s over the interval.
 *
 * Fabric-agnostic: the fabric's cumulative byte counters are read through a callback
 * (SetCounter; the packet fabric's QbbNetDevice::GetTxBytes, the flow fabric's
 * FlowTransport::GetLinkBytes), so sampling adds one simulator event per interval and nothing on
 * the per-packet or per-flow path. Off by default (\c Interval 0): then Start() schedules
 * nothing and a run's events and results are those without the sampler.
 *
 * Every sample fires the trace source \c Sample once per (link, class) that carried bytes in
 * the interval. A sample covers (end − Interval, end]; the bytes of one interval sum, over the
 * samples, to the counter's value at the last sample (exact: differences of one counter);
 * Finish() adds the partial interval up to the end of the run.
 * While sampling, the simulator always has a next event: a run ends at its stop time or when
 * its measured jobs finish (Simulator::Stop), not when its events run out.
 */
class LinkThroughputSampler : public Object
{
  public:
    /**
     * \brief Get the TypeId.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LinkThroughputSampler();
    ~LinkThroughputSampler() override;

    /**
     * \brief A fabric's cumulative bytes of one link and traffic class since the run began.
     * Arguments: link id (0 .. links − 1), traffic class (0 .. classes − 1).
     */
    using Counter = std::function<uint64_t(uint32_t link, uint8_t tc)>;

    /**
     * \brief Set the counters to sample.
     * \param links number of links (ids 0 .. links − 1)
     * \param classes number of traffic classes (8 on crux's fabrics)
     * \param counter the fabric's cumulative byte counter
     */
    void SetCounter(uint32_t links, uint8_t classes, Counter counter);

    /// \return true when \c Interval > 0 (Start() samples)
    bool IsEnabled() const;

    /// \return the sampling interval (attribute \c Interval; 0 = off)
    Time GetInterval() const;

    /**
     * \brief Take the first sample one \c Interval from now and every \c Interval after it.
     * Nothing when \c Interval is 0. \throws std::logic_error without SetCounter()
     */
    void Start();

    /**
     * \brief Take a last sample of the partial interval since the previous one (call at the end
     * of a run, before reading the fabric's final counters): the samples then sum to those
     * counters exactly. Stops sampling. Nothing when off or when no time passed.
     */
    void Finish();

    /**
     * TracedCallback signature of \c Sample.
     * \param end end of the sampled interval
     * \param length its length (Interval; shorter for the last sample, of Finish())
     * \param link link id
     * \param tc traffic class
     * \param bytes bytes the link carried in the class during the interval (throughput:
     *        bytes × 8 / length)
     */
    typedef void (
        *SampleTracedCallback)(Time end, Time length, uint32_t link, uint8_t tc, uint64_t bytes);

  protected:
    void DoDispose() override;

  private:
    /// Read every counter, fire \c Sample for the non-zero differences, schedule the next one.
    void Sample();
    /// Read every counter and fire \c Sample for the non-zero differences since m_lastTime.
    void ReadCounters();

    Time m_interval;              //!< sampling interval (0 = off)
    uint32_t m_links{0};          //!< links sampled
    uint8_t m_classes{0};         //!< classes per link
    Counter m_counter;            //!< the fabric's counter
    std::vector<uint64_t> m_last; //!< counter at the previous sample, [link × classes + tc]
    EventId m_event;              //!< the next sample
    Time m_lastTime;              //!< time of the previous sample (or of Start())
    TracedCallback<Time, Time, uint32_t, uint8_t, uint64_t> m_sampleTrace; //!< \c Sample
};

} // namespace ns3

#endif // CRUX_LINK_THROUGHPUT_SAMPLER_H
