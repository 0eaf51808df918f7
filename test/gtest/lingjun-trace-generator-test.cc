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

// Synthetic Lingjun traces: determinism, the published statistics (SOURCE.md) within
// tolerance, the real readers reading the output back, and a placement that never puts more
// GPUs on a host than it has.

#include "ns3/lingjun-trace-generator.h"
#include "ns3/lingjun-trace.h"
#include "ns3/rfc4180-csv.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const LingjunTopology&
RealTopology()
{
    static const LingjunTopology topo = [] {
        std::vector<TraceWarning> w;
        return ReadLingjunTopology(std::string(CRUX_SOURCE_DIR) + "/data/lingjun-2023/topo.csv", w);
    }();
    return topo;
}

/// The generated files read back with the real readers.
struct ReadBack
{
    LingjunJobTable jobs;
    LingjunWorkerTable workers;
    std::vector<TraceWarning> parseWarnings;
    LingjunTrace trace;
    LingjunTraceStats stats;
};

ReadBack
Read(const GeneratedLingjunTrace& g)
{
    ReadBack r;
    std::istringstream jobIn(g.jobCsv);
    std::istringstream workerIn(g.workerCsv);
    r.jobs = ParseLingjunJobs(jobIn, "job.csv", r.parseWarnings);
    r.workers = ParseLingjunWorkers(workerIn, "worker.csv", r.parseWarnings);
    r.trace = AssembleLingjunTrace(r.jobs, r.workers, RealTopology());
    r.stats = ComputeLingjunTraceStats(r.jobs, r.workers, RealTopology(), r.trace.jobs);
    return r;
}

double
Share(const std::map<std::string, uint64_t>& m, const std::string& k, uint64_t total)
{
    auto it = m.find(k);
    return it == m.end() ? 0.0 : static_cast<double>(it->second) / static_cast<double>(total);
}

} // namespace

TEST(LingjunGenerator, SameSeedGivesIdenticalFilesOtherSeedDiffers)
{
    LingjunGeneratorConfig c;
    c.span = 2 * 86400.0;
    c.seed = 11;
    GeneratedLingjunTrace a = GenerateLingjunTrace(c, RealTopology());
    GeneratedLingjunTrace b = GenerateLingjunTrace(c, RealTopology());
    EXPECT_EQ(a.jobCsv, b.jobCsv);
    EXPECT_EQ(a.workerCsv, b.workerCsv);
    c.seed = 12;
    GeneratedLingjunTrace d = GenerateLingjunTrace(c, RealTopology());
    EXPECT_NE(a.jobCsv, d.jobCsv);
    EXPECT_NE(a.workerCsv, d.workerCsv);
}

TEST(LingjunGenerator, FilesHaveTheRealColumnsAndQuotedResJson)
{
    LingjunGeneratorConfig c;
    c.span = 86400.0;
    GeneratedLingjunTrace g = GenerateLingjunTrace(c, RealTopology());
    std::istringstream jobIn(g.jobCsv);
    Rfc4180Reader jobs(jobIn);
    std::vector<std::string> header;
    ASSERT_EQ(jobs.Next(header), Rfc4180Reader::Status::RECORD);
    ASSERT_EQ(header.size(), 130u);
    EXPECT_EQ(header[0], "id");
    EXPECT_EQ(header[2], "job_name");
    EXPECT_EQ(header[13], "model");
    EXPECT_EQ(header[21], "gmt_job_submitted");
    EXPECT_EQ(header[31], "job_restart_times");
    EXPECT_EQ(header[32], "");
    EXPECT_EQ(header[129], "");

    std::istringstream workerIn(g.workerCsv);
    std::string line;
    std::getline(workerIn, line);
    EXPECT_EQ(line,
              "id,job_name,worker_name,replica_type,host_ip,gmt_created,gmt_pod_running,"
              "gmt_pod_finished,RES");
    std::getline(workerIn, line);
    // RES is quoted with doubled quotes, as RFC 4180 and the real file have it.
    EXPECT_NE(line.find(",\"{\"\"cpu\"\": \""), std::string::npos) << line;
    EXPECT_NE(line.find("\"\"nvidia.com/gpu\"\": \"\""), std::string::npos) << line;
    EXPECT_NE(line.find("-master-0,master,"), std::string::npos) << line;
}

