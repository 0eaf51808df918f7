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

#include "lingjun-trace.h"

#include "rfc4180-csv.h"

#include "ns3/input-file.h"
#include "ns3/log.h"

#include <algorithm>
#include <boost/date_time/gregorian/gregorian_types.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxLingjunTrace");

namespace
{

/// Most GPUs of one trace job (the sum over its pods; each pod row is checked for at most
/// 1,000,000): an assumption far beyond any cluster, so that the count fits 32 bits.
constexpr uint64_t MAX_JOB_GPUS = 1000000;

/// Largest trace file read (topo.csv, job.csv, worker.csv): an assumption bounding the
/// memory (the reader needs about four times a file's size); the real files are a few MiB.
constexpr uintmax_t MAX_FILE_BYTES = uintmax_t{256} << 20;

/// Parse a run of 1..maxDigits decimal digits at text[pos]; advances pos.
bool
ReadNumber(const std::string& text, size_t& pos, size_t maxDigits, int& value)
{
    size_t digits = 0;
    value = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && digits < maxDigits)
    {
        value = value * 10 + (text[pos] - '0');
        ++pos;
        ++digits;
    }
    return digits > 0;
}

/// Header of a CSV file: column name -> index, and the field count.
struct Header
{
    std::map<std::string, size_t> index; //!< first occurrence of each name
    size_t fields{0};                    //!< field count of the header
};

Header
ReadHeader(Rfc4180Reader& reader, const std::string& file, const std::vector<std::string>& required)
{
    std::vector<std::string> fields;
    Rfc4180Reader::Status st = reader.Next(fields);
    if (st == Rfc4180Reader::Status::END)
    {
        throw TraceError(file + ": empty file (no header row)");
    }
    if (st == Rfc4180Reader::Status::MALFORMED)
    {
        throw TraceError(file + ":" + std::to_string(reader.Line()) +
                         ": malformed header row: " + reader.Error());
    }
    Header h;
    h.fields = fields.size();
    for (size_t i = 0; i < fields.size(); ++i)
    {
        h.index.emplace(fields[i], i);
    }
    for (const auto& name : required)
    {
        if (h.index.count(name) == 0)
        {
            throw TraceError(file + ": header has no column '" + name + "'");
        }
        // which of two would be read is a guess (the real job.csv has two unnamed columns,
        // which no reader needs, so only the columns read are checked)
        if (std::count(fields.begin(), fields.end(), name) > 1)
        {
            throw TraceError(file + ": header has the column '" + name + "' twice");
        }
    }
    return h;
}

/// A rejected row's job, for NextRow(): the column of its name and the count per job.
struct RejectedRowsOf
{
    size_t column{0};                        //!< the job_name column
    std::map<std::string, uint64_t>* counts; //!< rejected rows per job name
};

/// Read the next well-formed row with the header's field count; reports the others, and with
/// \p byJob counts each against the job named in its job_name field where that field was read
/// (a malformed or short pod row would otherwise leave its job with fewer GPUs).
bool
NextRow(Rfc4180Reader& reader,
        const Header& h,
        const std::string& file,
        std::vector<std::string>& fields,
        std::vector<TraceWarning>& warnings,
        const RejectedRowsOf* byJob = nullptr)
{
    while (true)
    {
        Rfc4180Reader::Status st = reader.Next(fields);
        if (st == Rfc4180Reader::Status::END)
        {
            return false;
        }
        const std::vector<std::string>* got = nullptr;
        if (st == Rfc4180Reader::Status::MALFORMED)
        {
            warnings.push_back({file, reader.Line(), "malformed CSV row: " + reader.Error()});
            got = &reader.Partial();
        }
        else if (fields.size() != h.fields)
        {
            warnings.push_back({file,
                                reader.Line(),
                                "row has " + std::to_string(fields.size()) +
                                    " fields, header has " + std::to_string(h.fields)});
            got = &fields;
        }
        else
        {
            return true;
        }
        if (byJob != nullptr && got->size() > byJob->column && !(*got)[byJob->column].empty())
        {
            const std::string& job = (*got)[byJob->column];
            ++(*byJob->counts)[job];
            warnings.back().reason += " (a pod row of job " + job + ")";
        }
    }
}

