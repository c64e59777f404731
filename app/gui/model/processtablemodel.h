// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/process_list.h"

#include <QAbstractTableModel>

#include <vector>

namespace ctxscope::gui {

// The processes to pick one from (the worker's `processes` answer): the user's own first,
// then the busiest (switches per second), then by PID, as docs/user-guide.md says.
class ProcessTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Pid, Name, Threads, Switches, Voluntary, Involuntary, ColumnCount };
    static constexpr int PidRole = Qt::UserRole + 1;
    static constexpr int SortRole = Qt::UserRole + 2;

    explicit ProcessTableModel(QObject* parent = nullptr);

    void setProcesses(std::vector<ProcessActivity> processes);
    const std::vector<ProcessActivity>& processes() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<ProcessActivity> m_rows;
};

} // namespace ctxscope::gui
