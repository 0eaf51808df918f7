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

#include "checked-parse.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

bool
IsDigit(char c)
{
    return c >= '0' && c <= '9';
}

/**
 * Length of the decimal number at the start of \p s: [sign] (digits [. digits*] | . digits)
 * [(e|E) [sign] digits]; 0 if there is none.
 */
size_t
ScanDecimal(const std::string& s, bool allowSign, bool allowExponent)
{
    size_t i = 0;
    if (allowSign && i < s.size() && (s[i] == '+' || s[i] == '-'))
    {
        ++i;
    }
    size_t digits = 0;
    while (i < s.size() && IsDigit(s[i]))
    {
        ++i;
        ++digits;
    }
    if (i < s.size() && s[i] == '.')
    {
        ++i;
        while (i < s.size() && IsDigit(s[i]))
        {
            ++i;
            ++digits;
        }
    }
    if (digits == 0)
    {
        return 0;
    }
    if (allowExponent && i < s.size() && (s[i] == 'e' || s[i] == 'E'))
    {
        size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-'))
        {
            ++j;
        }
        size_t expDigits = 0;
        while (j < s.size() && IsDigit(s[j]))
        {
            ++j;
            ++expDigits;
        }
        if (expDigits == 0)
        {
            return 0; // "1e" or "1e+": not a number
        }
        i = j;
    }
    return i;
}

/// strtod of a text ScanDecimal() accepted (the "C" decimal point of ns-3's own parsing)
double
ToDouble(const std::string& number)
{
    errno = 0;
    return std::strtod(number.c_str(), nullptr);
}

std::string
FormatDouble(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.6g", v);
    return buf;
}

} // namespace

std::string
QuoteInput(const std::string& text)
{
    const size_t maxChars = 60;
    size_t end = std::min(text.size(), maxChars);
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80)
    {
        ++end; // do not cut a UTF-8 sequence
    }
    return "'" + OneLine(text.substr(0, end)) + (end < text.size() ? "...'" : "'");
}

std::string
OneLine(const std::string& text)
{
    std::string out;
    for (char ch : text)
    {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f)
        {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\x%02x", c);
            out += buf;
        }
        else
        {
            out += ch;
        }
    }
    return out;
}

uint64_t
CheckRange(uint64_t value, const std::string& field, uint64_t min, uint64_t max)
{
    if (value < min || value > max)
    {
        throw InputError(field,
                         std::to_string(value) + " is out of range (" + std::to_string(min) + ".." +
                             std::to_string(max) + ")");
    }
    return value;
}

uint64_t
ParseUint64(const std::string& text, const std::string& field, uint64_t min, uint64_t max)
{
    if (text.empty() || text.size() > 40 || ScanDecimal(text, false, false) != text.size() ||
        text.find('.') != std::string::npos)
    {
        throw InputError(field, QuoteInput(text) + " is not a non-negative integer");
    }
    uint64_t v = 0;
    for (char c : text)
    {
        const auto d = static_cast<uint64_t>(c - '0');
        if (v > (std::numeric_limits<uint64_t>::max() - d) / 10)
        {
            throw InputError(field,
                             text + " is out of range (" + std::to_string(min) + ".." +
                                 std::to_string(max) + ")");
        }
        v = v * 10 + d;
    }
    return CheckRange(v, field, min, max);
}

uint32_t
ParseUint32(const std::string& text, const std::string& field, uint32_t min, uint32_t max)
{
    return static_cast<uint32_t>(ParseUint64(text, field, min, max));
}

namespace
{
/// The allowed range as a human writes it: "1..8", "must be >= 0" when there is no upper bound
/// (max = the largest double), "must be <= 5" when there is no lower bound.
std::string
RangeText(double min, double max)
{
    const double top = std::numeric_limits<double>::max();
    if (max >= top && min <= -top)
    {
        return "must be a finite number";
    }
    if (max >= top)
    {
        return "must be >= " + FormatDouble(min);
    }
    if (min <= -top)
    {
        return "must be <= " + FormatDouble(max);
    }
    return FormatDouble(min) + ".." + FormatDouble(max);
}
} // namespace