std::ifstream
OpenOrThrow(const std::string& path)
{
    // The reader holds a file in memory several times over: refuse what cannot be a trace
    const std::string problem = InputFileProblem(path, MAX_FILE_BYTES, "a trace file");
    if (!problem.empty())
    {
        throw TraceError(path + ": " + problem);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw TraceError(path + ": cannot open file");
    }
    return in;
}

/// The first 12 characters of a hash, for messages.
std::string
Short(const std::string& s)
{
    return s.size() > 12 ? s.substr(0, 12) + "..." : s;
}

} // namespace

std::string
ToString(const TraceWarning& w)
{
    return w.file + ":" + std::to_string(w.line) + ": " + w.reason;
}

// ---------------------------------------------------------------------------- LingjunTime

std::optional<double>
LingjunTime::Parse(const std::string& text)
{
    // Y{4} sep M{1,2} sep D{1,2} ' '+ H{1,2} ':' MM [':' SS], sep = '/' or '-'.
    size_t pos = 0;
    int y = 0;
    int mo = 0;
    int d = 0;
    int h = 0;
    int mi = 0;
    int s = 0;
    if (!ReadNumber(text, pos, 4, y) || pos != 4 || pos >= text.size())
    {
        return std::nullopt;
    }
    const char sep = text[pos];
    if (sep != '/' && sep != '-')
    {
        return std::nullopt;
    }
    ++pos;
    if (!ReadNumber(text, pos, 2, mo) || pos >= text.size() || text[pos] != sep)
    {
        return std::nullopt;
    }
    ++pos;
    if (!ReadNumber(text, pos, 2, d) || pos >= text.size() || text[pos] != ' ')
    {
        return std::nullopt;
    }
    while (pos < text.size() && text[pos] == ' ')
    {
        ++pos;
    }
    if (!ReadNumber(text, pos, 2, h) || pos >= text.size() || text[pos] != ':')
    {
        return std::nullopt;
    }
    ++pos;
    size_t before = pos;
    if (!ReadNumber(text, pos, 2, mi) || pos - before != 2)
    {
        return std::nullopt;
    }
    if (pos < text.size())
    {
        if (text[pos] != ':')
        {
            return std::nullopt;
        }
        ++pos;
        before = pos;
        if (!ReadNumber(text, pos, 2, s) || pos - before != 2 || pos != text.size())
        {
            return std::nullopt;
        }
    }
    // years 1970-2199: any two times of a trace then fit ns-3's clock (int64 ns, 292 years)
    if (h > 23 || mi > 59 || s > 59 || y < 1970 || y > 2199)
    {
        return std::nullopt;
    }
    try
    {
        // Boost.Date_Time validates the calendar date (throws on month 13, Feb 30, ...).
        boost::gregorian::date date(y, mo, d);
        const long days = (date - boost::gregorian::date(1970, 1, 1)).days();
        return static_cast<double>(days) * 86400.0 + h * 3600.0 + mi * 60.0 + s;
    }
    catch (const std::exception&)
    {
        return std::nullopt;
    }
}

std::string
LingjunTime::Format(double seconds)
{
    const long long total = static_cast<long long>(std::floor(seconds));
    const long long days = total / 86400;
    const long long rem = total % 86400;
    boost::gregorian::date date =
        boost::gregorian::date(1970, 1, 1) + boost::gregorian::date_duration(days);
    char buf[64];
    std::snprintf(buf,
                  sizeof(buf),
                  "%d/%d/%d %02lld:%02lld",
                  static_cast<int>(date.year()),
                  static_cast<int>(date.month()),
                  static_cast<int>(date.day()),
                  rem / 3600,
                  (rem % 3600) / 60);
    return buf;
}

