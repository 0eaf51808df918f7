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

/*
 * Reading a scenario file: the JSON document into a Scenario (Scenario::Load, Scenario::Parse),
 * every key named in its message, unknown keys rejected. The checks of the values are
 * Scenario::Validate (crux-scenario.cc), which Parse calls last.
 */

#include "crux-scenario.h"
#include "nccl-model.h"

#include "ns3/checked-parse.h"
#include "ns3/input-file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

using nlohmann::json;

/// Most gradient buckets a job's "overlap.buckets" may ask for. An assumption, not a published
/// limit: PyTorch DDP's default 25 MB buckets give about 28,000 for GPT-3 175B's 700 GB of fp32
/// gradients; the iteration DAG holds per DP rank a node per bucket and ring step, so values
/// far above this exhaust memory (1,000,000 buckets of a 16-GPU job took 7.4 GB).
constexpr uint32_t MAX_OVERLAP_BUCKETS = 65536;

/// Reads one JSON object, remembering which keys were consumed so the rest can be rejected.
class ObjectReader
{
  public:
    ObjectReader(const json& j, std::string path, const std::string& source)
        : m_j(j),
          m_path(std::move(path)),
          m_source(source)
    {
        if (!m_j.is_object())
        {
            Fail(m_path.empty() ? "the top level" : m_path,
                 std::string("must be a JSON object, got ") +
                     (m_j.is_array() ? "an array" : Dump(m_j)));
        }
    }

    [[noreturn]] void Fail(const std::string& field, const std::string& what) const
    {
        throw ScenarioError(m_source + ": " + field + ": " + what);
    }

    std::string Field(const std::string& key) const
    {
        return m_path.empty() ? key : m_path + "." + key;
    }

    template <typename T>
    void Read(const std::string& key, T& out)
    {
        m_used.insert(key);
        auto it = m_j.find(key);
        if (it == m_j.end())
        {
            return;
        }
        try
        {
            if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>)
            {
                // range-checked on 64 bits before narrowing (4294967297 is not 1)
                out = static_cast<T>(Unsigned(*it, Field(key), std::numeric_limits<T>::max()));
                return;
            }
            else if constexpr (std::is_same_v<T, std::vector<uint32_t>>)
            {
                if (!it->is_array())
                {
                    Fail(Field(key), "must be an array of non-negative integers, got " + Dump(*it));
                }
                out.clear();
                for (size_t i = 0; i < it->size(); ++i)
                {
                    out.push_back(
                        static_cast<uint32_t>(Unsigned((*it)[i],
                                                       Field(key) + "[" + std::to_string(i) + "]",
                                                       std::numeric_limits<uint32_t>::max())));
                }
                return;
            }
            else if constexpr (std::is_floating_point_v<T>)
            {
                if (!it->is_number())
                {
                    Fail(Field(key), "must be a number, got " + Dump(*it));
                }
            }
            else if constexpr (std::is_same_v<T, bool>)
            {
                if (!it->is_boolean())
                {
                    Fail(Field(key), "must be true or false, got " + Dump(*it));
                }
            }
            else if constexpr (std::is_same_v<T, std::string>)
            {
                if (!it->is_string())
                {
                    Fail(Field(key), "must be a string, got " + Dump(*it));
                }
                // no field takes one; a NUL would also cut every message that names the value
                const auto& text = it->template get_ref<const std::string&>();
                if (std::any_of(text.begin(), text.end(), [](char ch) {
                        const auto c = static_cast<unsigned char>(ch);
                        return c < 0x20 || c == 0x7f;
                    }))
                {
                    Fail(Field(key),
                         "must not contain control characters, got " + QuoteInput(text));
                }
            }
            out = it->template get<T>();
        }
        catch (const json::exception& e)
        {
            Fail(Field(key), std::string("wrong type (") + e.what() + ")");
        }
    }

    /// \return a JSON value for a message (one line, cut after 60 bytes)
    static std::string Dump(const json& v)
    {
        const std::string d = v.dump();
        return d.size() > 60 ? d.substr(0, 60) + "..." : d;
    }

    /// \return a non-negative JSON integer <= max, or Fail() naming the field
    uint64_t Unsigned(const json& v, const std::string& field, uint64_t max) const
    {
        if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0))
        {
            Fail(field, "must be a non-negative integer, got " + Dump(v));
        }
        try
        {
            return CheckRange(v.get<uint64_t>(), field, 0, max);
        }
        catch (const InputError& e)
        {
            Fail(field, e.GetDetail());
        }
    }

    const json* Get(const std::string& key)
    {
        m_used.insert(key);
        auto it = m_j.find(key);
        return it == m_j.end() ? nullptr : &*it;
    }

    void RejectUnknown() const
    {
        for (auto it = m_j.begin(); it != m_j.end(); ++it)
        {
            if (m_used.count(it.key()) == 0)
            {
                std::string known;
                for (const auto& k : m_used)
                {
                    known += (known.empty() ? "" : ", ") + k;
                }
                Fail(Field(it.key()), "unknown key (known here: " + known + ")");
            }
        }
    }

  private:
    const json& m_j;
    std::string m_path;
    const std::string& m_source;
    std::set<std::string> m_used;
};

