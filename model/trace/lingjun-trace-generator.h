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

#ifndef CRUX_LINGJUN_TRACE_GENERATOR_H
#define CRUX_LINGJUN_TRACE_GENERATOR_H

// Pure C++ (no ns-3 includes).

#include "lingjun-trace.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief Knobs of the synthetic Lingjun trace; the defaults reproduce what is published.
 *
 * Only job.csv's and worker.csv's schemas and a few aggregate counts of the real files are
 * published (data/lingjun-2023/SOURCE.md; the two files themselves could not be obtained).
 * Each default below says which statistic it reproduces, or that it is an ASSUMPTION where
 * nothing is published. Counts quoted are of the real trace: 5,180 job rows, 23,742 worker rows,
 * 5,294 distinct job_names in worker.csv (5,051 of them in job.csv).
 */
struct LingjunGeneratorConfig
{
    uint64_t seed{1}; //!< seed of the single std::mt19937_64 all draws come from
    /// First possible submission, seconds (LingjunTime epoch); default 2023/7/15 00:00, the
    /// first day of the real timestamps.
    double start{1689379200.0};
    /// Submission window, seconds. Default two weeks (the paper and the repo's README: "two
    /// weeks").
    double span{14 * 86400.0};
    /// Poisson arrival rate of job.csv rows, jobs per day: 5,180 rows over two weeks. Arrivals
    /// are homogeneous (no diurnal cycle: none is published).
    double jobsPerDay{5180.0 / 14.0};
    /// Status mix, as weights: Succeeded 2242, Stopped 1634, Failed 1295, Running 9 (SOURCE.md).
    std::vector<std::pair<std::string, double>> statusWeights{{"Succeeded", 2242},
                                                              {"Stopped", 1634},
                                                              {"Failed", 1295},
                                                              {"Running", 9}};
    /// Share of Stopped and Failed jobs that never ran (empty gmt_job_running): the real trace
    /// has 803 such jobs, all of which must be Stopped or Failed: 803 / (1634 + 1295).
    double neverRanShare{803.0 / (1634.0 + 1295.0)};
    /// Share of never-ran jobs with no pod rows at all: 5,180 - 5,051 = 129 job rows have no
    /// worker rows; ASSUMPTION that they are all among the never-ran jobs: 129 / 803.
    double noPodsShare{129.0 / 803.0};
    /// Pod rows of job_names absent from job.csv, per job.csv row: 5,294 - 5,051 = 243 such
    /// job_names per 5,180 rows. They are generated like ordinary jobs that ran.
    double orphanJobsPerJob{243.0 / 5180.0};
    /// Mean pods (worker rows) per job that has pods: 23,742 / 5,294 = 4.485. Pods per job =
    /// 1 + std::geometric_distribution(p = 1 / mean) (ASSUMPTION on the shape: only the mean is
    /// published); pod 0 is the "master", the others "worker" (no "aimaster" pods are made).
    double podsPerJobMean{23742.0 / 5294.0};
    /// GPUs per pod, one value per job for all its pods, as weights. Published: "most GPU pods
    /// ask for 8 GPUs, and the next largest group asks for 1"; the shares 0.70 / 0.20 / 0.06 /
    /// 0.04 are an ASSUMPTION that respects only that order.
    std::vector<std::pair<uint32_t, double>> podGpuWeights{{8, 0.70},
                                                           {1, 0.20},
                                                           {4, 0.06},
                                                           {2, 0.04}};
    /// Model labels, as weights: the 16 most common real labels and their counts (SOURCE.md;
    /// 5,036 of the 5,180 rows; the ~10 rarer labels, 144 rows, are not published and not made).
    std::vector<std::pair<std::string, double>> modelWeights{{"unknown", 2793},
                                                             {"cognitive", 1067},
                                                             {"llama", 266},
                                                             {"GPT-13b", 205},
                                                             {"ResNet", 118},
                                                             {"GPT-3b", 98},
                                                             {"rl", 93},
                                                             {"GPT-7b", 83},
                                                             {"preprocess", 66},
                                                             {"65b", 57},
                                                             {"mnist", 39},
                                                             {"GPT-13B", 33},
                                                             {"llama_30b", 32},
                                                             {"DLM", 30},
                                                             {"GPT", 28},
                                                             {"dota", 28}};
    /// Run time (gmt_job_running to the finish/stop time) ~ std::lognormal_distribution with
    /// median durationMedian seconds and log-space sigma durationSigma. ASSUMPTION: no duration
    /// statistic is published. The defaults (median 12 min, sigma 2.0, mean ≈ 89 min) put the
    /// peak number of concurrently running jobs over two weeks near 30, the figure quoted in
    /// design/algorithms.md ("the trace peaks at about 30 concurrent jobs", unsourced there).
    double durationMedian{12 * 60.0};
    double durationSigma{2.0}; //!< see durationMedian
    /// Queueing delay (submission to running) ~ std::exponential_distribution with this mean,
    /// seconds. ASSUMPTION (not published): 5 minutes.
    double queueDelayMean{5 * 60.0};
    /// Share of worker rows on hosts absent from topo.csv: "about 12-14 %" (SOURCE.md). Realised
    /// by adding round(f / (1 - f) × hosts) hosts with fresh random hashes to the cluster the
    /// generator places pods on.
    double unknownHostFraction{0.13};
    uint32_t gpusPerHost{8}; //!< GPUs of every host (the paper's hosts have 8 A100s)
};

