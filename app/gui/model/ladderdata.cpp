// SPDX-License-Identifier: MIT
#include "ladderdata.h"

#include "runlabel.h"

#include "ctxscope/units.h"

#include <algorithm>
#include <map>

namespace ctxscope::gui {

std::vector<LadderRung> ladderRungs(const std::vector<std::shared_ptr<const RunResult>>& runs)
{
    std::map<std::string, const RunResult*> latest;
    for (const auto& run : runs)
        if (run && run->bench != "ring" && run->spec.wsBytes == 0 && run->stats.p50 > 0)
            latest[run->bench] = run.get(); // later runs replace earlier ones
    std::vector<LadderRung> out;
    for (const auto& [bench, r] : latest) {
        // A result read back from JSON does not carry the flag: it is a fact of the benchmark.
        const BenchInfo* info = findBenchmark(bench);
        const bool userSpace = r->userSpaceSwitches || (info && info->userSpaceSwitches);
        QString switches;
        if (r->switchesPerOp <= 0)
            switches = QStringLiteral("no switch");
        else
            // Whether they are user-space switches the bar's colour says (and the legend):
            // neighbouring labels must stay short enough not to overlap.
            switches = QStringLiteral("%1 switch%2")
                           .arg(r->switchesPerOp, 0, 'g', 3)
                           .arg(r->switchesPerOp == 1 ? QString() : QStringLiteral("es"));
        out.push_back({ QString::fromStdString(bench),
            QString::fromStdString(formatDuration(r->stats.p50)) + QStringLiteral("/op\n") + switches, runLabel(*r),
            r->stats.p50, r->switchesPerOp, userSpace });
    }
    std::sort(out.begin(), out.end(), [](const LadderRung& a, const LadderRung& b) { return a.nsPerOp < b.nsPerOp; });
    return out;
}

} // namespace ctxscope::gui
