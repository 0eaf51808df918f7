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

#ifndef CRUX_LINGJUN_TRACE_H
#define CRUX_LINGJUN_TRACE_H

// Pure C++ (no ns-3 includes): readers of the Alibaba Lingjun 2023 GPU-cluster trace
// (alibaba/alibaba-lingjun-dataset-2023, released with the Crux paper, §6.3), its statistics, and
// the assembly of per-job records (TraceJob) for trace-driven cluster runs.
// Formats: data/lingjun-2023/SOURCE.md; a copy of the real topo.csv is in
// data/lingjun-2023/ of this module.

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief A file-level error of a trace file: it cannot be opened, or its header lacks a
 * required column. Row-level problems are TraceWarnings instead.
 */
class TraceError : public std::runtime_error
{
  public:
    /// \param what complete message, starting with the file name
    explicit TraceError(const std::string& what)
        : std::runtime_error(what)
    {
    }
};

/**
 * \ingroup crux
 * \brief One skipped or suspicious row of a trace file.
 */
struct TraceWarning
{
    std::string file;   //!< file name as given to the reader
    uint64_t line{0};   //!< 1-based line of the row (the header is line 1)
    std::string reason; //!< what is wrong, naming the field
};

/// \return "file:line: reason"
std::string ToString(const TraceWarning& w);

/**
 * \ingroup crux
 * \brief Timestamps of the Lingjun trace.
 *
 * The files hold local wall-clock times at minute resolution, "2023/7/15 02:19" (year/month/day,
 * month, day and hour without leading zeros allowed). They are converted to **seconds since
 * 1970-01-01 00:00 of the same wall clock**: the civil date and time are taken literally, no
 * time zone and no daylight saving are applied (the cluster's zone is not stated; only
 * differences matter to a simulation). Seconds (":SS") and '-' instead of '/' are accepted too.
 */
class LingjunTime
{
  public:
    /**
     * \param text a timestamp as in the files
     * \return seconds since the epoch above; std::nullopt if text is not a valid timestamp
     *         (bad syntax, month 13, February 30, hour 24, ...) or its year is outside
     *         1970-2199 (so that any two times of a trace are less apart than the 292 years
     *         ns-3's nanosecond clock holds)
     */
    static std::optional<double> Parse(const std::string& text);

    /**
     * \param seconds seconds since the epoch above (>= 0), truncated to the minute
     * \return "YYYY/M/D HH:MM", the trace's own format
     */
    static std::string Format(double seconds);
};

/**
 * \ingroup crux
 * \brief The Lingjun network topology as given by topo.csv.
 *
 * topo.csv has one row per host: ip (a 64-hex-character hash), DSW (core-layer switch), PSW
 * (aggregation/pod switch group) and ASW (access/ToR switch label). ASW labels are reused under
 * different PSWs, so a ToR's identity is the pair (PSW, ASW); the real file has 847 hosts under
 * 119 such ToRs in 3 PSWs and 1 DSW (SOURCE.md). Indices below are dense, in order of first
 * appearance in the file.
 */
struct LingjunTopology
{
    std::vector<std::string> hosts;                        //!< host ip hashes, file order
    std::vector<uint32_t> hostTor;                         //!< host index -> ToR index
    std::vector<std::pair<std::string, std::string>> tors; //!< ToR index -> (PSW, ASW)
    std::vector<uint32_t> torPsw;                          //!< ToR index -> PSW index
    std::vector<uint32_t> torDsw;                          //!< ToR index -> DSW index
    std::vector<std::string> psws;                         //!< PSW labels
    std::vector<std::string> dsws;                         //!< DSW labels
    std::unordered_map<std::string, uint32_t> hostIndex;   //!< ip hash -> host index

    /// \return the host index of ip, or std::nullopt if ip is not in the topology
    std::optional<uint32_t> FindHost(const std::string& ip) const;

