// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QString>

class QCPAxis;
class QCPAxisTickerText;
class QCustomPlot;
class QFontMetrics;
class QPalette;
class QWidget;
class QString;
template <typename T> class QSharedPointer;

namespace ctxscope::gui {

// The colour of the n-th run: Okabe-Ito hues (told apart by colour-blind viewers and on a
// washed-out projector), then the palette's text colour; yellow is left out, unreadable on white.
QColor runColor(int index, const QPalette& palette);

// The colour of the n-th machine in Compare machines: the run colours first, then ten more, so
// that sixteen machines (a few cards and the articles' thirteen) are sixteen colours; beyond
// that they repeat.
QColor machineColor(int index, const QPalette& palette);
inline constexpr int kMachineColors = 16;

// A run colour pushed away from the background (darker on a light one, lighter on a dark
// one), for lines drawn over that run's own points: a darkened blue vanished on black.
QColor strongShade(const QColor& color, const QPalette& palette);

// Background, axes, grid, labels and legend from the widget palette (dark themes work),
// with fonts a little larger than the UI's for a projector.
void stylePlot(QCustomPlot& plot);

// A grey sentence in the middle of an empty plot saying how to fill it.
void addPlotHint(QCustomPlot& plot, const QString& text);

// A bar chart's category axis: a label per bar at 1, 2, ... count, no grid or sub ticks;
// a label wider than its bar's slot breaks into lines after "/", " " or "-", centred under its
// group (fitCategoryLabels); only a word wider than the slot tilts them all.
void useCategoryAxis(QCPAxis& axis, const QSharedPointer<QCPAxisTickerText>& ticker, int count);
void fitCategoryLabels(QCPAxis& axis);
// `label` broken after "/", " " or "-" into lines of at most `room` pixels where it can be
// (a word wider than that stays whole on its line).
QString wrapCategoryLabel(const QString& label, const QFontMetrics& metrics, int room);
// Fits the axis's category labels again whenever its plot is resized.
void keepCategoryLabelsFitting(QCPAxis& axis);
// The value axis's title beside a category axis: `full` where the axis is long enough for it,
// else `brief`; fitted again with the category labels (fitValueTitle).
void setValueTitles(QCPAxis& categoryAxis, const QString& full, const QString& brief);
void fitValueTitle(QCPAxis& categoryAxis);

// The ladder's and Compare's frame: `plot` filling `owner`, the median time per op on a log
// duration axis, category labels kept fitting, the legend on.
void setUpMedianBarChart(QWidget& owner, QCustomPlot& plot);

// The working-set charts' axes (Working set, Compare machines' Working set tab): bytes per task
// across on a log2 axis, `timeLabel` up on a log duration axis, the legend under the plot.
void setUpWorkingSetAxes(QCustomPlot& plot, const QString& timeLabel);

} // namespace ctxscope::gui
