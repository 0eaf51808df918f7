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

#include "lingjun-trace-generator.h"

#include "rfc4180-csv.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <random>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxLingjunTraceGenerator");

namespace
{

/// Names of job.csv's 32 named columns, in the file's order (SOURCE.md).
const std::vector<std::string> kJobColumns{"id",
                                           "uid",
                                           "job_name",
                                           "kind",
                                           "namespace",
                                           "cluster_id",
                                           "tenant_id",
                                           "group_id",
                                           "user_id",
                                           "workspace_id",
                                           "resource_id",
                                           "workspace_name",
                                           "etcd_version",
                                           "model",
                                           "status",
                                           "reason",
                                           "reason_code",
                                           "sub_status",
                                           "is_enable_gpu_topo_aware",
                                           "is_deleted",
                                           "is_in_k8s",
                                           "gmt_job_submitted",
                                           "gmt_job_running",
                                           "gmt_job_stopped",
                                           "gmt_job_finished",
                                           "gmt_created",
                                           "gmt_modified",
                                           "job_max_running_time_minutes",
                                           "priority",
                                           "resource_level",
                                           "extended",
                                           "job_restart_times"};
/// Unnamed trailing columns of job.csv (130 columns in all).
constexpr size_t kJobUnnamedColumns = 98;

const std::vector<std::string> kWorkerColumns{"id",
                                              "job_name",
                                              "worker_name",
                                              "replica_type",
                                              "host_ip",
                                              "gmt_created",
                                              "gmt_pod_running",
                                              "gmt_pod_finished",
                                              "RES"};

/// Anonymised identifiers of one tenant (the real columns are hashes).
struct Tenant
{
    std::string ns, tenant, group, user, workspace, resource, workspaceName;
};

/// One generated job.
struct GenJob
{
    std::string name;
    std::string uid;
    std::string model;
    std::string status;
    size_t tenant{0};
    double submit{0};
    std::optional<double> running;
    std::optional<double> finished;
    std::optional<double> stopped;
    uint32_t pods{0}; // 0: no worker rows
    uint32_t gpusPerPod{0};
    bool inJobCsv{true};
    std::vector<uint32_t> podHost;  // index into the generator's host list
    std::vector<uint32_t> podTaken; // GPUs each pod holds while the job runs

    /// \return finished if set, else stopped, else std::nullopt (as LingjunJobRecord::End())
    std::optional<double> End() const
    {
        return finished ? finished : stopped;
    }
};

std::string
Hex(std::mt19937_64& rng, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    std::uniform_int_distribution<int> d(0, 15);
    std::string s(n, '0');
    for (auto& c : s)
    {
        c = digits[d(rng)];
    }
    return s;
}

std::string
JobName(std::mt19937_64& rng)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::uniform_int_distribution<int> d(0, 35);
    std::string s = "dlc";
    for (int i = 0; i < 13; ++i)
    {
        s += digits[d(rng)];
    }
    return s;
}

template <typename T>
std::discrete_distribution<size_t>
Weights(const std::vector<std::pair<T, double>>& w, const char* what)
{
    std::vector<double> v;
    double sum = 0;
    for (const auto& p : w)
    {
        if (!(p.second >= 0))
        {
            throw std::invalid_argument(std::string("LingjunGeneratorConfig.") + what +
                                        ": negative weight");
        }
        v.push_back(p.second);
        sum += p.second;
    }
    if (!(sum > 0))
    {
        throw std::invalid_argument(std::string("LingjunGeneratorConfig.") + what +
                                    ": weights must sum to > 0");
    }
    return std::discrete_distribution<size_t>(v.begin(), v.end());
}

std::string
Time(const std::optional<double>& t)
{
    return t ? LingjunTime::Format(*t) : std::string();
}

void
Check(bool ok, const char* what)
{
    if (!ok)
    {
        throw std::invalid_argument(std::string("LingjunGeneratorConfig.") + what);
    }
}