double
CheckFinite(double value, const std::string& field, double min, double max)
{
    if (!std::isfinite(value))
    {
        throw InputError(field, "must be a finite number");
    }
    if (value < min || value > max)
    {
        throw InputError(field,
                         FormatDouble(value) + " is out of range (" + RangeText(min, max) + ")");
    }
    return value;
}

double
ParseDouble(const std::string& text, const std::string& field, double min, double max)
{
    if (text.empty() || ScanDecimal(text, true, true) != text.size())
    {
        throw InputError(field, QuoteInput(text) + " is not a number");
    }
    const double v = ToDouble(text);
    if (!std::isfinite(v))
    {
        throw InputError(field, text + " is out of range (beyond a double)");
    }
    return CheckFinite(v, field, min, max);
}

bool
ParseBool(const std::string& text, const std::string& field)
{
    if (text.empty() || text == "true" || text == "1")
    {
        return true;
    }
    if (text == "false" || text == "0")
    {
        return false;
    }
    throw InputError(field, QuoteInput(text) + " is not true or false (or 1 or 0)");
}

Time
ParseTime(const std::string& text, const std::string& field, bool allowNegative)
{
    // ns-3's units (Time::Time(const std::string&)) in seconds
    static const std::vector<std::pair<std::string, double>> units = {
        {"s", 1.0},
        {"ms", 1e-3},
        {"us", 1e-6},
        {"ns", 1e-9},
        {"ps", 1e-12},
        {"fs", 1e-15},
        {"min", 60.0},
        {"h", 3600.0},
        {"d", 86400.0},
        {"y", 365.0 * 86400.0},
    };
    const std::string form =
        "a time (a number directly followed by one of the units s, ms, us, ns, ps, fs, min, h, "
        "d, y, e.g. 1us)";
    const size_t n = ScanDecimal(text, true, true);
    if (n == 0)
    {
        throw InputError(field, QuoteInput(text) + " is not " + form);
    }
    const std::string unit = text.substr(n);
    double scale = unit.empty() ? 1.0 : 0.0;
    for (const auto& [name, s] : units)
    {
        if (unit == name)
        {
            scale = s;
        }
    }
    if (scale == 0.0)
    {
        throw InputError(field, QuoteInput(text) + " is not " + form);
    }
    const double seconds = ToDouble(text.substr(0, n)) * scale;
    if (!std::isfinite(seconds) || std::fabs(seconds) >= Time::Max().GetSeconds())
    {
        throw InputError(field,
                         QuoteInput(text) + " is out of the range of an ns-3 Time (|t| < " +
                             FormatDouble(Time::Max().GetSeconds()) + " s)");
    }
    if (seconds < 0 && !allowNegative)
    {
        throw InputError(field, QuoteInput(text) + " is negative (expected a time >= 0)");
    }
    const Time t(text); // ns-3's conversion: the text is known to parse
    if (t.IsZero() && seconds != 0)
    {
        throw InputError(field,
                         QuoteInput(text) + " is below the time resolution of the simulation");
    }
    return t;
}

