// SPDX-License-Identifier: MIT
// The published figures of the articles ctxscope grew from, as read-only cards. Every figure is
// copied from the article named in the card's source; none is measured here. tsuna's programs
// (github.com/tsuna/contextswitch) time a futex ping-pong and print ns per context switch: the
// total over 2 x iterations switches, so a round trip (ctxscope's futex op, two switches) is
// twice the figure. timesyscall.c times gettid(); ctxscope's syscall times getppid().
#include "ctxscope/machine_compare.h"

#include <nlohmann/json.hpp>

namespace ctxscope {

namespace {

struct Figure {
    const char* bench;
    BenchMode mode;
    Relation relation;
    double ns; // as printed: ns per syscall, or per context switch
};

struct Article {
    const char* set; // "tsuna" or "2022"
    const char* label;
    const char* cpu;
    const char* kernel; // "" when the article does not say
    const char* source;
    std::vector<Figure> figures;
};

constexpr const char* kTsuna
    = "tsuna, \"How long does it take to make a context switch?\" (blog.tsunanet.net, 2010, updated 2011 and 2013): "
      "timesyscall.c (gettid, one task, not pinned), timectxsw.c (futex ping-pong between two processes, no CPU "
      "affinity) and cpubench.sh (processes, then threads, pinned on a single core); ns per context switch is half a "
      "round trip. Machines of 2010-2013.";
constexpr const char* k2022 = "\"上下文切换的代价\" (2022-06-05), running tsuna's programs: syscall, process and "
                              "thread context switches with no CPU affinity (unpinned) and with affinity to CPU 0 "
                              "(one PU); its \"with CPU affinity\" rows are left out, their CPU set is not stated, and "
                              "so are timetctxsw2's (futex calls without a switch, which ctxscope has no row for).";

std::vector<Figure> tsunaFigures(double syscall, double unpinnedProcess, double pinnedProcess, double pinnedThread)
{
    return { { "syscall", BenchMode::Thread, Relation::SamePu, syscall },
        { "futex", BenchMode::Process, Relation::Unpinned, unpinnedProcess },
        { "futex", BenchMode::Process, Relation::SamePu, pinnedProcess },
        { "futex", BenchMode::Thread, Relation::SamePu, pinnedThread } };
}

std::vector<Figure> table2022(
    double syscallFree, double processFree, double threadFree, double syscall0, double process0, double thread0)
{
    return { { "syscall", BenchMode::Thread, Relation::Unpinned, syscallFree },
        { "futex", BenchMode::Process, Relation::Unpinned, processFree },
        { "futex", BenchMode::Thread, Relation::Unpinned, threadFree },
        { "syscall", BenchMode::Thread, Relation::SamePu, syscall0 },
        { "futex", BenchMode::Process, Relation::SamePu, process0 },
        { "futex", BenchMode::Thread, Relation::SamePu, thread0 } };
}

const std::vector<Article>& articles()
{
    static const std::vector<Article> all {
        { "tsuna", "2010 Intel 5150", "dual Intel 5150 (Woodcrest, 2.67 GHz, 4 cores)", "2.6.28-19-server", kTsuna,
            tsunaFigures(105, 4300, 1900, 1700) },
        { "tsuna", "2010 Intel E5440", "dual Intel E5440 (Harpertown, 2.83 GHz, 8 cores)", "2.6.24-26-server", kTsuna,
            tsunaFigures(87, 3600, 1300, 1100) },
        { "tsuna", "2010 Intel E5520", "dual Intel E5520 (Nehalem, 2.27 GHz, 16 hardware threads)", "2.6.28-18-generic",
            kTsuna, tsunaFigures(58, 4500, 1400, 1300) },
        { "tsuna", "2010 Intel X5550", "dual Intel X5550 (Nehalem, 2.67 GHz, 16 hardware threads)", "2.6.28-15-server",
            kTsuna, tsunaFigures(52, 3000, 1300, 1100) },
        { "tsuna", "2011 Intel L5630", "dual Intel L5630 (Westmere, 2.13 GHz, 16 hardware threads)", "2.6.32-29-server",
            kTsuna, tsunaFigures(58, 3000, 1600, 1400) },
        { "tsuna", "2013 Intel E5-2620", "dual Intel E5-2620 (Sandy Bridge-EP, 2 GHz, 24 hardware threads)", "3.4.24",
            kTsuna, tsunaFigures(67, 3000, 1600, 1300) },
        { "2022", "2022 Xeon Platinum 8269CY",
            "Intel Xeon Platinum 8269CY @ 2.50GHz (2 x 26 cores, 104 hardware threads)", "", k2022,
            table2022(114.5, 3140.3, 3208.9, 104.0, 2811.5, 2848.9) },
        { "2022", "2022 Xeon E5-2682 v4", "Intel Xeon E5-2682 v4 @ 2.50GHz (2 x 16 cores, 64 hardware threads)", "",
            k2022, table2022(77.3, 2004.9, 2617.4, 74.7, 2064.9, 2113.2) },
        { "2022", "2022 Xeon Platinum 8163", "Intel Xeon Platinum 8163 @ 2.50GHz (2 x 24 cores, 96 hardware threads)",
            "", k2022, table2022(76.5, 2953.5, 3370.9, 76.2, 2913.7, 3180.3) },
        { "2022", "2022 ECS Xeon Platinum 8269CY",
            "Intel Xeon Platinum 8269CY @ 2.50GHz, a cloud instance (ECS) of 4 hardware threads", "", k2022,
            table2022(56.1, 1512.9, 1666.9, 63.0, 1513.7, 1586.3) },
        { "2022", "2022 Kunpeng 920", "Kunpeng 920 (2 x 96 cores, 192 hardware threads)", "", k2022,
            table2022(121.7, 2326.7, 2345.0, 121.6, 1399.0, 1559.7) },
    };
    return all;
}

RunResult resultOf(const Figure& f)
{
    RunResult r;
    r.bench = f.bench;
    r.spec.bench = f.bench;
    r.mode = f.mode;
    r.spec.mode = f.mode;
    r.placement.relation = f.relation;
    const bool pingPong = r.bench == "futex";
    r.placement.tasks = pingPong ? 2 : 1;
    r.op = pingPong ? "round trip (twice the published ns per context switch)" : "one system call (gettid)";
    r.switchesPerOp = pingPong ? 2 : 0;
    r.stats.p50 = pingPong ? 2 * f.ns : f.ns;
    r.stats.mean = r.stats.p50;
    r.stats.count = 1;
    if (pingPong)
        r.perSwitchNs = f.ns;
    r.repetitions = 1;
    r.repetitionMedians = { r.stats.p50 };
    return r;
}

} // namespace

std::vector<MachineCard> articleCards(std::string_view set)
{
    std::vector<MachineCard> out;
    for (const Article& a : articles()) {
        if (set != "all" && set != a.set)
            continue;
        MachineCard card;
        card.path = a.label;
        card.label = a.label;
        card.kind = std::string("article ") + a.set;
        card.source = a.source;
        card.hasContext = true;
        nlohmann::json sys { { "cpu_model", a.cpu } };
        if (*a.kernel)
            sys["kernel"] = a.kernel;
        card.context.cpuModel = a.cpu;
        card.context.kernel = a.kernel;
        card.context.raw = { { "ctxscope", { { "sysinfo", std::move(sys) } } } };
        for (const Figure& f : a.figures)
            card.results.push_back(resultOf(f));
        out.push_back(std::move(card));
    }
    return out;
}

} // namespace ctxscope
