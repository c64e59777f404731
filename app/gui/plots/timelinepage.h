// SPDX-License-Identifier: MIT
#pragma once

#include "breakdownplot.h"
#include "timelinedata.h"

#include "ctxscope/result.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

class QComboBox;
class QLabel;
class QSplitter;

namespace ctxscope::gui {

class TimelineView;

// The Timeline tab: the breakdown of the traced runs on stage (a stacked bar each) over the
// scheduler's timeline of one of them (a lane per PU in the map's order). Clicking a step of a
// bar shows a typical hand-over that took it, zoomed so that the hand-over fills the view.
class TimelinePage : public QWidget {
    Q_OBJECT
public:
    struct Run {
        quint64 id = 0;
        QString label; // as in the legends: "#3 futex · thread · cross-package (0,1)"
        QString barLabel; // its bar's, shorter: "#3 cross-package (0,1)"
        std::shared_ptr<const RunResult> result; // its trace block: the segments
        std::shared_ptr<const TraceWindow> window; // its events; null when only segments were kept
        std::map<std::int32_t, QColor> taskColors; // the measured tasks, as the map draws them
        std::map<std::int32_t, QString> taskNames; // and as the map names them: A, B, ...
        // The keep-awake threads of its traced run (a condition's): drawn in their own colour.
        std::set<std::int32_t> keepAwake {};
    };
    explicit TimelinePage(QWidget* parent = nullptr);

    // Every PU of the machine the runs were measured on, in the map's order.
    void setLanes(std::vector<TimelineLane> lanes);
    // The traced runs to show; the timeline keeps the run it shows when it is still among them,
    // else shows the last.
    void setRuns(std::vector<Run> runs);
    const std::vector<Run>& runs() const { return m_runs; }
    bool showRun(quint64 id);
    std::optional<quint64> shownRun() const { return m_shown; }
    // A typical hand-over that took `step` in run `id` (the one whose step took the time nearest
    // the step's median) fills the timeline, its step measured by the ruler. False when the run's
    // events hold no such step.
    bool showExample(quint64 id, const QString& step, bool crossCpu);
    // The longest step of the last run across CPUs (else of the last run), as showExample: what a
    // lesson shows first. False without a traced run with events.
    bool showTypicalHandover();

    TimelineView* timeline() const { return m_view; }
    BreakdownPlot* breakdown() const { return m_breakdown; }
    QString caption() const;
    QString legend() const; // the colours' key under the caption // the line over the timeline: the run, what tracing
                            // cost, the step shown
    void restyle();

signals:
    void puHovered(int pu);
    // A slice of a measured task was clicked: the run it belongs to.
    void runTaskClicked(quint64 id, std::int32_t pid);

private:
    const Run* run(quint64 id) const;
    QString runCaption() const; // the run shown and what tracing cost
    void updateCaption();

    std::vector<TimelineLane> m_lanes;
    std::vector<Run> m_runs;
    std::optional<quint64> m_shown;
    std::map<quint64, std::shared_ptr<const TimelineData>> m_data; // built once a run is shown
    std::map<quint64, std::vector<SegmentExample>> m_examples; // found once a step is asked for
    QSplitter* m_split = nullptr;
    BreakdownPlot* m_breakdown = nullptr;
    QComboBox* m_chooser = nullptr;
    QLabel* m_caption = nullptr;
    QLabel* m_legend = nullptr; // the measured tasks' colours, other tasks, idle
    TimelineView* m_view = nullptr;
};

} // namespace ctxscope::gui
