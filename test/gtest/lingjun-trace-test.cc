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

// Lingjun trace readers: CSV quoting, timestamps, topo.csv (the real one and small ones),
// job.csv and worker.csv rows good and bad, and their assembly into TraceJobs.

#include "ns3/lingjun-trace.h"
#include "ns3/rfc4180-csv.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// All records of a CSV text; malformed ones as {"!MALFORMED", line, reason}.
std::vector<std::vector<std::string>>
ReadAll(const std::string& text)
{
    std::istringstream in(text);
    Rfc4180Reader r(in);
    std::vector<std::vector<std::string>> out;
    std::vector<std::string> f;
    while (true)
    {
        auto st = r.Next(f);
        if (st == Rfc4180Reader::Status::END)
        {
            break;
        }
        if (st == Rfc4180Reader::Status::MALFORMED)
        {
            out.push_back({"!MALFORMED", std::to_string(r.Line()), r.Error()});
            continue;
        }
        out.push_back(f);
    }
    return out;
}

/// True if some warning is at line and its reason contains what.
bool
HasWarning(const std::vector<TraceWarning>& w, uint64_t line, const std::string& what)
{
    return std::any_of(w.begin(), w.end(), [&](const TraceWarning& x) {
        return x.line == line && x.reason.find(what) != std::string::npos;
    });
}

std::string
Dump(const std::vector<TraceWarning>& w)
{
    std::string s;
    for (const auto& x : w)
    {
        s += ToString(x) + "\n";
    }
    return s;
}

/// One warning a test expects: the line it is reported at and a part of its reason.
struct ExpectedWarning
{
    uint64_t line;    //!< line number of the row the warning is about
    std::string what; //!< text the reason must contain
};

/// Expect every warning of \p expected in \p w (HasWarning) and no other (same count).
void
ExpectWarnings(const std::vector<TraceWarning>& w, const std::vector<ExpectedWarning>& expected)
{
    for (const auto& e : expected)
    {
        EXPECT_TRUE(HasWarning(w, e.line, e.what))
            << "no warning at line " << e.line << " containing '" << e.what << "' in\n"
            << Dump(w);
    }
    EXPECT_EQ(w.size(), expected.size()) << Dump(w);
}

// Three hosts under two ToRs; ASW label S1 is reused under two PSWs (two distinct ToRs).
const std::string kTopo = "ip,DSW,PSW,ASW\n"
                          "hA,G6,P8,S1\n"
                          "hB,G6,P8,S1\n"
                          "hC,G6,P10,S1\n";

const std::string kJobHeader = "id,uid,job_name,kind,model,status,gmt_job_submitted,"
                               "gmt_job_running,gmt_job_stopped,gmt_job_finished,,\n";

const std::string kWorkerHeader =
    "id,job_name,worker_name,replica_type,host_ip,gmt_created,gmt_pod_running,"
    "gmt_pod_finished,RES\n";

std::string
Res(int gpus)
{
    return "\"{\"\"cpu\"\": \"\"96\"\", \"\"nvidia.com/gpu\"\": \"\"" + std::to_string(gpus) +
           "\"\", \"\"koordinator.sh/rdma\"\": \"\"1\"\"}\"";
}

/// \param[out] w warnings \return kTopo parsed
LingjunTopology
SmallTopology(std::vector<TraceWarning>& w)
{
    std::istringstream in(kTopo);
    return ParseLingjunTopology(in, "topo.csv", w);
}

/// \param first name of job row 1 (line 2) \param second name of job row 2 (line 3)
/// \param[out] w warnings \return job.csv of two jobs that ran 02:21-03:21
LingjunJobTable
TwoJobs(const std::string& first, const std::string& second, std::vector<TraceWarning>& w)
{
    const std::string times = ",PyTorchJob,x,Succeeded,2023/7/15 02:19,2023/7/15 02:21,,"
                              "2023/7/15 03:21,,\n";
    std::istringstream in(kJobHeader + "1,u," + first + times + "2,u," + second + times);
    return ParseLingjunJobs(in, "job.csv", w);
}

} // namespace

// ------------------------------------------------------------------------------------ CSV

TEST(Rfc4180Reader, QuotedFieldsWithCommasDoubledQuotesAndLineBreaks)
{
    auto r = ReadAll("a,b,c\r\n"
                     "1,\"x, y\",\"say \"\"hi\"\"\"\r\n"
                     "\n"
                     "2,\"two\nlines\",\n"
                     "3,,\"\"");
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0], (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(r[1], (std::vector<std::string>{"1", "x, y", "say \"hi\""}));
    EXPECT_EQ(r[2], (std::vector<std::string>{"2", "two\nlines", ""}));
    EXPECT_EQ(r[3], (std::vector<std::string>{"3", "", ""}));
}

