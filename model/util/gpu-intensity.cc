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

#include "gpu-intensity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

double
BusiestLinkTime(const std::map<uint32_t, double>& bytesPerIteration,
                const std::function<double(uint32_t)>& bandwidthOf)
{
    double t = 0;
    for (const auto& [link, bytes] : bytesPerIteration)
    {
        if (!(bytes > 0))
        {
            continue;
        }
        const double b = bandwidthOf(link);
        if (!(b > 0) || !std::isfinite(b))
        {
            throw std::invalid_argument("link " + std::to_string(link) +
                                        " has no positive bandwidth");
        }
        t = std::max(t, bytes * 8.0 / b);
    }
    return t;
}

double
GpuIntensity(double flops, double commTime)
{
    if (flops == 0)
    {
        return 0;
    }
    if (commTime <= 0)
    {
        return std::numeric_limits<double>::infinity();
    }
    return flops / commTime;
}

} // namespace ns3