/// Checks the knobs and the topology. \throws std::invalid_argument naming the first bad one
void
CheckConfig(const LingjunGeneratorConfig& c, const LingjunTopology& topology)
{
    if (topology.hosts.empty())
    {
        throw std::invalid_argument("GenerateLingjunTrace: the topology has no hosts");
    }
    Check(c.span > 0, "span must be > 0");
    Check(c.jobsPerDay > 0, "jobsPerDay must be > 0");
    Check(c.neverRanShare >= 0 && c.neverRanShare <= 1, "neverRanShare must be in [0, 1]");
    Check(c.noPodsShare >= 0 && c.noPodsShare <= 1, "noPodsShare must be in [0, 1]");
    Check(c.orphanJobsPerJob >= 0 && c.orphanJobsPerJob <= 1, "orphanJobsPerJob must be in [0, 1]");
    Check(c.podsPerJobMean >= 1, "podsPerJobMean must be >= 1");
    Check(c.durationMedian > 0 && c.durationSigma >= 0, "duration parameters must be positive");
    Check(c.queueDelayMean > 0, "queueDelayMean must be > 0");
    Check(c.unknownHostFraction >= 0 && c.unknownHostFraction < 1,
          "unknownHostFraction must be in [0, 1)");
    Check(c.gpusPerHost > 0, "gpusPerHost must be > 0");
    for (const auto& g : c.podGpuWeights)
    {
        Check(g.first >= 1 && g.first <= c.gpusPerHost,
              "podGpuWeights: GPUs per pod must be in [1, gpusPerHost]");
    }
}

/// \return job.csv's (reason, reason_code) for a final status; empty for Running
std::pair<std::string, std::string>
ReasonOf(const std::string& status)
{
    if (status == "Succeeded")
    {
        return {"Job succeeded", "JobSucceeded"};
    }
    if (status == "Failed")
    {
        return {"Job failed", "JobFailed"};
    }
    if (status == "Stopped")
    {
        return {"Job stopped by user", "StoppedByUser"};
    }
    return {};
}

/**
 * \return worker.csv's RES for a pod of g GPUs: Kubernetes resource requests in the style of the
 * real column; CPU, memory and storage scale with the GPUs (96 CPUs, 1600Gi, 4800Gi for 8 GPUs
 * as in SOURCE.md's example)
 */
std::string
ResourceRequest(uint32_t g)
{
    return "{\"cpu\": \"" + std::to_string(12 * g) + "\", \"memory\": \"" +
           std::to_string(200 * g) + "Gi\", \"nvidia.com/gpu\": \"" + std::to_string(g) +
           "\", \"ephemeral-storage\": \"" + std::to_string(600 * g) +
           "Gi\", \"koordinator.sh/rdma\": \"1\"}";
}

/**
 * One generation (see GenerateLingjunTrace()). The steps run in a fixed order and every draw
 * comes from the one std::mt19937_64 m_rng: DrawTenants(), DrawJobs() (arrivals, and per job its
 * status, model, tenant, name, uid, queueing delay, run time, never-ran and no-pods draws, pods,
 * then the orphan draw), AddUnknownHosts(), PlaceJobs(); writing the files draws nothing.
 * Changing the order of any draw changes every file generated after it.
 */
class Generator
{
  public:
    /**
     * \param c the knobs (checked by CheckConfig())
     * \param topology the hosts to place pods on (not empty)
     * \throws std::invalid_argument for a negative weight or a zero weight sum
     */
    Generator(const LingjunGeneratorConfig& c, const LingjunTopology& topology)
        : m_c(c),
          m_topology(topology),
          m_rng(c.seed),
          m_status(Weights(c.statusWeights, "statusWeights")),
          m_model(Weights(c.modelWeights, "modelWeights")),
          m_podGpus(Weights(c.podGpuWeights, "podGpuWeights")),
          m_interArrival(c.jobsPerDay / 86400.0),
          m_queueDelay(1.0 / c.queueDelayMean),
          m_duration(std::log(c.durationMedian), c.durationSigma),
          m_extraPods(1.0 / c.podsPerJobMean),
          m_neverRan(c.neverRanShare),
          m_noPods(c.noPodsShare),
          m_orphan(c.orphanJobsPerJob)
    {
    }