/**
 * Read the "topology" object of a scenario (the checks of Validate() come later).
 * \param t the object \param source file name for messages \param tp filled in
 */
void
ReadTopology(const json& t, const std::string& source, ScenarioTopology& tp)
{
    ObjectReader r(t, "topology", source);
    r.Read("type", tp.type);
    r.Read("tors", tp.tors);
    r.Read("aggs", tp.aggs);
    r.Read("hostsPerTor", tp.hostsPerTor);
    r.Read("gpusPerHost", tp.gpusPerHost);
    r.Read("nicsPerHost", tp.nicsPerHost);
    r.Read("hostLinkRate", tp.hostLinkRate);
    r.Read("fabricLinkRate", tp.fabricLinkRate);
    r.Read("linkDelay", tp.linkDelay);
    r.Read("pfc", tp.pfc);
    r.Read("switchBuffer", tp.switchBuffer);
    r.Read("wiring", tp.wiring);
    r.Read("torsPerGroup", tp.torsPerGroup);
    r.Read("cores", tp.cores);
    r.Read("coreLinkRate", tp.coreLinkRate);
    if (const json* ih = r.Get("intraHost"))
    {
        ObjectReader ir(*ih, "topology.intraHost", source);
        ir.Read("enabled", tp.intraHost.enabled);
        ir.Read("pcieRate", tp.intraHost.pcieRate);
        ir.Read("pcieLatency", tp.intraHost.pcieLatency);
        ir.Read("nvlinkRate", tp.intraHost.nvlinkRate);
        ir.Read("nvlinkLatency", tp.intraHost.nvlinkLatency);
        ir.RejectUnknown();
    }
    r.RejectUnknown();
}

/**
 * Read a job's training-step fields (TrainingStepRequest): the names of recompute, precision
 * and optimizer are checked here, the GPU name and the numbers against the model when the job is
 * built (DltJob::ApplyStep).
 * \param r the job's reader \param jj the job object \param job filled in
 */