// ---------------------------------------------------------------------------- topology

std::optional<uint32_t>
LingjunTopology::FindHost(const std::string& ip) const
{
    auto it = hostIndex.find(ip);
    if (it == hostIndex.end())
    {
        return std::nullopt;
    }
    return it->second;
}

std::vector<uint32_t>
LingjunTopology::HostsOfTor(uint32_t tor) const
{
    std::vector<uint32_t> out;
    for (uint32_t h = 0; h < hostTor.size(); ++h)
    {
        if (hostTor[h] == tor)
        {
            out.push_back(h);
        }
    }
    return out;
}

LingjunTopology
ParseLingjunTopology(std::istream& in, const std::string& file, std::vector<TraceWarning>& warnings)
{
    Rfc4180Reader reader(in);
    const Header h = ReadHeader(reader, file, {"ip", "DSW", "PSW", "ASW"});
    const size_t cIp = h.index.at("ip");
    const size_t cDsw = h.index.at("DSW");
    const size_t cPsw = h.index.at("PSW");
    const size_t cAsw = h.index.at("ASW");

    LingjunTopology topo;
    std::map<std::pair<std::string, std::string>, uint32_t> torIndex;
    std::map<std::string, uint32_t> pswIndex;
    std::map<std::string, uint32_t> dswIndex;
    std::vector<std::string> f;
    while (NextRow(reader, h, file, f, warnings))
    {
        const uint64_t line = reader.Line();
        const char* names[] = {"ip", "DSW", "PSW", "ASW"};
        const size_t cols[] = {cIp, cDsw, cPsw, cAsw};
        bool empty = false;
        for (int i = 0; i < 4; ++i)
        {
            if (f[cols[i]].empty())
            {
                warnings.push_back({file, line, std::string("empty ") + names[i]});
                empty = true;
                break;
            }
        }
        if (empty)
        {
            continue;
        }
        const std::string& ip = f[cIp];
        if (topo.hostIndex.count(ip) != 0)
        {
            warnings.push_back({file, line, "duplicate ip " + Short(ip)});
            continue;
        }
        auto dsw = dswIndex.find(f[cDsw]);
        const uint32_t dswId =
            dsw != dswIndex.end() ? dsw->second : static_cast<uint32_t>(topo.dsws.size());
        auto key = std::make_pair(f[cPsw], f[cAsw]);
        auto tor = torIndex.find(key);
        if (tor != torIndex.end() && topo.torDsw[tor->second] != dswId)
        {
            warnings.push_back({file,
                                line,
                                "ToR (" + key.first + ", " + key.second + ") is under DSW " +
                                    topo.dsws[topo.torDsw[tor->second]] + ", not " + f[cDsw]});
            continue;
        }
        if (dsw == dswIndex.end())
        {
            dswIndex[f[cDsw]] = dswId;
            topo.dsws.push_back(f[cDsw]);
        }
        uint32_t torId;
        if (tor == torIndex.end())
        {
            auto psw = pswIndex.find(f[cPsw]);
            uint32_t pswId;
            if (psw == pswIndex.end())
            {
                pswId = static_cast<uint32_t>(topo.psws.size());
                pswIndex[f[cPsw]] = pswId;
                topo.psws.push_back(f[cPsw]);
            }
            else
            {
                pswId = psw->second;
            }
            torId = static_cast<uint32_t>(topo.tors.size());
            torIndex[key] = torId;
            topo.tors.push_back(key);
            topo.torPsw.push_back(pswId);
            topo.torDsw.push_back(dswId);
        }
        else
        {
            torId = tor->second;
        }
        topo.hostIndex[ip] = static_cast<uint32_t>(topo.hosts.size());
        topo.hosts.push_back(ip);
        topo.hostTor.push_back(torId);
    }
    return topo;
}

LingjunTopology
ReadLingjunTopology(const std::string& path, std::vector<TraceWarning>& warnings)
{
    std::ifstream in = OpenOrThrow(path);
    return ParseLingjunTopology(in, path, warnings);
}