    /// \return host indices under ToR tor, ascending
    std::vector<uint32_t> HostsOfTor(uint32_t tor) const;
};

/**
 * \ingroup crux
 * \brief One row of job.csv, checked (see ParseLingjunJobs()).
 */
struct LingjunJobRecord
{
    uint64_t line{0};               //!< line in job.csv
    std::string name;               //!< job_name (join key to worker.csv)
    std::string model;              //!< model label, verbatim (free text, inconsistent case)
    std::string status;             //!< Succeeded, Stopped, Failed or Running
    double submit{0};               //!< gmt_job_submitted, seconds (LingjunTime)
    std::optional<double> running;  //!< gmt_job_running (absent: the job never ran)
    std::optional<double> finished; //!< gmt_job_finished
    std::optional<double> stopped;  //!< gmt_job_stopped

    /// \return finished if present, else stopped, else std::nullopt
    std::optional<double> End() const;
};

/**
 * \ingroup crux
 * \brief One row of worker.csv (one pod), checked (see ParseLingjunWorkers()).
 */
struct LingjunWorkerRecord
{
    uint64_t line{0};        //!< line in worker.csv
    std::string jobName;     //!< job_name
    std::string workerName;  //!< worker_name, e.g. "<job>-worker-3"
    std::string replicaType; //!< master, worker or aimaster
    std::string hostIp;      //!< host_ip hash (join key to topo.csv)
    uint32_t gpus{0};        //!< RES["nvidia.com/gpu"] (0 if the key is absent)
};

/// \ingroup crux
/// \brief job.csv rows that passed the row checks, and the file they came from.
struct LingjunJobTable
{
    std::string file;                   //!< file name (for warnings)
    std::vector<LingjunJobRecord> rows; //!< in file order
    /// job_name of the rows the row checks rejected (so that their pods are not reported as
    /// pods of an unknown job)
    std::set<std::string> rejected;
};

/// \ingroup crux
/// \brief worker.csv rows that passed the row checks, and the file they came from.
struct LingjunWorkerTable
{
    std::string file;                      //!< file name (for warnings)
    std::vector<LingjunWorkerRecord> rows; //!< in file order
    /// job_name -> pod rows of that job the row checks rejected (empty host_ip, bad RES), so
    /// that AssembleLingjunTrace() can drop the incomplete job (dropIncompleteJobs)
    std::map<std::string, uint64_t> rejectedPods;
};

/**
 * \ingroup crux
 * \brief A job ready for a trace-driven run: it ran, has a consistent start and end, at least
 * one GPU, and every pod on a host of the topology.
 */
struct TraceJob
{
    std::string name;            //!< job_name
    std::string modelLabel;      //!< job.csv model label, verbatim
    std::string status;          //!< Succeeded, Stopped, Failed (or Running, see options)
    double submit{0};            //!< submission time, seconds (LingjunTime epoch)
    double start{0};             //!< gmt_job_running, seconds
    double end{0};               //!< finished (else stopped) time, seconds; >= start
    uint32_t gpus{0};            //!< sum of nvidia.com/gpu over the job's pods (>= 1)
    uint32_t pods{0};            //!< pods (worker.csv rows) of the job that were kept
    std::vector<uint32_t> hosts; //!< distinct host indices into LingjunTopology::hosts, ascending
    std::vector<uint32_t> gpusPerHost; //!< GPUs of this job on hosts[i] (same length as hosts)
    uint64_t line{0};                  //!< line in job.csv

    /// \return end - start, seconds
    double Duration() const
    {
        return end - start;
    }
};

/**
 * \ingroup crux
 * \brief Choices of AssembleLingjunTrace().
 */
struct LingjunAssembleOptions
{
    /// Drop a job when any of its pod rows was skipped (unknown host, bad RES, ...): its GPU
    /// count and hosts would be wrong. If false, the job keeps its remaining pods.
    bool dropIncompleteJobs{true};
    /// End time given to jobs still Running when the trace was taken (no finish/stop time);
    /// std::nullopt drops them with a warning.
    std::optional<double> runningJobsEnd;
};

