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

#ifndef CRUX_CRUX_TYPES_H
#define CRUX_CRUX_TYPES_H

// Pure C++ (no ns-3 includes): compiled into the crux-scheduling library.

#include <string>

/**
 * \file
 * \ingroup crux
 * Value types that several layers share, defined once in the bottom layer (model/util) so that
 * no layer includes a header above it to get one (doc/crux.rst, "Layers and data flow"; ctest
 * check-layering). SchedLink: a directed link of the cluster description (ClusterTopology, model/
 * cluster) and of the schedulers' ClusterModel (model/scheduling). Pure C++; the packet-level
 * flow key FiveTuple, made of ns-3 addresses, is in five-tuple.h.
 */

namespace ns3
{

/**
 * \ingroup crux-scheduling
 * \brief One directed link of the scheduler's view of the topology (algorithms.md §1).
 *
 * The link id is the link's index in ClusterModel::links. Both directions of a cable are two
 * separate links. Intra-host links (PCIe/NVLink) may be modelled as links too (Crux §3, the
 * maximum in t_j runs over network and intra-host links).
 */
struct SchedLink
{
    double bandwidth{0}; //!< capacity in bit/s (> 0)
    std::string name;    //!< free-form label for logs and error messages (may be empty)
};

} // namespace ns3

#endif // CRUX_CRUX_TYPES_H
