// SPDX-License-Identifier: MIT
#pragma once

#include "plotdata.h"

#include "ctxscope/result.h"

#include <QColor>
#include <QSharedPointer>
#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

class QCustomPlot;
class QCPAxisTicker;
class QCPGraph;
class QCPItemText;
class QTimer;

namespace ctxscope::gui {

// Samples of each run as they arrive (a scatter in time order) with a running-median line,
// several runs overlaid. Samples are added as they come and drawn by a timer, so a fast
// stream never waits for painting. Every sample is kept; the scatter draws a thinned copy
// (thinScatter: each pixel column's extremes plus an even selection), so a redraw costs about
// the same at 10^5 and at 10^6 samples.
class LivePlot : public QWidget {
    Q_OBJECT
public:
    // Streamed samples are drawn at most every kStreamIntervalMs and, after a redraw that cost
    // c ms (thinning and QCustomPlot's replot), no sooner than c / kStreamDrawShare: drawing a
    // run as it streams keeps the app's own time near 2% of one CPU, so the app stays out of
    // the measurement it shows (docs/performance.md, "the app's CPU share during a run"); never
    // longer than kMaxRedrawIntervalMs apart, so the plot stays live. Anything else (a run begun
    // or ended, the scale, a highlight, a repetition's end on the quiet stage) is drawn within
    // kRedrawIntervalMs.
    static constexpr int kRedrawIntervalMs = 33;
    static constexpr int kStreamIntervalMs = 250;
    static constexpr double kStreamDrawShare = 0.02;
    static constexpr int kMaxRedrawIntervalMs = 1000;
    static constexpr int kMedianWindow = static_cast<int>(kTraceMedianWindow); // as a file's prepared trace
    // Per run; more are still counted in the median line but not kept as points.
    static constexpr std::size_t kMaxPoints = 1 << 21;
    // The scatter is thinned to buckets of kColumnPixels pixel columns, each drawing its
    // minimum, its maximum and kPointsPerColumn evenly spaced samples: about 2000 discs on a
    // 1000-pixel plot, which QCustomPlot paints well within a 33 ms redraw.
    static constexpr int kColumnPixels = 2;
    static constexpr std::size_t kPointsPerColumn = 2;
    // Clouds drawn at once: the newest shown runs' and the highlighted one's. Forty overlaid clouds
    // are one grey smear and cost a replot 40 times 2000 antialiased discs (over a second for a
    // session of 40 runs); every run keeps its median line, and highlighting a run (selecting
    // its row) brings its cloud back.
    static constexpr std::size_t kCloudRuns = 4;

    explicit LivePlot(QWidget* parent = nullptr);

    void beginRun(quint64 id, const QString& label, const QColor& color);
    void addSamples(quint64 id, const QVector<double>& nsPerOp);
    // The run ended; with its result (which carries every sample unrounded, unless the run was
    // too long to send them), the curve holds the result's samples from then on, not the
    // stream's 6-digit copies, and the copies are freed.
    void finishRun(quint64 id, std::shared_ptr<const RunResult> result = nullptr);
    // A finished run read from a file, its medians and extremes prepared off the GUI thread.
    // Its samples are shared with the result, not copied (a session holds many MBs of them).
    void addFinishedRun(quint64 id, const QString& label, const QColor& color, std::shared_ptr<const RunResult> result,
        const PreparedTrace& trace);
    void removeRun(quint64 id);
    void clear();
    // Emphasises one run and fades the others; nothing: all alike.
    void highlightRun(std::optional<quint64> id);
    std::optional<quint64> highlightedRun() const { return m_highlight; }
    // The runs on show (one stage: a lesson's or the last run's); nothing: every run. The others
    // keep their samples but draw nothing and leave the legend.
    void setShownRuns(std::optional<std::set<quint64>> ids);
    bool isShown(quint64 id) const;

    void setLogScale(bool on);
    bool logScale() const { return m_log; }
    // The empty plot's hint: how to start a run, or (runs off) why none can start.
    void setRunsDisabled(bool off);
    QString hintText() const;
    // The quiet stage: streamed samples are kept but not drawn while they stream; drawHeld()
    // (a repetition ended) and a run's end draw them. Nothing else changes.
    void setQuietStage(bool on);
    bool quietStage() const { return m_quiet; }
    // Draws what streamed since the last redraw within kRedrawIntervalMs (a repetition ended).
    void drawHeld();

    QCustomPlot* plot() const { return m_plot; }
    // Every sample kept for a run, in arrival order (empty for an unknown run).
    std::span<const double> samples(quint64 id) const;
    void restyle(); // colours and fonts again from the palette and font
    QCPGraph* samplesGraph(quint64 id) const; // the drawn (thinned) scatter
    bool cloudShown(quint64 id) const; // whether its scatter is drawn now (kCloudRuns)
    QCPGraph* medianGraph(quint64 id) const;
    int redrawCount() const { return m_redraws; }
    // What the last redraw cost (thinning and QCustomPlot's replot), and the wait it sets
    // before the next streamed one: that cost / kStreamDrawShare, within [kStreamIntervalMs,
    // kMaxRedrawIntervalMs].
    double lastRedrawCostMs() const;
    int redrawDelayMs() const;

private:
    struct Series {
        QCPGraph* samples = nullptr;
        QCPGraph* median = nullptr;
        RunningMedian running { kMedianWindow };
        std::vector<double> values; // every kept sample of a run streamed here
        std::shared_ptr<const RunResult> finished; // a finished run's result: its samples, shared
        std::span<const double> all() const; // the samples, wherever they are kept
        bool stale = false; // values changed since the scatter was thinned
        quint64 begun = 0; // order of beginRun, newest highest
        QColor color;
        double min = 0;
        double max = 0;
        double maxMedian = 0;
    };
    enum class Pace { Stream, Now };
    void scheduleRedraw(Pace pace = Pace::Now);
    void redraw();
    void addMedianPoints(Series& series, const std::vector<MedianPoint>& points);
    void thin(Series& series) const;
    void applyStyle(const Series& series, bool emphasised, bool faded);
    void chooseClouds(); // shows the newest kCloudRuns clouds of the runs on show and the highlighted one

    QCustomPlot* m_plot = nullptr;
    QCPItemText* m_hint = nullptr;
    QTimer* m_redrawTimer = nullptr;
    QSharedPointer<QCPAxisTicker> m_linearTicker;
    QSharedPointer<QCPAxisTicker> m_logTicker;
    std::map<quint64, Series> m_series;
    std::optional<quint64> m_highlight;
    std::optional<std::set<quint64>> m_shown; // nothing: all
    bool m_log = true;
    bool m_quiet = false;
    int m_redraws = 0;
    double m_thinMs = 0; // thinning in the last redraw (QCustomPlot times its own replot)
    quint64 m_begun = 0;
};

} // namespace ctxscope::gui