/**
 * \ingroup crux
 * \brief Result of AssembleLingjunTrace().
 */
struct LingjunTrace
{
    std::vector<TraceJob> jobs;         //!< sorted by (submit, name)
    std::vector<TraceWarning> warnings; //!< skipped rows and jobs, in the order found
};

/**
 * \ingroup crux
 * \brief Read topo.csv (columns ip, DSW, PSW, ASW; others ignored).
 *
 * Rows with an empty field, a duplicate ip, or a ToR (PSW, ASW) already seen under another DSW
 * are reported and skipped.
 * \param in the file's content
 * \param file file name used in warnings and errors
 * \param[out] warnings skipped rows are appended
 * \return the topology
 * \throws TraceError if a required column is missing from the header or there is no header
 */
LingjunTopology ParseLingjunTopology(std::istream& in,
                                     const std::string& file,
                                     std::vector<TraceWarning>& warnings);

/// \brief ParseLingjunTopology() on a file. \throws TraceError if path cannot be opened
LingjunTopology ReadLingjunTopology(const std::string& path, std::vector<TraceWarning>& warnings);

/**
 * \ingroup crux
 * \brief Read job.csv (columns job_name, model, status, gmt_job_submitted, gmt_job_running,
 * gmt_job_finished, gmt_job_stopped; the other 123 columns are ignored).
 *
 * Reported and skipped: a row whose field count differs from the header's, an empty job_name,
 * a repeated job_name, an empty or unparseable gmt_job_submitted, any other non-empty timestamp
 * that does not parse, gmt_job_running before gmt_job_submitted, and a finish or stop time before
 * gmt_job_running (or before gmt_job_submitted for jobs that never ran).
 * Jobs that never ran (empty gmt_job_running) are kept here (they count in the statistics) and
 * dropped by AssembleLingjunTrace().
 * \param in the file's content
 * \param file file name used in warnings and errors
 * \param[out] warnings skipped rows are appended
 * \return the rows that passed
 * \throws TraceError if a required column is missing from the header or there is no header
 */
LingjunJobTable ParseLingjunJobs(std::istream& in,
                                 const std::string& file,
                                 std::vector<TraceWarning>& warnings);

/// \brief ParseLingjunJobs() on a file. \throws TraceError if path cannot be opened
LingjunJobTable ReadLingjunJobs(const std::string& path, std::vector<TraceWarning>& warnings);

/**
 * \ingroup crux
 * \brief Read worker.csv (columns job_name, worker_name, replica_type, host_ip, RES; others
 * ignored).
 *
 * RES is a JSON object of Kubernetes resource requests (parsed with nlohmann-json); the pod's
 * GPU count is its "nvidia.com/gpu" entry, a string or number holding a non-negative integer, or
 * 0 if absent. Reported and skipped: a row whose field count differs from the header's, an empty
 * job_name or host_ip, RES that is not a JSON object, and a GPU entry that is not a non-negative
 * integer.
 * \param in the file's content
 * \param file file name used in warnings and errors
 * \param[out] warnings skipped rows are appended
 * \return the rows that passed
 * \throws TraceError if a required column is missing from the header or there is no header
 */
LingjunWorkerTable ParseLingjunWorkers(std::istream& in,
                                       const std::string& file,
                                       std::vector<TraceWarning>& warnings);

/// \brief ParseLingjunWorkers() on a file. \throws TraceError if path cannot be opened
LingjunWorkerTable ReadLingjunWorkers(const std::string& path, std::vector<TraceWarning>& warnings);