TEST(LingjunGenerator, ReaderRoundTripsTheOutput)
{
    LingjunGeneratorConfig c;
    c.seed = 5;
    c.span = 3 * 86400.0;
    GeneratedLingjunTrace g = GenerateLingjunTrace(c, RealTopology());
    ReadBack r = Read(g);
    // Every row the generator wrote passes the row checks.
    EXPECT_TRUE(r.parseWarnings.empty()) << ToString(r.parseWarnings.front());
    EXPECT_EQ(r.jobs.rows.size(), g.jobs);
    EXPECT_EQ(r.workers.rows.size(), g.pods);
    EXPECT_EQ(g.oversubscribedPods, 0u);

    // Every assembly warning is one of the documented, intended kinds.
    std::map<std::string, int> kinds;
    for (const auto& w : r.trace.warnings)
    {
        const std::string& s = w.reason;
        const char* kind = s.find("is not in the topology") != std::string::npos ? "unknown host"
                           : s.find("hosts not in the topology") != std::string::npos
                               ? "job dropped"
                           : s.find("never ran") != std::string::npos      ? "never ran"
                           : s.find("not in job.csv") != std::string::npos ? "orphan"
                           : s.find("status Running") != std::string::npos ? "running"
                           : s.find("no pod rows") != std::string::npos    ? "no pods"
                                                                           : "other";
        ++kinds[kind];
    }
    EXPECT_EQ(kinds.count("other"), 0u);
    EXPECT_EQ(static_cast<uint64_t>(kinds["never ran"]), r.stats.neverRan);
    EXPECT_EQ(static_cast<uint64_t>(kinds["orphan"]), g.orphanJobs);
    std::map<std::string, const LingjunJobRecord*> byName;
    for (const auto& row : r.jobs.rows)
    {
        byName[row.name] = &row;
    }
    // Unknown hosts are reported for the pods of jobs in job.csv (orphans get one warning).
    int unknownOfKnownJobs = 0;
    for (const auto& p : r.workers.rows)
    {
        unknownOfKnownJobs +=
            byName.count(p.jobName) != 0 && !RealTopology().FindHost(p.hostIp).has_value();
    }
    EXPECT_GT(unknownOfKnownJobs, 0);
    EXPECT_EQ(kinds["unknown host"], unknownOfKnownJobs);

    // Job rows and their assembled jobs agree; gpus and hosts are consistent.
    ASSERT_GT(r.trace.jobs.size(), 100u);
    for (const auto& j : r.trace.jobs)
    {
        const LingjunJobRecord& row = *byName.at(j.name);
        EXPECT_EQ(j.start, *row.running);
        EXPECT_EQ(j.end, *row.End());
        EXPECT_GE(j.end, j.start);
        EXPECT_GE(j.start, j.submit);
        uint32_t sum = 0;
        for (size_t i = 0; i < j.hosts.size(); ++i)
        {
            EXPECT_LT(j.hosts[i], RealTopology().hosts.size());
            EXPECT_LE(j.gpusPerHost[i], c.gpusPerHost);
            sum += j.gpusPerHost[i];
        }
        EXPECT_EQ(sum, j.gpus);
        // One GPU count per pod in a job: gpus is a multiple of the pod count.
        EXPECT_EQ(j.gpus % j.pods, 0u) << j.name;
    }

    // Files on disk read back the same.
    const std::string dir = testing::TempDir();
    WriteLingjunTrace(c, RealTopology(), dir + "/lj-job.csv", dir + "/lj-worker.csv");
    std::vector<TraceWarning> w;
    LingjunJobTable jobs = ReadLingjunJobs(dir + "/lj-job.csv", w);
    LingjunWorkerTable workers = ReadLingjunWorkers(dir + "/lj-worker.csv", w);
    EXPECT_TRUE(w.empty());
    EXPECT_EQ(jobs.rows.size(), r.jobs.rows.size());
    EXPECT_EQ(workers.rows.size(), r.workers.rows.size());
    EXPECT_EQ(jobs.rows.back().name, r.jobs.rows.back().name);
    EXPECT_EQ(workers.rows.back().hostIp, r.workers.rows.back().hostIp);
}

