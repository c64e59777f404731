// SPDX-License-Identifier: MIT
#include "conditionpair.h"

#include "runlabel.h"

#include <QObject>
#include <QStringList>

#include <algorithm>

namespace ctxscope::gui {

std::optional<AbPair> abPairOf(const std::vector<ResultRow>& runs, quint64 id)
{
    const auto find = [&](quint64 wanted) -> const ResultRow* {
        const auto it = std::find_if(runs.begin(), runs.end(), [&](const ResultRow& r) { return r.id == wanted; });
        return it == runs.end() ? nullptr : &*it;
    };
    const ResultRow* row = find(id);
    const ResultRow* other = row && row->abPartner != 0 ? find(row->abPartner) : nullptr;
    if (!other || other->abPartner != row->id)
        return std::nullopt;
    return row->result->spec.conditioned() ? AbPair { other, row } : AbPair { row, other };
}

void pairConditionSides(std::vector<ResultRow>& rows)
{
    for (std::size_t i = 1; i < rows.size(); ++i) {
        ResultRow& asIs = rows[i - 1];
        ResultRow& with = rows[i];
        const RunResult& a = *asIs.result;
        const RunResult& b = *with.result;
        if (asIs.abPartner != 0 || with.abPartner != 0 || a.spec.conditioned() || !b.spec.conditioned()
            || a.bench != b.bench || a.mode != b.mode || a.placement.cpus != b.placement.cpus
            || a.placement.relation != b.placement.relation || a.placement.tasks != b.placement.tasks
            || asIs.machine != with.machine)
            continue;
        asIs.abPartner = with.id;
        with.abPartner = asIs.id;
    }
}

QString abSideName(const ResultRow& row)
{
    if (row.result->spec.conditioned())
        return QString::fromStdString(conditionText(row.result->spec));
    return row.abPartner != 0 ? QObject::tr("as is") : QString();
}

QString rowLabel(const ResultRow& row)
{
    const QString side = abSideName(row);
    return runLabel(*row.result) + (side.isEmpty() ? QString() : QStringLiteral(" · ") + side);
}

QString abText(const ConditionAb& ab)
{
    QStringList lines { QObject::tr("A/B: %1").arg(QString::fromStdString(ab.sentence)) };
    const std::size_t shown = std::min(ab.movedSteps.size(), kAbStepsShown);
    for (std::size_t i = 0; i < shown; ++i)
        lines << QStringLiteral("  ") + QString::fromStdString(ab.movedSteps[i]);
    if (const std::size_t more = ab.movedSteps.size() - shown; more > 0)
        lines << (more == 1
                ? QObject::tr("  and 1 smaller move: the Timeline tab's breakdown shows both sides")
                : QObject::tr("  and %1 smaller moves: the Timeline tab's breakdown shows both sides").arg(more));
    return lines.join(QLatin1Char('\n'));
}

} // namespace ctxscope::gui
