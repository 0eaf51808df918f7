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

#ifndef CRUX_SAMPLE_STATISTICS_H
#define CRUX_SAMPLE_STATISTICS_H

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup crux
 * Mean and Student-t confidence interval of repeated measurements (one value per seed), and the
 * number formats of crux's result tables (4 significant digits in a fitting unit; never "inf"
 * or "nan"). Pure C++ (Boost.Math for the t quantile).
 */

namespace ns3
{

/**
 * \ingroup crux
 * \brief Mean and confidence interval of n independent measurements of one quantity.
 */
struct SampleSummary
{
    uint32_t n{0};        //!< measurements (seeds)
    double mean{0};       //!< sample mean (0 if n = 0)
    double stddev{0};     //!< sample standard deviation (n − 1 in the denominator; 0 if n < 2)
    double halfWidth{0};  //!< half-width of the confidence interval (0 if n < 2 or all equal)
    double confidence{0}; //!< confidence level of halfWidth (0.95 unless asked otherwise)

    /// \return mean − halfWidth
    double Low() const;
    /// \return mean + halfWidth
    double High() const;
};

/**
 * \ingroup crux
 * \brief Summarize measurements: mean, sample standard deviation and the two-sided Student-t
 * interval mean ± t_{(1+c)/2, n−1} × s / sqrt(n) (the interval for the mean of a normal sample
 * with unknown variance; e.g. Jain, The Art of Computer Systems Performance Analysis, §13.2).
 * \param values the measurements (finite numbers; any count, 0 and 1 give no interval)
 * \param confidence two-sided confidence level in (0, 1), default 0.95
 * \return the summary
 * \throws std::invalid_argument if confidence is outside (0, 1) or a value is not finite
 */
SampleSummary Summarize(const std::vector<double>& values, double confidence = 0.95);

/**
 * \ingroup crux
 * \brief A number with \p digits significant digits, fixed notation ("0.2747", "1284", "12.00").
 * \param value the number
 * \param digits significant digits (>= 1)
 * \return the text; "–" (en dash) for a value that is not finite; a value below 1e-9 in
 *         magnitude (the rounding noise of a difference of equal numbers) prints as 0
 */
std::string FormatSignificant(double value, int digits = 4);

/**
 * \ingroup crux
 * \brief A duration with 4 significant digits in a fitting unit: "1.284 s", "274.7 ms",
 * "83.20 us", "12.00 ns" (microseconds as "us").
 * \param seconds the duration in seconds
 * \return the text; "–" for a value that is not finite or negative
 */
std::string FormatDuration(double seconds);

/**
 * \ingroup crux
 * \brief A summary as "<mean> ± <half-width>" (the half-width with 2 significant digits, the
 * mean to the same decimal place, at most 4 significant digits; a half-width that rounds to
 * zero there prints as an upper bound, "0.2747 ± <0.0001"), or the mean alone with
 * FormatSignificant when there is no interval (n < 2, or n equal measurements).
 * \param s the summary
 * \param scale multiply mean and half-width by this before printing (e.g. 100 for percent)
 * \return the text ("–" if the mean is not finite)
 */
std::string FormatInterval(const SampleSummary& s, double scale = 1.0);

} // namespace ns3

#endif // CRUX_SAMPLE_STATISTICS_H
