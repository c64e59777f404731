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
// task on the same PU. PUs outside the allowed set are greyed and say why.
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
    std::optional<Relation> selectionRelation() const;
    QString selectionSummary() const;

    // Threads of a watched program, each drawn as a small labelled marker on the PU it last
    // ran on (topologymapmarkers.cpp); selected ones stand out. Empty: none.
    struct ThreadMarker {
        int cpu = -1;
        QString label; // its TID
        QString name; // the thread's name, for the tooltip
        bool selected = false;
    };
    void setThreadMarkers(std::vector<ThreadMarker> markers);
    const std::vector<ThreadMarker>& threadMarkers() const { return m_markers; }

    // Outlines a pair of PUs, e.g. the representative pair of a relation class.
    void setHighlightedPair(std::optional<PuPair> pair);
    std::optional<PuPair> highlightedPair() const { return m_highlight; }

    QString toolTipAt(const QPointF& pos) const;
    // What the layout leaves unlabelled at this size, for the caption over the map ("PU numbers
    // hidden: hover or zoom", "No labels at this size: hover or zoom"); empty when every level
    // is labelled.
    QString labelsNote() const;
    Colors colors() const;
    static QColor taskColor(int task);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void selectionChanged(const QVector<int>& osCpus);
    // labelsNote() changed (the map was laid out anew at another size or for another machine).
    void labelsNoteChanged(const QString& note);

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
    QString markersToolTip(int cpu) const;
    bool hasMarkersOn(int cpu) const;
    QFont markerFont() const;
    double markerHeight() const; // of a marker row, at the layout's size
    // Black or white, whichever reads better on the fill (WCAG relative luminance).
    static QColor textOn(const QColor& fill);
    QString puToolTip(const LayoutBox& box) const;
    QString containerToolTip(const LayoutBox& box) const;
    void emitSelection();

    double m_textScale = 1.0;
    std::optional<Topology> m_topology;
    TaskSelection m_selection;
    std::optional<PuPair> m_highlight;
    std::vector<ThreadMarker> m_markers; // ordered by CPU, then as given
    int m_hoveredPu = -1; // OS index of the PU under the mouse
    mutable TopologyLayout m_layout;
    mutable bool m_layoutValid = false;
    QString m_shownNote; // the last labelsNote() announced
};

} // namespace ctxscope::gui
