// SPDX-License-Identifier: MIT
#include "os/proc_stat.h"

#include "os/proc_text.h"

#include <charconv>
#include <string>

namespace ctxscope::os {

namespace {

using text::lines;
using text::number;
using text::words;

// "cpu" -> -1, "cpu12" -> 12, anything else -> nullopt (`prefix` is "cpu" in /proc/stat, "CPU"
// in the headers of /proc/interrupts and /proc/softirqs).
std::optional<int> cpuLabel(std::string_view word, std::string_view prefix = "cpu")
{
    if (word.substr(0, 3) != prefix)
        return std::nullopt;
    if (word.size() == 3)
        return -1;
    int n = 0;
    const auto [end, ec] = std::from_chars(word.data() + 3, word.data() + word.size(), n);
    if (ec != std::errc() || end != word.data() + word.size() || n < 0)
        return std::nullopt;
    return n;
}

Error bad(std::string_view what, std::string_view why)
{
    return makeError(std::string(what) + " could not be read: " + std::string(why));
}

} // namespace

const CpuTimes* ProcStat::cpu(int n) const
{
    for (const auto& c : cpus)
        if (c.cpu == n)
            return &c;
    return nullptr;
}

Expected<ProcStat> parseProcStat(std::string_view text)
{
    ProcStat out;
    bool sawAll = false;
    for (const auto line : lines(text)) {
        const auto w = words(line);
        if (w.empty())
            continue;
        if (w[0] == "ctxt") {
            if (w.size() != 2 || !number(w[1]))
                return bad("/proc/stat", "its ctxt line is not one number");
            out.contextSwitches = number(w[1]);
            continue;
        }
        const auto label = cpuLabel(w[0]);
        if (!label)
            continue;
        // user nice system idle are there since Linux 2.5; iowait irq softirq since 2.6; steal 2.6.11.
        if (w.size() < 5)
            return bad("/proc/stat", "line '" + std::string(w[0]) + "' has fewer than 4 counters");
        std::uint64_t v[10] = {};
        const std::size_t n = std::min<std::size_t>(w.size() - 1, 10);
        for (std::size_t i = 0; i < n; ++i) {
            const auto x = number(w[i + 1]);
            if (!x)
                return bad("/proc/stat",
                    "line '" + std::string(w[0]) + "' holds '" + std::string(w[i + 1]) + "' where a counter should be");
            v[i] = *x;
        }
        CpuTimes t { *label, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], n >= 8 };
        if (*label == -1) {
            out.all = t;
            sawAll = true;
        } else {
            if (out.cpu(*label))
                return bad("/proc/stat", "CPU " + std::to_string(*label) + " is listed twice");
            out.cpus.push_back(t);
        }
    }
    if (!sawAll || out.cpus.empty())
        return bad("/proc/stat", "it has no cpu lines");
    return out;
}

Expected<std::vector<PerCpuCount>> parsePerCpuCounters(std::string_view text, std::string_view what)
{
    const auto all = lines(text);
    std::size_t first = 0;
    while (first < all.size() && words(all[first]).empty())
        ++first;
    if (first == all.size())
        return bad(what, "it is empty");
    std::vector<PerCpuCount> out;
    for (const auto w : words(all[first])) {
        const auto n = cpuLabel(w, "CPU");
        if (!n || *n < 0)
            return bad(what, "its header names '" + std::string(w) + "' where a CPU should be");
        out.push_back({ *n, 0 });
    }
    for (std::size_t i = first + 1; i < all.size(); ++i) {
        const auto w = words(all[i]);
        if (w.empty())
            continue;
        if (w[0].empty() || w[0].back() != ':')
            return bad(what, "line " + std::to_string(i + 1) + " does not start with a label and a colon");
        if (w[0] == "ERR:" || w[0] == "MIS:") // one system-wide count, not per CPU
            continue;
        std::size_t counts = 0;
        while (counts < out.size() && counts + 1 < w.size() && number(w[counts + 1]))
            ++counts;
        if (counts < out.size())
            return bad(what,
                "line " + std::to_string(i + 1) + " has " + std::to_string(counts) + " counts for "
                    + std::to_string(out.size()) + " CPUs");
        for (std::size_t c = 0; c < out.size(); ++c)
            out[c].count += *number(w[c + 1]);
    }
    return out;
}

} // namespace ctxscope::os
