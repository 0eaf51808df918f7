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

#ifndef CRUX_CHECKED_PARSE_H
#define CRUX_CHECKED_PARSE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

/**
 * \file
 * \ingroup crux
 * The checked parsers of every value a user gives crux (scenario fields, command-line options,
 * trace fields): they return the value or throw InputError naming the field, and never abort,
 * wrap around or read part of the text. ns-3's own string forms of Time and DataRate are checked
 * here first and converted by ns-3 only once they are known to parse (ns-3's parsers abort on
 * "abc", read "100 Gbps" as 100 bit/s and overflow silently on "1e300s").
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief Bad user input: one line "<field>: <detail>", e.g. "topology.linkDelay: 'abc' is not a
 * time (a number and one of the units s, ms, us, ns, ps, fs, min, h, d, y, e.g. 1us)".
 *
 * The one exception type of the checked parsers; ScenarioError and ExperimentError derive from
 * it, so a program catches InputError to report any of them. The field is a JSON path of a
 * scenario field ("jobs[1].iterations"), a command-line option ("--seed") or a file and column,
 * with the file name in front where there is one ("sec22.json: jobs[1].iterations").
 */
class InputError : public std::runtime_error
{
  public:
    /// \param what the complete one-line message (GetField() and GetDetail() are then empty)
    explicit InputError(const std::string& what)
        : std::runtime_error(what)
    {
    }

    /**
     * \brief An error about one field; what() is "<field>: <detail>".
     * \param field the offending field (JSON path such as "topology.linkDelay", or "--seed")
     * \param detail what is wrong with its value and what was expected
     */
    InputError(const std::string& field, const std::string& detail)
        : std::runtime_error(field + ": " + detail),
          m_field(field),
          m_detail(detail)
    {
    }

    /// \return the offending field ("" if the error was built from a complete message)
    const std::string& GetField() const
    {
        return m_field;
    }

    /// \return what is wrong with the field ("" if built from a complete message)
    const std::string& GetDetail() const
    {
        return m_detail;
    }

  private:
    std::string m_field;  //!< offending field, "" if unknown
    std::string m_detail; //!< the message without the field
};

/**
 * \ingroup crux
 * \brief Quote a user's text for an error message: in single quotes, control characters as
 * \\xNN (OneLine()), cut after about 60 bytes ("..."), so that the message stays one line.
 * \param text the user's text
 * \return the quoted text
 */
std::string QuoteInput(const std::string& text);

/**
 * \ingroup crux
 * \brief A message as one printable line: control characters (newline, tab, ESC, DEL...)
 * become \\xNN; other bytes (UTF-8 text) are kept. Programs print every error through it.
 * \param text the message
 * \return the message without line breaks
 */
std::string OneLine(const std::string& text);

/**
 * \ingroup crux
 * \brief Parse a non-negative decimal integer (digits only: no sign, spaces, exponent or
 * fraction), range-checked on 64 bits before any narrowing.
 * \param text the text
 * \param field the field named in the error
 * \param min smallest value accepted
 * \param max largest value accepted
 * \return the value
 * \throws InputError "<field>: 'x' is not a non-negative integer" or "... is out of range
 *         (min..max)"
 */
uint64_t ParseUint64(const std::string& text,
                     const std::string& field,
                     uint64_t min = 0,
                     uint64_t max = std::numeric_limits<uint64_t>::max());

/**
 * \ingroup crux
 * \brief ParseUint64() narrowed to 32 bits after the range check.
 * \param text the text
 * \param field the field named in the error
 * \param min smallest value accepted
 * \param max largest value accepted (at most 2^32 - 1)
 * \return the value
 * \throws InputError as ParseUint64()
 */
uint32_t ParseUint32(const std::string& text,
                     const std::string& field,
                     uint32_t min = 0,
                     uint32_t max = std::numeric_limits<uint32_t>::max());

/**
 * \ingroup crux
 * \brief Range-check a parsed unsigned value before narrowing it (JSON numbers, option values).
 * \param value the value
 * \param field the field named in the error
 * \param min smallest value accepted
 * \param max largest value accepted
 * \return the value
 * \throws InputError "<field>: <value> is out of range (min..max)"
 */
