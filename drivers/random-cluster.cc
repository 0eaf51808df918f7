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

#include "random-cluster.h"

#include "ns3/optimal-scheduler.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

/// \throws std::invalid_argument "RandomClusterParams.<field> ..." unless ok
void
Require(bool ok, const std::string& what)
{
    if (!ok)
    {
        throw std::invalid_argument("RandomClusterParams." + what);
    }
}

/// Draws one cluster (parameters already checked). \param p parameters \param rng generator
/// \return the model
ClusterModel DrawCluster(const RandomClusterParams& p, std::mt19937_64& rng);

/// \return true if x is finite and > 0
bool
Positive(double x)
{
    return std::isfinite(x) && x > 0;
}

} // namespace

ClusterModel
GenerateRandomCluster(const RandomClusterParams& p, uint64_t seed, uint32_t* attempts)
{
    Require(p.minTors >= 1, "minTors must be >= 1");
    Require(p.maxTors >= p.minTors, "maxTors must be >= minTors");
    Require(p.numAggs >= 1, "numAggs must be >= 1");
    Require(p.hostsPerTor >= 1, "hostsPerTor must be >= 1");
    Require(p.gpusPerHost >= 1, "gpusPerHost must be >= 1");
    Require(p.slotsPerHost >= 1 && p.gpusPerHost % p.slotsPerHost == 0,
            "slotsPerHost must be >= 1 and divide gpusPerHost");
    Require(p.numJobs >= 1, "numJobs must be >= 1");
    Require(p.minHostsPerJob >= 1, "minHostsPerJob must be >= 1");
    Require(p.maxHostsPerJob >= p.minHostsPerJob, "maxHostsPerJob must be >= minHostsPerJob");
    Require(Positive(p.hostLinkBandwidth), "hostLinkBandwidth must be > 0 bit/s");
    Require(Positive(p.fabricLinkBandwidth), "fabricLinkBandwidth must be > 0 bit/s");
    Require(Positive(p.minComputeTime), "minComputeTime must be > 0 s");
    Require(std::isfinite(p.maxComputeTime) && p.maxComputeTime >= p.minComputeTime,
            "maxComputeTime must be >= minComputeTime");
    Require(Positive(p.minCommRatio), "minCommRatio must be > 0");
    Require(std::isfinite(p.maxCommRatio) && p.maxCommRatio >= p.minCommRatio,
            "maxCommRatio must be >= minCommRatio");
    Require(p.noOverlapProbability >= 0 && p.noOverlapProbability <= 1,
            "noOverlapProbability must be in [0, 1]");
    Require(Positive(p.gpuFlops), "gpuFlops must be > 0 FLOP/s");
    Require(static_cast<uint64_t>(p.numJobs) * p.minHostsPerJob <=
                static_cast<uint64_t>(p.minTors) * p.hostsPerTor,
            "numJobs x minHostsPerJob (" + std::to_string(p.numJobs * p.minHostsPerJob) +
                ") exceeds the hosts of the smallest topology (" +
                std::to_string(p.minTors * p.hostsPerTor) + ")");
    Require(p.slotsPerHost == 1 || p.maxTors * p.hostsPerTor >= p.maxHostsPerJob,
            "maxHostsPerJob exceeds the hosts of the largest topology");

    Require(std::isfinite(p.maxPathChoices) && p.maxPathChoices >= 0,
            "maxPathChoices must be >= 0 (0 = no limit)");
    Require(p.maxAttempts >= 1, "maxAttempts must be >= 1");

    std::mt19937_64 rng(seed);
    for (uint32_t attempt = 0; attempt < p.maxAttempts; ++attempt)
    {
        ClusterModel m = DrawCluster(p, rng);
        if (p.maxPathChoices == 0 || CountPathChoices(m) <= p.maxPathChoices)
        {
            if (attempts)
            {
                *attempts = attempt + 1;
            }
            return m;
        }
    }
    throw std::runtime_error("GenerateRandomCluster: " + std::to_string(p.maxAttempts) +
                             " draws all had more than RandomClusterParams.maxPathChoices = " +
                             std::to_string(p.maxPathChoices) + " path choices");
}

