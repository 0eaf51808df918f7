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

#ifndef CRUX_SCHEDULER_TEST_UTIL_H
#define CRUX_SCHEDULER_TEST_UTIL_H

// Shared GoogleTest helpers for the scheduler tests (test/gtest/*-scheduler-test.cc): a seeded
// random leaf-spine ClusterModel and the common determinism / bad-input checks every
// CommScheduler must pass. Scheduling layer (ns-3 core) + GoogleTest, no Simulator.

#include "ns3/comm-scheduler.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace test
{

/**
 * \brief A flow with a single candidate path.
 *
 * \param id flow id (SchedFlow::id)
 * \param bytes bytes the flow sends per iteration (SchedFlow::bytesPerIteration)
 * \param path link ids of the only candidate path (SchedFlow::candidatePaths = {path});
 * SchedFlow::defaultPath stays 0
 * \return the flow
 */
SchedFlow PathFlow(uint32_t id, double bytes, std::vector<uint32_t> path);

/**
 * \brief A job with the given flows, 1e12 FLOPs and 1 s of computation per iteration.
 *
 * Sets SchedJob::flopsPerIteration = 1e12 FLOPs and SchedJob::computeTime = 1.0 s; every other
 * field (overlapStart, numGpus, measuredCommTime, ...) keeps its SchedJob default.
 *
 * \param id job id (SchedJob::id)
 * \param flows the job's flows, in order (SchedJob::flows)
 * \return the job
 */
SchedJob FlowsJob(uint32_t id, std::vector<SchedFlow> flows);

/**
 * \brief A random leaf-spine ClusterModel for scheduler tests.
 *
 * Topology: 4 ToRs x 4 hosts (16 hosts), 3 aggregation switches, every link 100 Gbit/s
 * (SchedLink::bandwidth = 100e9 bit/s), 56 links in all:
 *  - host h uplink = link 2h ("h<h>-up"), downlink = link 2h+1 ("h<h>-down");
 *  - with base = 32, ToR t -> agg a = link base + 2(3t + a) ("tor-agg<3t+a>"), agg a -> ToR t =
 *    that id + 1 ("agg-tor<3t+a>").
 *
 * Jobs: \p numJobs jobs with ids 10, 11, ..., each with flopsPerIteration in [1e12, 1e14) FLOPs,
 * computeTime in [0.05, 0.55) s, overlapStart in [0, 1), numGpus 8, and ring traffic over 2-4
 * distinct random hosts: flow i (id i) goes from host i to host i+1 (mod count) and carries
 * bytesPerIteration in [1e8, 1e9) bytes. A flow within one ToR has the single candidate path
 * {up, down}; a flow across ToRs has 3 candidates (one per aggregation switch, {up, tor-agg,
 * agg-tor, down}). The ECMP default path (SchedFlow::defaultPath) is drawn at random.
 *
 * All randomness comes from one std::mt19937_64 seeded with \p seed, drawn in a fixed order, so
 * the same (numJobs, seed) always gives the same model.
 *
 * \param numJobs number of jobs (0 gives a model with links and no jobs)
 * \param seed seed of the std::mt19937_64 that draws the jobs
 * \return the model (links as above, jobs in id order)
 */
ClusterModel RandomLeafSpine(uint32_t numJobs, uint64_t seed);

/**
 * \brief Runs scheduler \p name on a model and returns the error it reports.
 *
 * \param name a scheduler name accepted by CreateCommScheduler (an unknown name makes
 * CreateCommScheduler throw std::invalid_argument, whose message is returned too)
 * \param m the cluster model
 * \param c the scheduler configuration
 * \return the what() of the std::invalid_argument thrown by CreateCommScheduler(name) or by
 * CommScheduler::Schedule(m, c); "" if nothing was thrown. Other exception types propagate.
 */
std::string ScheduleError(const std::string& name, const ClusterModel& m, const SchedulerConfig& c);

/**
 * \brief Creates scheduler \p name with attribute overrides and returns the error reported.
 * \param name a scheduler name
 * \param attributes attribute overrides (CreateCommScheduler)
 * \return the what() of the std::invalid_argument thrown by CreateCommScheduler; "" if none
 */
std::string CreateError(const std::string& name, const CommSchedulerAttributes& attributes);

/**
 * \brief GoogleTest assertions that scheduler \p name is deterministic.
 *
 * On RandomLeafSpine(14, 77) with SchedulerConfig::numLevels = 3 and seed 11, asserts (as
 * non-fatal EXPECT_* failures, except the job count which is an ASSERT): two runs give equal
 * Decisions; the Decision covers all 14 jobs and names the scheduler \p name; seed 12 gives
 * the same Decision (the scheduler uses no randomness); and shuffling ClusterModel::jobs (with
 * std::mt19937_64 seeded 5) gives the same Decision (job order does not matter).
 *
 * \param name a scheduler name accepted by CreateCommScheduler
 */
void ExpectDeterministic(const std::string& name);

/**
 * \brief GoogleTest assertions that scheduler \p name rejects bad input with a clear message.
 *
 * Asserts that a model with one link and no jobs fails with a std::invalid_argument whose
 * message contains "ClusterModel.jobs is empty", and that RandomLeafSpine(3, 1) with
 * SchedulerConfig::numLevels = 0 fails with one containing "SchedulerConfig.numLevels must be
 * >= 1".
 *
 * \param name a scheduler name accepted by CreateCommScheduler
 */
void ExpectBadInputRejected(const std::string& name);

} // namespace test
} // namespace ns3

#endif /* CRUX_SCHEDULER_TEST_UTIL_H */