uint64_t CheckRange(uint64_t value, const std::string& field, uint64_t min, uint64_t max);

/**
 * \ingroup crux
 * \brief Parse a finite decimal number: optional sign, digits with an optional fraction and
 * exponent (no spaces, hexadecimal, "nan" or "inf"; no value beyond the double range).
 * \param text the text
 * \param field the field named in the error
 * \param min smallest value accepted
 * \param max largest value accepted
 * \return the value
 * \throws InputError "<field>: 'x' is not a number" or "... is out of range"
 */
double ParseDouble(const std::string& text,
                   const std::string& field,
                   double min = -std::numeric_limits<double>::max(),
                   double max = std::numeric_limits<double>::max());

/**
 * \ingroup crux
 * \brief Check that a number is finite and within [min, max] (JSON numbers, computed values).
 * \param value the value
 * \param field the field named in the error
 * \param min smallest value accepted
 * \param max largest value accepted
 * \return the value
 * \throws InputError naming the field
 */
double CheckFinite(double value,
                   const std::string& field,
                   double min = -std::numeric_limits<double>::max(),
                   double max = std::numeric_limits<double>::max());

/**
 * \ingroup crux
 * \brief Parse a command-line truth value as ns-3's CommandLine does: "true", "false", "1",
 * "0", or "" (the option alone) = true.
 * \param text the text
 * \param field the field named in the error
 * \return the value
 * \throws InputError "<field>: 'x' is not true or false (or 1 or 0)"
 */
bool ParseBool(const std::string& text, const std::string& field);

/**
 * \ingroup crux
 * \brief Parse an ns-3 Time string ("1us", "2.5ms", "1e-6s", "3" = seconds) without aborting.
 *
 * The text must be a decimal number (optional sign and exponent) directly followed by one of
 * ns-3's units s, ms, us, ns, ps, fs, min, h, d, y (or none: seconds). The value must fit
 * ns-3's Time (|t| < Time::Max(), about 292 years at the default 1 ns resolution) and, if not
 * zero, be at least the resolution. The conversion is ns-3's own (Time(const std::string&)).
 * \param text the text
 * \param field the field named in the error
 * \param allowNegative accept negative times
 * \return the time
 * \throws InputError naming the field and the accepted form
 */
Time ParseTime(const std::string& text, const std::string& field, bool allowNegative = false);

/**
 * \ingroup crux
 * \brief Parse an ns-3 DataRate string ("100Gbps", "12.5GB/s", "1000000" = bit/s) without
 * aborting or reading part of it.
 *
 * The text must be a non-negative decimal number (no sign or exponent, as ns-3) directly
 * followed by one of ns-3's units (bps, b/s, Bps, B/s and their k, K, M, G, Ki, Mi, Gi forms
 * as ns-3 lists them), or digits only (bit/s). The rate must be at least 1 bit/s and below
 * 2^64 bit/s. The conversion is ns-3's own (DataRate(const std::string&)).
 * \param text the text
 * \param field the field named in the error
 * \return the rate (> 0)
 * \throws InputError naming the field and the accepted form
 */
DataRate ParseDataRate(const std::string& text, const std::string& field);

/**
 * \ingroup crux
 * \brief Parse a byte size such as "32MiB", "512KB", "1000000" or "2GiB" (B, KB, MB, GB = 10^3
 * steps; KiB, MiB, GiB = 2^10 steps); a fraction is rounded to the nearest byte.
 * \param text the size
 * \param field the field named in the error
 * \return bytes (>= 1, below 2^63)
 * \throws InputError naming the field if the text is not a positive size
 */
uint64_t ParseByteSize(const std::string& text, const std::string& field);

/**
 * \ingroup crux
 * \brief Parse a duration in seconds with an optional unit suffix of the trace tools: "3600",
 * "90s", "30m", "6h", "1.5d".
 * \param text the text
 * \param field the field named in the error
 * \param min smallest value accepted, seconds
 * \param max largest value accepted, seconds
 * \return seconds
 * \throws InputError naming the field
 */
double ParseDurationSeconds(const std::string& text,
                            const std::string& field,
                            double min = -std::numeric_limits<double>::max(),
                            double max = std::numeric_limits<double>::max());

} // namespace ns3

#endif // CRUX_CHECKED_PARSE_H
