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

#include "checked-command-line.h"

#include "ns3/global-value.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cctype>

namespace ns3
{

namespace
{

/// ns-3's own options (CommandLine::HandleHardOptions): print and exit(0)
const std::vector<std::string>&
HardOptions()
{
    static const std::vector<std::string> names = {"PrintHelp",
                                                   "help",
                                                   "PrintVersion",
                                                   "version",
                                                   "PrintGroups",
                                                   "PrintTypeIds",
                                                   "PrintGlobals",
                                                   "PrintGroup",
                                                   "PrintAttributes"};
    return names;
}

/// Splits an argument as CommandLine::GetOptionName does. \return false for a non-option
bool
SplitOption(const std::string& arg, std::string& name, std::string& value)
{
    std::string a;
    if (arg.rfind("--", 0) == 0)
    {
        a = arg.substr(2);
    }
    else if (arg.rfind('-', 0) == 0)
    {
        a = arg.substr(1);
    }
    else
    {
        return false;
    }
    const auto eq = a.find('=');
    name = a.substr(0, eq);
    value = eq == std::string::npos ? "" : a.substr(eq + 1);
    return true;
}

} // namespace

CheckedCommandLine::CheckedCommandLine(const std::string& filename)
    : m_cmd(filename)
{
}

void
CheckedCommandLine::Usage(const std::string& usage)
{
    m_cmd.Usage(usage);
}

bool
CheckedCommandLine::Store(Option* o, std::string text)
{
    o->text = text;
    o->given = true;
    return true;
}

void
CheckedCommandLine::Add(const std::string& name,
                        const std::string& help,
                        const std::string& defaultText,
                        std::function<void(const std::string&)> convert)
{
    auto o = std::make_unique<Option>();
    o->name = name;
    o->convert = std::move(convert);
    m_cmd.AddValue(name, help, MakeBoundCallback(&CheckedCommandLine::Store, o.get()), defaultText);
    m_opts.push_back(std::move(o));
}

void
CheckedCommandLine::AddValue(const std::string& name, const std::string& help, std::string& value)
{
    Add(name, help, value, [&value, name](const std::string& text) {
        if (text.empty())
        {
            throw InputError("--" + name, "empty value (give a value or leave the option out)");
        }
        value = text;
    });
}

void
CheckedCommandLine::AddValue(const std::string& name, const std::string& help, bool& value)
{
    Add(name, help, value ? "true" : "false", [&value, name](const std::string& text) {
        value = ParseBool(text, "--" + name);
    });
}

void
CheckedCommandLine::AddValue(const std::string& name,
                             const std::string& help,
                             uint32_t& value,
                             uint32_t min,
                             uint32_t max)
{
    Add(name, help, std::to_string(value), [&value, name, min, max](const std::string& text) {
        value = ParseUint32(text, "--" + name, min, max);
    });
}

void
CheckedCommandLine::AddValue(const std::string& name,
                             const std::string& help,
                             uint64_t& value,
                             uint64_t min,
                             uint64_t max)
{
    Add(name, help, std::to_string(value), [&value, name, min, max](const std::string& text) {
        value = ParseUint64(text, "--" + name, min, max);
    });
}

void
CheckedCommandLine::AddValue(const std::string& name,
                             const std::string& help,
                             double& value,
                             double min,
                             double max)
{
    std::ostringstream def;
    def << value;
    Add(name, help, def.str(), [&value, name, min, max](const std::string& text) {
        value = ParseDouble(text, "--" + name, min, max);
    });
}

void
CheckedCommandLine::AddOptional(const std::string& name,
                                const std::string& help,
                                std::optional<uint64_t>& value,
                                uint64_t min,
                                uint64_t max)
{
    Add(name, help, "", [&value, name, min, max](const std::string& text) {
        value = ParseUint64(text, "--" + name, min, max);
    });
}

void
CheckedCommandLine::AddOptional(const std::string& name,
                                const std::string& help,
                                std::optional<double>& value,
                                double min,
                                double max)
{
    Add(name, help, "", [&value, name, min, max](const std::string& text) {
        value = ParseDouble(text, "--" + name, min, max);
    });
}

void
CheckedCommandLine::AddConverted(const std::string& name,
                                 const std::string& help,
                                 const std::string& defaultText,
                                 std::function<void(const std::string&)> convert)
{
    Add(name, help, defaultText, std::move(convert));
}

void
CheckedCommandLine::CheckNs3Option(const std::string& name, const std::string& value) const
{
    const std::string opt = "--" + name;
    Ptr<const AttributeChecker> checker;
    for (auto it = GlobalValue::Begin(); it != GlobalValue::End() && !checker; ++it)
    {
        if ((*it)->GetName() == name)
        {
            checker = (*it)->GetChecker();
        }
    }
    const auto colon = name.rfind("::");
    if (!checker && colon != std::string::npos)
    {
        TypeId tid;
        TypeId::AttributeInformation info;
        if (!TypeId::LookupByNameFailSafe(name.substr(0, colon), &tid))
        {
            throw InputError(opt,
                             "unknown option (no ns-3 type '" + name.substr(0, colon) +
                                 "'; --help lists the options)");
        }
        if (!tid.LookupAttributeByName(name.substr(colon + 2), &info))
        {
            throw InputError(opt,
                             "unknown option (" + tid.GetName() + " has no attribute '" +
                                 name.substr(colon + 2) +
                                 "'; see --PrintAttributes=" + tid.GetName() + ")");
        }
        checker = info.checker;
    }
    if (!checker)
    {
        throw InputError(opt, "unknown option (--help lists the options)");
    }
    std::string type = checker->GetValueTypeName(); // "ns3::UintegerValue", "DataRateValue"...
    if (type.rfind("ns3::", 0) == 0)
    {
        type = type.substr(5);
    }
    // ns-3 aborts on a malformed Time or DataRate, and on text after any value it reads
    // with operator>> (ATTRIBUTE_VALUE_IMPLEMENT): check those first
    if (type == "TimeValue")
    {
        ParseTime(value, opt, true);
    }
    else if (type == "DataRateValue")
    {
        ParseDataRate(value, opt);
    }
    else if (type == "UintegerValue")
    {
        ParseUint64(value, opt);
    }
    else if (type == "IntegerValue")
    {
        const bool negative = !value.empty() && (value[0] == '-' || value[0] == '+');
        ParseUint64(negative ? value.substr(1) : value, opt);
    }
    else if (type == "DoubleValue")
    {
        ParseDouble(value, opt);
    }
    else if (type != "StringValue" && std::any_of(value.begin(), value.end(), [](char c) {
                 return std::isspace(static_cast<unsigned char>(c)) != 0;
             }))
    {
        throw InputError(opt, QuoteInput(value) + " contains a space (not a valid " + type + ")");
    }
    if (const auto* validated = dynamic_cast<const ValidatedStringChecker*>(PeekPointer(checker)))
    {
        const std::string problem = validated->Problem(value);
        if (!problem.empty())
        {
            throw InputError(opt, QuoteInput(value) + ": " + problem);
        }
    }
    if (!checker->CreateValidValue(StringValue(value)))
    {
        throw InputError(opt, QuoteInput(value) + " is not a valid " + type);
    }
    // ns-3 creates the simulator and its event scheduler from these by TypeId, and aborts (or
    // crashes) on a type that exists but is of another kind or has no constructor
    if (name == "SimulatorImplementationType" || name == "SchedulerType")
    {
        const std::string base = name == "SchedulerType" ? "ns3::Scheduler" : "ns3::SimulatorImpl";
        TypeId tid;
        TypeId baseTid;
        if (!TypeId::LookupByNameFailSafe(value, &tid) ||
            !TypeId::LookupByNameFailSafe(base, &baseTid) || !tid.IsChildOf(baseTid) ||
            !tid.HasConstructor())
        {
            throw InputError(opt,
                             QuoteInput(value) + " is not an ns-3 type derived from " + base +
                                 " that can be created (--PrintTypeIds lists the types)");
        }
    }
}

void
CheckedCommandLine::Parse(int argc, char* argv[])
{
    const auto& hard = HardOptions();
    bool help = false;
    for (int i = 1; i < argc; ++i)
    {
        std::string name;
        std::string value;
        if (!SplitOption(argv[i], name, value))
        {
            throw InputError(QuoteInput(argv[i]),
                             "unexpected argument (options are --name=value; --help lists them)");
        }
        help = help || std::find(hard.begin(), hard.end(), name) != hard.end();
    }
    for (int i = 1; i < argc && !help; ++i)
    {
        std::string name;
        std::string value;
        SplitOption(argv[i], name, value);
        if (name.empty())
        {
            throw InputError(QuoteInput(argv[i]),
                             "not an option (options are --name=value; --help lists them)");
        }
        const bool ours = std::any_of(m_opts.begin(), m_opts.end(), [&name](const auto& o) {
            return o->name == name;
        });
        if (!ours)
        {
            CheckNs3Option(name, value);
        }
    }
    if (help)
    {
        // --PrintAttributes=<unknown type> would abort
        for (int i = 1; i < argc; ++i)
        {
            std::string name;
            std::string value;
            SplitOption(argv[i], name, value);
            TypeId tid;
            if (name == "PrintAttributes" && !TypeId::LookupByNameFailSafe(value, &tid))
            {
                throw InputError("--PrintAttributes",
                                 "unknown ns-3 type " + QuoteInput(value) +
                                     " (--PrintTypeIds lists them)");
            }
        }
    }
    m_cmd.Parse(argc, argv); // only ns-3's own options can end the program here
    for (const auto& o : m_opts)
    {
        if (o->given)
        {
            o->convert(o->text);
        }
    }
}

bool
CheckedCommandLine::IsGiven(const std::string& name) const
{
    return std::any_of(m_opts.begin(), m_opts.end(), [&name](const auto& o) {
        return o->name == name && o->given;
    });
}

const CommandLine&
CheckedCommandLine::GetCommandLine() const
{
    return m_cmd;
}

ValidatedStringChecker::ValidatedStringChecker(
    std::function<std::string(const std::string&)> problem)
    : m_problem(std::move(problem))
{
}

std::string
ValidatedStringChecker::Problem(const std::string& value) const
{
    return m_problem(value);
}

bool
ValidatedStringChecker::Check(const AttributeValue& value) const
{
    const auto* v = dynamic_cast<const StringValue*>(&value);
    return v != nullptr && m_problem(v->Get()).empty();
}

std::string
ValidatedStringChecker::GetValueTypeName() const
{
    return "ns3::StringValue";
}

bool
ValidatedStringChecker::HasUnderlyingTypeInformation() const
{
    return true;
}

std::string
ValidatedStringChecker::GetUnderlyingTypeInformation() const
{
    return "std::string";
}

Ptr<AttributeValue>
ValidatedStringChecker::Create() const
{
    return ns3::Create<StringValue>();
}

bool
ValidatedStringChecker::Copy(const AttributeValue& source, AttributeValue& destination) const
{
    const auto* src = dynamic_cast<const StringValue*>(&source);
    auto* dst = dynamic_cast<StringValue*>(&destination);
    if (src == nullptr || dst == nullptr)
    {
        return false;
    }
    *dst = *src;
    return true;
}

Ptr<const AttributeChecker>
MakeValidatedStringChecker(std::function<std::string(const std::string&)> problem)
{
    return Ptr<const AttributeChecker>(new ValidatedStringChecker(std::move(problem)), false);
}

} // namespace ns3
