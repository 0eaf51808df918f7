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

#include "contention-decomposition.h"

namespace ns3
{

double
ContentionDecomposition::OwnFlowLoss() const
{
    return aloneFree ? *aloneFree - aloneEcmp : 0.0;
}

double
ContentionDecomposition::PathGain() const
{
    return alonePaths - aloneEcmp;
}

double
ContentionDecomposition::InterJobLoss() const
{
    return alonePaths - mixOneClass.value_or(mix);
}

double
ContentionDecomposition::PriorityRecovery() const
{
    return mix - mixOneClass.value_or(mix);
}

bool
ContentionDecomposition::HasOneClass() const
{
    return mixOneClass.has_value();
}

double
ContentionDecomposition::Residual() const
{
    return (mix - aloneEcmp) - (PathGain() - InterJobLoss() + PriorityRecovery());
}

} // namespace ns3