DataRate
ParseDataRate(const std::string& text, const std::string& field)
{
    // ns-3's units (DataRate::DoParse) in bit/s
    static const std::vector<std::pair<std::string, double>> units = {
        {"bps", 1.0},
        {"b/s", 1.0},
        {"Bps", 8.0},
        {"B/s", 8.0},
        {"kbps", 1e3},
        {"kb/s", 1e3},
        {"Kbps", 1e3},
        {"Kb/s", 1e3},
        {"kBps", 8e3},
        {"kB/s", 8e3},
        {"KBps", 8e3},
        {"KB/s", 8e3},
        {"Kib/s", 1024.0},
        {"KiB/s", 8192.0},
        {"Mbps", 1e6},
        {"Mb/s", 1e6},
        {"MBps", 8e6},
        {"MB/s", 8e6},
        {"Mib/s", 1048576.0},
        {"MiB/s", 8388608.0},
        {"Gbps", 1e9},
        {"Gb/s", 1e9},
        {"GBps", 8e9},
        {"GB/s", 8e9},
        {"Gib/s", 1073741824.0},
        {"GiB/s", 8589934592.0},
    };
    const std::string form = "a data rate (a number directly followed by a unit such as bps, "
                             "Kbps, Mbps, Gbps, MB/s or GiB/s, e.g. 100Gbps)";
    const size_t n = ScanDecimal(text, false, false);
    if (n == 0)
    {
        throw InputError(field, QuoteInput(text) + " is not " + form);
    }
    const std::string unit = text.substr(n);
    double scale = 0.0;
    for (const auto& [name, s] : units)
    {
        if (unit == name)
        {
            scale = s;
        }
    }
    if (unit.empty() && text.find('.') == std::string::npos)
    {
        scale = 1.0; // digits only: bit/s (ns-3 reads an integer then)
    }
    if (scale == 0.0)
    {
        throw InputError(field, QuoteInput(text) + " is not " + form);
    }
    const double bps = ToDouble(text.substr(0, n)) * scale;
    if (!(bps < 18446744073709551615.0))
    {
        throw InputError(field, QuoteInput(text) + " is out of range (below 2^64 bit/s)");
    }
    if (static_cast<uint64_t>(bps) == 0)
    {
        throw InputError(field, QuoteInput(text) + " is not a positive data rate (>= 1 bit/s)");
    }
    return DataRate(text); // ns-3's conversion: the text is known to parse
}

uint64_t
ParseByteSize(const std::string& text, const std::string& field)
{
    static const std::vector<std::pair<std::string, uint64_t>> units = {
        {"GiB", 1ULL << 30},
        {"MiB", 1ULL << 20},
        {"KiB", 1ULL << 10},
        {"GB", 1000000000ULL},
        {"MB", 1000000ULL},
        {"KB", 1000ULL},
        {"B", 1ULL},
    };
    const std::string form = "a positive byte size (a number directly followed by B, KB, MB, GB, "
                             "KiB, MiB or GiB, e.g. 32MiB)";
    const size_t n = ScanDecimal(text, false, true);
    if (n == 0)
    {
        throw InputError(field, QuoteInput(text) + " is not " + form);
    }
    const std::string unit = text.substr(n);
    uint64_t mult = unit.empty() ? 1 : 0;
    for (const auto& [name, m] : units)
    {
        if (unit == name)
        {
            mult = m;
        }
    }
    if (mult == 0)
    {
        throw InputError(field, QuoteInput(text) + " is not " + form);
    }
    const double bytes = ToDouble(text.substr(0, n)) * static_cast<double>(mult);
    if (!(bytes < 9.2e18))
    {
        throw InputError(field, QuoteInput(text) + " is out of range (below 2^63 bytes)");
    }
    const auto v = static_cast<uint64_t>(std::llround(bytes));
    if (v == 0)
    {
        throw InputError(field, QuoteInput(text) + " is not " + form);
    }
    return v;
}

double
ParseDurationSeconds(const std::string& text, const std::string& field, double min, double max)
{
    double unit = 1;
    std::string num = text;
    if (!text.empty())
    {
        switch (text.back())
        {
        case 's':
            unit = 1;
            num.pop_back();
            break;
        case 'm':
            unit = 60;
            num.pop_back();
            break;
        case 'h':
            unit = 3600;
            num.pop_back();
            break;
        case 'd':
            unit = 86400;
            num.pop_back();
            break;
        default:
            break;
        }
    }
    if (num.empty() || ScanDecimal(num, true, true) != num.size())
    {
        throw InputError(field,
                         QuoteInput(text) +
                             " is not a duration (seconds, or a number followed by s, m, h or "
                             "d, e.g. 6h)");
    }
    const double v = ToDouble(num) * unit;
    if (!std::isfinite(v))
    {
        throw InputError(field, QuoteInput(text) + " is out of range (beyond a double)");
    }
    return CheckFinite(v, field, min, max);
}

} // namespace ns3