TEST(Rfc4180Reader, MalformedRecordsAreReportedWithTheirLineAndSkipped)
{
    auto r = ReadAll("a,b\n"
                     "1,x\"y\n"       // quote inside an unquoted field (line 2)
                     "2,\"ok\"junk\n" // text after a closing quote (line 3)
                     "3,fine\n"
                     "4,\"open\n"); // never closed (line 5)
    ASSERT_EQ(r.size(), 5u);
    EXPECT_EQ(r[1][0], "!MALFORMED");
    EXPECT_EQ(r[1][1], "2");
    EXPECT_NE(r[1][2].find("unquoted field 2"), std::string::npos) << r[1][2];
    EXPECT_EQ(r[2][0], "!MALFORMED");
    EXPECT_EQ(r[2][1], "3");
    EXPECT_EQ(r[3], (std::vector<std::string>{"3", "fine"}));
    EXPECT_EQ(r[4][0], "!MALFORMED");
    EXPECT_EQ(r[4][1], "5");
    EXPECT_NE(r[4][2].find("not closed"), std::string::npos);
}

TEST(Rfc4180Reader, PartialGivesTheFieldsReadBeforeTheError)
{
    std::istringstream in("jobA,w0,\"worker,\"x\n" // text after a closing quote of field 3
                          "jobB,w1,worker\n");
    Rfc4180Reader r(in);
    std::vector<std::string> f;
    ASSERT_EQ(r.Next(f), Rfc4180Reader::Status::MALFORMED);
    EXPECT_EQ(r.Partial(), (std::vector<std::string>{"jobA", "w0"}));
    ASSERT_EQ(r.Next(f), Rfc4180Reader::Status::RECORD);
    EXPECT_EQ(f, (std::vector<std::string>{"jobB", "w1", "worker"}));
    EXPECT_TRUE(r.Partial().empty());
    EXPECT_EQ(r.Next(f), Rfc4180Reader::Status::END);
    EXPECT_TRUE(r.Partial().empty());
}

TEST(Rfc4180Reader, RecordOfMoreThanMaxFieldsIsMalformedAndSkipped)
{
    // A line of commas would cost a std::string per byte: refused beyond MAX_FIELDS fields.
    const std::string many(Rfc4180Reader::MAX_FIELDS, ','); // MAX_FIELDS + 1 empty fields
    const std::string most(Rfc4180Reader::MAX_FIELDS - 1, ',');
    auto r = ReadAll("a,b\n" + many + "\n" + most + "\n3,z\n");
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[1][0], "!MALFORMED");
    EXPECT_EQ(r[1][1], "2");
    EXPECT_NE(r[1][2].find("more than 4096 fields"), std::string::npos) << r[1][2];
    EXPECT_EQ(r[2].size(), Rfc4180Reader::MAX_FIELDS); // the most a record may have
    EXPECT_EQ(r[3], (std::vector<std::string>{"3", "z"}));
}

TEST(Rfc4180Reader, QuoteLeftOpenLosesOnlyItsOwnLine)
{
    // A stray '"' opening a field that is never closed must not swallow the rest of the file.
    auto r = ReadAll("a,b\n"
                     "1,x\n"
                     "\"2,y\n" // opens a quoted field never closed (line 3)
                     "3,z\n"
                     "4,w\n");
    ASSERT_EQ(r.size(), 5u);
    EXPECT_EQ(r[1], (std::vector<std::string>{"1", "x"}));
    EXPECT_EQ(r[2][0], "!MALFORMED");
    EXPECT_EQ(r[2][1], "3");
    EXPECT_NE(r[2][2].find("not closed"), std::string::npos);
    EXPECT_EQ(r[3], (std::vector<std::string>{"3", "z"}));
    EXPECT_EQ(r[4], (std::vector<std::string>{"4", "w"}));
}

TEST(Rfc4180Reader, JoinQuotesOnlyWhenNeededAndRoundTrips)
{
    EXPECT_EQ(CsvQuote("plain"), "plain");
    EXPECT_EQ(CsvQuote("{\"a\": \"1\", \"b\": 2}"), "\"{\"\"a\"\": \"\"1\"\", \"\"b\"\": 2}\"");
    const std::vector<std::string> rec{"x", "a,b", "q\"q", "", "line\nbreak"};
    auto r = ReadAll(CsvJoin(rec) + "\n");
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0], rec);
}

