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

#include "model-mapping.h"

#include "ns3/log.h"
#include "ns3/model-zoo.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CruxModelMapping");

namespace
{

std::string
Lower(const std::string& s)
{
    std::string out = s;
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return out;
}

bool
Contains(const std::string& s, const char* what)
{
    return s.find(what) != std::string::npos;
}

/// FNV-1a, 64 bit (offset basis 14695981039346656037, prime 1099511628211).
uint64_t
Fnv1a64(const std::string& s)
{
    uint64_t h = 14695981039346656037ULL;
    for (unsigned char c : s)
    {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

} // namespace

ModelMapper::ModelMapper(uint64_t seed, std::vector<std::string> candidates)
    : m_seed(seed),
      m_candidates(std::move(candidates))
{
    if (m_candidates.empty())
    {
        m_candidates = DefaultCandidates();
    }
    for (const auto& c : m_candidates)
    {
        if (!ModelZoo::Has(c))
        {
            ModelZoo::Get(c); // throws the zoo's "unknown model" message
        }
    }
}

std::vector<std::string>
ModelMapper::DefaultCandidates()
{
    // The models of Crux §6.3 ("BERT, GPT, ResNet, NMT, Multi-Interests, ... in-house CTR"),
    // sorted; the LLM entries of the zoo are reached by their labels only.
    return {"bert-large", "ctr-dlrm", "gpt", "multi-interests", "nmt-transformer-big", "resnet50"};
}

const std::vector<std::string>&
ModelMapper::Candidates() const
{
    return m_candidates;
}

std::optional<double>
ModelMapper::LabelParameters(const std::string& label)
{
    // The last run of digits (with an optional fraction) followed by 'b' or 'm' that is not
    // followed by another letter: "gpt-13b", "llama_30b", "65b", "gpt-3.5b", "350m".
    const std::string s = Lower(label);
    std::optional<double> found;
    for (size_t i = 0; i < s.size(); ++i)
    {
        if (!std::isdigit(static_cast<unsigned char>(s[i])) ||
            (i > 0 && (std::isdigit(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '.')))
        {
            continue;
        }
        size_t j = i;
        while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.'))
        {
            ++j;
        }
        if (j < s.size() && (s[j] == 'b' || s[j] == 'm') &&
            (j + 1 == s.size() || !std::isalpha(static_cast<unsigned char>(s[j + 1]))))
        {
            try
            {
                const double v = std::stod(s.substr(i, j - i));
                found = v * (s[j] == 'b' ? 1e9 : 1e6);
            }
            catch (const std::exception&)
            {
            }
        }
    }
    return found;
}

namespace
{

const std::vector<std::string> GPT3_FAMILY{"gpt3-1.3b",
                                           "gpt3-2.7b",
                                           "gpt3-6.7b",
                                           "gpt3-13b",
                                           "gpt3-175b"};
const std::vector<std::string> LLAMA_FAMILY{"llama-7b",
                                            "llama-13b",
                                            "llama-33b",
                                            "llama-65b",
                                            "llama2-70b"};
const std::vector<std::string> LLAMA2_FAMILY{"llama2-7b", "llama2-13b", "llama2-70b"};

/// The family member whose parameter count is nearest to `size` (by ratio).
std::string
NearestBySize(const std::vector<std::string>& family, double size)
{
    std::string best = family.front();
    double bestGap = 1e300;
    for (const auto& name : family)
    {
        const double gap = std::abs(std::log(ModelZoo::Get(name).parameters / size));
        if (gap < bestGap)
        {
            bestGap = gap;
            best = name;
        }
    }
    return best;
}

} // namespace

bool
ModelMapper::IsLlm(const std::string& zooModel)
{
    for (const auto* family : {&GPT3_FAMILY, &LLAMA_FAMILY, &LLAMA2_FAMILY})
    {
        if (std::find(family->begin(), family->end(), zooModel) != family->end())
        {
            return true;
        }
    }
    return zooModel == "mixtral-8x7b";
}

ParallelismRequest
ModelMapper::TracePlanRequest()
{
    ParallelismRequest r;
    r.layersPerBlock = 1000;
    r.allReduce = "classic-ring";
    return r;
}

std::optional<std::string>
ModelMapper::MatchLabel(const std::string& label)
{
    const std::string s = Lower(label);
    const std::optional<double> size = LabelParameters(label);
    if (Contains(s, "mixtral"))
    {
        return std::string("mixtral-8x7b");
    }
    if (Contains(s, "llama"))
    {
        const bool two = Contains(s, "llama2") || Contains(s, "llama-2") ||
                         Contains(s, "llama_2") || Contains(s, "llama 2");
        // no size in the label: the smallest (7B, the most common size) -- an assumption
        return NearestBySize(two ? LLAMA2_FAMILY : LLAMA_FAMILY, size.value_or(7e9));
    }
    if (Contains(s, "gpt"))
    {
        // "GPT" without a size stays the paper's §2.2 GPT
        return size ? NearestBySize(GPT3_FAMILY, *size) : std::string("gpt");
    }
    // A bare size such as "65b": digits (optionally with a fraction) then 'b': a LLaMA
    if (s.size() >= 2 && s.back() == 'b' && s.find_first_not_of("0123456789.") == s.size() - 1 &&
        std::isdigit(static_cast<unsigned char>(s[0])) && size)
    {
        return NearestBySize(LLAMA_FAMILY, *size);
    }
    if (Contains(s, "bert") || Contains(s, "electra"))
    {
        return std::string("bert-large");
    }
    if (Contains(s, "resnet") || Contains(s, "mnist") || Contains(s, "vision"))
    {
        return std::string("resnet50");
    }
    if (Contains(s, "nmt") || Contains(s, "translat") || Contains(s, "transformer"))
    {
        return std::string("nmt-transformer-big");
    }
    if (Contains(s, "mind") || Contains(s, "multi-interest") || Contains(s, "multi_interest") ||
        Contains(s, "multiinterest"))
    {
        return std::string("multi-interests");
    }
    if (Contains(s, "ctr") || Contains(s, "dlrm") || Contains(s, "deepfm") ||
        Contains(s, "recommend"))
    {
        return std::string("ctr-dlrm");
    }
    return std::nullopt;
}

ModelAssignment
ModelMapper::Map(const std::string& label, const std::string& jobName) const
{
    ModelAssignment a;
    a.labelParameters = LabelParameters(label);
    if (auto m = MatchLabel(label))
    {
        a.zooModel = *m;
        a.fromLabel = true;
        a.withPlan = IsLlm(a.zooModel);
        NS_LOG_DEBUG("job " << jobName << ": label \"" << label << "\" -> " << a.zooModel);
        return a;
    }
    const uint64_t h = Fnv1a64(jobName);
    std::seed_seq seq{static_cast<uint32_t>(m_seed & 0xffffffffULL),
                      static_cast<uint32_t>(m_seed >> 32),
                      static_cast<uint32_t>(h & 0xffffffffULL),
                      static_cast<uint32_t>(h >> 32)};
    std::mt19937_64 rng(seq);
    std::uniform_int_distribution<size_t> pick(0, m_candidates.size() - 1);
    a.zooModel = m_candidates[pick(rng)];
    a.fromLabel = false;
    NS_LOG_DEBUG("job " << jobName << ": label \"" << label << "\" unknown, drawn " << a.zooModel);
    return a;
}

} // namespace ns3
