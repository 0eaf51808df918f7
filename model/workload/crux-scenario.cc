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

#include "crux-scenario.h"

#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <vector>

namespace ns3
{

namespace
{
using nlohmann::json;
} // namespace

void
Scenario::ValidateThreeTier() const
{
    auto fail = [this](const std::string& field, const std::string& what) {
        throw ScenarioError(source + ": topology." + field + ": " + what);
    };
    const auto& tp = topology;
    if (tp.type != "three-tier")
    {
        // fields of another type are refused rather than silently ignored
        if (tp.torsPerGroup != 0)
        {
            fail("torsPerGroup",
                 "only for topology type \"three-tier\" (type is \"" + tp.type + "\")");
        }
        if (tp.type != "double-sided" && (tp.cores != 0 || !tp.coreLinkRate.empty()))
        {
            fail(tp.cores != 0 ? "cores" : "coreLinkRate",
                 "only for topology types \"three-tier\" and \"double-sided\" (type is \"" +
                     tp.type + "\")");
        }
        return;
    }
    if (tp.torsPerGroup == 0)
    {
        fail("torsPerGroup", "missing or 0 (ToRs per aggregation group of a three-tier topology)");
    }
    if (tp.tors == 0 || tp.tors % tp.torsPerGroup != 0)
    {
        fail("torsPerGroup",
             "must divide topology.tors (" + std::to_string(tp.tors) + "), got " +
                 std::to_string(tp.torsPerGroup));
    }
    ValidateAggregationGroups(uint64_t{tp.tors} * tp.hostsPerTor,
                              "tors x hostsPerTor",
                              tp.tors / tp.torsPerGroup,
                              "groups (tors / torsPerGroup",
                              "group (aggs / groups",
                              "a three-tier topology cables every NIC of a host to its ToR");
}

void
Scenario::ValidateDoubleSided() const
{
    auto fail = [this](const std::string& field, const std::string& what) {
        throw ScenarioError(source + ": topology." + field + ": " + what);
    };
    const auto& tp = topology;
    if (tp.type != "double-sided")
    {
        return;
    }
    if (tp.tors == 0 || tp.tors % 2 != 0)
    {
        fail("tors",
             "must be even and > 0 (a double-sided topology pairs its ToRs), got " +
                 std::to_string(tp.tors));
    }
    ValidateAggregationGroups(uint64_t{tp.tors / 2} * tp.hostsPerTor,
                              "tors / 2 x hostsPerTor",
                              tp.tors / 2,
                              "ToR pairs (tors / 2",
                              "ToR pair (aggs / (tors / 2)",
                              "a double-sided topology cables port p of every NIC to ToR p of "
                              "the host's pair");
}

void
Scenario::ValidateAggregationGroups(uint64_t hosts,
                                    const std::string& hostsFormula,
                                    uint32_t groups,
                                    const std::string& groupsName,
                                    const std::string& perGroupName,
                                    const std::string& wiringWhy) const
{
    auto fail = [this](const std::string& field, const std::string& what) {
        throw ScenarioError(source + ": topology." + field + ": " + what);
    };
    const auto& tp = topology;
    if (hosts > 65536)
    {
        fail("hostsPerTor",
             hostsFormula + " = " + std::to_string(hosts) +
                 " hosts exceed the 65,536 the fabric addresses");
    }
    if (tp.aggs == 0 || tp.aggs % groups != 0)
    {
        fail("aggs",
             "must be a positive multiple of the " + groupsName + " = " + std::to_string(groups) +
                 "), got " + std::to_string(tp.aggs));
    }
    const uint32_t aggsPerGroup = tp.aggs / groups;
    if (tp.cores == 0 || tp.cores % aggsPerGroup != 0 || tp.cores > 65536)
    {
        fail("cores",
             "must be a positive multiple of the aggregation switches per " + perGroupName + " = " +
                 std::to_string(aggsPerGroup) + ") and <= 65536, got " + std::to_string(tp.cores));
    }
    if (tp.wiring != "rail")
    {
        fail("wiring", wiringWhy + "; \"" + tp.wiring + "\" is for type \"clos\"");
    }
}

namespace
{
/// \return the largest time a scenario field may give, s: times become ns-3 Times (int64 at
/// the resolution: |t| < Time::Max(), about 292 years at 1 ns); half of Time::Max()
double
MaxScenarioSeconds()
{
    return Time::Max().GetSeconds() / 2;
}

/// The largest byte count a scenario field may give (byte counts become 64-bit integers).
constexpr double MAX_SCENARIO_BYTES = 9.2e18;
} // namespace

void
Scenario::Fail(const std::string& field, const std::string& what) const
{
    throw ScenarioError(source + ": " + field + ": " + what);
}

void
Scenario::Checked(const std::function<void()>& check) const
{
    try
    {
        check();
    }
    catch (const InputError& e)
    {
        Fail(e.GetField(), e.GetDetail());
    }
}

void
Scenario::ValidateTopologySizes() const
{
    if (topology.type == "testbed")
    {
        return; // the testbed's sizes are the paper's (TestbedClosConfig), not these fields
    }
    // The fabric's addressing allows 65,536 hosts (ClosConfig): larger counts are typos,
    // refused before a topology of that size is built. Field, value, largest value, why.
    const char* hostsWhy = " (the fabric addresses at most 65,536 hosts)";
    const std::tuple<const char*, uint64_t, uint64_t, const char*> sizes[] = {
        {"tors", topology.tors, 65536, hostsWhy},
        {"aggs", topology.aggs, 65536, hostsWhy},
        {"hostsPerTor", topology.hostsPerTor, 65536, hostsWhy},
        {"gpusPerHost", topology.gpusPerHost, 1024, ""},
        {"nicsPerHost", topology.nicsPerHost, 1024, ""}};
    for (const auto& [key, v, most, why] : sizes)
    {
        if (v == 0 || v > most)
        {
            Fail(std::string("topology.") + key,
                 "must be 1.." + std::to_string(most) + why + ", got " + std::to_string(v));
        }
    }
    if (topology.type == "clos" && topology.nicsPerHost > topology.tors)
    {
        Fail("topology.nicsPerHost", "each NIC needs its own ToR: nicsPerHost <= tors");
    }
}

void
Scenario::ValidateJobs() const
{
    const double maxSeconds = MaxScenarioSeconds();
    const double maxBytes = MAX_SCENARIO_BYTES;
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        const auto& j = jobs[i];
        std::string f = "jobs[" + std::to_string(i) + "]";
        if (j.iterations == 0)
        {
            Fail(f + ".iterations", "must be >= 1");
        }
        if (!j.background && j.iterations <= warmupIterations)
        {
            // the first warmupIterations iterations are never measured: a measured job with no
            // more than those has no window (a table of zeros before this check)
            Fail(f + ".iterations",
                 "must be more than warmupIterations (" + std::to_string(warmupIterations) +
                     ", never measured), got " + std::to_string(j.iterations) +
                     ": raise it, lower warmupIterations, or mark the job background");
        }
        if (j.start < 0)
        {
            Fail(f + ".start", "must be >= 0 seconds");
        }
        Checked([&] {
            CheckFinite(j.start, f + ".start", 0, maxSeconds);
            CheckFinite(j.computeTime, f + ".computeTime", -maxSeconds, maxSeconds);
            CheckFinite(j.gradientBytes, f + ".gradientBytes", -maxBytes, maxBytes);
        });
        if (j.name.empty())
        {
            Fail(f + ".name", "must not be empty (it labels the job's results)");
        }
        // the name is written unquoted into the CSV files and the run labels
        for (size_t k = 0; k < j.name.size(); ++k)
        {
            const char ch = j.name[k];
            if (ch == ',' || ch == '"' || static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
            {
                // the name itself is not echoed: a control character would split the line
                Fail(f + ".name",
                     "must not contain commas, quotes or control characters (it is a column "
                     "of the CSV results); character " +
                         std::to_string(k + 1) + " is one");
            }
        }
        if (j.gpus == 0 && j.hosts.empty())
        {
            Fail(f, "give \"gpus\" or an explicit \"hosts\" list");
        }
        if (j.start >= stopTime)
        {
            std::ostringstream os;
            os << j.start << " s is not before stopTime " << stopTime
               << " s: the job would never run";
            Fail(f + ".start", os.str());
        }
        // below ns-3's time step (1 ns) a compute phase takes no simulated time, and below a
        // byte a transfer carries nothing: such an iteration takes no time and the job would
        // iterate forever at one instant (seen with 1e-10 s and 0.4 bytes)
        // (a negative value stands for the model's own: not a job of no work)
        if (j.computeTime >= 0 && j.computeTime < 1e-9 && j.gradientBytes >= 0 &&
            j.gradientBytes < 1 && !j.hasPlan && j.chakra.empty())
        {
            std::ostringstream os;
            os << j.computeTime << " with gradientBytes " << j.gradientBytes
               << " leaves an iteration without compute or communication: it would take no "
                  "time, and throughput and utilization would be undefined (give computeTime "
                  ">= 1 ns or gradientBytes >= 1)";
            Fail(f + ".computeTime", os.str());
        }
        for (size_t k = 0; k < i; ++k)
        {
            if (jobs[k].name == j.name)
            {
                Fail(f + ".name", "duplicate job name '" + j.name + "'");
            }
        }
    }
}

void
Scenario::Validate() const
{
    if (jobs.empty())
    {
        // the file reader refuses it too; a Scenario built in code (Python) reaches here
        Fail("jobs", "must be a non-empty array of job objects");
    }
    if (priorityLevels < 1 || priorityLevels > 8)
    {
        Fail("priorityLevels",
             "must be 1..8 (hardware traffic classes), got " + std::to_string(priorityLevels));
    }
    if (topology.type != "clos" && topology.type != "three-tier" &&
        topology.type != "double-sided" && topology.type != "testbed")
    {
        Fail("topology.type",
             "unknown topology '" + topology.type +
                 "' (known: clos, three-tier, double-sided, testbed)");
    }
    ValidateThreeTier();
    ValidateDoubleSided();
    ValidateTopologySizes();
    if (topology.wiring != "rail" && topology.wiring != "rotated")
    {
        Fail("topology.wiring", "unknown value '" + topology.wiring + "' (known: rail, rotated)");
    }
    if (fabric != "packet" && fabric != "flow")
    {
        Fail("fabric", "unknown value '" + fabric + "' (known: packet, flow)");
    }
    if (congestionControl != "dcqcn" && congestionControl != "hpcc" && congestionControl != "none")
    {
        Fail("congestionControl",
             "unknown value '" + congestionControl + "' (known: dcqcn, hpcc, none)");
    }
    if (name.empty())
    {
        Fail("name", "must not be empty");
    }
    bool anyMeasured = false;
    for (const auto& j : jobs)
    {
        anyMeasured = anyMeasured || !j.background;
    }
    if (!jobs.empty() && !anyMeasured)
    {
        Fail("jobs", "every job is \"background\": at least one job must end by itself");
    }
    if (pathEnforcement != "source-port" && pathEnforcement != "pinned")
    {
        Fail("pathEnforcement",
             "unknown value '" + pathEnforcement + "' (known: source-port, pinned)");
    }
    if (!(stopTime > 0))
    {
        Fail("stopTime", "must be > 0 seconds");
    }
    const double maxSeconds = MaxScenarioSeconds();
    Checked([&] { CheckFinite(stopTime, "stopTime", 0, maxSeconds); });
    if (seed == 0 || seed > MAX_SEED)
    {
        Fail("seed",
             "must be 1.." + std::to_string(MAX_SEED) +
                 " (the seeds ns-3's MRG32k3a RNG takes), got " + std::to_string(seed));
    }
    if (seeds < 1 || seeds > MAX_SEEDS)
    {
        Fail("seeds",
             "must be 1.." + std::to_string(MAX_SEEDS) +
                 " (ECMP hash seeds per seed-dependent run), got " + std::to_string(seeds));
    }
    if (seed + seeds - 1 > std::numeric_limits<uint32_t>::max())
    {
        Fail("seeds",
             "seed + seeds - 1 must stay <= " +
                 std::to_string(std::numeric_limits<uint32_t>::max()) + " (the last ECMP seed)");
    }
    if (warmupIterations > MAX_ITERATION_COUNT)
    {
        Fail("warmupIterations",
             "must be 0.." + std::to_string(MAX_ITERATION_COUNT) + ", got " +
                 std::to_string(warmupIterations));
    }
    if (minMeasuredIterations < 1 || minMeasuredIterations > MAX_ITERATION_COUNT)
    {
        Fail("minMeasuredIterations",
             "must be 1.." + std::to_string(MAX_ITERATION_COUNT) + ", got " +
                 std::to_string(minMeasuredIterations));
    }
    Checked([&] {
        ParseDataRate(topology.hostLinkRate, "topology.hostLinkRate");
        ParseDataRate(topology.fabricLinkRate, "topology.fabricLinkRate");
        if (!topology.coreLinkRate.empty())
        {
            ParseDataRate(topology.coreLinkRate, "topology.coreLinkRate");
        }
        ParseTime(topology.linkDelay, "topology.linkDelay");
        ParseByteSize(topology.switchBuffer, "topology.switchBuffer");
    });
    if (outputDir.empty())
    {
        Fail("outputDir", "must not be empty");
    }
    ValidateJobs();
}

std::string
Scenario::ToJson() const
{
    json j;
    j["name"] = name;
    j["scheduler"] = scheduler;
    j["priorityLevels"] = priorityLevels;
    j["seed"] = seed;
    j["outputDir"] = outputDir;
    j["pathEnforcement"] = pathEnforcement;
    j["stopTime"] = stopTime;
    j["profileIterations"] = profileIterations;
    j["seeds"] = seeds;
    j["warmupIterations"] = warmupIterations;
    j["minMeasuredIterations"] = minMeasuredIterations;
    j["fabric"] = fabric;
    if (fabric == "packet")
    {
        j["congestionControl"] = congestionControl; // the flow fabric has none
    }
    j["topology"] = {{"type", topology.type},
                     {"tors", topology.tors},
                     {"aggs", topology.aggs},
                     {"hostsPerTor", topology.hostsPerTor},
                     {"gpusPerHost", topology.gpusPerHost},
                     {"nicsPerHost", topology.nicsPerHost},
                     {"hostLinkRate", topology.hostLinkRate},
                     {"fabricLinkRate", topology.fabricLinkRate},
                     {"linkDelay", topology.linkDelay},
                     {"pfc", topology.pfc},
                     {"switchBuffer", topology.switchBuffer},
                     {"wiring", topology.wiring}};
    // absent otherwise: outputs of the other types unchanged
    if (topology.type == "three-tier")
    {
        j["topology"]["torsPerGroup"] = topology.torsPerGroup;
    }
    if (topology.type == "three-tier" || topology.type == "double-sided")
    {
        j["topology"]["cores"] = topology.cores;
        j["topology"]["coreLinkRate"] =
            topology.coreLinkRate.empty() ? topology.fabricLinkRate : topology.coreLinkRate;
    }
    if (topology.intraHost.enabled) // absent when off: outputs without it stay as they were
    {
        j["topology"]["intraHost"] = {{"enabled", true},
                                      {"pcieRate", topology.intraHost.pcieRate},
                                      {"pcieLatency", topology.intraHost.pcieLatency},
                                      {"nvlinkRate", topology.intraHost.nvlinkRate},
                                      {"nvlinkLatency", topology.intraHost.nvlinkLatency}};
    }
    j["jobs"] = json::array();
    for (const auto& jb : jobs)
    {
        j["jobs"].push_back({{"name", jb.name},
                             {"model", jb.model},
                             {"gpus", jb.gpus},
                             {"hosts", jb.hosts},
                             {"gpusPerHost", jb.gpusPerHost},
                             {"start", jb.start},
                             {"iterations", jb.iterations},
                             {"computeTime", jb.computeTime},
                             {"gradientBytes", jb.gradientBytes},
                             {"background", jb.background}});
        if (!jb.chakra.empty())
        {
            // a Chakra job: no model; its all-reduce algorithm if given
            j["jobs"].back().erase("model");
            j["jobs"].back()["chakra"] = jb.chakra;
            json coll = json::object();
            if (!jb.parallelism.allReduce.empty())
            {
                coll["allReduce"] = jb.parallelism.allReduce;
            }
            if (jb.parallelism.channels > 0)
            {
                coll["channels"] = jb.parallelism.channels;
            }
            if (!jb.parallelism.protocol.empty())
            {
                coll["protocol"] = jb.parallelism.protocol;
            }
            if (!coll.empty())
            {
                j["jobs"].back()["collectives"] = coll;
            }
        }
        else if (jb.hasPlan)
        {
            // as given (0 / "" = default); only for planned jobs, so that the scenario copy of
            // a job without a plan stays as it has always been
            // (fields left to their default are omitted: the copy reads back the same)
            const auto& q = jb.parallelism;
            json par = json::object();
            for (const auto& [key, v] : {std::make_pair("tp", q.tp),
                                         std::make_pair("pp", q.pp),
                                         std::make_pair("dp", q.dp),
                                         std::make_pair("ep", q.ep),
                                         std::make_pair("microBatches", q.microBatches),
                                         std::make_pair("layersPerBlock", q.layersPerBlock),
                                         std::make_pair("virtualStages", q.virtualStages)})
            {
                if (v > 0)
                {
                    par[key] = v;
                }
            }
            if (q.sequenceParallel)
            {
                par["sequenceParallel"] = true;
            }
            json coll = json::object();
            if (!q.allReduce.empty())
            {
                coll["allReduce"] = q.allReduce;
            }
            if (!q.allToAll.empty())
            {
                coll["allToAll"] = q.allToAll;
            }
            if (q.channels > 0)
            {
                coll["channels"] = q.channels;
            }
            if (!q.protocol.empty())
            {
                coll["protocol"] = q.protocol;
            }
            j["jobs"].back()["parallelism"] = par;
            j["jobs"].back()["collectives"] = coll;
        }
        // the training step only where given, so that other jobs' copies stay as they were
        const auto& st = jb.step;
        for (const auto& [key, v] : {std::make_pair("globalBatch", st.globalBatch),
                                     std::make_pair("microBatchSize", st.microBatchSize),
                                     std::make_pair("sequenceLength", st.sequenceLength)})
        {
            if (v > 0)
            {
                j["jobs"].back()[key] = v;
            }
        }
        for (const auto& [key, v] : {std::make_pair("gpu", &st.gpu),
                                     std::make_pair("precision", &st.precision),
                                     std::make_pair("recompute", &st.recompute),
                                     std::make_pair("optimizer", &st.optimizer)})
        {
            if (!v->empty())
            {
                j["jobs"].back()[key] = *v;
            }
        }
        // the overlap setting only where given, so that other jobs' copies stay as they were
        json ov = json::object();
        if (jb.overlapForward >= 0)
        {
            ov["forwardFraction"] = jb.overlapForward;
        }
        if (jb.overlapBuckets > 0)
        {
            ov["buckets"] = jb.overlapBuckets;
        }
        if (!ov.empty())
        {
            j["jobs"].back()["overlap"] = ov;
        }
    }
    return j.dump(2);
}

} // namespace ns3
