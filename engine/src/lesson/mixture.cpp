// SPDX-License-Identifier: MIT
#include "lesson/mixture.h"

#include "ctxscope/placement.h"
#include "ctxscope/units.h"

#include <cmath>
#include <fmt/core.h>

namespace ctxscope::lesson {

namespace {

// The pinned placement whose median is nearest on a log scale, and how far (a factor >= 1).
std::pair<int, double> nearest(double value, const std::vector<const RunResult*>& pinned)
{
    int best = -1;
    double bestDistance = 0;
    for (std::size_t i = 0; i < pinned.size(); ++i) {
        if (pinned[i]->stats.p50 <= 0 || value <= 0)
            continue;
        const double d = std::abs(std::log(value / pinned[i]->stats.p50));
        if (best < 0 || d < bestDistance) {
            best = static_cast<int>(i);
            bestDistance = d;
        }
    }
    return { best, std::exp(bestDistance) };
}

std::string nameOf(const RunResult& r) { return relationText(r.placement.relation, r.placement.kinds); }

} // namespace

Mixture mixtureOf(std::span<const double> values, const std::vector<const RunResult*>& pinned)
{
    Mixture m;
    m.values.assign(pinned.size(), 0);
    for (double v : values) {
        ++m.total;
        const auto [i, factor] = nearest(v, pinned);
        if (i < 0 || factor > kLooksLikeRatio)
            ++m.unlike;
        else
            ++m.values[static_cast<std::size_t>(i)];
    }
    return m;
}

std::string describeMixture(const Mixture& m, const std::vector<const RunResult*>& pinned, std::string_view noun)
{
    if (m.total == 0)
        return {};
    std::string out;
    for (std::size_t i = 0; i < pinned.size() && i < m.values.size(); ++i) {
        if (m.values[i] == 0)
            continue;
        out += out.empty() ? fmt::format("{} of {} {} looked like ", m.values[i], m.total, noun)
                           : fmt::format(", {} like ", m.values[i]);
        out += fmt::format("{} ({})", nameOf(*pinned[i]), formatDuration(pinned[i]->stats.p50));
    }
    if (m.unlike > 0)
        out += out.empty() ? fmt::format("{} of {} {} looked like no pinned placement", m.unlike, m.total, noun)
                           : fmt::format(", {} like none of them", m.unlike);
    return out;
}

std::string describeSampleMixture(const RunResult& unpinned, const std::vector<const RunResult*>& pinned)
{
    if (unpinned.samples.empty() || pinned.size() < 2)
        return {};
    std::vector<std::size_t> nearer(pinned.size(), 0);
    std::size_t counted = 0;
    for (double v : unpinned.samples) {
        const int i = nearest(v, pinned).first;
        if (i < 0)
            continue;
        ++nearer[static_cast<std::size_t>(i)];
        ++counted;
    }
    if (counted == 0)
        return {};
    std::string out;
    for (std::size_t i = 0; i < pinned.size(); ++i) {
        if (nearer[i] == 0)
            continue;
        const double pct = 100.0 * static_cast<double>(nearer[i]) / static_cast<double>(counted);
        out += out.empty() ? fmt::format("{:.0f}% of its samples were nearer {}'s median", pct, nameOf(*pinned[i]))
                           : fmt::format(", {:.0f}% nearer {}'s", pct, nameOf(*pinned[i]));
    }
    return out;
}

} // namespace ctxscope::lesson
