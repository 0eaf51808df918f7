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

#include "gpu-placement.h"

#include "ns3/log.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxGpuPlacement");

namespace
{

/// Smallest power of two >= k (k >= 1).
uint32_t
CeilPow2(uint32_t k)
{
    uint32_t s = 1;
    while (s < k)
    {
        s <<= 1;
    }
    return s;
}

/// \return " host x GPUs" per share, for the log
[[maybe_unused]] std::string
SharesToString(const std::vector<HostShare>& shares)
{
    std::ostringstream os;
    for (const HostShare& s : shares)
    {
        os << " " << s.host << "x" << s.localGpus.size();
    }
    return os.str();
}

} // namespace

PlacementPolicy
ParsePlacementPolicy(const std::string& name)
{
    if (name == "locality" || name == "locality-first")
    {
        return PlacementPolicy::LOCALITY_FIRST;
    }
    if (name == "random")
    {
        return PlacementPolicy::RANDOM;
    }
    if (name == "buddy" || name == "hived")
    {
        return PlacementPolicy::BUDDY;
    }
    throw std::invalid_argument("placement: unknown policy '" + name +
                                "' (expected locality, random or buddy)");
}

std::string
ToString(PlacementPolicy policy)
{
    switch (policy)
    {
    case PlacementPolicy::LOCALITY_FIRST:
        return "locality";
    case PlacementPolicy::RANDOM:
        return "random";
    case PlacementPolicy::BUDDY:
        return "buddy";
    }
    return "unknown";
}

JobShape
ShapeFor(uint32_t g, uint32_t G)
{
    if (g == 0)
    {
        throw std::invalid_argument("ShapeFor: job GPUs g must be >= 1");
    }
    if (G == 0)
    {
        throw std::invalid_argument("ShapeFor: host GPUs G must be >= 1");
    }
    if (g <= G)
    {
        return {1, g};
    }
    for (uint32_t s = G; s >= 1; --s)
    {
        if (g % s == 0)
        {
            return {g / s, s};
        }
    }
    return {g, 1}; // unreachable: s = 1 divides g
}

GpuPlacer::GpuPlacer(std::vector<PlacementHost> hosts, PlacementPolicy policy, uint64_t seed)
    : m_hosts(std::move(hosts)),
      m_policy(policy),
      m_rng(seed)
{
    if (m_hosts.empty())
    {
        throw std::invalid_argument("GpuPlacer: hosts is empty");
    }
    m_busy.resize(m_hosts.size());
    m_free.resize(m_hosts.size());
    for (std::size_t h = 0; h < m_hosts.size(); ++h)
    {
        if (m_hosts[h].gpus == 0)
        {
            throw std::invalid_argument("GpuPlacer: hosts[" + std::to_string(h) +
                                        "].gpus must be >= 1");
        }
        m_busy[h].assign(m_hosts[h].gpus, false);
        m_free[h] = m_hosts[h].gpus;
        m_total += m_hosts[h].gpus;
        m_maxGpus = std::max(m_maxGpus, m_hosts[h].gpus);
    }
    m_totalFree = m_total;
}

std::vector<PlacementHost>
GpuPlacer::HostsOf(const ClusterTopology& topo)
{
    std::vector<PlacementHost> out;
    out.reserve(topo.NumHosts());
    for (uint32_t h = 0; h < topo.NumHosts(); ++h)
    {
        const uint32_t tor = topo.hostTor.at(h);
        out.push_back({topo.gpusPerHost, tor, topo.torGroup.at(tor)});
    }
    return out;
}

uint32_t
GpuPlacer::FreeGpus() const
{
    return m_totalFree;
}

uint32_t
GpuPlacer::TotalGpus() const
{
    return m_total;
}

uint32_t
GpuPlacer::FreeGpusOnHost(uint32_t h) const
{
    return m_free.at(h);
}

bool
GpuPlacer::IsBusy(uint32_t h, uint32_t gpu) const
{
    return m_busy.at(h).at(gpu);
}

const std::vector<HostShare>*
GpuPlacer::Find(uint32_t jobId) const
{
    auto it = m_jobs.find(jobId);
    return it == m_jobs.end() ? nullptr : &it->second;
}