void
ReadStep(ObjectReader& r, const json& jj, ScenarioJob& job)
{
    auto& st = job.step;
    for (auto [key, out] : {std::make_pair("globalBatch", &st.globalBatch),
                            std::make_pair("microBatchSize", &st.microBatchSize),
                            std::make_pair("sequenceLength", &st.sequenceLength)})
    {
        r.Read(key, *out);
        if (jj.contains(key) && *out == 0)
        {
            r.Fail(r.Field(key), "must be >= 1 (omit it for the zoo's default)");
        }
    }
    r.Read("gpu", st.gpu);
    r.Read("precision", st.precision);
    r.Read("recompute", st.recompute);
    r.Read("optimizer", st.optimizer);
    const std::tuple<const char*, const std::string*, const std::vector<std::string>*> names[] = {
        {"precision", &st.precision, &PrecisionNames()},
        {"recompute", &st.recompute, &RecomputeNames()},
        {"optimizer", &st.optimizer, &OptimizerNames()}};
    for (const auto& [key, value, known] : names)
    {
        if (jj.contains(key) && (value->empty() || StepNameIndex(*known, *value) < 0))
        {
            std::string list;
            for (const auto& n : *known)
            {
                list += (list.empty() ? "" : ", ") + n;
            }
            r.Fail(r.Field(key), "unknown value '" + *value + "' (known: " + list + ")");
        }
    }
    if (jj.contains("gpu") && st.gpu.empty())
    {
        r.Fail(r.Field("gpu"), "must not be empty (omit it for the zoo's A100 rate)");
    }
    if (!job.chakra.empty() && !st.Empty())
    {
        r.Fail(r.Field("chakra"),
               "a Chakra trace job has no training-step fields (the trace "
               "holds its compute and messages)");
    }
    // micro-batches and the optimizer exist only in a parallelism plan
    if (st.microBatchSize > 0 || !st.optimizer.empty())
    {
        job.hasPlan = true;
    }
}

/**
 * Read one element of a scenario's "jobs" array.
 * \param jj the job object \param i its index \param source file name for messages
 * \return the job
 */