    /// \return the two files and the counts
    GeneratedLingjunTrace Generate()
    {
        DrawTenants();
        DrawJobs();
        AddUnknownHosts();
        PlaceJobs();
        m_out.jobCsv = JobCsv();
        m_out.workerCsv = WorkerCsv();
        return std::move(m_out);
    }

  private:
    /// Anonymised identifiers: one cluster, a pool of 40 tenants (ASSUMPTION; the real counts
    /// of users and workspaces are not published and play no role in a simulation).
    void DrawTenants()
    {
        m_clusterId = Hex(m_rng, 32);
        m_tenants.resize(40);
        for (auto& t : m_tenants)
        {
            t = {Hex(m_rng, 32),
                 Hex(m_rng, 32),
                 Hex(m_rng, 32),
                 Hex(m_rng, 32),
                 Hex(m_rng, 32),
                 Hex(m_rng, 32),
                 Hex(m_rng, 16)};
        }
    }

    /// \return a job name not drawn before
    std::string UniqueName()
    {
        std::string n;
        do
        {
            n = JobName(m_rng);
        } while (!m_names.insert(n).second);
        return n;
    }

    /// Draws j's pod count and GPUs per pod.
    void DrawPods(GenJob& j)
    {
        j.pods = 1 + m_extraPods(m_rng);
        j.gpusPerPod = m_c.podGpuWeights[m_podGpus(m_rng)].first;
    }

    /// Poisson arrivals over [start, start + span): each a job.csv job, sometimes followed by
    /// an orphan job (only in worker.csv) submitted at the same time.
    void DrawJobs()
    {
        std::uniform_int_distribution<size_t> tenantOf(0, m_tenants.size() - 1);
        const double end = m_c.start + m_c.span;
        double t = m_c.start + m_interArrival(m_rng);
        while (t < end)
        {
            m_jobs.push_back(DrawJob(t, tenantOf));
            if (m_orphan(m_rng))
            {
                m_jobs.push_back(DrawOrphan(t));
            }
            t += m_interArrival(m_rng);
        }
    }

    /**
     * \param t submission time, s
     * \param tenantOf the tenant draw
     * \return a job.csv job: status, model, tenant, identifiers, running/end times (a Stopped
     *         or Failed job may never have run and then may have no pods)
     */
    GenJob DrawJob(double t, std::uniform_int_distribution<size_t>& tenantOf)
    {
        GenJob j;
        j.submit = t;
        j.status = m_c.statusWeights[m_status(m_rng)].first;
        j.model = m_c.modelWeights[m_model(m_rng)].first;
        j.tenant = tenantOf(m_rng);
        j.name = UniqueName();
        j.uid = Hex(m_rng, 32);
        const double delay = m_queueDelay(m_rng);
        const double run = m_duration(m_rng);
        const bool stopOrFail = j.status == "Stopped" || j.status == "Failed";
        const bool never = stopOrFail && m_neverRan(m_rng);
        bool pods = true;
        if (never)
        {
            pods = !m_noPods(m_rng);
            // Never ran: ends (stopped or failed) after the queueing delay.
            (j.status == "Stopped" ? j.stopped : j.finished) = t + delay;
        }
        else
        {
            j.running = t + delay;
            if (j.status == "Stopped")
            {
                j.stopped = *j.running + run;
            }
            else if (j.status != "Running")
            {
                j.finished = *j.running + run;
            }
        }
        if (pods)
        {
            DrawPods(j);
        }
        return j;
    }

    /// \param t submission time, s \return a job that is only in worker.csv: ran and
    /// succeeded, same distributions
    GenJob DrawOrphan(double t)
    {
        GenJob o;
        o.inJobCsv = false;
        o.submit = t;
        o.status = "Succeeded";
        o.name = UniqueName();
        o.running = t + m_queueDelay(m_rng);
        o.finished = *o.running + m_duration(m_rng);
        DrawPods(o);
        return o;
    }

