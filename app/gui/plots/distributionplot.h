// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/result.h"

#include <QColor>
#include <QRectF>
#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

class QCustomPlot;
class QCPAbstractItem;
class QCPGraph;
class QCPItemText;

namespace ctxscope::gui {

// The distribution of each finished run's samples (from the engine's histogram, so every
// sample counts even when raw samples were capped): a log-binned histogram or a CDF on a
// logarithmic time axis, with p50 and p99 marked, the runs on show overlaid. The y-axis is a
// share of one run's samples, so it never passes 100%. The p50/p99 labels are placed in rows
// so that none covers another; with a run highlighted, only its labels show, and a label
// with no room left is not drawn.
class DistributionPlot : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Histogram, Cdf };
    static constexpr int kBinsPerOctave = 8;

    explicit DistributionPlot(QWidget* parent = nullptr);

    void addResult(quint64 id, std::shared_ptr<const RunResult> result, const QString& label, const QColor& color);
    void removeRun(quint64 id);
    void clear();
    void highlightRun(std::optional<quint64> id);
    std::optional<quint64> highlightedRun() const { return m_highlight; }
    // The runs on show (one stage: a lesson's or the last run's); nothing: every run.
    void setShownRuns(std::optional<std::set<quint64>> ids);
    bool isShown(quint64 id) const;
    // The p50/p99 labels drawn now, in pixels (after a replot), for checking that none overlap.
    std::vector<QRectF> labelRects() const;
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }

    QCustomPlot* plot() const { return m_plot; }
    void restyle(); // colours and fonts again from the palette and font
    QCPGraph* graph(quint64 id) const;

private:
    struct Run {
        std::shared_ptr<const RunResult> result;
        QString label;
        QColor color;
        QCPGraph* graph = nullptr;
        std::vector<QCPAbstractItem*> markers;
    };
    struct Label {
        QCPItemText* item = nullptr;
        double ns = 0;
        bool preferLeft = false;
    };
    void rebuild();
    void drawRun(Run& run, int index, bool faded, bool emphasised);
    void addMarker(Run& run, double ns, const QString& name, int index, Qt::PenStyle style, bool faded, bool labelled);
    void placeLabels(); // after layout, when pixel positions are known

    std::vector<Label> m_labels;
    QCustomPlot* m_plot = nullptr;
    QCPItemText* m_hint = nullptr;
    std::map<quint64, Run> m_runs; // by id: the order they were measured in
    std::optional<quint64> m_highlight;
    std::optional<std::set<quint64>> m_shown; // nothing: all
    Mode m_mode = Mode::Histogram;
};

} // namespace ctxscope::gui
