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

// Unit tests of the ns-3.35/3.37 adapter (model/util/crux-compat.h), run in every build mode:
// functor events run at their time, in scheduling order, with their arguments copied at
// scheduling time and with the context given; Callbacks from functors and member functions with
// bound arguments call what they hold; crux::BytesTxTime (model/fabric/wire-time.h) rounds to the
// nearest nanosecond (ns-3.37's DataRate::CalculateBytesTxTime; ns-3.35's truncates) and times
// messages of 512 MiB and more in 256 MiB pieces instead of wrapping at 2^32 bits as ns-3's does.

#include "ns3/crux-compat.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/wire-time.h"

#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Functor events: time, order, copied arguments, context, cancel.
class CompatEventTestCase : public TestCase
{
  public:
    CompatEventTestCase()
        : TestCase("functor events: time, FIFO order at equal times, arguments copied when "
                   "scheduled, context, Cancel")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<std::string> log;
        auto note = [&log](const std::string& what) {
            log.push_back(what + "@" + std::to_string(Simulator::Now().GetNanoSeconds()));
        };
        int value = 1;
        crux::Schedule(NanoSeconds(20), [&note]() { note("b"); });
        crux::Schedule(NanoSeconds(10), [&note]() { note("a"); });
        crux::Schedule(NanoSeconds(20), [&note]() { note("c"); });
        crux::Schedule(
            NanoSeconds(30),
            [&note](int v, const std::string& s) { note(s + std::to_string(v)); },
            value,
            std::string("arg"));
        value = 2; // the event above keeps the 1 it copied
        crux::ScheduleNow([&note]() { note("now"); });
        uint32_t context = 0;
        crux::ScheduleWithContext(7, NanoSeconds(40), [&context]() {
            context = Simulator::GetContext();
        });
        EventId cancelled = crux::Schedule(NanoSeconds(35), [&note]() { note("cancelled"); });
        Simulator::Cancel(cancelled);
        Callback<void> cb = crux::MakeFunctorCallback<void>([&note]() { note("callback"); });
        crux::Schedule(NanoSeconds(50), cb);
        Simulator::Run();
        Simulator::Destroy();

        const std::vector<std::string> expected =
            {"now@0", "a@10", "b@20", "c@20", "arg1@30", "callback@50"};
        NS_TEST_ASSERT_MSG_EQ(log.size(), expected.size(), "every event ran once");
        for (size_t i = 0; i < expected.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(log[i], expected[i], "event " << i);
        }
        NS_TEST_EXPECT_MSG_EQ(context, 7u, "ScheduleWithContext runs with the given context");
    }
};

/// An object with member functions to bind.
class Counter : public Object
{
  public:
    /// \param port bound  \param bytes call-time  \return port * 1000 + bytes
    uint32_t Add(uint32_t port, uint32_t bytes)
    {
        m_total += port * 1000 + bytes;
        return port * 1000 + bytes;
    }

    /// \param a bound  \param b bound  \param c call-time  \return the sum with the total
    uint64_t Sum(uint32_t a, uint32_t b, uint32_t c) const
    {
        return m_total + a + b + c;
    }

    uint64_t m_total{0}; //!< sum of Add()
};

/// Callbacks from functors and bound member functions.
class CompatCallbackTestCase : public TestCase
{
  public:
    CompatCallbackTestCase()
        : TestCase("Callbacks: from a lambda (explicit and deduced types), member function with "
                   "bound arguments (raw pointer and Ptr, const), IsNull")
    {
    }

