// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/result.h"

#include <QColor>
#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPAbstractItem;
class QCPGraph;
class QCPItemText;

namespace ctxscope::gui {

// The distribution of each finished run's samples (from the engine's histogram, so every
// sample counts even when raw samples were capped): a log-binned histogram or a CDF on a
// logarithmic time axis, with p50 and p99 marked, several runs overlaid.
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
    void addMarker(Run& run, double ns, const QString& name, int index, Qt::PenStyle style, bool faded);
    void placeLabels(); // after layout, when pixel positions are known

    std::vector<Label> m_labels;
    QCustomPlot* m_plot = nullptr;
    QCPItemText* m_hint = nullptr;
    std::map<quint64, Run> m_runs; // by id: the order they were measured in
    std::optional<quint64> m_highlight;
    Mode m_mode = Mode::Histogram;
};

} // namespace ctxscope::gui
