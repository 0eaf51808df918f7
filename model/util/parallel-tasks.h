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

#ifndef CRUX_PARALLEL_TASKS_H
#define CRUX_PARALLEL_TASKS_H

// Pure C++ (no ns-3 includes), header only.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief Run task(i) for every i in [0, n) on up to \p threads threads, this one included, each
 * index taken once from a shared counter (the order of the calls varies between runs; a caller
 * that stores each result at its index and reads them in index order stays deterministic). The
 * independent computations of a trace run: Crux's correction factors k_j of one decision
 * (CruxIntensityPriorities) and the components of an epoch (ExactEpochRateModel).
 * \param n number of tasks
 * \param threads threads to use (0 or 1 = every task on this thread, in index order); fewer if
 *        the system gives no more
 * \param task callable with a std::size_t index; what it throws is caught
 * \return [task] the exception it threw, null if none: the caller rethrows the first in index
 *         order, the one a sequential run would throw
 */
template <class Task>
std::vector<std::exception_ptr>
RunParallelTasks(std::size_t n, std::size_t threads, Task task)
{
    std::vector<std::exception_ptr> error(n);
    std::atomic<std::size_t> next{0};
    auto work = [&]() {
        for (std::size_t i = next++; i < n; i = next++)
        {
            try
            {
                task(i);
            }
            catch (...)
            {
                error[i] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    const std::size_t helpers = n < 2 ? 0 : std::min(std::max<std::size_t>(threads, 1), n) - 1;
    for (std::size_t t = 0; t < helpers; ++t)
    {
        try
        {
            pool.emplace_back(work);
        }
        catch (const std::system_error&)
        {
            break; // no thread to be had: the ones running (and this one) do the rest
        }
    }
    work();
    for (std::thread& t : pool)
    {
        t.join();
    }
    return error;
}

} // namespace ns3

#endif // CRUX_PARALLEL_TASKS_H
