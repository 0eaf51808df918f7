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

#include "sample-statistics.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{

double
SampleSummary::Low() const
{
    return mean - halfWidth;
}

double
SampleSummary::High() const
{
    return mean + halfWidth;
}

SampleSummary
Summarize(const std::vector<double>& values, double confidence)
{
    if (!(confidence > 0 && confidence < 1))
    {
        throw std::invalid_argument("Summarize: confidence must be in (0, 1)");
    }
    SampleSummary s;
    s.confidence = confidence;
    s.n = static_cast<uint32_t>(values.size());
    if (s.n == 0)
    {
        return s;
    }
    double sum = 0;
    for (double v : values)
    {
        if (!std::isfinite(v))
        {
            throw std::invalid_argument("Summarize: a measurement is not a finite number");
        }
        sum += v;
    }
    s.mean = sum / s.n;
    if (s.n < 2 || std::all_of(values.begin(), values.end(), [&values](double v) {
            return v == values.front();
        }))
    {
        if (s.n >= 2)
        {
            s.mean = values.front(); // n equal measurements: exactly that value, no spread
        }
        return s;
    }
    double ss = 0;
    for (double v : values)
    {
        ss += (v - s.mean) * (v - s.mean);
    }
    s.stddev = std::sqrt(ss / (s.n - 1));
    const boost::math::students_t dist(s.n - 1);
    const double t = boost::math::quantile(dist, (1 + confidence) / 2);
    s.halfWidth = t * s.stddev / std::sqrt(static_cast<double>(s.n));
    return s;
}

namespace
{

/// Below this magnitude a printed value is 0: the rounding noise of x / x − 1 or x − x
/// (1e-16 relative) scaled to percent stays far below it, any measured difference far above.
constexpr double NOISE = 1e-9;

/// Decimal places that give \p digits significant digits for |value| (>= 0).
int
DecimalsFor(double value, int digits)
{
    if (value == 0)
    {
        return digits - 1;
    }
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
    return std::max(0, digits - 1 - magnitude);
}

/// \p value with \p decimals decimal places, fixed notation.
std::string
Fixed(double value, int decimals)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(decimals) << value;
    std::string out = os.str();
    if (out.find_first_not_of("-0.") == std::string::npos)
    {
        out.erase(0, out.front() == '-' ? 1 : 0); // "-0.000" is 0
    }
    return out;
}

} // namespace

std::string
FormatSignificant(double value, int digits)
{
    if (!std::isfinite(value))
    {
        return "–";
    }
    digits = std::max(1, digits);
    if (std::fabs(value) < NOISE)
    {
        value = 0; // rounding noise of a difference of equal numbers, not a measurement
    }
    // round first: 9.99996 with 4 digits is 10.00, not 9.9999
    int decimals = DecimalsFor(value, digits);
    const double rounded = std::stod(Fixed(value, decimals));
    decimals = DecimalsFor(rounded, digits);
    return Fixed(value, decimals);
}

std::string
FormatDuration(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
    {
        return "–";
    }

    struct Unit
    {
        double scale;
        const char* name;
    };

    static const Unit units[] = {{1, "s"}, {1e3, "ms"}, {1e6, "us"}, {1e9, "ns"}};
    for (const Unit& u : units)
    {
        const std::string text = FormatSignificant(seconds * u.scale, 4);
        if (seconds == 0 || std::stod(text) >= 1 || u.scale == 1e9)
        {
            return text + " " + u.name;
        }
    }
    return FormatSignificant(seconds, 4) + " s";
}

std::string
FormatInterval(const SampleSummary& s, double scale)
{
    const double mean = s.mean * scale;
    if (!std::isfinite(mean))
    {
        return "–";
    }
    const double hw = std::fabs(s.halfWidth * scale) < NOISE ? 0.0 : s.halfWidth * scale;
    if (s.n < 2 || !std::isfinite(hw))
    {
        return FormatSignificant(mean, 4);
    }
    if (hw == 0)
    {
        return FormatSignificant(mean, 4); // equal measurements: the value alone
    }
    // the half-width with 2 significant digits fixes the last decimal place shown; the mean
    // gets the same place but never more than 4 significant digits
    const int decimals = std::min(DecimalsFor(hw, 2), DecimalsFor(mean, 4));
    const std::string width = Fixed(hw, decimals);
    if (width.find_first_not_of("0.") == std::string::npos)
    {
        // narrower than the mean's last digit: say so rather than print a zero interval
        return Fixed(mean, decimals) + " ± <" + Fixed(std::pow(10.0, -decimals), decimals);
    }
    return Fixed(mean, decimals) + " ± " + width;
}

} // namespace ns3
