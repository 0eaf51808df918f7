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

#include "csv-reader.h"

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

} // namespace

GeneratedLingjunTrace
GenerateLingjunTrace(const LingjunGeneratorConfig& c, const LingjunTopology& topology)
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

    std::mt19937_64 rng(c.seed);
    auto status = Weights(c.statusWeights, "statusWeights");
    auto model = Weights(c.modelWeights, "modelWeights");
    auto podGpus = Weights(c.podGpuWeights, "podGpuWeights");
    std::exponential_distribution<double> interArrival(c.jobsPerDay / 86400.0);
    std::exponential_distribution<double> queueDelay(1.0 / c.queueDelayMean);
    std::lognormal_distribution<double> duration(std::log(c.durationMedian), c.durationSigma);
    std::geometric_distribution<uint32_t> extraPods(1.0 / c.podsPerJobMean);
    std::bernoulli_distribution neverRan(c.neverRanShare);
    std::bernoulli_distribution noPods(c.noPodsShare);
    std::bernoulli_distribution orphan(c.orphanJobsPerJob);

    // Anonymised identifiers: one cluster, a pool of 40 tenants (ASSUMPTION; the real counts of
    // users and workspaces are not published and play no role in a simulation).
    const std::string clusterId = Hex(rng, 32);
    std::vector<Tenant> tenants(40);
    for (auto& t : tenants)
    {
        t = {Hex(rng, 32),
             Hex(rng, 32),
             Hex(rng, 32),
             Hex(rng, 32),
             Hex(rng, 32),
             Hex(rng, 32),
             Hex(rng, 16)};
    }
    std::uniform_int_distribution<size_t> tenantOf(0, tenants.size() - 1);

    std::set<std::string> names;
    auto uniqueName = [&]() {
        std::string n;
        do
        {
            n = JobName(rng);
        } while (!names.insert(n).second);
        return n;
    };
    auto drawPods = [&](GenJob& j) {
        j.pods = 1 + extraPods(rng);
        j.gpusPerPod = c.podGpuWeights[podGpus(rng)].first;
    };

    std::vector<GenJob> jobs;
    const double end = c.start + c.span;
    double t = c.start + interArrival(rng);
    while (t < end)
    {
        GenJob j;
        j.submit = t;
        j.status = c.statusWeights[status(rng)].first;
        j.model = c.modelWeights[model(rng)].first;
        j.tenant = tenantOf(rng);
        j.name = uniqueName();
        j.uid = Hex(rng, 32);
        const double delay = queueDelay(rng);
        const double run = duration(rng);
        const bool stopOrFail = j.status == "Stopped" || j.status == "Failed";
        const bool never = stopOrFail && neverRan(rng);
        bool pods = true;
        if (never)
        {
            pods = !noPods(rng);
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
            drawPods(j);
        }
        jobs.push_back(j);
        if (orphan(rng))
        {
            // A job that is only in worker.csv: ran and succeeded, same distributions.
            GenJob o;
            o.inJobCsv = false;
            o.submit = t;
            o.status = "Succeeded";
            o.name = uniqueName();
            o.running = t + queueDelay(rng);
            o.finished = *o.running + duration(rng);
            drawPods(o);
            jobs.push_back(o);
        }
        t += interArrival(rng);
    }

    // ---- placement
    const uint32_t topoHosts = static_cast<uint32_t>(topology.hosts.size());
    const auto extra = static_cast<uint32_t>(
        std::lround(c.unknownHostFraction / (1 - c.unknownHostFraction) * topoHosts));
    std::vector<std::string> hostIp = topology.hosts;
    for (uint32_t i = 0; i < extra; ++i)
    {
        hostIp.push_back(Hex(rng, 64));
    }
    const uint32_t nHosts = static_cast<uint32_t>(hostIp.size());
    const uint32_t unknownTor = static_cast<uint32_t>(topology.tors.size());
    const uint32_t unknownPsw = static_cast<uint32_t>(topology.psws.size());
    std::vector<uint32_t> torOf(nHosts, unknownTor);
    std::vector<uint32_t> pswOf(nHosts, unknownPsw);
    for (uint32_t h = 0; h < topoHosts; ++h)
    {
        torOf[h] = topology.hostTor[h];
        pswOf[h] = topology.torPsw[topology.hostTor[h]];
    }
    std::vector<uint32_t> freeGpus(nHosts, c.gpusPerHost);

    std::vector<size_t> order;
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        if (jobs[i].pods > 0)
        {
            order.push_back(i);
        }
    }
    auto placeTime = [&](size_t i) { return jobs[i].running ? *jobs[i].running : jobs[i].submit; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return placeTime(a) < placeTime(b);
    });
    using Release = std::pair<double, size_t>;
    std::priority_queue<Release, std::vector<Release>, std::greater<Release>> releases;

    GeneratedLingjunTrace out;
    out.extraHosts = extra;
    std::vector<uint32_t> candidates;
    for (size_t i : order)
    {
        GenJob& j = jobs[i];
        const double now = placeTime(i);
        while (!releases.empty() && releases.top().first <= now)
        {
            const GenJob& done = jobs[releases.top().second];
            for (size_t p = 0; p < done.podHost.size(); ++p)
            {
                freeGpus[done.podHost[p]] += done.podTaken[p];
            }
            releases.pop();
        }
        const uint32_t g = j.gpusPerPod;
        std::set<uint32_t> used;
        for (uint32_t p = 0; p < j.pods; ++p)
        {
            uint32_t host = 0;
            bool placed = false;
            // Preference classes: 0 used by the job, 1 same ToR, 2 same PSW, 3 any.
            const int firstClass = p == 0 ? 3 : 0;
            for (int cls = firstClass; cls <= 3 && !placed; ++cls)
            {
                candidates.clear();
                const uint32_t first = j.podHost.empty() ? 0 : j.podHost.front();
                for (uint32_t h = 0; h < nHosts; ++h)
                {
                    if (freeGpus[h] < g)
                    {
                        continue;
                    }
                    if ((cls == 0 && used.count(h) == 0) ||
                        (cls == 1 && torOf[h] != torOf[first]) ||
                        (cls == 2 && pswOf[h] != pswOf[first]))
                    {
                        continue;
                    }
                    candidates.push_back(h);
                }
                if (!candidates.empty())
                {
                    std::uniform_int_distribution<size_t> pick(0, candidates.size() - 1);
                    host = candidates[pick(rng)];
                    placed = true;
                }
            }
            if (!placed)
            {
                std::uniform_int_distribution<uint32_t> pick(0, nHosts - 1);
                host = pick(rng);
                ++out.oversubscribedPods;
            }
            j.podHost.push_back(host);
            used.insert(host);
            const uint32_t taken = j.running ? std::min(freeGpus[host], g) : 0;
            freeGpus[host] -= taken;
            j.podTaken.push_back(taken);
        }
        if (j.running)
        {
            const auto e = j.finished ? j.finished : j.stopped;
            releases.push({e ? *e : std::numeric_limits<double>::infinity(), i});
        }
    }
    // An oversubscribed pod holds only the GPUs that were free; capacity is ample for the
    // defaults (oversubscribedPods is 0 with the real topology; see the tests).

    // ---- job.csv
    std::string jobCsv;
    {
        std::vector<std::string> header = kJobColumns;
        header.resize(kJobColumns.size() + kJobUnnamedColumns);
        jobCsv += CsvJoin(header) + "\n";
    }
    uint64_t id = 1;
    for (const auto& j : jobs)
    {
        if (!j.inJobCsv)
        {
            continue;
        }
        const Tenant& tn = tenants[j.tenant];
        std::string reason;
        std::string reasonCode;
        if (j.status == "Succeeded")
        {
            reason = "Job succeeded";
            reasonCode = "JobSucceeded";
        }
        else if (j.status == "Failed")
        {
            reason = "Job failed";
            reasonCode = "JobFailed";
        }
        else if (j.status == "Stopped")
        {
            reason = "Job stopped by user";
            reasonCode = "StoppedByUser";
        }
        const std::optional<double> last = j.finished ? j.finished : j.stopped;
        std::vector<std::string> row{std::to_string(id++),
                                     j.uid,
                                     j.name,
                                     "PyTorchJob",
                                     tn.ns,
                                     clusterId,
                                     tn.tenant,
                                     tn.group,
                                     tn.user,
                                     tn.workspace,
                                     tn.resource,
                                     tn.workspaceName,
                                     std::to_string(1000000 + id),
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
        jobCsv += CsvJoin(row) + "\n";
        ++out.jobs;
    }

    // ---- worker.csv
    std::string workerCsv = CsvJoin(kWorkerColumns) + "\n";
    uint64_t wid = 1;
    for (const auto& j : jobs)
    {
        if (j.pods == 0)
        {
            continue;
        }
        out.orphanJobs += j.inJobCsv ? 0 : 1;
        const std::optional<double> last = j.finished ? j.finished : j.stopped;
        const uint32_t g = j.gpusPerPod;
        // Kubernetes resource requests, in the style of the real RES column; CPU, memory and
        // storage scale with the GPUs (96 CPUs, 1600Gi, 4800Gi for 8 GPUs as in SOURCE.md's
        // example).
        const std::string res = "{\"cpu\": \"" + std::to_string(12 * g) + "\", \"memory\": \"" +
                                std::to_string(200 * g) + "Gi\", \"nvidia.com/gpu\": \"" +
                                std::to_string(g) + "\", \"ephemeral-storage\": \"" +
                                std::to_string(600 * g) + "Gi\", \"koordinator.sh/rdma\": \"1\"}";
        for (uint32_t p = 0; p < j.pods; ++p)
        {
            const bool master = p == 0;
            std::vector<std::string> row{
                std::to_string(wid++),
                j.name,
                j.name + (master ? "-master-0" : "-worker-" + std::to_string(p - 1)),
                master ? "master" : "worker",
                hostIp[j.podHost[p]],
                LingjunTime::Format(j.submit),
                Time(j.running),
                Time(j.running ? last : std::nullopt),
                res};
            workerCsv += CsvJoin(row) + "\n";
            ++out.pods;
        }
    }
    out.jobCsv = std::move(jobCsv);
    out.workerCsv = std::move(workerCsv);
    return out;
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