  private:
    void DoRun() override
    {
        int hits = 0;
        Callback<int, int, int> add =
            crux::MakeFunctorCallback<int, int, int>([&hits](int a, int b) {
                ++hits;
                return a + b;
            });
        NS_TEST_EXPECT_MSG_EQ(add(2, 3), 5, "explicit-type functor Callback");
        Callback<double, const std::string&> len =
            crux::MakeFunctorCallback([](const std::string& s) -> double { return s.size(); });
        NS_TEST_EXPECT_MSG_EQ(len("crux"), 4.0, "deduced-type functor Callback");
        NS_TEST_EXPECT_MSG_EQ(hits, 1, "the functor ran once");
        NS_TEST_EXPECT_MSG_EQ(add.IsNull(), false, "a made Callback is not null");

        Ptr<Counter> counter = CreateObject<Counter>();
        Callback<uint32_t, uint32_t> port3 =
            crux::MakeBoundMemberCallback(&Counter::Add, PeekPointer(counter), 3u);
        Callback<uint32_t, uint32_t> port4 =
            crux::MakeBoundMemberCallback(&Counter::Add, counter, 4u);
        NS_TEST_EXPECT_MSG_EQ(port3(10), 3010u, "bound first argument, raw pointer");
        NS_TEST_EXPECT_MSG_EQ(port4(20), 4020u, "bound first argument, Ptr");
        Callback<uint64_t, uint32_t> sum =
            crux::MakeBoundMemberCallback(&Counter::Sum, counter, 1u, 2u);
        NS_TEST_EXPECT_MSG_EQ(sum(3), 3010u + 4020u + 6u, "const member, two bound arguments");
        Callback<uint64_t, uint32_t, uint32_t, uint32_t> none =
            crux::MakeBoundMemberCallback(&Counter::Sum, counter);
        NS_TEST_EXPECT_MSG_EQ(none(0, 0, 0), 7030u, "no bound argument");
    }
};

/// BytesTxTime: nearest-nanosecond rounding, no 32-bit wrap.
class CompatTxTimeTestCase : public TestCase
{
  public:
    CompatTxTimeTestCase()
        : TestCase("BytesTxTime: 8 x bytes over the rate, rounded to the nearest ns (ns-3.37's "
                   "CalculateBytesTxTime), no wrap at 2^32 bits")
    {
    }

  private:
    void DoRun() override
    {
        // 1078 B at 100 Gbit/s = 86.24 ns -> 86 ns; 1 B at 3 Gbit/s = 2.67 ns -> 3 ns (truncation
        // would give 2 ns); 4158 B at 400 Gbit/s = 83.16 ns -> 83 ns; 1 MiB at 25 Gbit/s =
        // 335544.32 ns -> 335544 ns.
        NS_TEST_EXPECT_MSG_EQ(crux::BytesTxTime(DataRate("100Gbps"), 1078),
                              NanoSeconds(86),
                              "1078 B at 100 Gbit/s");
        NS_TEST_EXPECT_MSG_EQ(crux::BytesTxTime(DataRate("3Gbps"), 1),
                              NanoSeconds(3),
                              "1 B at 3 Gbit/s rounds up");
        NS_TEST_EXPECT_MSG_EQ(crux::BytesTxTime(DataRate("400Gbps"), 4158),
                              NanoSeconds(83),
                              "4158 B at 400 Gbit/s");
        NS_TEST_EXPECT_MSG_EQ(crux::BytesTxTime(DataRate("25Gbps"), 1 << 20),
                              NanoSeconds(335544),
                              "1 MiB at 25 Gbit/s");
        // 2^29 B = 2^32 bits: ns-3's DataRate wraps to 0; here 2 x 256 MiB at 100 Gbit/s =
        // 2 x 21,474,836.48 ns -> 2 x 21,474,836 ns.
        NS_TEST_EXPECT_MSG_EQ(crux::BytesTxTime(DataRate("100Gbps"), uint64_t(1) << 29),
                              NanoSeconds(2 * 21474836),
                              "512 MiB: two 256 MiB pieces, no wrap");
        // 5 GiB + 3 B at 8 Gbit/s: 20 pieces of 268,435,456 ns + 3 ns
        NS_TEST_EXPECT_MSG_EQ(crux::BytesTxTime(DataRate("8Gbps"), (uint64_t(5) << 30) + 3),
                              NanoSeconds(20 * int64_t(268435456) + 3),
                              "5 GiB + 3 B");
        NS_TEST_EXPECT_MSG_EQ(crux::BytesTxTime(DataRate("8Gbps"), 1u << 28),
                              NanoSeconds(268435456),
                              "256 MiB at 8 Gbit/s");
    }
};

/// The adapter's suite.
class CruxCompatTestSuite : public TestSuite
{
  public:
    CruxCompatTestSuite()
        : TestSuite("crux-compat", UNIT)
    {
        AddTestCase(new CompatEventTestCase, TestCase::QUICK);
        AddTestCase(new CompatCallbackTestCase, TestCase::QUICK);
        AddTestCase(new CompatTxTimeTestCase, TestCase::QUICK);
    }
};

/// Registers the suite.
CruxCompatTestSuite g_cruxCompatTestSuite;

} // namespace
