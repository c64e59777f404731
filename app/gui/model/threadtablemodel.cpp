// SPDX-License-Identifier: MIT
#include "threadtablemodel.h"

#include "ctxscope/topology.h"
#include "ctxscope/units.h"

#include <algorithm>

namespace ctxscope::gui {

namespace {

QString count(double perS) { return QString::fromStdString(formatCount(perS)); }

// Run-queue wait as a share of wall time: 0.25 s/s is "25%" of the thread's time spent ready
// but waiting for a CPU.
QString share(double fraction) { return QString::number(fraction * 100.0, 'f', fraction < 0.1 ? 1 : 0) + u'%'; }

QString cpuList(const std::vector<int>& cpus) { return QString::fromStdString(formatCpuList(cpus)); }

} // namespace

ThreadTableModel::ThreadTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ThreadTableModel::setThreads(const std::vector<ThreadRates>& given)
{
    // The worker sends them by TID; the walk below relies on it, so a line that does not is sorted.
    const auto byTid = [](const ThreadRates& a, const ThreadRates& b) { return a.tid < b.tid; };
    std::vector<ThreadRates> sorted;
    const bool inOrder = std::is_sorted(given.begin(), given.end(), byTid);
    if (!inOrder) {
        sorted = given;
        std::sort(sorted.begin(), sorted.end(), byTid);
    }
    const std::vector<ThreadRates>& threads = inOrder ? given : sorted;
    // Both lists are by TID: walk them together, removing the threads that ended and
    // inserting the ones that started, row by row, so the selection of the others stays.
    std::size_t row = 0;
    std::size_t next = 0;
    while (row < m_rows.size() || next < threads.size()) {
        const bool removed = next == threads.size() || (row < m_rows.size() && m_rows[row].tid < threads[next].tid);
        const int r = static_cast<int>(row);
        if (removed) {
            beginRemoveRows({}, r, r);
            m_rows.erase(m_rows.begin() + static_cast<std::ptrdiff_t>(row));
            endRemoveRows();
        } else if (row == m_rows.size() || m_rows[row].tid > threads[next].tid) {
            beginInsertRows({}, r, r);
            m_rows.insert(m_rows.begin() + static_cast<std::ptrdiff_t>(row), threads[next]);
            endInsertRows();
            ++row;
            ++next;
        } else {
            m_rows[row] = threads[next];
            ++row;
            ++next;
        }
    }
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(static_cast<int>(m_rows.size()) - 1, ColumnCount - 1));
}

int ThreadTableModel::rowOfThread(long tid) const
{
    const auto it = std::lower_bound(
        m_rows.begin(), m_rows.end(), tid, [](const ThreadRates& t, long value) { return t.tid < value; });
    return it != m_rows.end() && it->tid == tid ? static_cast<int>(it - m_rows.begin()) : -1;
}

void ThreadTableModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

void ThreadTableModel::setAffinity(long tid, const std::vector<int>& cpus)
{
    const int row = rowOfThread(tid);
    if (row < 0)
        return;
    m_rows[static_cast<std::size_t>(row)].affinity = cpus;
    emit dataChanged(index(row, Affinity), index(row, Affinity));
}

int ThreadTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ThreadTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ThreadTableModel::display(const ThreadRates& t, int column) const
{
    switch (column) {
    case Tid:
        return static_cast<qlonglong>(t.tid);
    case Name:
        return QString::fromStdString(t.name);
    case State:
        return QString(QChar::fromLatin1(t.state));
    case Cpu:
        // The app names a CPU as the map does: P# and its OS index.
        return t.cpu ? QVariant(QStringLiteral("P#%1").arg(*t.cpu)) : QVariant(tr("–"));
    case Affinity:
        return cpuList(t.affinity);
    case Voluntary:
        return count(t.voluntaryPerS);
    case Involuntary:
        return count(t.involuntaryPerS);
    case CpuShare:
        return share(t.cpuShare);
    case RunqueueWait:
        return t.runqueueWaitPerS ? QVariant(share(*t.runqueueWaitPerS)) : QVariant(tr("n/a"));
    case Migrations:
        return t.migrationsLowerBound ? QVariant(u'≥' + count(t.migrationsPerS)) : QVariant(count(t.migrationsPerS));
    default:
        return {};
    }
}

QVariant ThreadTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(m_rows.size()))
        return {};
    const ThreadRates& t = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case TidRole:
        return static_cast<qlonglong>(t.tid);
    case Qt::DisplayRole:
        return display(t, index.column());
    case SortRole:
        switch (index.column()) {
        case Cpu:
            return t.cpu.value_or(-1);
        case Voluntary:
            return t.voluntaryPerS;
        case Involuntary:
            return t.involuntaryPerS;
        case CpuShare:
            return t.cpuShare;
        case RunqueueWait:
            return t.runqueueWaitPerS.value_or(-1.0);
        case Migrations:
            return t.migrationsPerS;
        default:
            return display(t, index.column());
        }
    case Qt::TextAlignmentRole:
        return index.column() == Name || index.column() == Affinity
            ? QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter)
            : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (index.column() == RunqueueWait)
            return t.runqueueWaitPerS ? tr("Share of the interval this thread was ready to run but waited for a CPU "
                                           "(/proc/PID/task/TID/schedstat).")
                                      : tr("This kernel gives no schedstat: run-queue wait cannot be read.");
        if (index.column() == Migrations && t.migrationsLowerBound)
            return tr("Counted from changes of the last CPU between samples (the kernel gives no "
                      "se.nr_migrations): a lower bound.");
        if (index.column() == Cpu)
            return tr("The PU this thread last ran on (P#: the OS's CPU number, as on the map).");
        return {};
    default:
        return {};
    }
}

QVariant ThreadTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Tid:
        return tr("TID");
    case Name:
        return tr("Name");
    case State:
        return tr("State");
    case Cpu:
        return tr("Last on");
    case Affinity:
        return tr("Affinity");
    case Voluntary:
        return tr("Voluntary/s");
    case Involuntary:
        return tr("Involuntary/s");
    case CpuShare:
        return tr("CPU time");
    case RunqueueWait:
        return tr("Run-queue wait");
    case Migrations:
        return tr("Migrations/s");
    default:
        return {};
    }
}

} // namespace ctxscope::gui