uint32_t
GpuPlacer::NumJobs() const
{
    return static_cast<uint32_t>(m_jobs.size());
}

std::vector<uint32_t>
GpuPlacer::PickGpus(uint32_t h, uint32_t k) const
{
    const std::vector<bool>& busy = m_busy[h];
    const uint32_t cap = m_hosts[h].gpus;
    if (k > m_free[h])
    {
        return {};
    }
    std::vector<uint32_t> out;
    if (m_policy != PlacementPolicy::BUDDY)
    {
        for (uint32_t g = 0; g < cap && out.size() < k; ++g)
        {
            if (!busy[g])
            {
                out.push_back(g);
            }
        }
        return out;
    }
    // Buddy: an aligned free cell of size s = 2^ceil(log2 k) (the whole host if s > cap).
    auto freeIn = [&](uint32_t lo, uint32_t hi) {
        uint32_t n = 0;
        for (uint32_t g = lo; g < std::min(hi, cap); ++g)
        {
            n += busy[g] ? 0 : 1;
        }
        return n;
    };
    uint32_t s = CeilPow2(k);
    if (s > cap)
    {
        s = cap;
    }
    bool found = false;
    uint32_t best = 0;
    std::vector<uint32_t> bestScore;
    for (uint32_t o = 0; o + s <= cap; o += s)
    {
        if (freeIn(o, o + s) != s)
        {
            continue;
        }
        // prefer the cell whose enclosing buddy cells (2s, 4s, ...) are most used
        std::vector<uint32_t> score;
        for (uint64_t z = 2ULL * s; z < 2ULL * cap; z *= 2)
        {
            const auto lo = static_cast<uint32_t>(o / z * z);
            score.push_back(freeIn(lo, static_cast<uint32_t>(lo + z)));
        }
        if (!found || score < bestScore)
        {
            found = true;
            best = o;
            bestScore = std::move(score);
        }
    }
    if (!found)
    {
        return {};
    }
    for (uint32_t g = best; g < best + k; ++g)
    {
        out.push_back(g);
    }
    return out;
}

std::vector<uint32_t>
GpuPlacer::Eligible(uint32_t k) const
{
    std::vector<uint32_t> out;
    for (uint32_t h = 0; h < m_hosts.size(); ++h)
    {
        if (m_free[h] >= k && !PickGpus(h, k).empty())
        {
            out.push_back(h);
        }
    }
    return out;
}

std::vector<uint32_t>
GpuPlacer::PickLocality(JobShape shape) const
{
    const std::vector<uint32_t> elig = Eligible(shape.gpusPerHost);
    const uint32_t n = shape.numHosts;
    if (elig.size() < n)
    {
        return {};
    }
    // best fit: fewest free GPUs, then lowest index
    auto fitLess = [this](uint32_t a, uint32_t b) {
        return std::tie(m_free[a], a) < std::tie(m_free[b], b);
    };
    if (n == 1)
    {
        return {*std::min_element(elig.begin(), elig.end(), fitLess)};
    }
    std::map<uint32_t, std::vector<uint32_t>> byTor; // ToR -> eligible hosts, best fit first
    for (uint32_t h : elig)
    {
        byTor[m_hosts[h].tor].push_back(h);
    }
    for (auto& [tor, hs] : byTor)
    {
        std::sort(hs.begin(), hs.end(), fitLess);
    }
    // one ToR: the one with the fewest eligible hosts that suffice
    const std::vector<uint32_t>* bestTor = nullptr;
    for (const auto& [tor, hs] : byTor)
    {
        if (hs.size() >= n && (bestTor == nullptr || hs.size() < bestTor->size()))
        {
            bestTor = &hs;
        }
    }
    if (bestTor != nullptr)
    {
        std::vector<uint32_t> out(bestTor->begin(), bestTor->begin() + n);
        std::sort(out.begin(), out.end());
        return out;
    }
    // greedy over a set of ToRs: most eligible hosts first (ties: lowest ToR index)
    auto greedy = [&](std::vector<const std::vector<uint32_t>*> tors) {
        std::stable_sort(tors.begin(), tors.end(), [](auto a, auto b) {
            return a->size() > b->size();
        });
        std::vector<uint32_t> out;
        uint32_t used = 0;
        for (auto hs : tors)
        {
            if (out.size() >= n)
            {
                break;
            }
            ++used;
            for (uint32_t h : *hs)
            {
                if (out.size() >= n)
                {
                    break;
                }
                out.push_back(h);
            }
        }
        return std::make_pair(used, out);
    };
    std::map<uint32_t, std::vector<const std::vector<uint32_t>*>> byGroup;
    std::vector<const std::vector<uint32_t>*> all;
    for (const auto& [tor, hs] : byTor)
    {
        byGroup[m_hosts[hs.front()].group].push_back(&hs);
        all.push_back(&hs);
    }
    // one group: the one needing the fewest ToRs (ties: fewest eligible hosts, lowest index)
    std::vector<uint32_t> best;
    uint32_t bestUsed = 0;
    std::size_t bestElig = 0;
    for (const auto& [group, tors] : byGroup)
    {
        std::size_t total = 0;
        for (auto hs : tors)
        {
            total += hs->size();
        }
        if (total < n)
        {
            continue;
        }
        auto [used, out] = greedy(tors);
        if (best.empty() || used < bestUsed || (used == bestUsed && total < bestElig))
        {
            best = out;
            bestUsed = used;
            bestElig = total;
        }
    }
    if (best.empty())
    {
        best = greedy(all).second; // anywhere
    }
    std::sort(best.begin(), best.end());
    return best;
}

