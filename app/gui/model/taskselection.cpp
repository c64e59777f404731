// SPDX-License-Identifier: MIT
#include "taskselection.h"

#include <QObject>
#include <QStringList>

#include <algorithm>

namespace ctxscope::gui {

void TaskSelection::click(int osCpu, bool addAnother)
{
    const auto last = std::find(m_cpus.rbegin(), m_cpus.rend(), osCpu);
    if (last == m_cpus.rend() || addAnother)
        m_cpus.push_back(osCpu);
    else
        m_cpus.erase(std::next(last).base());
}

std::vector<int> TaskSelection::tasksOn(int osCpu) const
{
    std::vector<int> tasks;
    for (std::size_t i = 0; i < m_cpus.size(); ++i)
        if (m_cpus[i] == osCpu)
            tasks.push_back(static_cast<int>(i));
    return tasks;
}

std::optional<Relation> TaskSelection::relation(const Topology& topology) const
{
    std::optional<Relation> widest;
    for (std::size_t i = 0; i < m_cpus.size(); ++i)
        for (std::size_t j = i + 1; j < m_cpus.size(); ++j) {
            auto r = relationOf(topology, m_cpus[i], m_cpus[j]);
            if (r && (!widest || *r > *widest))
                widest = *r;
        }
    return widest;
}

QString TaskSelection::summary(const Topology& topology) const
{
    if (m_cpus.empty())
        return QObject::tr("Click a PU to place task A");
    QStringList parts;
    for (std::size_t i = 0; i < m_cpus.size(); ++i) {
        // On a hybrid machine each PU says its kind: "A=P#12 (E-core)".
        const CpuKind* kind = topology.kindOfPu(m_cpus[i]);
        parts << taskName(static_cast<int>(i)) + QStringLiteral("=P#") + QString::number(m_cpus[i])
                + (kind ? QStringLiteral(" (%1)").arg(QString::fromStdString(kind->name)) : QString());
    }
    const QString tasks
        = (m_cpus.size() == 1 ? QObject::tr("Task ") : QObject::tr("Tasks ")) + parts.join(QStringLiteral(", "));
    const auto r = relation(topology);
    if (!r)
        return QObject::tr("%1 — click a PU for task %2").arg(tasks, taskName(static_cast<int>(m_cpus.size())));
    const QString name = QString::fromStdString(relationText(*r, kindsText(topology, m_cpus)));
    return m_cpus.size() == 2 ? QObject::tr("%1 — %2").arg(tasks, name) : QObject::tr("%1 — spans %2").arg(tasks, name);
}

QString taskName(int index)
{
    if (index >= 0 && index < 26)
        return QString(QChar(static_cast<char16_t>(u'A' + index)));
    return QStringLiteral("T%1").arg(index + 1);
}

QString unavailableReason(const Topology& topology, int osCpu)
{
    const PuInfo* pu = topology.findPu(osCpu);
    const QString allowedSet = QString::fromStdString(formatCpuList(topology.allowedPus()));
    if (!pu)
        return QObject::tr("P#%1 does not exist in this topology").arg(osCpu);
    if (!pu->allowed)
        return QObject::tr("P#%1 is outside the allowed set %2 (cgroup cpuset)").arg(osCpu).arg(allowedSet);
    if (!pu->inAffinity)
        return QObject::tr("P#%1 is outside the allowed set %2 (process affinity, e.g. taskset)")
            .arg(osCpu)
            .arg(allowedSet);
    return {};
}

} // namespace ctxscope::gui