ScenarioJob
ReadJob(const json& jj, size_t i, const std::string& source)
{
    ObjectReader r(jj, "jobs[" + std::to_string(i) + "]", source);
    ScenarioJob job;
    job.name = "job" + std::to_string(i);
    r.Read("name", job.name);
    r.Read("model", job.model);
    r.Read("gpus", job.gpus);
    r.Read("hosts", job.hosts);
    r.Read("gpusPerHost", job.gpusPerHost);
    r.Read("start", job.start);
    r.Read("iterations", job.iterations);
    r.Read("computeTime", job.computeTime);
    r.Read("gradientBytes", job.gradientBytes);
    r.Read("background", job.background);
    r.Read("chakra", job.chakra);
    if (r.Get("chakra") != nullptr && job.chakra.empty())
    {
        r.Fail(r.Field("chakra"), "must not be empty (the path prefix of the rank files)");
    }
    if (!job.chakra.empty() && r.Get("model") != nullptr)
    {
        r.Fail(r.Field("model"), "give either \"model\" or \"chakra\", not both");
    }
    if (!job.chakra.empty() && r.Get("parallelism") != nullptr)
    {
        r.Fail(r.Field("parallelism"),
               "a Chakra trace job has no parallelism plan (the trace is the plan)");
    }
    if (!job.chakra.empty() && r.Get("overlap") != nullptr)
    {
        r.Fail(r.Field("overlap"),
               "a Chakra trace job has no overlap fields (the trace's dependencies say what "
               "overlaps)");
    }
    if (const json* pj = r.Get("parallelism"))
    {
        ObjectReader pr(*pj, r.Field("parallelism"), source);
        auto& q = job.parallelism;
        for (auto [key, out] : {std::make_pair("tp", &q.tp),
                                std::make_pair("pp", &q.pp),
                                std::make_pair("dp", &q.dp),
                                std::make_pair("ep", &q.ep),
                                std::make_pair("microBatches", &q.microBatches),
                                std::make_pair("layersPerBlock", &q.layersPerBlock),
                                std::make_pair("virtualStages", &q.virtualStages)})
        {
            pr.Read(key, *out);
            if (pj->contains(key) && *out == 0)
            {
                pr.Fail(pr.Field(key), "must be >= 1 (omit it for the default)");
            }
        }
        pr.Read("sequenceParallel", q.sequenceParallel);
        pr.RejectUnknown();
        job.hasPlan = true;
    }
    if (const json* cj = r.Get("collectives"))
    {
        ObjectReader cr(*cj, r.Field("collectives"), source);
        cr.Read("allReduce", job.parallelism.allReduce);
        cr.Read("allToAll", job.parallelism.allToAll);
        cr.Read("channels", job.parallelism.channels);
        cr.Read("protocol", job.parallelism.protocol);
        cr.RejectUnknown();
        if (cj->contains("channels") &&
            (job.parallelism.channels == 0 || job.parallelism.channels > 64))
        {
            cr.Fail(cr.Field("channels"),
                    "must be 1..64 (NCCL's MAXCHANNELS; omit it for NCCL's default)");
        }
        std::optional<NcclProtocol> proto;
        if (!ParseNcclProtocol(job.parallelism.protocol, proto))
        {
            cr.Fail(cr.Field("protocol"),
                    "unknown protocol '" + job.parallelism.protocol +
                        "' (known: auto, simple, ll, ll128)");
        }
        std::string ar;
        if (!ParseAllReduceAlgorithm(job.parallelism.allReduce, ar) ||
            (cj->contains("allReduce") && job.parallelism.allReduce.empty()))
        {
            std::string known;
            for (const auto& n : AllReduceAlgorithmNames())
            {
                known += (known.empty() ? "" : ", ") + n;
            }
            cr.Fail(cr.Field("allReduce"),
                    "unknown algorithm '" + job.parallelism.allReduce + "' (known: " + known +
                        "; omit it for NCCL's choice)");
        }
        AllToAllAlgorithm aa;
        if (!ParseAllToAllAlgorithm(job.parallelism.allToAll, aa) ||
            (cj->contains("allToAll") && job.parallelism.allToAll.empty()))
        {
            cr.Fail(cr.Field("allToAll"),
                    "unknown algorithm '" + job.parallelism.allToAll + "' (known: pairwise)");
        }
        job.hasPlan = true;
    }
    if (const json* oj = r.Get("overlap"))
    {
        ObjectReader orr(*oj, r.Field("overlap"), source);
        orr.Read("forwardFraction", job.overlapForward);
        orr.Read("buckets", job.overlapBuckets);
        orr.RejectUnknown();
        if (oj->contains("forwardFraction") &&
            !(job.overlapForward >= 0 && job.overlapForward <= 1))
        {
            orr.Fail(orr.Field("forwardFraction"), "must be in [0, 1]");
        }
        if (oj->contains("buckets") && job.overlapBuckets == 0)
        {
            orr.Fail(orr.Field("buckets"), "must be >= 1 (omit it for the default)");
        }
        if (job.overlapBuckets > MAX_OVERLAP_BUCKETS)
        {
            orr.Fail(orr.Field("buckets"),
                     "must be <= " + std::to_string(MAX_OVERLAP_BUCKETS) + ", got " +
                         std::to_string(job.overlapBuckets));
        }
    }
    ReadStep(r, jj, job);
    r.RejectUnknown();
    if (job.model.empty() && job.chakra.empty())
    {
        r.Fail(r.Field("model"), "missing (name a model of the zoo, e.g. \"gpt\")");
    }
    return job;
}

} // namespace

