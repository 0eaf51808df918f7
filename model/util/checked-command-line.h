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

#ifndef CRUX_CHECKED_COMMAND_LINE_H
#define CRUX_CHECKED_COMMAND_LINE_H

#include "ns3/checked-parse.h"
#include "ns3/command-line.h"
#include "ns3/string.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup crux
 * \brief The checker of a string attribute whose text has a grammar of its own (e.g.
 * QbbNetDevice's DscpToTc "lo-hi:tc,..."): Check() refuses a value that \p problem finds
 * wrong, so that Config::SetDefault, SetAttribute and CheckedCommandLine refuse it before an
 * object is built with it, and Problem() says why (CheckedCommandLine's one line).
 */
class ValidatedStringChecker : public StringChecker
{
  public:
    /// \param problem returns "" for a good text, else why it is wrong (one line)
    explicit ValidatedStringChecker(std::function<std::string(const std::string&)> problem);
    /// \param value the text \return why it is wrong, "" if it is good
    std::string Problem(const std::string& value) const;
    bool Check(const AttributeValue& value) const override;
    std::string GetValueTypeName() const override;
    bool HasUnderlyingTypeInformation() const override;
    std::string GetUnderlyingTypeInformation() const override;
    Ptr<AttributeValue> Create() const override;
    bool Copy(const AttributeValue& source, AttributeValue& destination) const override;

  private:
    std::function<std::string(const std::string&)> m_problem; //!< the grammar's check
};

/**
 * \ingroup crux
 * \param problem returns "" for a good text, else why it is wrong
 * \return a ValidatedStringChecker, for AddAttribute in place of MakeStringChecker()
 */
Ptr<const AttributeChecker> MakeValidatedStringChecker(
    std::function<std::string(const std::string&)> problem);

/**
 * \ingroup crux
 * \brief ns-3's CommandLine with checked values: a bad option gives one InputError line naming
 * the option ("--seed: 'abc' is not a non-negative integer"), never ns-3's help text, an abort
 * or a silently truncated value.
 *
 * Every option is handed to ns-3's CommandLine as a callback option that keeps the text as
 * given; after CommandLine::Parse the texts of the options that were given are converted by the
 * checked parsers (model/util/checked-parse.h). Before that, Parse() checks every argument
 * CommandLine would reject or abort on: unknown options, arguments that are not options,
 * ns-3 attributes and global values (--ns3::RdmaNic::IbTimeout=abc, --RngRun=x) whose value
 * their checker refuses (Time and DataRate values go through ParseTime() and ParseDataRate()
 * first, since ns-3 aborts on them). ns-3's own options (--help, --PrintHelp,
 * --PrintAttributes=..., --PrintGlobals, ...) work as before. --help shows the default of an
 * option as its current value ([1], [false]); an override option that has no value of its own
 * (AddOptional) shows none.
 *
 * \code
 *   CheckedCommandLine cmd(__FILE__);
 *   uint32_t cases = 10;
 *   std::optional<uint64_t> seed;
 *   cmd.AddValue("cases", "Number of cases (>= 1)", cases, 1);
 *   cmd.AddOptional("seed", "Override the scenario's seed", seed);
 *   try { cmd.Parse(argc, argv); } catch (const InputError& e) { print e.what(); return 1; }
 * \endcode
 */
class CheckedCommandLine
{
  public:
    /// \param filename the program's source file (__FILE__), as for CommandLine
    explicit CheckedCommandLine(const std::string& filename);

    /// \param usage the program's description shown by --help
    void Usage(const std::string& usage);

    /**
     * \brief A text option; given, it must not be empty ("--modes=" is an error).
     * \param name option name without dashes
     * \param help help text
     * \param value the text (unchanged unless the option is given)
     */
    void AddValue(const std::string& name, const std::string& help, std::string& value);

    /// \brief A truth value ("--quiet", "--quiet=true|false|1|0").
    /// \param name option name \param help help text \param value the value
    void AddValue(const std::string& name, const std::string& help, bool& value);

    /**
     * \brief An unsigned integer option, range-checked on 64 bits before narrowing.
     * \param name option name \param help help text \param value the value
     * \param min smallest value accepted \param max largest value accepted
     */
    void AddValue(const std::string& name,
                  const std::string& help,
                  uint32_t& value,
                  uint32_t min = 0,
                  uint32_t max = std::numeric_limits<uint32_t>::max());

    /// \copydoc AddValue(const std::string&,const std::string&,uint32_t&,uint32_t,uint32_t)
    void AddValue(const std::string& name,
                  const std::string& help,
                  uint64_t& value,
                  uint64_t min = 0,
                  uint64_t max = std::numeric_limits<uint64_t>::max());

    /**
     * \brief A finite number option.
     * \param name option name \param help help text \param value the value
     * \param min smallest value accepted \param max largest value accepted
     */
    void AddValue(const std::string& name,
                  const std::string& help,
                  double& value,
                  double min = -std::numeric_limits<double>::max(),
                  double max = std::numeric_limits<double>::max());

    /**
     * \brief An override with no default of its own (e.g. of a scenario field): empty unless
     * the option is given; --help shows no default.
     * \param name option name \param help help text \param value set only if given
     * \param min smallest value accepted \param max largest value accepted
     */
    void AddOptional(const std::string& name,
                     const std::string& help,
                     std::optional<uint64_t>& value,
                     uint64_t min = 0,
                     uint64_t max = std::numeric_limits<uint64_t>::max());

    /// \copydoc AddOptional(const std::string&,const
    /// std::string&,std::optional<uint64_t>&,uint64_t,uint64_t)
    void AddOptional(const std::string& name,
                     const std::string& help,
                     std::optional<double>& value,
                     double min = -std::numeric_limits<double>::max(),
                     double max = std::numeric_limits<double>::max());

    /**
     * \brief An option whose text the program converts itself (a duration, a rate, a list):
     * the converter gets the text and throws InputError naming the option.
     * \param name option name \param help help text
     * \param defaultText the default shown by --help ("" = none)
     * \param convert called with the given text, after CommandLine::Parse, in option order
     */
    void AddConverted(const std::string& name,
                      const std::string& help,
                      const std::string& defaultText,
                      std::function<void(const std::string&)> convert);

    /**
     * \brief Parse the command line. ns-3's --help, --PrintHelp, --PrintGlobals... print and
     * exit with status 0 as usual.
     * \param argc argument count \param argv arguments
     * \throws InputError "--<option>: <what is wrong>" for the first bad argument (one line)
     */
    void Parse(int argc, char* argv[]);

    /// \param name option name \return whether the option was given
    bool IsGiven(const std::string& name) const;

    /// \return the wrapped ns-3 CommandLine (e.g. to print its help)
    const CommandLine& GetCommandLine() const;

  private:
    /// One option of the program
    struct Option
    {
        std::string name;                                //!< option name without dashes
        std::function<void(const std::string&)> convert; //!< converts the given text
        std::string text;                                //!< the text given
        bool given{false};                               //!< the option was given
    };

    /// CommandLine callback: keeps the text. \param o the option \param text the text
    /// \return true (the value is checked after parsing)
    static bool Store(Option* o, std::string text);

    /// Registers an option. \param name name \param help help \param defaultText shown
    /// default \param convert converter
    void Add(const std::string& name,
             const std::string& help,
             const std::string& defaultText,
             std::function<void(const std::string&)> convert);

    /// Checks an argument CommandLine would handle as an ns-3 attribute or global value.
    /// \param name option name \param value its text \throws InputError if CommandLine would
    /// reject it or abort on it
    void CheckNs3Option(const std::string& name, const std::string& value) const;

    CommandLine m_cmd;                           //!< the ns-3 command line
    std::vector<std::unique_ptr<Option>> m_opts; //!< the program's options
};

} // namespace ns3

#endif // CRUX_CHECKED_COMMAND_LINE_H
