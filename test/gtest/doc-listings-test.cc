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

// doc/crux.rst against what ships: its listings are included from the shipped files and exist,
// every JSON listing of a shipped scenario equals the file, every model of the zoo and every
// built-in scheduler is documented (issue 15: the doc had drifted from scenarios/ and the code).

#include "ns3/comm-scheduler.h"
#include "ns3/model-zoo.h"

#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

namespace
{

/// \return the text of a file of the module (CRUX_SOURCE_DIR)
std::string
ReadModuleFile(const std::string& path)
{
    std::ifstream in(std::string(CRUX_SOURCE_DIR) + "/" + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// \return the doc
const std::string&
Doc()
{
    static const std::string doc = ReadModuleFile("doc/crux.rst");
    return doc;
}

} // namespace

TEST(DocListings, IncludedFilesExist)
{
    ASSERT_FALSE(Doc().empty()) << "doc/crux.rst not found under " << CRUX_SOURCE_DIR;
    const std::regex include(R"(\.\. literalinclude:: \.\./(\S+))");
    int n = 0;
    for (std::sregex_iterator it(Doc().begin(), Doc().end(), include), end; it != end; ++it, ++n)
    {
        EXPECT_FALSE(ReadModuleFile((*it)[1]).empty()) << "doc includes missing " << (*it)[1];
    }
    EXPECT_GE(n, 2); // the §2.2 scenario and crux-minimal.cc at least
    EXPECT_NE(Doc().find(".. literalinclude:: ../scenarios/sec22-gpt-bert.json"),
              std::string::npos);
}

TEST(DocListings, JsonListingsOfShippedScenariosEqualTheFiles)
{
    // Every ".. code-block:: json" block that names a shipped scenario must be that file.
    const std::string& doc = Doc();
    size_t pos = 0;
    while ((pos = doc.find(".. code-block:: json", pos)) != std::string::npos)
    {
        pos = doc.find("\n\n", pos) + 2;
        std::string block;
        while (pos < doc.size() && (doc.compare(pos, 2, "  ") == 0 || doc[pos] == '\n'))
        {
            const size_t eol = doc.find('\n', pos);
            block += doc.substr(pos, eol - pos) + "\n";
            pos = eol + 1;
        }
        auto j = nlohmann::json::parse(block, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("name") || !j["name"].is_string())
        {
            continue;
        }
        const std::string file = "scenarios/" + j["name"].get<std::string>() + ".json";
        const std::string shipped = ReadModuleFile(file);
        if (!shipped.empty())
        {
            EXPECT_EQ(j, nlohmann::json::parse(shipped)) << "the doc's listing of " << file;
        }
    }
}

TEST(DocListings, EveryZooModelAndBuiltInSchedulerIsDocumented)
{
    for (const auto& m : ns3::ModelZoo::Names())
    {
        EXPECT_NE(Doc().find("``" + m + "``"), std::string::npos) << "model " << m;
    }
    // the scheduler table: one "* - ``name``" row (or "``a``, ``b``" names) per built-in
    const size_t table = Doc().find("   * - Short name(s)");
    ASSERT_NE(table, std::string::npos);
    const std::string rows = Doc().substr(table, Doc().find("\n\n", table) - table);
    const auto known = ns3::KnownCommSchedulers();
    ASSERT_GE(known.size(), 10u);
    for (size_t i = 0; i < 10; ++i) // the ten built-ins (user schedulers register after them)
    {
        EXPECT_NE(rows.find("``" + known[i] + "``"), std::string::npos)
            << "scheduler " << known[i] << " is missing from the doc's scheduler table";
    }
}