Scenario
Scenario::Load(const std::string& path)
{
    // Largest scenario file read: an assumption (the scenarios are a few KiB; the JSON reader
    // holds a file several times over).
    constexpr uintmax_t MAX_SCENARIO_BYTES = uintmax_t{64} << 20;
    const std::string problem = InputFileProblem(path, MAX_SCENARIO_BYTES, "a scenario file");
    if (!problem.empty())
    {
        throw ScenarioError(path + ": " + problem);
    }
    std::ifstream in(path);
    if (!in)
    {
        throw ScenarioError(path + ": cannot open scenario file");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    Scenario s = Parse(ss.str(), path);
    // a relative Chakra trace prefix is relative to the scenario file's directory
    for (auto& job : s.jobs)
    {
        const std::filesystem::path prefix(job.chakra);
        if (!job.chakra.empty() && prefix.is_relative())
        {
            job.chakra = (std::filesystem::path(path).parent_path() / prefix).lexically_normal();
        }
    }
    return s;
}

namespace
{
/**
 * Follows nlohmann's parser through the document (a parser callback), so that what it refuses
 * can be named by its field: a key given twice in one object (nlohmann keeps the last silently)
 * and a number beyond a double (1e400; the lexer's message has only a byte position).
 */
class FieldTracker
{
  public:
    /// \param source the file name for messages
    explicit FieldTracker(const std::string& source)
        : m_source(source)
    {
    }

    /// The parser callback. \param event what the parser read \param parsed the key or value
    /// \return true (keep every value)
    bool operator()(json::parse_event_t event, const json& parsed)
    {
        switch (event)
        {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
            m_frames.push_back(Frame{event == json::parse_event_t::array_start, 0, "", {}});
            break;
        case json::parse_event_t::key: {
            Frame& f = m_frames.back();
            f.key = parsed.get<std::string>();
            if (!f.keys.insert(f.key).second)
            {
                throw ScenarioError(m_source + ": " + Field() +
                                    ": given twice in one object (JSON keys must be unique; "
                                    "the later value would silently win)");
            }
            break;
        }
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            m_frames.pop_back();
            Next();
            break;
        case json::parse_event_t::value:
            Next();
            break;
        }
        return true;
    }

    /// \return the field the parser is in ("jobs[1].computeTime"; "the top level" outside any)
    std::string Field() const
    {
        std::string path;
        for (const Frame& f : m_frames)
        {
            if (f.array)
            {
                path += "[" + std::to_string(f.index) + "]";
            }
            else if (!f.key.empty())
            {
                path += (path.empty() ? "" : ".") + f.key;
            }
        }
        return path.empty() ? "the top level" : path;
    }

  private:
    /// One open object or array.
    struct Frame
    {
        bool array;                 //!< an array (else an object)
        size_t index;               //!< array: index of the element being read
        std::string key;            //!< object: the key being read
        std::set<std::string> keys; //!< object: the keys read so far
    };

    /// A value (or a nested container) of the innermost frame ended.
    void Next()
    {
        if (!m_frames.empty() && m_frames.back().array)
        {
            ++m_frames.back().index;
        }
    }

    const std::string& m_source; //!< file name
    std::vector<Frame> m_frames; //!< open containers, outermost first
};
} // namespace

Scenario
Scenario::Parse(const std::string& text, const std::string& source)
{
    json j;
    FieldTracker tracker(source);
    try
    {
        j = json::parse(text, [&tracker](int, json::parse_event_t event, json& parsed) {
            return tracker(event, parsed);
        });
    }
    catch (const json::out_of_range& e) // a number beyond a double (1e400)
    {
        throw ScenarioError(source + ": " + tracker.Field() +
                            ": a number beyond the range of a double (" + e.what() + ")");
    }
    catch (const json::exception& e) // parse_error
    {
        throw ScenarioError(source + ": malformed JSON (in " + tracker.Field() + "): " + e.what());
    }
    Scenario s;
    s.source = source;
    ObjectReader top(j, "", source);
    top.Read("name", s.name);
    top.Read("scheduler", s.scheduler);
    top.Read("priorityLevels", s.priorityLevels);
    top.Read("seed", s.seed);
    top.Read("outputDir", s.outputDir);
    top.Read("pathEnforcement", s.pathEnforcement);
    top.Read("stopTime", s.stopTime);
    top.Read("profileIterations", s.profileIterations);
    top.Read("seeds", s.seeds);
    top.Read("warmupIterations", s.warmupIterations);
    top.Read("minMeasuredIterations", s.minMeasuredIterations);
    top.Read("fabric", s.fabric);
    top.Read("congestionControl", s.congestionControl);
    if (const json* t = top.Get("topology"))
    {
        ReadTopology(*t, source, s.topology);
    }
    const json* jobs = top.Get("jobs");
    if (jobs == nullptr || !jobs->is_array() || jobs->empty())
    {
        throw ScenarioError(source + ": jobs: must be a non-empty array of job objects");
    }
    for (size_t i = 0; i < jobs->size(); ++i)
    {
        s.jobs.push_back(ReadJob((*jobs)[i], i, source));
    }
    top.RejectUnknown();
    s.Validate();
    return s;
}

} // namespace ns3
