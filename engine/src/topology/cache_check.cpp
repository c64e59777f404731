// SPDX-License-Identifier: MIT
#include "ctxscope/cache_check.h"

#include "ctxscope/units.h"

#include <algorithm>
#include <bit>
#include <fmt/core.h>
#include <map>
#include <set>

namespace ctxscope {

namespace {

std::string name(int level) { return fmt::format("L{}", level); }

int coresUnder(const CacheInfo& c, const std::vector<PuInfo>& pus)
{
    std::set<int> cores;
    int unknown = 0;
    for (int os : c.pus) {
        auto it = std::find_if(pus.begin(), pus.end(), [&](const PuInfo& p) { return p.osIndex == os; });
        if (it != pus.end() && it->core >= 0)
            cores.insert(it->core);
        else
            ++unknown;
    }
    return std::max(1, static_cast<int>(cores.size()) + unknown);
}

bool plausibleLine(int line)
{
    return line >= kSmallestCacheLine && line <= kLargestCacheLine && std::has_single_bit(static_cast<unsigned>(line));
}

} // namespace

bool CacheCheck::plausible(int level) const
{
    return std::find(implausibleLevels.begin(), implausibleLevels.end(), level) == implausibleLevels.end();
}

std::string CacheCheck::sentence() const
{
    if (problems.empty())
        return {};
    std::string list;
    for (const std::string& p : problems)
        list += (list.empty() ? "" : "; ") + p;
    return fmt::format("The cache sizes this machine reports are not plausible ({}), so they are shown as reported "
                       "but not trusted: lessons and default sweeps use working sets of at most {}.",
        list, formatBytes(kWorkingSetCap));
}

CacheCheck checkCaches(const std::vector<CacheInfo>& caches, const std::vector<PuInfo>& pus)
{
    CacheCheck check;
    std::set<int> bad;
    // The largest instance of each level stands for the level (instances of a level agree
    // on real machines; hybrid parts differ, and the largest is what a sweep would use).
    std::map<int, const CacheInfo*> largest;
    for (const CacheInfo& c : caches)
        if (!largest.count(c.level) || c.size > largest[c.level]->size)
            largest[c.level] = &c;
    if (largest.empty()) {
        check.problems.push_back("it reports no data cache at all");
        return check;
    }
    for (const auto& [level, c] : largest) {
        const int cores = coresUnder(*c, pus);
        if (c->size == 0) {
            check.problems.push_back(fmt::format("the {} reports no size", name(level)));
            bad.insert(level);
        } else if (c->size > kLargestCacheInstance) {
            check.problems.push_back(fmt::format("the {} of {} is larger than any shipping cache ({} at most)",
                name(level), formatBytes(c->size), formatBytes(kLargestCacheInstance)));
            bad.insert(level);
        } else if (c->size / static_cast<std::uint64_t>(cores) > kLargestCachePerCore) {
            check.problems.push_back(fmt::format("the {} gives {} to {} core{}, more than the {} per core of any "
                                                 "shipping part",
                name(level), formatBytes(c->size), cores, cores == 1 ? "" : "s", formatBytes(kLargestCachePerCore)));
            bad.insert(level);
        }
        if (c->lineSize != 0 && (!plausibleLine(c->lineSize) || c->size % static_cast<std::uint64_t>(c->lineSize))) {
            check.problems.push_back(fmt::format("the {} of {} B with {}-byte lines is not a whole number of "
                                                 "plausible cache lines",
                name(level), c->size, c->lineSize));
            bad.insert(level);
        }
    }
    for (auto it = largest.begin(); std::next(it) != largest.end(); ++it) {
        const auto& [level, lower] = *it;
        const auto& [upperLevel, upper] = *std::next(it);
        if (lower->size > upper->size && upper->size > 0) {
            check.problems.push_back(fmt::format("the {} ({}) is larger than the {} ({})", name(level),
                formatBytes(lower->size), name(upperLevel), formatBytes(upper->size)));
            bad.insert(level);
            bad.insert(upperLevel);
        }
    }
    const int last = largest.rbegin()->first;
    std::string missing;
    for (int level = 1; level < last; ++level)
        if (!largest.count(level))
            missing += (missing.empty() ? "" : " or ") + name(level);
    if (!missing.empty())
        check.problems.push_back(fmt::format("it reports an {} but no {}", name(last), missing));
    check.implausibleLevels.assign(bad.begin(), bad.end());
    return check;
}

CacheCheck checkCaches(const Topology& topology) { return checkCaches(topology.caches(), topology.pus()); }

std::uint64_t plausibleCacheSize(const Topology& topology, const CacheCheck& check, int level)
{
    return check.plausible(level) ? topology.cacheSize(level) : 0;
}

} // namespace ctxscope