// ---------------------------------------------------------------------------- job.csv

std::optional<double>
LingjunJobRecord::End() const
{
    return finished ? finished : stopped;
}

LingjunJobTable
ParseLingjunJobs(std::istream& in, const std::string& file, std::vector<TraceWarning>& warnings)
{
    Rfc4180Reader reader(in);
    const Header h = ReadHeader(reader,
                                file,
                                {"job_name",
                                 "model",
                                 "status",
                                 "gmt_job_submitted",
                                 "gmt_job_running",
                                 "gmt_job_finished",
                                 "gmt_job_stopped"});
    const size_t cName = h.index.at("job_name");
    const size_t cModel = h.index.at("model");
    const size_t cStatus = h.index.at("status");
    const size_t cSubmit = h.index.at("gmt_job_submitted");
    const size_t cRunning = h.index.at("gmt_job_running");
    const size_t cFinished = h.index.at("gmt_job_finished");
    const size_t cStopped = h.index.at("gmt_job_stopped");

    LingjunJobTable table;
    table.file = file;
    std::set<std::string> seen;
    std::vector<std::string> f;
    while (NextRow(reader, h, file, f, warnings))
    {
        const uint64_t line = reader.Line();
        LingjunJobRecord r;
        r.line = line;
        r.name = f[cName];
        r.model = f[cModel];
        r.status = f[cStatus];
        if (r.name.empty())
        {
            warnings.push_back({file, line, "empty job_name"});
            continue;
        }
        // Reports a problem of this row (the caller then skips it).
        auto warn = [&](const std::string& what) {
            warnings.push_back({file, line, "job " + r.name + ": " + what});
            table.rejected.insert(r.name);
        };
        if (seen.count(r.name) != 0)
        {
            warn("job_name repeated");
            continue;
        }
        if (f[cSubmit].empty())
        {
            warn("empty gmt_job_submitted");
            continue;
        }
        bool bad = false;
        auto parse = [&](size_t col, const char* name) -> std::optional<double> {
            if (f[col].empty())
            {
                return std::nullopt;
            }
            auto t = LingjunTime::Parse(f[col]);
            if (!t)
            {
                warn(std::string(name) + " '" + f[col] +
                     "' is not a timestamp like 2023/7/15 02:19 (years 1970-2199)");
                bad = true;
            }
            return t;
        };
        auto submit = parse(cSubmit, "gmt_job_submitted");
        r.running = parse(cRunning, "gmt_job_running");
        r.finished = parse(cFinished, "gmt_job_finished");
        r.stopped = parse(cStopped, "gmt_job_stopped");
        if (bad)
        {
            continue;
        }
        r.submit = *submit;
        if (r.running && *r.running < r.submit)
        {
            warn("gmt_job_running " + f[cRunning] + " is before gmt_job_submitted " + f[cSubmit]);
            continue;
        }
        const double from = r.running ? *r.running : r.submit;
        const char* fromName = r.running ? "gmt_job_running" : "gmt_job_submitted";
        if (r.finished && *r.finished < from)
        {
            warn("gmt_job_finished " + f[cFinished] + " is before " + fromName);
            continue;
        }
        if (r.stopped && *r.stopped < from)
        {
            warn("gmt_job_stopped " + f[cStopped] + " is before " + fromName);
            continue;
        }
        seen.insert(r.name);
        table.rows.push_back(r);
    }
    return table;
}

LingjunJobTable
ReadLingjunJobs(const std::string& path, std::vector<TraceWarning>& warnings)
{
    std::ifstream in = OpenOrThrow(path);
    return ParseLingjunJobs(in, path, warnings);
}

// ---------------------------------------------------------------------------- worker.csv

