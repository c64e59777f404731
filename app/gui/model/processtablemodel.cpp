// SPDX-License-Identifier: MIT
#include "processtablemodel.h"

#include "ctxscope/units.h"

#include <QFont>

#include <algorithm>

namespace ctxscope::gui {

namespace {

QString count(double perS) { return QString::fromStdString(formatCount(perS)); }

} // namespace

ProcessTableModel::ProcessTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ProcessTableModel::setProcesses(std::vector<ProcessActivity> processes)
{
    std::stable_sort(processes.begin(), processes.end(), [](const ProcessActivity& a, const ProcessActivity& b) {
        if (a.own != b.own)
            return a.own;
        if (a.switchesPerS() != b.switchesPerS())
            return a.switchesPerS() > b.switchesPerS();
        return a.pid < b.pid;
    });
    beginResetModel();
    m_rows = std::move(processes);
    endResetModel();
}

int ProcessTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ProcessTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ProcessTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(m_rows.size()))
        return {};
    const ProcessActivity& p = m_rows[static_cast<std::size_t>(index.row())];
    if (role == PidRole)
        return static_cast<qlonglong>(p.pid);
    if (role == SortRole || role == Qt::DisplayRole) {
        const bool sort = role == SortRole;
        switch (index.column()) {
        case Pid:
            return static_cast<qlonglong>(p.pid);
        case Name:
            return QString::fromStdString(p.kernel ? '[' + p.name + ']' : p.name);
        case Threads:
            return p.threads;
        case Switches:
            return sort ? QVariant(p.switchesPerS()) : QVariant(count(p.switchesPerS()));
        case Voluntary:
            return sort ? QVariant(p.voluntaryPerS) : QVariant(count(p.voluntaryPerS));
        case Involuntary:
            return sort ? QVariant(p.involuntaryPerS) : QVariant(count(p.involuntaryPerS));
        default:
            return {};
        }
    }
    if (role == Qt::FontRole && p.own) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole)
        return p.kernel ? tr("A kernel thread: it can be watched; per-CPU kernel threads cannot be re-pinned.")
            : p.own     ? tr("Your process (user %1): you may re-pin its threads.").arg(p.uid)
                        : tr("Another user's process (user %1): re-pinning it needs root or CAP_SYS_NICE.").arg(p.uid);
    if (role == Qt::TextAlignmentRole && index.column() != Name)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant ProcessTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Pid:
        return tr("PID");
    case Name:
        return tr("Command");
    case Threads:
        return tr("Threads");
    case Switches:
        return tr("Switches/s");
    case Voluntary:
        return tr("Voluntary/s");
    case Involuntary:
        return tr("Involuntary/s");
    default:
        return {};
    }
}

} // namespace ctxscope::gui