/**
 * \ingroup crux
 * \brief Join jobs, pods and topology into TraceJobs.
 *
 * Reported and skipped: pod rows on a host not in the topology (one warning per row), pod rows
 * of a job_name absent from job.csv (one warning per such job, at its first row), jobs that
 * never ran, jobs still Running (unless options.runningJobsEnd), jobs without pod rows, jobs
 * whose pods ask for 0 GPUs in total, and (options.dropIncompleteJobs) jobs that lost pod rows.
 * \param jobs job.csv rows
 * \param workers worker.csv rows
 * \param topology the topology hosts are looked up in
 * \param options see LingjunAssembleOptions
 * \return the jobs (sorted by submit time, then name) and the warnings of this step
 */
LingjunTrace AssembleLingjunTrace(const LingjunJobTable& jobs,
                                  const LingjunWorkerTable& workers,
                                  const LingjunTopology& topology,
                                  const LingjunAssembleOptions& options = {});

/**
 * \ingroup crux
 * \brief Statistics of a trace, to compare a trace (real or generated) with the published ones.
 *
 * Row counts come from the parsed tables; durations and concurrency from the assembled jobs.
 * Percentiles are nearest-rank. Units: seconds unless the name says otherwise.
 */
struct LingjunTraceStats
{
    uint64_t jobRows{0};                          //!< job.csv rows that passed the row checks
    std::map<std::string, uint64_t> statusCounts; //!< status -> rows
    uint64_t neverRan{0};                         //!< rows with an empty gmt_job_running
    std::map<std::string, uint64_t> modelCounts;  //!< model label (verbatim) -> rows
    uint64_t workerRows{0};                       //!< worker.csv rows that passed the row checks
    uint64_t workerJobNames{0};                   //!< distinct job_names in worker.csv
    uint64_t workerJobNamesInJobCsv{0};           //!< ... of which appear in job.csv
    uint64_t unknownHostRows{0};                  //!< worker rows whose host_ip is not in topo.csv
    std::map<uint32_t, uint64_t> podGpuCounts;    //!< GPUs requested by a pod -> pods
    double podsPerWorkerJob{0};                   //!< workerRows / workerJobNames
    double firstSubmit{0};                        //!< earliest gmt_job_submitted
    double lastSubmit{0};                         //!< latest gmt_job_submitted
    double submitsPerDay{0};                      //!< jobRows / (lastSubmit - firstSubmit) in days

    uint64_t assembledJobs{0};                 //!< TraceJobs
    std::map<uint32_t, uint64_t> jobGpuCounts; //!< GPUs of a TraceJob -> jobs
    double durationMeanMin{0};                 //!< mean TraceJob duration, minutes
    double durationP25Min{0};                  //!< 25th percentile, minutes
    double durationMedianMin{0};               //!< median, minutes
    double durationP90Min{0};                  //!< 90th percentile, minutes
    double durationP99Min{0};                  //!< 99th percentile, minutes
    /// time-average number of running TraceJobs over [firstSubmit, lastSubmit]
    double meanConcurrentJobs{0};
    uint32_t peakConcurrentJobs{0}; //!< most TraceJobs running at once (any time)
    /// time-average GPUs held by TraceJobs over [firstSubmit, lastSubmit]
    double meanBusyGpus{0};
    uint32_t peakBusyGpus{0}; //!< most GPUs held at once

    /// \return fraction of pods asking for g GPUs (0 if there are no pods)
    double PodGpuShare(uint32_t g) const;
};

/**
 * \ingroup crux
 * \brief Compute LingjunTraceStats.
 * \param jobs parsed job.csv
 * \param workers parsed worker.csv
 * \param topology topology (for the unknown-host count)
 * \param assembled the TraceJobs built from the three
 * \return the statistics
 */
LingjunTraceStats ComputeLingjunTraceStats(const LingjunJobTable& jobs,
                                           const LingjunWorkerTable& workers,
                                           const LingjunTopology& topology,
                                           const std::vector<TraceJob>& assembled);

} // namespace ns3

#endif // CRUX_LINGJUN_TRACE_H