LingjunWorkerTable
ParseLingjunWorkers(std::istream& in, const std::string& file, std::vector<TraceWarning>& warnings)
{
    Rfc4180Reader reader(in);
    const Header h =
        ReadHeader(reader, file, {"job_name", "worker_name", "replica_type", "host_ip", "RES"});
    const size_t cJob = h.index.at("job_name");
    const size_t cWorker = h.index.at("worker_name");
    const size_t cType = h.index.at("replica_type");
    const size_t cHost = h.index.at("host_ip");
    const size_t cRes = h.index.at("RES");

    LingjunWorkerTable table;
    table.file = file;
    std::vector<std::string> f;
    const RejectedRowsOf byJob{cJob, &table.rejectedPods};
    while (NextRow(reader, h, file, f, warnings, &byJob))
    {
        const uint64_t line = reader.Line();
        LingjunWorkerRecord r;
        r.line = line;
        r.jobName = f[cJob];
        r.workerName = f[cWorker];
        r.replicaType = f[cType];
        r.hostIp = f[cHost];
        if (r.jobName.empty())
        {
            warnings.push_back({file, line, "empty job_name"});
            continue;
        }
        // Reports why this pod row is rejected and counts it against its job (then skip it).
        auto reject = [&](const std::string& what) {
            warnings.push_back({file, line, "pod " + r.workerName + ": " + what});
            ++table.rejectedPods[r.jobName];
        };
        if (r.hostIp.empty())
        {
            reject("empty host_ip");
            continue;
        }
        nlohmann::json res;
        try
        {
            res = nlohmann::json::parse(f[cRes]);
        }
        catch (const nlohmann::json::parse_error& e)
        {
            reject(std::string("RES is not valid JSON (") + e.what() + ")");
            continue;
        }
        if (!res.is_object())
        {
            reject("RES is not a JSON object");
            continue;
        }
        auto gpu = res.find("nvidia.com/gpu");
        if (gpu != res.end())
        {
            bool ok = false;
            uint64_t v = 0;
            if (gpu->is_number_unsigned())
            {
                v = gpu->get<uint64_t>();
                ok = true;
            }
            else if (gpu->is_string())
            {
                const std::string s = gpu->get<std::string>();
                ok = !s.empty() && s.size() <= 9 &&
                     s.find_first_not_of("0123456789") == std::string::npos;
                if (ok)
                {
                    v = std::stoull(s);
                }
            }
            if (!ok || v > 1000000)
            {
                reject("RES nvidia.com/gpu " + gpu->dump() + " is not a non-negative integer");
                continue;
            }
            r.gpus = static_cast<uint32_t>(v);
        }
        table.rows.push_back(r);
    }
    return table;
}

LingjunWorkerTable
ReadLingjunWorkers(const std::string& path, std::vector<TraceWarning>& warnings)
{
    std::ifstream in = OpenOrThrow(path);
    return ParseLingjunWorkers(in, path, warnings);
}

// ---------------------------------------------------------------------------- assembly

