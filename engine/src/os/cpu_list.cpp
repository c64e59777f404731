// SPDX-License-Identifier: MIT
#include "ctxscope/cpu_list.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>

namespace ctxscope {

std::string formatCpuList(const std::vector<int>& cpus)
{
    // Most lists come in order (an affinity, a placement): written as they are, not copied.
    if (std::adjacent_find(cpus.begin(), cpus.end(), std::greater_equal<int>()) != cpus.end()) {
        std::vector<int> v = cpus;
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return formatCpuList(v);
    }
    const std::vector<int>& v = cpus;
    std::string out;
    for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        while (j + 1 < v.size() && v[j + 1] == v[j] + 1)
            ++j;
        if (!out.empty())
            out += ',';
        out += std::to_string(v[i]);
        if (j > i)
            out += '-' + std::to_string(v[j]);
        i = j + 1;
    }
    return out;
}

Expected<std::vector<int>> parseCpuList(std::string_view text)
{
    std::vector<int> out;
    auto number = [](std::string_view s) -> std::optional<int> {
        int v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || p != s.data() + s.size() || s.empty() || v < 0 || v > 65535)
            return std::nullopt;
        return v;
    };
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t comma = text.find(',', pos);
        std::string_view item
            = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        std::size_t dash = item.find('-');
        auto lo = number(item.substr(0, dash));
        auto hi = dash == std::string_view::npos ? lo : number(item.substr(dash + 1));
        if (!lo || !hi || *hi < *lo)
            return makeError("'" + std::string(text) + "' is not a CPU list (expected e.g. 0,2 or 0-3)");
        for (int c = *lo; c <= *hi; ++c)
            out.push_back(c);
        if (comma == std::string_view::npos)
            break;
        pos = comma + 1;
    }
    return out;
}

} // namespace ctxscope
