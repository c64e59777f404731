// SPDX-License-Identifier: MIT
#include "runlabel.h"

#include <QStringList>

namespace ctxscope::gui {

namespace {
QString qs(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
} // namespace

QString runLabel(std::string_view bench, BenchMode mode, std::optional<Relation> relation, const std::vector<int>& cpus)
{
    QStringList parts { qs(bench), qs(toString(mode)) };
    QString where = relation ? qs(toString(*relation)) : QString();
    if (!cpus.empty()) {
        QStringList list;
        for (int cpu : cpus)
            list << QString::number(cpu);
        where += (where.isEmpty() ? QStringLiteral("CPUs ") : QStringLiteral(" ")) + QStringLiteral("(")
            + list.join(QLatin1Char(',')) + QStringLiteral(")");
    }
    if (!where.isEmpty())
        parts << where;
    return parts.join(QStringLiteral(" · "));
}

QString runLabel(const RunResult& r)
{
    QString label = runLabel(r.bench, r.mode, r.placement.relation, r.placement.cpus);
    if (r.placement.tasks > 2)
        label += QStringLiteral(" · %1 tasks").arg(r.placement.tasks);
    return label;
}

} // namespace ctxscope::gui
