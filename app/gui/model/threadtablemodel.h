// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/watch.h"

#include <QAbstractTableModel>

#include <vector>

namespace ctxscope::gui {

// The threads of the latest watch sample, one row each, by TID. A new sample changes the
// rows in place and inserts or removes only the threads that started or ended, so a view's
// selection of threads survives the samples.
class ThreadTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Tid,
        Name,
        State,
        Cpu,
        Affinity,
        Voluntary,
        Involuntary,
        CpuShare,
        RunqueueWait,
        Migrations,
        ColumnCount
    };
    static constexpr int TidRole = Qt::UserRole + 1;
    static constexpr int SortRole = Qt::UserRole + 2;

    explicit ThreadTableModel(QObject* parent = nullptr);

    void setThreads(const std::vector<ThreadRates>& threads);
    void clear(); // at once (a reset), not row by row
    const std::vector<ThreadRates>& threads() const { return m_rows; }
    int rowOfThread(long tid) const; // -1 when absent
    // A pin's answer, before the next sample shows it.
    void setAffinity(long tid, const std::vector<int>& cpus);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const ThreadRates& t, int column) const;
    std::vector<ThreadRates> m_rows;
};

} // namespace ctxscope::gui