TEST(LingjunGenerator, TwoWeeksReproduceThePublishedStatistics)
{
    // Published (SOURCE.md): 5,180 job rows in two weeks; Succeeded 2,242, Stopped 1,634,
    // Failed 1,295, Running 9; 803 never ran; 23,742 worker rows over 5,294 job_names, 5,051 of
    // them in job.csv; most pods ask for 8 GPUs, then 1; 12-14 % of worker rows on hosts not in
    // topo.csv. Peak concurrency "about 30" (design/algorithms.md). Tolerances: about 4 standard
    // deviations of the Poisson/binomial sampling noise of one two-week trace.
    for (uint64_t seed : {1, 2, 3})
    {
        SCOPED_TRACE("seed " + std::to_string(seed));
        LingjunGeneratorConfig c;
        c.seed = seed;
        GeneratedLingjunTrace g = GenerateLingjunTrace(c, RealTopology());
        ReadBack r = Read(g);
        const LingjunTraceStats& s = r.stats;
        EXPECT_EQ(g.oversubscribedPods, 0u);

        EXPECT_NEAR(static_cast<double>(s.jobRows), 5180, 4 * std::sqrt(5180.0));
        EXPECT_NEAR((s.lastSubmit - s.firstSubmit) / 86400.0, 14, 0.05);
        EXPECT_NEAR(s.submitsPerDay, 370, 25);
        EXPECT_NEAR(Share(s.statusCounts, "Succeeded", s.jobRows), 2242.0 / 5180, 0.03);
        EXPECT_NEAR(Share(s.statusCounts, "Stopped", s.jobRows), 1634.0 / 5180, 0.03);
        EXPECT_NEAR(Share(s.statusCounts, "Failed", s.jobRows), 1295.0 / 5180, 0.03);
        EXPECT_LT(Share(s.statusCounts, "Running", s.jobRows), 0.005);
        EXPECT_NEAR(static_cast<double>(s.neverRan) / s.jobRows, 803.0 / 5180, 0.025);

        EXPECT_NEAR(static_cast<double>(s.workerRows), 23742, 0.08 * 23742);
        EXPECT_NEAR(static_cast<double>(s.workerJobNames), 5294, 4 * std::sqrt(5294.0));
        EXPECT_NEAR(static_cast<double>(s.workerJobNamesInJobCsv) / s.workerJobNames,
                    5051.0 / 5294,
                    0.015);
        EXPECT_NEAR(s.podsPerWorkerJob, 23742.0 / 5294, 0.25);
        EXPECT_GT(s.PodGpuShare(8), 0.5);              // "most pods ask for 8 GPUs"
        EXPECT_GT(s.PodGpuShare(1), s.PodGpuShare(4)); // "the next largest group asks for 1"
        EXPECT_GT(s.PodGpuShare(1), s.PodGpuShare(2));
        const double unknown = static_cast<double>(s.unknownHostRows) / s.workerRows;
        EXPECT_GE(unknown, 0.10);
        EXPECT_LE(unknown, 0.16);

        EXPECT_NEAR(s.meanConcurrentJobs, 15, 5);
        EXPECT_GE(s.peakConcurrentJobs, 20u);
        EXPECT_LE(s.peakConcurrentJobs, 45u);
        // The duration distribution is the configured lognormal (median 12 min), read back
        // through minute-resolution timestamps.
        EXPECT_NEAR(s.durationMedianMin, 12, 2);
        EXPECT_GT(s.durationMeanMin, 50);
        EXPECT_LT(s.durationMeanMin, 150);
    }
}

TEST(LingjunGenerator, PlacementNeverExceedsAHostsGpusAndKeepsJobsLocal)
{
    LingjunGeneratorConfig c;
    c.seed = 9;
    ReadBack r = Read(GenerateLingjunTrace(c, RealTopology()));
    const LingjunTopology& topo = RealTopology();
    // Sweep every host's GPU use over time (ends before starts at equal times).
    std::map<uint32_t, std::vector<std::pair<double, int>>> events;
    for (const auto& j : r.trace.jobs)
    {
        for (size_t i = 0; i < j.hosts.size(); ++i)
        {
            events[j.hosts[i]].push_back({j.start, static_cast<int>(j.gpusPerHost[i])});
            events[j.hosts[i]].push_back({j.end, -static_cast<int>(j.gpusPerHost[i])});
        }
    }
    int worst = 0;
    for (auto& [host, ev] : events)
    {
        std::sort(ev.begin(), ev.end());
        int now = 0;
        for (const auto& e : ev)
        {
            now += e.second;
            worst = std::max(worst, now);
        }
    }
    EXPECT_LE(worst, static_cast<int>(c.gpusPerHost));
    EXPECT_EQ(worst, static_cast<int>(c.gpusPerHost)); // hosts do fill up

    // Locality: jobs on at most 2 hosts sit under one ToR (they fit in any ToR with free room).
    int small = 0;
    int oneTor = 0;
    for (const auto& j : r.trace.jobs)
    {
        if (j.hosts.size() > 2)
        {
            continue;
        }
        ++small;
        std::set<uint32_t> tors;
        for (uint32_t h : j.hosts)
        {
            tors.insert(topo.hostTor[h]);
        }
        oneTor += tors.size() == 1;
    }
    ASSERT_GT(small, 500);
    EXPECT_GT(static_cast<double>(oneTor) / small, 0.95);
}

TEST(LingjunGenerator, BadConfigurationIsRejected)
{
    LingjunGeneratorConfig c;
    EXPECT_THROW(GenerateLingjunTrace(c, LingjunTopology{}), std::invalid_argument);
    c.span = 0;
    EXPECT_THROW(GenerateLingjunTrace(c, RealTopology()), std::invalid_argument);
    c = LingjunGeneratorConfig{};
    c.podGpuWeights = {{16, 1.0}};
    EXPECT_THROW(GenerateLingjunTrace(c, RealTopology()), std::invalid_argument);
    c = LingjunGeneratorConfig{};
    c.statusWeights = {{"Succeeded", 0}};
    EXPECT_THROW(GenerateLingjunTrace(c, RealTopology()), std::invalid_argument);
    c = LingjunGeneratorConfig{};
    c.unknownHostFraction = 1;
    EXPECT_THROW(GenerateLingjunTrace(c, RealTopology()), std::invalid_argument);
    EXPECT_THROW(WriteLingjunTrace(LingjunGeneratorConfig{},
                                   RealTopology(),
                                   "/nonexistent-dir/job.csv",
                                   "/nonexistent-dir/worker.csv"),
                 TraceError);
}