std::vector<uint32_t>
GpuPlacer::PickRandom(JobShape shape)
{
    std::vector<uint32_t> elig = Eligible(shape.gpusPerHost);
    const uint32_t n = shape.numHosts;
    if (elig.size() < n)
    {
        return {};
    }
    // partial Fisher-Yates; modulo reduction of the 64-bit draw (bias < 2^-50 for realistic
    // sizes) keeps the result identical on every standard library
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint64_t range = elig.size() - i;
        const auto j = static_cast<std::size_t>(i + m_rng() % range);
        std::swap(elig[i], elig[j]);
    }
    std::vector<uint32_t> out(elig.begin(), elig.begin() + n);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<uint32_t>
GpuPlacer::PickBuddy(JobShape shape) const
{
    const std::vector<uint32_t> elig = Eligible(shape.gpusPerHost);
    const uint32_t n = shape.numHosts;
    if (elig.size() < n)
    {
        return {};
    }
    std::map<uint32_t, uint32_t> torFree;
    std::map<uint32_t, uint32_t> groupFree;
    for (uint32_t h = 0; h < m_hosts.size(); ++h)
    {
        torFree[m_hosts[h].tor] += m_free[h];
        groupFree[m_hosts[h].group] += m_free[h];
    }
    // most used first at every level: host, then its ToR, then its group
    auto usedLess = [&](uint32_t a, uint32_t b) {
        const PlacementHost& x = m_hosts[a];
        const PlacementHost& y = m_hosts[b];
        return std::make_tuple(m_free[a], torFree[x.tor], groupFree[x.group], a) <
               std::make_tuple(m_free[b], torFree[y.tor], groupFree[y.group], b);
    };
    if (n == 1)
    {
        return {*std::min_element(elig.begin(), elig.end(), usedLess)};
    }
    std::map<uint32_t, std::vector<uint32_t>> byTor;
    for (uint32_t h : elig)
    {
        byTor[m_hosts[h].tor].push_back(h);
    }
    for (auto& [tor, hs] : byTor)
    {
        std::sort(hs.begin(), hs.end(), usedLess);
    }
    // ToR level: the most used ToR cell that can hold the job
    const std::vector<uint32_t>* bestTor = nullptr;
    uint32_t bestTorKey = 0;
    for (const auto& [tor, hs] : byTor)
    {
        if (hs.size() >= n && (bestTor == nullptr || torFree[tor] < bestTorKey))
        {
            bestTor = &hs;
            bestTorKey = torFree[tor];
        }
    }
    std::vector<uint32_t> out;
    if (bestTor != nullptr)
    {
        out.assign(bestTor->begin(), bestTor->begin() + n);
        std::sort(out.begin(), out.end());
        return out;
    }
    // fill from ToR cells: fewest cells (most eligible hosts) first, then most used
    auto fill = [&](std::vector<uint32_t> tors) {
        std::stable_sort(tors.begin(), tors.end(), [&](uint32_t a, uint32_t b) {
            return std::make_tuple(-static_cast<int64_t>(byTor[a].size()), torFree[a]) <
                   std::make_tuple(-static_cast<int64_t>(byTor[b].size()), torFree[b]);
        });
        std::vector<uint32_t> r;
        for (uint32_t t : tors)
        {
            for (uint32_t h : byTor[t])
            {
                if (r.size() < n)
                {
                    r.push_back(h);
                }
            }
        }
        return r;
    };
    // group level: the most used group cell that can hold the job
    std::map<uint32_t, std::vector<uint32_t>> groupTors;
    std::map<uint32_t, std::size_t> groupElig;
    for (const auto& [tor, hs] : byTor)
    {
        const uint32_t g = m_hosts[hs.front()].group;
        groupTors[g].push_back(tor);
        groupElig[g] += hs.size();
    }
    bool found = false;
    uint32_t bestGroup = 0;
    for (const auto& [g, cnt] : groupElig)
    {
        if (cnt >= n && (!found || groupFree[g] < groupFree[bestGroup]))
        {
            found = true;
            bestGroup = g;
        }
    }
    if (found)
    {
        out = fill(groupTors[bestGroup]);
    }
    else
    {
        std::vector<uint32_t> tors;
        for (const auto& [tor, hs] : byTor)
        {
            tors.push_back(tor);
        }
        out = fill(tors); // cluster level
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::optional<std::vector<HostShare>>
GpuPlacer::Allocate(uint32_t jobId, JobShape shape)
{
    if (shape.numHosts == 0)
    {
        throw std::invalid_argument("GpuPlacer::Allocate: shape.numHosts must be >= 1 (job " +
                                    std::to_string(jobId) + ")");
    }
    if (shape.gpusPerHost == 0)
    {
        throw std::invalid_argument("GpuPlacer::Allocate: shape.gpusPerHost must be >= 1 (job " +
                                    std::to_string(jobId) + ")");
    }
    if (m_jobs.count(jobId) != 0)
    {
        throw std::invalid_argument("GpuPlacer::Allocate: jobId " + std::to_string(jobId) +
                                    " is already placed");
    }
    if (shape.gpusPerHost > m_maxGpus)
    {
        throw std::invalid_argument("GpuPlacer::Allocate: shape.gpusPerHost " +
                                    std::to_string(shape.gpusPerHost) +
                                    " exceeds the largest host (" + std::to_string(m_maxGpus) +
                                    " GPUs) (job " + std::to_string(jobId) + ")");
    }
    uint32_t capable = 0;
    for (const PlacementHost& h : m_hosts)
    {
        capable += h.gpus >= shape.gpusPerHost ? 1 : 0;
    }
    if (shape.numHosts > capable)
    {
        throw std::invalid_argument("GpuPlacer::Allocate: shape.numHosts " +
                                    std::to_string(shape.numHosts) + " exceeds the " +
                                    std::to_string(capable) +
                                    " hosts with >= " + std::to_string(shape.gpusPerHost) +
                                    " GPUs (job " + std::to_string(jobId) + ")");
    }
    NS_LOG_FUNCTION(this << jobId << shape.numHosts << shape.gpusPerHost);
    if (uint64_t{shape.numHosts} * shape.gpusPerHost > m_totalFree)
    {
        NS_LOG_DEBUG("job " << jobId << ": " << shape.numHosts * shape.gpusPerHost
                            << " GPUs needed, " << m_totalFree << " free: waits");
        return std::nullopt;
    }
    std::vector<uint32_t> hosts;
    switch (m_policy)
    {
    case PlacementPolicy::LOCALITY_FIRST:
        hosts = PickLocality(shape);
        break;
    case PlacementPolicy::RANDOM:
        hosts = PickRandom(shape);
        break;
    case PlacementPolicy::BUDDY:
        hosts = PickBuddy(shape);
        break;
    }
    if (hosts.size() != shape.numHosts)
    {
        NS_LOG_DEBUG("job " << jobId << ": no " << shape.numHosts << " hosts with "
                            << shape.gpusPerHost << " free GPUs under policy " << ToString(m_policy)
                            << ": waits");
        return std::nullopt;
    }
    std::vector<HostShare> shares;
    shares.reserve(hosts.size());
    for (uint32_t h : hosts)
    {
        HostShare s{h, PickGpus(h, shape.gpusPerHost)};
        if (s.localGpus.size() != shape.gpusPerHost)
        {
            throw std::logic_error("GpuPlacer: internal error, host " + std::to_string(h) +
                                   " lost its eligibility");
        }
        shares.push_back(std::move(s));
    }
    Commit(jobId, shares);
    return shares;
}

std::optional<std::vector<HostShare>>
GpuPlacer::AllocateOn(uint32_t jobId, const std::vector<uint32_t>& hosts, uint32_t gpusPerHost)
{
    const std::string job = " (job " + std::to_string(jobId) + ")";
    if (m_jobs.count(jobId) != 0)
    {
        throw std::invalid_argument("GpuPlacer::AllocateOn: jobId " + std::to_string(jobId) +
                                    " is already placed");
    }
    if (hosts.empty())
    {
        throw std::invalid_argument("GpuPlacer::AllocateOn: no hosts given" + job);
    }
    if (gpusPerHost == 0)
    {
        throw std::invalid_argument("GpuPlacer::AllocateOn: gpusPerHost must be >= 1" + job);
    }
    for (size_t k = 0; k < hosts.size(); ++k)
    {
        const uint32_t h = hosts[k];
        if (h >= m_hosts.size())
        {
            throw std::invalid_argument("GpuPlacer::AllocateOn: host " + std::to_string(h) +
                                        " does not exist (" + std::to_string(m_hosts.size()) +
                                        " hosts)" + job);
        }
        if (std::find(hosts.begin(), hosts.begin() + k, h) != hosts.begin() + k)
        {
            throw std::invalid_argument("GpuPlacer::AllocateOn: host " + std::to_string(h) +
                                        " is listed twice" + job);
        }
        if (gpusPerHost > m_hosts[h].gpus)
        {
            throw std::invalid_argument("GpuPlacer::AllocateOn: host " + std::to_string(h) +
                                        " has " + std::to_string(m_hosts[h].gpus) +
                                        " GPUs, the job asks for " + std::to_string(gpusPerHost) +
                                        job);
        }
    }
    std::vector<HostShare> shares;
    shares.reserve(hosts.size());
    for (uint32_t h : hosts)
    {
        if (m_free[h] < gpusPerHost)
        {
            return std::nullopt;
        }
        HostShare s{h, {}};
        for (uint32_t g = 0; g < m_hosts[h].gpus && s.localGpus.size() < gpusPerHost; ++g)
        {
            if (!m_busy[h][g])
            {
                s.localGpus.push_back(g);
            }
        }
        shares.push_back(std::move(s));
    }
    Commit(jobId, shares);
    return shares;
}

void
GpuPlacer::Commit(uint32_t jobId, const std::vector<HostShare>& shares)
{
    for (const HostShare& s : shares)
    {
        for (uint32_t g : s.localGpus)
        {
            m_busy[s.host][g] = true;
        }
        const auto n = static_cast<uint32_t>(s.localGpus.size());
        m_free[s.host] -= n;
        m_totalFree -= n;
    }
    m_jobs[jobId] = shares;
    NS_LOG_DEBUG("job " << jobId << " placed on (host x GPUs)" << SharesToString(shares) << ", "
                        << m_totalFree << " GPUs left free");
}

void
GpuPlacer::Release(uint32_t jobId)
{
    auto it = m_jobs.find(jobId);
    if (it == m_jobs.end())
    {
        throw std::out_of_range("GpuPlacer::Release: jobId " + std::to_string(jobId) +
                                " is not placed");
    }
    for (const HostShare& s : it->second)
    {
        for (uint32_t g : s.localGpus)
        {
            m_busy[s.host][g] = false;
        }
        m_free[s.host] += static_cast<uint32_t>(s.localGpus.size());
        m_totalFree += static_cast<uint32_t>(s.localGpus.size());
    }
    m_jobs.erase(it);
}

} // namespace ns3