    /// The hosts pods go on: the topology's, then round(f / (1 - f) × hosts) hosts with fresh
    /// hashes that form one extra ToR and PSW; all start with every GPU free.
    void AddUnknownHosts()
    {
        const uint32_t topoHosts = static_cast<uint32_t>(m_topology.hosts.size());
        const auto extra = static_cast<uint32_t>(
            std::lround(m_c.unknownHostFraction / (1 - m_c.unknownHostFraction) * topoHosts));
        m_hostIp = m_topology.hosts;
        for (uint32_t i = 0; i < extra; ++i)
        {
            m_hostIp.push_back(Hex(m_rng, 64));
        }
        const uint32_t nHosts = static_cast<uint32_t>(m_hostIp.size());
        m_torOf.assign(nHosts, static_cast<uint32_t>(m_topology.tors.size()));
        m_pswOf.assign(nHosts, static_cast<uint32_t>(m_topology.psws.size()));
        for (uint32_t h = 0; h < topoHosts; ++h)
        {
            m_torOf[h] = m_topology.hostTor[h];
            m_pswOf[h] = m_topology.torPsw[m_topology.hostTor[h]];
        }
        m_freeGpus.assign(nHosts, m_c.gpusPerHost);
        m_out.extraHosts = extra;
    }

    /// \return when job i takes its GPUs: its start, or its submission if it never ran, s
    double PlaceTime(size_t i) const
    {
        return m_jobs[i].running ? *m_jobs[i].running : m_jobs[i].submit;
    }

