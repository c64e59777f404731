// SPDX-License-Identifier: MIT
#include "comparedata.h"

#include <QStringList>

#include <algorithm>

namespace ctxscope::gui {

QString CompareSource::legend() const
{
    QStringList parts;
    parts << (host.isEmpty() ? QStringLiteral("unknown host") : host);
    if (!cpuModel.isEmpty())
        parts << cpuModel;
    parts << (hypervisor.isEmpty() ? QStringLiteral("bare metal") : hypervisor);
    return parts.join(QStringLiteral(" · ")) + QStringLiteral(" (") + origin + QStringLiteral(")");
}

CompareSource compareSource(const ResultsFile& file, const QString& origin)
{
    CompareSource s;
    s.host = QString::fromStdString(file.context.hostName);
    s.cpuModel = QString::fromStdString(file.context.cpuModel).simplified();
    if (file.context.hypervisor)
        s.hypervisor = file.context.hypervisorVendor.empty() ? QStringLiteral("hypervisor")
                                                             : QString::fromStdString(file.context.hypervisorVendor);
    s.origin = origin;
    s.results.reserve(file.results.size());
    for (const RunResult& r : file.results)
        s.results.push_back(std::make_shared<const RunResult>(r));
    return s;
}

int CompareRow::sourcesWithValue() const
{
    return static_cast<int>(
        std::count_if(medianNs.begin(), medianNs.end(), [](const auto& v) { return v.has_value(); }));
}

std::vector<CompareRow> matchSources(const std::vector<CompareSource>& sources)
{
    std::vector<CompareRow> rows;
    for (std::size_t s = 0; s < sources.size(); ++s) {
        for (const auto& shared : sources[s].results) {
            const RunResult& r = *shared;
            const std::string key = benchmarkName(r);
            auto it = std::find_if(rows.begin(), rows.end(), [&](const CompareRow& row) { return row.key == key; });
            if (it == rows.end()) {
                rows.push_back({ key, std::vector<std::optional<double>>(sources.size()) });
                it = rows.end() - 1;
            }
            it->medianNs[s] = r.stats.p50;
        }
    }
    return rows;
}

} // namespace ctxscope::gui