// ------------------------------------------------------------------------------------ time

TEST(LingjunTime, ParsesTheTraceFormatIntoSecondsSince1970)
{
    // 2023-07-15 00:00 is 19,553 days after 1970-01-01.
    EXPECT_DOUBLE_EQ(*LingjunTime::Parse("2023/7/15 00:00"), 19553.0 * 86400);
    EXPECT_DOUBLE_EQ(*LingjunTime::Parse("2023/7/15 02:19"), 19553.0 * 86400 + 2 * 3600 + 19 * 60);
    EXPECT_DOUBLE_EQ(*LingjunTime::Parse("2023/07/15 2:19"),
                     *LingjunTime::Parse("2023/7/15 02:19"));
    EXPECT_DOUBLE_EQ(*LingjunTime::Parse("2023-07-31 23:59:30"),
                     *LingjunTime::Parse("2023/7/31 23:59") + 30);
    // Differences across a month boundary and a leap day are whole days.
    EXPECT_DOUBLE_EQ(*LingjunTime::Parse("2023/8/1 00:00") - *LingjunTime::Parse("2023/7/31 00:00"),
                     86400);
    EXPECT_DOUBLE_EQ(*LingjunTime::Parse("2024/3/1 00:00") - *LingjunTime::Parse("2024/2/28 00:00"),
                     2 * 86400);
    EXPECT_TRUE(LingjunTime::Parse("1970/1/1 00:00").has_value());
    EXPECT_TRUE(LingjunTime::Parse("2199/12/31 23:59").has_value());
    for (const char* bad : {"",
                            "2023/7/15",
                            "2023/13/1 00:00",
                            "2023/2/29 00:00",
                            "2023/7/15 24:00",
                            "2023/7/15 12:60",
                            "2023/7/15 1:5",
                            "15/7/2023 02:19",
                            "2023/7/15 02:19x",
                            "2023/7-15 02:19",
                            "yesterday",
                            // years outside 1970-2199: two times of a trace must fit ns-3's clock
                            "1969/12/31 23:59",
                            "2400/7/15 02:19"})
    {
        EXPECT_FALSE(LingjunTime::Parse(bad).has_value()) << bad;
    }
    EXPECT_EQ(LingjunTime::Format(*LingjunTime::Parse("2023/7/5 15:18")), "2023/7/5 15:18");
    EXPECT_EQ(LingjunTime::Format(*LingjunTime::Parse("2023/12/31 23:59") + 59.9),
              "2023/12/31 23:59");
}

// ------------------------------------------------------------------------------------ topology

TEST(LingjunTopology, RealTopoCsvHas847Hosts119TorsThreePswsOneDsw)
{
    std::vector<TraceWarning> w;
    LingjunTopology t =
        ReadLingjunTopology(std::string(CRUX_SOURCE_DIR) + "/data/lingjun-2023/topo.csv", w);
    EXPECT_TRUE(w.empty()) << Dump(w);
    EXPECT_EQ(t.hosts.size(), 847u);
    EXPECT_EQ(t.tors.size(), 119u);
    EXPECT_EQ(t.psws.size(), 3u);
    ASSERT_EQ(t.dsws.size(), 1u);
    EXPECT_EQ(t.dsws[0], "G6");
    // Hosts per PSW: P8 179, P10 362, P12 306; ToRs per PSW: P8 29, P10 48, P12 42.
    std::map<std::string, int> hostsPerPsw;
    std::map<std::string, int> torsPerPsw;
    for (uint32_t h = 0; h < t.hosts.size(); ++h)
    {
        ++hostsPerPsw[t.tors[t.hostTor[h]].first];
        EXPECT_EQ(t.FindHost(t.hosts[h]), h);
    }
    for (uint32_t r = 0; r < t.tors.size(); ++r)
    {
        ++torsPerPsw[t.psws[t.torPsw[r]]];
        EXPECT_EQ(t.psws[t.torPsw[r]], t.tors[r].first);
        EXPECT_EQ(t.torDsw[r], 0u);
    }
    EXPECT_EQ(hostsPerPsw, (std::map<std::string, int>{{"P10", 362}, {"P12", 306}, {"P8", 179}}));
    EXPECT_EQ(torsPerPsw, (std::map<std::string, int>{{"P10", 48}, {"P12", 42}, {"P8", 29}}));
    // ToR sizes: 68 ToRs of 8 hosts, 23 of 7, 15 of 6, 7 of 5, 2 of 4, 1 of 3, 3 of 2.
    std::map<size_t, int> torSizes;
    size_t total = 0;
    for (uint32_t r = 0; r < t.tors.size(); ++r)
    {
        const size_t n = t.HostsOfTor(r).size();
        ++torSizes[n];
        total += n;
    }
    EXPECT_EQ(total, 847u);
    EXPECT_EQ(torSizes,
              (std::map<size_t, int>{{2, 3}, {3, 1}, {4, 2}, {5, 7}, {6, 15}, {7, 23}, {8, 68}}));
    // Read as a global name, ASW would give 48 ToRs: labels really are reused across PSWs.
    std::set<std::string> asw;
    for (const auto& tor : t.tors)
    {
        asw.insert(tor.second);
    }
    EXPECT_EQ(asw.size(), 48u);
}