    /// Places the pods of every job that has pods, in order of PlaceTime() (stable), giving
    /// back the GPUs of the jobs that ended by then first.
    void PlaceJobs()
    {
        std::vector<size_t> order;
        for (size_t i = 0; i < m_jobs.size(); ++i)
        {
            if (m_jobs[i].pods > 0)
            {
                order.push_back(i);
            }
        }
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return PlaceTime(a) < PlaceTime(b);
        });
        using Release = std::pair<double, size_t>; // (end time, job index)
        std::priority_queue<Release, std::vector<Release>, std::greater<Release>> releases;
        for (size_t i : order)
        {
            GenJob& j = m_jobs[i];
            const double now = PlaceTime(i);
            while (!releases.empty() && releases.top().first <= now)
            {
                const GenJob& done = m_jobs[releases.top().second];
                for (size_t p = 0; p < done.podHost.size(); ++p)
                {
                    m_freeGpus[done.podHost[p]] += done.podTaken[p];
                }
                releases.pop();
            }
            PlacePods(j);
            if (j.running)
            {
                const auto e = j.End();
                releases.push({e ? *e : std::numeric_limits<double>::infinity(), i});
            }
        }
        // An oversubscribed pod holds only the GPUs that were free; capacity is ample for the
        // defaults (oversubscribedPods is 0 with the real topology; see the tests).
    }

    /// Places j's pods one after the other (PickHost()); a job that runs takes their GPUs.
    void PlacePods(GenJob& j)
    {
        const uint32_t g = j.gpusPerPod;
        std::set<uint32_t> used;
        for (uint32_t p = 0; p < j.pods; ++p)
        {
            const uint32_t host = PickHost(j, p, used);
            j.podHost.push_back(host);
            used.insert(host);
            const uint32_t taken = j.running ? std::min(m_freeGpus[host], g) : 0;
            m_freeGpus[host] -= taken;
            j.podTaken.push_back(taken);
        }
    }

    /**
     * \param j the job, with its pods 0..p-1 placed
     * \param p the pod to place
     * \param used the hosts of pods 0..p-1
     * \return a host with j.gpusPerPod free GPUs drawn uniformly from the first non-empty
     *         preference class (pod 0: any host; further pods: a host the job uses, the first
     *         pod's ToR, its PSW, any host); with none, a uniformly drawn host (oversubscribed,
     *         counted)
     */
    uint32_t PickHost(const GenJob& j, uint32_t p, const std::set<uint32_t>& used)
    {
        const uint32_t nHosts = static_cast<uint32_t>(m_hostIp.size());
        const uint32_t g = j.gpusPerPod;
        // Preference classes: 0 used by the job, 1 same ToR, 2 same PSW, 3 any.
        const int firstClass = p == 0 ? 3 : 0;
        for (int cls = firstClass; cls <= 3; ++cls)
        {
            m_candidates.clear();
            const uint32_t first = j.podHost.empty() ? 0 : j.podHost.front();
            for (uint32_t h = 0; h < nHosts; ++h)
            {
                if (m_freeGpus[h] < g)
                {
                    continue;
                }
                if ((cls == 0 && used.count(h) == 0) ||
                    (cls == 1 && m_torOf[h] != m_torOf[first]) ||
                    (cls == 2 && m_pswOf[h] != m_pswOf[first]))
                {
                    continue;
                }
                m_candidates.push_back(h);
            }
            if (!m_candidates.empty())
            {
                std::uniform_int_distribution<size_t> pick(0, m_candidates.size() - 1);
                const uint32_t host = m_candidates[pick(m_rng)];
                NS_LOG_LOGIC("pod " << p << ": host " << host << " of " << m_candidates.size()
                                    << " in preference class " << cls);
                return host;
            }
        }
        std::uniform_int_distribution<uint32_t> pick(0, nHosts - 1);
        ++m_out.oversubscribedPods;
        const uint32_t host = pick(m_rng);
        NS_LOG_DEBUG("pod " << p << ": no host with " << g << " free GPUs, oversubscribes host "
                            << host);
        return host;
    }

    /// \return job.csv: the header (32 named and 98 unnamed columns) and one row per job.csv job
    std::string JobCsv()
    {
        std::vector<std::string> header = kJobColumns;
        header.resize(kJobColumns.size() + kJobUnnamedColumns);
        std::string csv = CsvJoin(header) + "\n";
        uint64_t id = 1;
        for (const auto& j : m_jobs)
        {
            if (j.inJobCsv)
            {
                csv += CsvJoin(JobRow(j, id++)) + "\n";
                ++m_out.jobs;
            }
        }
        return csv;
    }

    /// \param j a job.csv job \param id its row id (1, 2, ...) \return its job.csv fields
    std::vector<std::string> JobRow(const GenJob& j, uint64_t id) const
    {
        const Tenant& tn = m_tenants[j.tenant];
        const auto [reason, reasonCode] = ReasonOf(j.status);
        const std::optional<double> last = j.End();
        std::vector<std::string> row{std::to_string(id),
                                     j.uid,
                                     j.name,
                                     "PyTorchJob",
                                     tn.ns,
                                     m_clusterId,
                                     tn.tenant,
                                     tn.group,
                                     tn.user,
                                     tn.workspace,
                                     tn.resource,
                                     tn.workspaceName,
                                     std::to_string(1000001 + id), // etcd_version
                                     j.model,
                                     j.status,
                                     reason,
                                     reasonCode,
                                     "Normal",
                                     "0",
                                     "0",
                                     "1",
                                     LingjunTime::Format(j.submit),
                                     Time(j.running),
                                     Time(j.stopped),
                                     Time(j.finished),
                                     LingjunTime::Format(j.submit),
                                     Time(last ? last : std::optional<double>(j.submit)),
                                     "0",
                                     "1",
                                     "L0",
                                     "",
                                     ""};
        row.resize(kJobColumns.size() + kJobUnnamedColumns);
        return row;
    }

    /// \return worker.csv: the header and one row per pod (pod 0 the master, the others
    /// workers), jobs in generation order
    std::string WorkerCsv()
    {
        std::string csv = CsvJoin(kWorkerColumns) + "\n";
        uint64_t wid = 1;
        for (const auto& j : m_jobs)
        {
            if (j.pods == 0)
            {
                continue;
            }
            m_out.orphanJobs += j.inJobCsv ? 0 : 1;
            const std::optional<double> last = j.End();
            const std::string res = ResourceRequest(j.gpusPerPod);
            for (uint32_t p = 0; p < j.pods; ++p)
            {
                const bool master = p == 0;
                std::vector<std::string> row{
                    std::to_string(wid++),
                    j.name,
                    j.name + (master ? "-master-0" : "-worker-" + std::to_string(p - 1)),
                    master ? "master" : "worker",
                    m_hostIp[j.podHost[p]],
                    LingjunTime::Format(j.submit),
                    Time(j.running),
                    Time(j.running ? last : std::nullopt),
                    res};
                csv += CsvJoin(row) + "\n";
                ++m_out.pods;
            }
        }
        return csv;
    }

    const LingjunGeneratorConfig& m_c;                    //!< the knobs
    const LingjunTopology& m_topology;                    //!< the topology's hosts
    std::mt19937_64 m_rng;                                //!< the one source of every draw
    std::discrete_distribution<size_t> m_status;          //!< index into statusWeights
    std::discrete_distribution<size_t> m_model;           //!< index into modelWeights
    std::discrete_distribution<size_t> m_podGpus;         //!< index into podGpuWeights
    std::exponential_distribution<double> m_interArrival; //!< s between submissions
    std::exponential_distribution<double> m_queueDelay;   //!< s from submission to running
    std::lognormal_distribution<double> m_duration;       //!< run time, s
    std::geometric_distribution<uint32_t> m_extraPods;    //!< pods after the first
    std::bernoulli_distribution m_neverRan;               //!< a Stopped/Failed job never ran
    std::bernoulli_distribution m_noPods;                 //!< a never-ran job has no pods
    std::bernoulli_distribution m_orphan;                 //!< an orphan job follows

    std::string m_clusterId;            //!< cluster_id hash
    std::vector<Tenant> m_tenants;      //!< tenant pool
    std::set<std::string> m_names;      //!< job names drawn so far
    std::vector<GenJob> m_jobs;         //!< jobs in generation order
    std::vector<std::string> m_hostIp;  //!< host_ip per host (topology first, then extra)
    std::vector<uint32_t> m_torOf;      //!< ToR per host (tors.size(): the extra hosts)
    std::vector<uint32_t> m_pswOf;      //!< PSW per host (psws.size(): the extra hosts)
    std::vector<uint32_t> m_freeGpus;   //!< free GPUs per host
    std::vector<uint32_t> m_candidates; //!< scratch of PickHost()
    GeneratedLingjunTrace m_out;        //!< the counts
};

} // namespace

GeneratedLingjunTrace
GenerateLingjunTrace(const LingjunGeneratorConfig& c, const LingjunTopology& topology)
{
    NS_LOG_FUNCTION(c.seed);
    CheckConfig(c, topology);
    GeneratedLingjunTrace g = Generator(c, topology).Generate();
    NS_LOG_INFO("generated " << g.jobs << " jobs (" << g.orphanJobs << " orphans), " << g.pods
                             << " pods, " << g.extraHosts << " extra hosts, "
                             << g.oversubscribedPods << " oversubscribed pods");
    return g;
}

GeneratedLingjunTrace
WriteLingjunTrace(const LingjunGeneratorConfig& config,
                  const LingjunTopology& topology,
                  const std::string& jobPath,
                  const std::string& workerPath)
{
    GeneratedLingjunTrace g = GenerateLingjunTrace(config, topology);
    for (const auto& [path, text] :
         {std::make_pair(jobPath, &g.jobCsv), std::make_pair(workerPath, &g.workerCsv)})
    {
        std::ofstream out(path, std::ios::binary);
        out << *text;
        out.close();
        if (!out)
        {
            throw TraceError(path + ": cannot write file");
        }
    }
    return g;
}

} // namespace ns3