/**
 * \ingroup crux
 * \brief Output of GenerateLingjunTrace(): the two files and counts of what was made.
 */
struct GeneratedLingjunTrace
{
    std::string jobCsv;             //!< job.csv content (header + rows, LF line ends)
    std::string workerCsv;          //!< worker.csv content
    uint64_t jobs{0};               //!< job.csv rows
    uint64_t orphanJobs{0};         //!< job_names only in worker.csv
    uint64_t pods{0};               //!< worker.csv rows
    uint64_t extraHosts{0};         //!< hosts added that are not in the topology
    uint64_t oversubscribedPods{0}; //!< pods placed on a host without enough free GPUs
};

/**
 * \ingroup crux
 * \brief Generate a synthetic trace in the exact formats of the real job.csv and worker.csv.
 *
 * job.csv has the 32 named columns of the real file (id, uid, job_name, kind, namespace,
 * cluster_id, tenant_id, group_id, user_id, workspace_id, resource_id, workspace_name,
 * etcd_version, model, status, reason, reason_code, sub_status, is_enable_gpu_topo_aware,
 * is_deleted, is_in_k8s, gmt_job_submitted, gmt_job_running, gmt_job_stopped, gmt_job_finished,
 * gmt_created, gmt_modified, job_max_running_time_minutes, priority, resource_level, extended,
 * job_restart_times) followed by 98 columns with empty names (the real file's 130 columns;
 * pandas shows them as "Unnamed: N"). worker.csv has id, job_name, worker_name, replica_type,
 * host_ip, gmt_created, gmt_pod_running, gmt_pod_finished, RES (quoted JSON). Times are
 * LingjunTime strings at minute resolution (truncated).
 *
 * Placement of pods on hosts (ASSUMPTION: the real scheduler is not described): jobs are taken
 * in order of their start; a job holds its GPUs from gmt_job_running to its end (Running jobs to
 * the end). Pod 0 goes to a host drawn uniformly among hosts with enough free GPUs; each
 * further pod prefers, in order, a host the job already uses, a host under the same ToR, the same
 * PSW, then any host (uniform draw inside the first non-empty class). The hosts not in the
 * topology form one extra group. With no host free, a random host is oversubscribed (counted).
 * Pods of jobs that never ran are placed the same way but hold nothing.
 *
 * Every draw comes, in a fixed order, from one std::mt19937_64 seeded with config.seed, through
 * <random> distributions: the same seed and standard library give byte-identical files.
 * \param config knobs (see LingjunGeneratorConfig)
 * \param topology hosts to place pods on (e.g. the real topo.csv)
 * \return the files and counts
 * \throws std::invalid_argument for an empty topology or a non-positive span, rate or weight sum
 */
GeneratedLingjunTrace GenerateLingjunTrace(const LingjunGeneratorConfig& config,
                                           const LingjunTopology& topology);

/**
 * \ingroup crux
 * \brief GenerateLingjunTrace() and write the two files.
 * \param config knobs
 * \param topology hosts to place pods on
 * \param jobPath job.csv path
 * \param workerPath worker.csv path
 * \return the counts (and contents)
 * \throws TraceError if a file cannot be written
 */
GeneratedLingjunTrace WriteLingjunTrace(const LingjunGeneratorConfig& config,
                                        const LingjunTopology& topology,
                                        const std::string& jobPath,
                                        const std::string& workerPath);

} // namespace ns3

#endif // CRUX_LINGJUN_TRACE_GENERATOR_H