TEST(LingjunTopology, TorIsThePswAswPairAndBadRowsAreSkipped)
{
    std::vector<TraceWarning> w;
    std::istringstream in(kTopo + "hA,G6,P8,S2\n" // duplicate ip (line 5)
                                  ",G6,P8,S2\n"   // empty ip (line 6)
                                  "hD,G7,P8,S1\n" // ToR (P8,S1) under another DSW (line 7)
                                  "hE,G6,P8\n"    // too few fields (line 8)
                                  "hF,G6,P12,S9\n");
    LingjunTopology t = ParseLingjunTopology(in, "topo.csv", w);
    EXPECT_EQ(t.hosts, (std::vector<std::string>{"hA", "hB", "hC", "hF"}));
    ASSERT_EQ(t.tors.size(), 3u);
    EXPECT_EQ(t.tors[0], std::make_pair(std::string("P8"), std::string("S1")));
    EXPECT_EQ(t.tors[1], std::make_pair(std::string("P10"), std::string("S1")));
    EXPECT_EQ(t.hostTor, (std::vector<uint32_t>{0, 0, 1, 2}));
    EXPECT_EQ(t.HostsOfTor(0), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(t.dsws, (std::vector<std::string>{"G6"}));
    ASSERT_EQ(w.size(), 4u) << Dump(w);
    ExpectWarnings(w,
                   {{5, "duplicate ip"},
                    {6, "empty ip"},
                    {7, "is under DSW G6, not G7"},
                    {8, "row has 3 fields, header has 4"}});
    EXPECT_EQ(w[0].file, "topo.csv");
}

namespace
{
/// \param text a topo.csv text \return the TraceError ParseLingjunTopology raises on it, or
/// "no error"
std::string
TopologyErrorOf(const std::string& text)
{
    std::vector<TraceWarning> w;
    std::istringstream in(text);
    try
    {
        ParseLingjunTopology(in, "t.csv", w);
    }
    catch (const TraceError& e)
    {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST(LingjunTopology, MissingColumnOrFileIsAnError)
{
    std::vector<TraceWarning> w;
    EXPECT_EQ(TopologyErrorOf("ip,DSW,ASW\nh,G6,S1\n"), "t.csv: header has no column 'PSW'");
    EXPECT_THROW(ReadLingjunTopology("/nonexistent/topo.csv", w), TraceError);
    std::istringstream empty("");
    EXPECT_THROW(ParseLingjunTopology(empty, "e.csv", w), TraceError);
    // a column read twice: which one counts would be a guess
    EXPECT_EQ(TopologyErrorOf("ip,DSW,PSW,ASW,ip\nh,G6,P8,S1,g\n"),
              "t.csv: header has the column 'ip' twice");
}

// ------------------------------------------------------------------------------------ jobs

TEST(LingjunJobs, GoodRowsBadTimestampsAndInconsistentTimes)
{
    std::vector<TraceWarning> w;
    std::istringstream in(
        kJobHeader +
        "1,u1,j1,PyTorchJob,GPT-13b,Succeeded,2023/7/15 02:19,2023/7/15 02:21,,2023/7/15 03:21,,\n"
        "2,u2,j2,PyTorchJob,,Stopped,2023/7/15 02:30,,2023/7/15 02:35,,,\n" // never ran
        "3,u3,j3,PyTorchJob,x,Failed,2023/7/15 25:00,2023/7/15 02:21,,2023/7/15 03:21,,\n"
        "4,u4,j4,PyTorchJob,x,Succeeded,,2023/7/15 02:21,,2023/7/15 03:21,,\n"
        "5,u5,dlc1uyze9wefdjps,PyTorchJob,x,Succeeded,2023/7/17 02:53,2023/7/5 15:18,,"
        "2023/7/17 03:00,,\n"
        "6,u6,j6,PyTorchJob,x,Succeeded,2023/7/15 02:19,2023/7/15 03:00,,2023/7/15 02:59,,\n"
        "7,u7,j7,PyTorchJob,x,Stopped,2023/7/15 02:19,2023/7/15 02:20,2023/7/15 02:10,,,\n"
        "8,u8,j1,PyTorchJob,x,Succeeded,2023/7/15 02:19,,,,,\n"
        "9,u9,j9,PyTorchJob,x,Succeeded,2023/7/15 02:19\n"
        "10,u10,,PyTorchJob,x,Succeeded,2023/7/15 02:19,,,,,\n"
        "11,u11,j11,PyTorchJob,\"llama, 7b\",Running,2023/7/15 04:00,2023/7/15 04:01,,,,\n");
    LingjunJobTable t = ParseLingjunJobs(in, "job.csv", w);
    ASSERT_EQ(t.rows.size(), 3u) << Dump(w);
    const LingjunJobRecord& j1 = t.rows[0];
    EXPECT_EQ(j1.name, "j1");
    EXPECT_EQ(j1.model, "GPT-13b");
    EXPECT_EQ(j1.line, 2u);
    EXPECT_DOUBLE_EQ(*j1.running - j1.submit, 120);
    EXPECT_DOUBLE_EQ(*j1.End() - *j1.running, 3600);
    EXPECT_FALSE(j1.stopped.has_value());
    EXPECT_EQ(t.rows[1].name, "j2");
    EXPECT_FALSE(t.rows[1].running.has_value());
    EXPECT_DOUBLE_EQ(*t.rows[1].End() - t.rows[1].submit, 300);
    EXPECT_EQ(t.rows[2].model, "llama, 7b");
    EXPECT_FALSE(t.rows[2].End().has_value());

    ExpectWarnings(w,
                   {{4, "gmt_job_submitted '2023/7/15 25:00' is not a timestamp"},
                    {5, "empty gmt_job_submitted"},
                    {6, "gmt_job_running 2023/7/5 15:18 is before gmt_job_submitted"},
                    {7, "gmt_job_finished 2023/7/15 02:59 is before gmt_job_running"},
                    {8, "gmt_job_stopped 2023/7/15 02:10 is before gmt_job_running"},
                    {9, "job_name repeated"},
                    {10, "row has 7 fields, header has 12"},
                    {11, "empty job_name"}});
}

// ------------------------------------------------------------------------------------ workers

TEST(LingjunWorkers, QuotedResJsonGpuCountsAndBadRows)
{
    std::vector<TraceWarning> w;
    std::istringstream in(
        kWorkerHeader + "1,j1,j1-master-0,master,hA,t,t,t," + Res(8) + "\n" +
        "2,j1,j1-worker-0,worker,hB,t,t,t,\"{\"\"nvidia.com/gpu\"\": 4}\"\n"  // number
        "3,j1,j1-aimaster-0,aimaster,hB,t,t,t,\"{\"\"cpu\"\": \"\"2\"\"}\"\n" // no GPU key
        "4,j1,j1-worker-1,worker,hB,t,t,t,{cpu: 2}\n"                         // not JSON (line 5)
        "5,j1,j1-worker-2,worker,hB,t,t,t,\"[1, 2]\"\n"                       // not an object
        "6,j1,j1-worker-3,worker,hB,t,t,t," +
        Res(-1) + "\n" + // negative
        "7,j1,j1-worker-4,worker,hB,t,t,t,\"{\"\"nvidia.com/gpu\"\": \"\"1.5\"\"}\"\n"
        "8,j1,j1-worker-5,worker,,t,t,t," +
        Res(1) + "\n" +                                                 // empty host_ip
        "9,,x-worker-0,worker,hB,t,t,t," + Res(1) + "\n" +              // empty job_name
        "10,j1,j1-worker-6,worker,hB,t,t,t,{\"nvidia.com/gpu\": 1}\n"); // unquoted JSON
    LingjunWorkerTable t = ParseLingjunWorkers(in, "worker.csv", w);
    ASSERT_EQ(t.rows.size(), 3u) << Dump(w);
    EXPECT_EQ(t.rows[0].gpus, 8u);
    EXPECT_EQ(t.rows[0].replicaType, "master");
    EXPECT_EQ(t.rows[0].hostIp, "hA");
    EXPECT_EQ(t.rows[1].gpus, 4u);
    EXPECT_EQ(t.rows[2].gpus, 0u);
    EXPECT_EQ(t.rows[2].replicaType, "aimaster");
    ExpectWarnings(w,
                   {{5, "RES is not valid JSON"},
                    {6, "RES is not a JSON object"},
                    {7, "nvidia.com/gpu \"-1\" is not a non-negative integer"},
                    {8, "nvidia.com/gpu \"1.5\" is not a non-negative integer"},
                    {9, "empty host_ip"},
                    {10, "empty job_name"},
                    // JSON not quoted as RFC 4180 requires: its '"' makes the CSV row malformed.
                    {11, "malformed CSV row: '\"' inside unquoted field 9"}});
}

// ------------------------------------------------------------------------------------ assembly

TEST(LingjunAssemble, JoinsJobsPodsAndTopologyAndReportsEveryDroppedJob)
{
    std::vector<TraceWarning> w;
    std::istringstream topoIn(kTopo);
    LingjunTopology topo = ParseLingjunTopology(topoIn, "topo.csv", w);
    std::istringstream jobIn(
        kJobHeader +
        "1,u,good,PyTorchJob,GPT-7b,Succeeded,2023/7/15 02:19,2023/7/15 02:21,,2023/7/15 03:21,,\n"
        "2,u,never,PyTorchJob,x,Failed,2023/7/15 02:00,,,2023/7/15 02:05,,\n"
        "3,u,unknownhost,PyTorchJob,x,Stopped,2023/7/15 01:00,2023/7/15 01:01,2023/7/15 01:30,,,\n"
        "4,u,zerogpu,PyTorchJob,x,Succeeded,2023/7/15 01:00,2023/7/15 01:01,,2023/7/15 01:30,,\n"
        "5,u,nopods,PyTorchJob,x,Succeeded,2023/7/15 01:00,2023/7/15 01:01,,2023/7/15 01:30,,\n"
        "6,u,running,PyTorchJob,x,Running,2023/7/15 01:00,2023/7/15 01:01,,,,\n"
        "7,u,early,PyTorchJob,rl,Stopped,2023/7/15 00:10,2023/7/15 00:11,2023/7/15 00:40,,,\n");
    LingjunJobTable jobs = ParseLingjunJobs(jobIn, "job.csv", w);
    std::istringstream workerIn(kWorkerHeader + "1,good,good-master-0,master,hA,t,t,t," + Res(8) +
                                "\n" + "2,good,good-worker-0,worker,hC,t,t,t," + Res(8) + "\n" +
                                "3,good,good-worker-1,worker,hC,t,t,t," + Res(0) + "\n" +
                                "4,never,never-master-0,master,hA,t,t,t," + Res(8) + "\n" +
                                "5,unknownhost,u-master-0,master,hA,t,t,t," + Res(1) + "\n" +
                                "6,unknownhost,u-worker-0,worker,hZZZ,t,t,t," + Res(1) + "\n" +
                                "7,zerogpu,z-master-0,master,hB,t,t,t,\"{}\"\n" +
                                "8,orphan,o-master-0,master,hB,t,t,t," + Res(8) + "\n" +
                                "9,orphan,o-worker-0,worker,hB,t,t,t," + Res(8) + "\n" +
                                "10,running,r-master-0,master,hB,t,t,t," + Res(2) + "\n" +
                                "11,early,e-master-0,master,hB,t,t,t," + Res(1) + "\n");
    LingjunWorkerTable workers = ParseLingjunWorkers(workerIn, "worker.csv", w);
    ASSERT_TRUE(w.empty()) << Dump(w);

    LingjunTrace trace = AssembleLingjunTrace(jobs, workers, topo);
    ASSERT_EQ(trace.jobs.size(), 2u) << Dump(trace.warnings);
    // Sorted by submission: "early" (00:10) before "good" (02:19).
    EXPECT_EQ(trace.jobs[0].name, "early");
    EXPECT_EQ(trace.jobs[0].status, "Stopped");
    EXPECT_DOUBLE_EQ(trace.jobs[0].Duration(), 29 * 60);
    const TraceJob& g = trace.jobs[1];
    EXPECT_EQ(g.name, "good");
    EXPECT_EQ(g.modelLabel, "GPT-7b");
    EXPECT_EQ(g.gpus, 16u);
    EXPECT_EQ(g.pods, 3u);
    EXPECT_EQ(g.hosts, (std::vector<uint32_t>{0, 2})); // hA, hC
    EXPECT_EQ(g.gpusPerHost, (std::vector<uint32_t>{8, 8}));
    EXPECT_DOUBLE_EQ(g.start - g.submit, 120);
    EXPECT_DOUBLE_EQ(g.Duration(), 3600);
    EXPECT_EQ(g.line, 2u);

    const auto& tw = trace.warnings;
    ExpectWarnings(tw,
                   {{7, "host_ip hZZZ is not in the topology"},
                    {9, "job orphan: 2 pod row(s) of a job_name that is not in job.csv"},
                    {3, "never ran"},
                    {4, "1 of 2 pod rows are on hosts not in the topology"},
                    {5, "0 GPUs"},
                    {6, "no pod rows"},
                    {7, "no gmt_job_finished or gmt_job_stopped (status Running)"}});
    for (const auto& x : tw)
    {
        EXPECT_TRUE(x.file == "job.csv" || x.file == "worker.csv") << x.file;
    }

    // Options: keep incomplete jobs, close Running jobs at a given time.
    LingjunAssembleOptions opt;
    opt.dropIncompleteJobs = false;
    opt.runningJobsEnd = *LingjunTime::Parse("2023/7/15 05:00");
    LingjunTrace kept = AssembleLingjunTrace(jobs, workers, topo, opt);
    ASSERT_EQ(kept.jobs.size(), 4u) << Dump(kept.warnings);
    std::map<std::string, TraceJob> byName;
    for (const auto& j : kept.jobs)
    {
        byName[j.name] = j;
    }
    EXPECT_EQ(byName.at("unknownhost").gpus, 1u);
    EXPECT_EQ(byName.at("unknownhost").pods, 1u);
    EXPECT_DOUBLE_EQ(byName.at("running").Duration(), 4 * 3600 - 60);

    // Statistics of this small trace.
    LingjunTraceStats s = ComputeLingjunTraceStats(jobs, workers, topo, trace.jobs);
    EXPECT_EQ(s.jobRows, 7u);
    EXPECT_EQ(s.neverRan, 1u);
    EXPECT_EQ(s.statusCounts.at("Stopped"), 2u);
    EXPECT_EQ(s.workerRows, 11u);
    EXPECT_EQ(s.workerJobNames, 7u);
    EXPECT_EQ(s.workerJobNamesInJobCsv, 6u);
    EXPECT_EQ(s.unknownHostRows, 1u);
    EXPECT_EQ(s.podGpuCounts.at(8), 5u);
    EXPECT_DOUBLE_EQ(s.PodGpuShare(1), 3.0 / 11);
    EXPECT_EQ(s.assembledJobs, 2u);
    EXPECT_DOUBLE_EQ(s.durationMedianMin, 29);
    EXPECT_DOUBLE_EQ(s.durationMeanMin, (29 + 60) / 2.0);
    EXPECT_EQ(s.peakConcurrentJobs, 1u); // 00:11-00:40 and 02:21-03:21 do not overlap
    EXPECT_EQ(s.peakBusyGpus, 16u);
}

TEST(LingjunAssemble, JobAskingForMoreThanAMillionGpusIsSkippedNotWrapped)
{
    // 4,295 pod rows of 1,000,000 GPUs each (the most a row may ask for) sum beyond 2^32: the
    // job is skipped with a warning, not kept with the sum wrapped to a small count
    std::vector<TraceWarning> w;
    const LingjunTopology topo = SmallTopology(w);
    const LingjunJobTable jobs = TwoJobs("huge", "small", w);
    std::string rows = kWorkerHeader;
    for (int i = 0; i < 4295; ++i)
    {
        rows += std::to_string(i + 1) + ",huge,huge-worker-" + std::to_string(i) +
                ",worker,hA,t,t,t," + Res(1000000) + "\n";
    }
    rows += "4296,small,small-master-0,master,hB,t,t,t," + Res(8) + "\n";
    std::istringstream workerIn(rows);
    LingjunWorkerTable workers = ParseLingjunWorkers(workerIn, "worker.csv", w);
    ASSERT_TRUE(w.empty()) << Dump(w);
    LingjunTrace trace = AssembleLingjunTrace(jobs, workers, topo);
    ASSERT_EQ(trace.jobs.size(), 1u) << Dump(trace.warnings);
    EXPECT_EQ(trace.jobs[0].name, "small");
    EXPECT_TRUE(HasWarning(trace.warnings, 2, "4295000000 GPUs in total, more than 1000000"))
        << Dump(trace.warnings);
}

TEST(LingjunAssemble, JobWithARejectedPodRowIsDroppedNotShrunk)
{
    std::vector<TraceWarning> w;
    const LingjunTopology topo = SmallTopology(w);
    const LingjunJobTable jobs = TwoJobs("half", "whole", w);
    std::istringstream workerIn(
        kWorkerHeader + "1,half,half-master-0,master,hA,t,t,t," + Res(8) + "\n" +
        "2,half,half-worker-0,worker,hC,t,t,t,\"{\"\"nvidia.com/gpu\"\": \"\"-8\"\"}\"\n" +
        "3,whole,whole-master-0,master,hB,t,t,t," + Res(8) + "\n");
    LingjunWorkerTable workers = ParseLingjunWorkers(workerIn, "worker.csv", w);
    ASSERT_EQ(w.size(), 1u) << Dump(w); // the bad RES row
    EXPECT_EQ(workers.rejectedPods.at("half"), 1u);
    LingjunTrace trace = AssembleLingjunTrace(jobs, workers, topo);
    ASSERT_EQ(trace.jobs.size(), 1u) << Dump(trace.warnings);
    EXPECT_EQ(trace.jobs[0].name, "whole");
    EXPECT_TRUE(HasWarning(trace.warnings, 2, "1 pod row(s) in worker.csv were rejected"));
    LingjunAssembleOptions keep;
    keep.dropIncompleteJobs = false;
    EXPECT_EQ(AssembleLingjunTrace(jobs, workers, topo, keep).jobs.size(), 2u);
}

TEST(LingjunAssemble, JobWithAMalformedOrShortPodRowIsDroppedNotShrunk)
{
    // A pod row that is not CSV (text after a closing quote) or has too few fields is
    // skipped like a bad RES; its job_name was read, so the job is dropped, not run on the
    // GPUs of its other pods.
    std::vector<TraceWarning> w;
    const LingjunTopology topo = SmallTopology(w);
    const LingjunJobTable jobs = TwoJobs("bent", "short", w);
    std::istringstream workerIn(kWorkerHeader + "1,bent,bent-worker-0,worker,hA,t,t,t," + Res(8) +
                                "\n" + "2,bent,bent-worker-1,\"worker,\"x,hB,t,t,t," + Res(8) +
                                "\n" + "3,short,short-worker-0,worker,hA,t,t,t," + Res(8) + "\n" +
                                "4,short,short-worker-1,worker,hC\n");
    LingjunWorkerTable workers = ParseLingjunWorkers(workerIn, "worker.csv", w);
    ExpectWarnings(w,
                   {{3, "malformed CSV row: unexpected text after the closing quote"},
                    {5, "row has 5 fields, header has 9 (a pod row of job short)"}});
    EXPECT_TRUE(HasWarning(w, 3, "(a pod row of job bent)"));
    EXPECT_EQ(workers.rejectedPods.at("bent"), 1u);
    EXPECT_EQ(workers.rejectedPods.at("short"), 1u);
    LingjunTrace trace = AssembleLingjunTrace(jobs, workers, topo);
    EXPECT_TRUE(trace.jobs.empty()) << Dump(trace.warnings);
    EXPECT_TRUE(HasWarning(trace.warnings, 2, "were rejected by the row checks; job dropped"));
    EXPECT_TRUE(HasWarning(trace.warnings, 3, "were rejected by the row checks; job dropped"));
}

TEST(LingjunAssemble, PodsOfARejectedJobRowAreNotCalledPodsOfAnUnknownJob)
{
    std::vector<TraceWarning> w;
    const LingjunTopology topo = SmallTopology(w);
    std::istringstream jobIn(kJobHeader +
                             "1,u,late,PyTorchJob,x,Succeeded,2023/7/15 02:19,2023/7/15 02:21,,"
                             "2023/7/15 02:20,,\n"); // finished before it ran: rejected
    const LingjunJobTable jobs = ParseLingjunJobs(jobIn, "job.csv", w);
    ASSERT_TRUE(jobs.rows.empty()) << Dump(w);
    EXPECT_EQ(jobs.rejected.count("late"), 1u);
    std::istringstream workerIn(kWorkerHeader + "1,late,late-worker-0,worker,hA,t,t,t," + Res(8) +
                                "\n" + "2,gone,gone-worker-0,worker,hA,t,t,t," + Res(8) + "\n");
    const LingjunWorkerTable workers = ParseLingjunWorkers(workerIn, "worker.csv", w);
    const LingjunTrace trace = AssembleLingjunTrace(jobs, workers, topo);
    ExpectWarnings(trace.warnings,
                   {{2, "job late: 1 pod row(s) of a job whose row in job.csv was rejected"},
                    {3, "job gone: 1 pod row(s) of a job_name that is not in job.csv"}});
}
