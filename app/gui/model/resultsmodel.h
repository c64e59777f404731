// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/result.h"
#include "timelinedata.h"

#include <QAbstractTableModel>
#include <QColor>

#include <memory>
#include <vector>

namespace ctxscope::gui {

struct ResultRow {
    quint64 id = 0; // the run's id, also the key of its curves
    std::shared_ptr<const RunResult> result;
    QColor color; // of its curves
    // The machine it was measured on: empty for the session's own machine (this one, or the
    // one a loaded session was measured on), else a server as the user named it (`lab-3`).
    QString machine {};
    // A traced run's events (its result's `trace` holds the segments); null when untraced.
    std::shared_ptr<const TraceWindow> traceWindow {};
    // The traced run's whole recording as trace.dat, where this machine's worker wrote it (a
    // file of the app's, for File -> Export trace); empty otherwise. Not saved with the session.
    QString traceFile {};
    // A condition's A/B (a run with keep-awake or a PM QoS hold is measured as is, then with it):
    // the other side's row id; 0 for a run of no A/B. The side as is has no condition in its spec.
    quint64 abPartner = 0;
};

// One row per finished run: what ran, where, its statistics and self-checks. A thin view
// over immutable results; the numbers are formatted, the raw values are in SortRole.
class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Bench,
        Mode,
        Cpus,
        Relation,
        Median,
        PerSwitch,
        Min,
        P99,
        Cv,
        Voluntary,
        Involuntary,
        Migrations,
        Interference,
        Warnings,
        Machine, // shown first, and only while the session holds more than one machine
        ColumnCount
    };
    static constexpr int IdRole = Qt::UserRole + 1;
    static constexpr int SortRole = Qt::UserRole + 2;

    explicit ResultsModel(QObject* parent = nullptr);

    void setResults(std::vector<ResultRow> rows);
    void addResult(ResultRow row);
    void clear() { setResults({}); }
    const std::vector<ResultRow>& results() const { return m_rows; }
    int rowOfRun(quint64 id) const; // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const RunResult& r, int column) const;
    QVariant toolTip(const RunResult& r, int column) const;
    QVariant sortValue(const RunResult& r, int column) const;
    std::vector<ResultRow> m_rows;
};

} // namespace ctxscope::gui