LingjunTrace
AssembleLingjunTrace(const LingjunJobTable& jobs,
                     const LingjunWorkerTable& workers,
                     const LingjunTopology& topology,
                     const LingjunAssembleOptions& options)
{
    LingjunTrace out;
    std::unordered_map<std::string, size_t> jobIndex;
    for (size_t i = 0; i < jobs.rows.size(); ++i)
    {
        jobIndex[jobs.rows[i].name] = i;
    }

    struct Pods
    {
        uint32_t rows{0};                    // pod rows, skipped or not
        uint32_t skipped{0};                 // pod rows skipped (unknown host)
        std::map<uint32_t, uint64_t> gpusOn; // host -> GPUs (64 bits: no wrap-around)
        uint64_t gpus{0};
    };

    std::vector<Pods> pods(jobs.rows.size());
    std::map<std::string, std::pair<uint64_t, uint32_t>> orphans; // name -> (first line, rows)
    std::vector<std::string> orphanOrder;
    for (const auto& w : workers.rows)
    {
        auto it = jobIndex.find(w.jobName);
        if (it == jobIndex.end())
        {
            auto o = orphans.find(w.jobName);
            if (o == orphans.end())
            {
                orphans[w.jobName] = {w.line, 1};
                orphanOrder.push_back(w.jobName);
            }
            else
            {
                ++o->second.second;
            }
            continue;
        }
        Pods& p = pods[it->second];
        ++p.rows;
        auto host = topology.FindHost(w.hostIp);
        if (!host)
        {
            out.warnings.push_back({workers.file,
                                    w.line,
                                    "pod " + w.workerName + ": host_ip " + Short(w.hostIp) +
                                        " is not in the topology"});
            ++p.skipped;
            continue;
        }
        p.gpusOn[*host] += w.gpus;
        p.gpus += w.gpus;
    }
    for (const auto& name : orphanOrder)
    {
        const auto& o = orphans[name];
        const std::string why = jobs.rejected.count(name) != 0
                                    ? " pod row(s) of a job whose row in " + jobs.file +
                                          " was rejected (reported above)"
                                    : " pod row(s) of a job_name that is not in " + jobs.file;
        out.warnings.push_back(
            {workers.file, o.first, "job " + name + ": " + std::to_string(o.second) + why});
    }

    for (size_t i = 0; i < jobs.rows.size(); ++i)
    {
        const LingjunJobRecord& r = jobs.rows[i];
        const Pods& p = pods[i];
        auto warn = [&](const std::string& why) {
            NS_LOG_DEBUG("job " << r.name << ": " << why);
            out.warnings.push_back({jobs.file, r.line, "job " + r.name + ": " + why});
        };
        if (!r.running)
        {
            warn("gmt_job_running is empty (the job never ran); skipped");
            continue;
        }
        std::optional<double> end = r.End();
        if (!end)
        {
            if (r.status == "Running" && options.runningJobsEnd)
            {
                end = std::max(*options.runningJobsEnd, *r.running);
            }
            else
            {
                warn("no gmt_job_finished or gmt_job_stopped (status " + r.status + "); skipped");
                continue;
            }
        }
        const auto rejected = workers.rejectedPods.find(r.name);
        if (rejected != workers.rejectedPods.end() && options.dropIncompleteJobs)
        {
            warn(std::to_string(rejected->second) + " pod row(s) in " + workers.file +
                 " were rejected by the row checks; job dropped");
            continue;
        }
        if (p.rows == 0)
        {
            warn("no pod rows in " + workers.file + "; skipped");
            continue;
        }
        if (p.skipped > 0 && options.dropIncompleteJobs)
        {
            warn(std::to_string(p.skipped) + " of " + std::to_string(p.rows) +
                 " pod rows are on hosts not in the topology; job dropped");
            continue;
        }
        if (p.gpus == 0)
        {
            warn("its pods ask for 0 GPUs in total; skipped");
            continue;
        }
        if (p.gpus > MAX_JOB_GPUS)
        {
            warn("its pods ask for " + std::to_string(p.gpus) + " GPUs in total, more than " +
                 std::to_string(MAX_JOB_GPUS) + "; skipped");
            continue;
        }
        TraceJob j;
        j.name = r.name;
        j.modelLabel = r.model;
        j.status = r.status;
        j.submit = r.submit;
        j.start = *r.running;
        j.end = *end;
        j.gpus = static_cast<uint32_t>(p.gpus);
        j.pods = p.rows - p.skipped;
        j.line = r.line;
        for (const auto& [host, g] : p.gpusOn)
        {
            j.hosts.push_back(host);
            j.gpusPerHost.push_back(static_cast<uint32_t>(g)); // <= gpus
        }
        out.jobs.push_back(std::move(j));
    }
    std::sort(out.jobs.begin(), out.jobs.end(), [](const TraceJob& a, const TraceJob& b) {
        return a.submit != b.submit ? a.submit < b.submit : a.name < b.name;
    });
    NS_LOG_INFO(out.jobs.size() << " of " << jobs.rows.size() << " jobs kept, "
                                << out.warnings.size() << " warnings");
    return out;
}

} // namespace ns3