namespace
{

ClusterModel
DrawCluster(const RandomClusterParams& p, std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const uint32_t numTors = std::uniform_int_distribution<uint32_t>(p.minTors, p.maxTors)(rng);
    const uint32_t numHosts = numTors * p.hostsPerTor;

    ClusterModel m;
    auto addLink = [&m](double bw, std::string name) {
        m.links.push_back({bw, std::move(name)});
        return static_cast<uint32_t>(m.links.size() - 1);
    };
    std::vector<uint32_t> hostUp(numHosts);
    std::vector<uint32_t> hostDown(numHosts);
    for (uint32_t h = 0; h < numHosts; ++h)
    {
        hostUp[h] = addLink(p.hostLinkBandwidth, "h" + std::to_string(h) + "-up");
        hostDown[h] = addLink(p.hostLinkBandwidth, "h" + std::to_string(h) + "-down");
    }
    std::vector<std::vector<uint32_t>> torUp(numTors, std::vector<uint32_t>(p.numAggs));
    std::vector<std::vector<uint32_t>> torDown(numTors, std::vector<uint32_t>(p.numAggs));
    for (uint32_t t = 0; t < numTors; ++t)
    {
        for (uint32_t a = 0; a < p.numAggs; ++a)
        {
            const std::string ta = std::to_string(t);
            const std::string aa = std::to_string(a);
            torUp[t][a] = addLink(p.fabricLinkBandwidth, "t" + ta + "-a" + aa);
            torDown[t][a] = addLink(p.fabricLinkBandwidth, "a" + aa + "-t" + ta);
        }
    }

    // Free GPU slots, as host indices (a host appears slotsPerHost times).
    std::vector<uint32_t> freeSlots;
    for (uint32_t h = 0; h < numHosts; ++h)
    {
        for (uint32_t s = 0; s < p.slotsPerHost; ++s)
        {
            freeSlots.push_back(h);
        }
    }
    for (uint32_t j = 0; j < p.numJobs; ++j)
    {
        const uint32_t laterJobs = p.numJobs - 1 - j;
        const uint32_t room =
            static_cast<uint32_t>(freeSlots.size()) - laterJobs * p.minHostsPerJob;
        const uint32_t hi = std::max(p.minHostsPerJob, std::min(p.maxHostsPerJob, room));
        const uint32_t wanted = std::uniform_int_distribution<uint32_t>(p.minHostsPerJob, hi)(rng);
        std::vector<uint32_t> hosts;
        for (uint32_t k = 0; k < wanted; ++k)
        {
            // Free slots on hosts this job does not use yet.
            std::vector<std::size_t> candidates;
            for (std::size_t i = 0; i < freeSlots.size(); ++i)
            {
                if (std::find(hosts.begin(), hosts.end(), freeSlots[i]) == hosts.end())
                {
                    candidates.push_back(i);
                }
            }
            if (candidates.empty())
            {
                break; // only slots on the job's own hosts are left
            }
            const std::size_t pick =
                candidates[std::uniform_int_distribution<std::size_t>(0,
                                                                      candidates.size() - 1)(rng)];
            hosts.push_back(freeSlots[pick]);
            freeSlots.erase(freeSlots.begin() + static_cast<std::ptrdiff_t>(pick));
        }
        const auto count = static_cast<uint32_t>(hosts.size());
        std::sort(hosts.begin(), hosts.end());

        SchedJob job;
        job.id = j + 1;
        job.numGpus = count * (p.gpusPerHost / p.slotsPerHost);
        job.computeTime = p.minComputeTime + (p.maxComputeTime - p.minComputeTime) * unit(rng);
        const double ratio = p.minCommRatio + (p.maxCommRatio - p.minCommRatio) * unit(rng);
        job.overlapStart = unit(rng) < p.noOverlapProbability ? 1.0 : unit(rng);
        job.flopsPerIteration = job.numGpus * job.computeTime * p.gpuFlops;
        const double bytes = ratio * job.computeTime * p.hostLinkBandwidth / 8.0;
        const uint32_t edges = count == 1 ? 0 : count;
        for (uint32_t e = 0; e < edges; ++e)
        {
            const uint32_t src = hosts[e];
            const uint32_t dst = hosts[(e + 1) % count];
            SchedFlow flow;
            flow.id = e;
            flow.bytesPerIteration = bytes;
            const uint32_t ts = src / p.hostsPerTor;
            const uint32_t td = dst / p.hostsPerTor;
            if (ts == td)
            {
                flow.candidatePaths.push_back({hostUp[src], hostDown[dst]});
            }
            else
            {
                for (uint32_t a = 0; a < p.numAggs; ++a)
                {
                    flow.candidatePaths.push_back(
                        {hostUp[src], torUp[ts][a], torDown[td][a], hostDown[dst]});
                }
                flow.defaultPath = std::uniform_int_distribution<uint32_t>(0, p.numAggs - 1)(rng);
            }
            job.flows.push_back(std::move(flow));
        }
        m.jobs.push_back(std::move(job));
    }
    return m;
}

} // namespace

} // namespace ns3
