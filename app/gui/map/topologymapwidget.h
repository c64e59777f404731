// SPDX-License-Identifier: MIT
#pragma once

#include "taskselection.h"
#include "topologylayout.h"

#include "ctxscope/placement.h"

#include <QColor>
#include <QVector>
#include <QWidget>

#include <optional>

namespace ctxscope::gui {

// The topology drawn as nested boxes (see layoutTopology). Clicking an allowed PU places the
// next task on it; clicking it again takes its last task off; Shift+click adds one more
// task on the same PU. PUs outside the allowed set are greyed and say why. In re-pin mode
// (the Programs dock watching a program) clicks choose where its threads go instead, and the
// run's tasks stay where they are.
class TopologyMapWidget : public QWidget {
    Q_OBJECT
public:
    // The fills the map uses, derived from the palette so dark themes work.
    struct Colors {
        QColor background, border, text, package, numa, group, cache, core, pu, disallowedPu, disallowedText, highlight;
    };

    explicit TopologyMapWidget(QWidget* parent = nullptr);

    void setTopology(const Topology& topology);
    const std::optional<Topology>& topology() const { return m_topology; }

    // The layout for the widget's current size (what is painted and what clicks hit).
    const TopologyLayout& mapLayout() const;
    // Larger labels (presentation mode: 1.3), see layoutTopology.
    void setTextScale(double scale);
    double textScale() const { return m_textScale; }

    const std::vector<int>& selection() const { return m_selection.cpus(); }
    // Places tasks A, B, ... on these PUs; refuses (and keeps the old selection) if one of
    // them does not exist or is outside the allowed set.
    Status setSelection(const std::vector<int>& osCpus);
    void clearSelection();
    // Shows where a run's tasks are: the map's placement stays when it begins with them (a
    // one-task run on A keeps B for the next run), else they become the placement.
    void showPlacement(const std::vector<int>& osCpus);
    // The most tasks the chosen benchmark runs: a click on a free PU places none beyond it and
    // says why at once; tasks placed for a benchmark with more stay, and the summary says the
    // chosen one leaves them waiting. 0: no limit. `benchmark` names it in what is said.
    void setTaskLimit(int tasks, const QString& benchmark);
    int taskLimit() const { return m_taskLimit; }
    std::optional<Relation> selectionRelation() const;
    QString selectionSummary() const;

    // Threads of a watched program, each drawn as a small labelled marker on the PU it last
    // ran on (topologymapmarkers.cpp); selected ones stand out. Empty: none.
    struct ThreadMarker {
        int cpu = -1;
        QString label; // what the marker reads: the thread's name ("ping0"), its TID when unnamed
        QString name; // the thread's name, for the tooltip
        bool selected = false;
        long tid = 0;
    };
    void setThreadMarkers(std::vector<ThreadMarker> markers);
    const std::vector<ThreadMarker>& threadMarkers() const { return m_markers; }

    // Re-pin mode: a click toggles a PU in pinTargets() (outlined on the map) and never
    // changes selection(), the run's placement. The targets are kept while the mode is off.
    void setRepinMode(bool on);
    bool repinMode() const { return m_repin; }
    const std::vector<int>& pinTargets() const { return m_pinTargets; } // ascending, each once
    // Refuses (and keeps the old targets) if a PU does not exist or is not allowed.
    Status setPinTargets(std::vector<int> osCpus);
    void clearPinTargets();

    // Outlines a pair of PUs, e.g. the representative pair of a relation class.
    void setHighlightedPair(std::optional<PuPair> pair);
    std::optional<PuPair> highlightedPair() const { return m_highlight; }

    // Lights a PU as the mouse over it does (the timeline's hovered lane); -1: none.
    void setHoveredPu(int pu);
    int hoveredPu() const { return m_hoveredPu; }

    QString toolTipAt(const QPointF& pos) const;
    // What the layout leaves unlabelled at this size, for the caption over the map ("PU numbers
    // hidden: hover or zoom", "Labels hidden: hover or zoom"); empty when every level
    // is labelled.
    QString labelsNote() const;
    Colors colors() const;
    // On a hybrid machine, the fill of a PU (`core`: of a core box) of this kind (CpuKind::index):
    // the most performant kind keeps the plain fills, each other kind has its own tint (the
    // legend over the map shows them). -1, or a machine with one kind: the plain fill.
    QColor kindFill(int kind, bool core) const;
    static QColor taskColor(int task);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void selectionChanged(const QVector<int>& osCpus);
    // labelsNote() changed (the map was laid out anew at another size or for another machine).
    void labelsNoteChanged(const QString& note);
    void pinTargetsChanged();
    void repinModeChanged(bool on);
    // The PU under the mouse changed (-1: none).
    void puHovered(int pu);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    // The label fonts at the layout's size, made once per paint (not once per box).
    struct LabelFonts {
        QFont regular, bold;
    };
    void paintBox(QPainter& painter, const LayoutBox& box, const Colors& colors, const LabelFonts& fonts) const;
    void paintPu(QPainter& painter, const LayoutBox& box, const Colors& colors, const LabelFonts& fonts) const;
    void paintHighlight(QPainter& painter, const Colors& colors) const;
    void paintMarkers(QPainter& painter, const Colors& colors) const;
    void paintPinTargets(QPainter& painter) const;
    void togglePinTarget(int osCpu);
    QString markersToolTip(int cpu) const;
    bool hasMarkersOn(int cpu) const;
    QFont markerFont() const;
    double markerHeight() const; // of a marker row, at the layout's size
    // Black or white, whichever reads better on the fill (WCAG relative luminance).
    static QColor textOn(const QColor& fill);
    QString puToolTip(const LayoutBox& box) const;
    QString containerToolTip(const LayoutBox& box) const;
    void emitSelection();
    QString fullNote() const; // why a click placed no task: every one is placed
    QString tasksText() const; // "1 task", "2 tasks": the limit
    // Every PU exists and is allowed; else why not.
    Status checkAllowed(const std::vector<int>& osCpus) const;

    double m_textScale = 1.0;
    std::optional<Topology> m_topology;
    TaskSelection m_selection;
    std::optional<PuPair> m_highlight;
    std::vector<ThreadMarker> m_markers; // ordered by CPU, then as given
    int m_taskLimit = 0;
    QString m_limitedBench;
    bool m_showsRun = false; // the selection is a run's placement (showPlacement), not the user's clicks
    bool m_repin = false;
    std::vector<int> m_pinTargets;
    int m_hoveredPu = -1; // OS index of the PU under the mouse
    mutable TopologyLayout m_layout;
    mutable bool m_layoutValid = false;
    QString m_shownNote; // the last labelsNote() announced
};

} // namespace ctxscope::gui
