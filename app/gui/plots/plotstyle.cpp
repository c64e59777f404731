// SPDX-License-Identifier: MIT
#include "plotstyle.h"

#include "apppalette.h"
#include "bytesticker.h"
#include "durationlogticker.h"
#include "durationticker.h"
#include "qcp.h"

#include <QCoreApplication>
#include <QEvent>
#include <QFontMetrics>
#include <QMap>
#include <QVBoxLayout>

#include <array>

namespace ctxscope::gui {

QColor runColor(int index, const QPalette& palette)
{
    static const std::array<QColor, 6> hues { QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00),
        QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7), QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9) };
    const auto n = static_cast<std::size_t>(std::max(index, 0)) % (hues.size() + 1);
    return n < hues.size() ? hues[n] : palette.color(QPalette::Text);
}

QColor machineColor(int index, const QPalette& palette)
{
    // Apart from each other by a redmean distance of 100 or more (and from the run colours).
    static const std::array<QColor, kMachineColors - 7> more { QColor(0x8C, 0x56, 0x4B), QColor(0x6A, 0x3D, 0x9A),
        QColor(0x99, 0x99, 0x99), QColor(0x33, 0xA0, 0x2C), QColor(0xFB, 0x9A, 0x99), QColor(0x1F, 0x1F, 0x7A),
        QColor(0xB2, 0xDF, 0x8A), QColor(0xA6, 0xCE, 0xE3), QColor(0x7F, 0x00, 0x00) };
    const int n = std::max(index, 0) % kMachineColors;
    return n < 7 ? runColor(n, palette) : more[static_cast<std::size_t>(n - 7)];
}

QColor strongShade(const QColor& color, const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128 ? color.lighter(150) : color.darker(160);
}

void stylePlot(QCustomPlot& plot)
{
    const QPalette& pal = plot.palette();
    const QColor text = pal.color(QPalette::Text);
    // Faint dotted grid normally; on the high-contrast palette (presentation mode) one that a
    // projector does not wash out.
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(contrastRatio(text, pal.color(QPalette::Base)) >= 20 ? 200 : 90);
    QFont font = plot.font();
    font.setPointSizeF(font.pointSizeF() * 1.1);
    QFont labelFont = font;
    labelFont.setBold(true);

    plot.setBackground(pal.brush(QPalette::Base));
    for (QCPAxis* axis : plot.axisRect()->axes()) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->setTickLabelFont(font);
        axis->setLabelFont(labelFont);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        axis->grid()->setSubGridVisible(false);
    }
    QColor legendBack = pal.color(QPalette::Base);
    legendBack.setAlpha(225);
    plot.legend->setBrush(QBrush(legendBack));
    plot.legend->setBorderPen(QPen(pal.color(QPalette::Mid)));
    plot.legend->setTextColor(text);
    plot.legend->setFont(font);
}

void addPlotHint(QCustomPlot& plot, const QString& text)
{
    auto* hint = new QCPItemText(&plot);
    hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    hint->position->setCoords(0.5, 0.5);
    hint->setText(text);
    hint->setColor(plot.palette().color(QPalette::PlaceholderText));
    hint->setFont(plot.xAxis->labelFont());
}

void useCategoryAxis(QCPAxis& axis, const QSharedPointer<QCPAxisTickerText>& ticker, int count)
{
    axis.setTicker(ticker);
    axis.setSubTicks(false);
    axis.grid()->setVisible(false);
    axis.setRange(0.4, std::max(count, 1) + 0.6);
    fitCategoryLabels(axis);
}

QString wrapCategoryLabel(const QString& label, const QFontMetrics& metrics, int room)
{
    QStringList words; // each ends with its break: "futex/", "thread/", "shared-l3"
    qsizetype start = 0;
    for (qsizetype i = 0; i < label.size(); ++i)
        if (label[i] == QLatin1Char('/') || label[i] == QLatin1Char(' ') || label[i] == QLatin1Char('-')) {
            words << label.mid(start, i + 1 - start);
            start = i + 1;
        }
    words << label.mid(start);
    QStringList lines;
    for (const QString& word : words) {
        if (!lines.isEmpty() && metrics.horizontalAdvance(lines.back() + word) <= room)
            lines.back() += word;
        else
            lines << word;
    }
    return lines.join(QLatin1Char('\n'));
}

void fitCategoryLabels(QCPAxis& axis)
{
    const auto ticker = axis.ticker().dynamicCast<QCPAxisTickerText>();
    if (!ticker)
        return;
    const QFontMetrics metrics(axis.tickLabelFont());
    // The axis rect's margins are known after the first layout; before it they are 0 and
    // the room is overestimated by the width of the value axis, which the next resize corrects.
    const QMargins margins = axis.axisRect()->margins();
    const double room = axis.parentPlot()->width() - margins.left() - margins.right();
    const double slot = room / std::max(axis.range().size(), 1.0);
    const int lineRoom = static_cast<int>(slot) - metrics.averageCharWidth();
    // Each label whole again ("\n" is only ever a break made here), then broken to its slot.
    QMap<double, QString> labels = ticker->ticks();
    int widest = 0;
    for (QString& label : labels) {
        label = wrapCategoryLabel(label.remove(QLatin1Char('\n')), metrics, lineRoom);
        for (const QString& line : label.split(QLatin1Char('\n')))
            widest = std::max(widest, metrics.horizontalAdvance(line));
    }
    ticker->setTicks(labels);
    // Tilted labels sit between the groups, not under theirs: only for a word no break fits.
    axis.setTickLabelRotation(widest > lineRoom ? 30 : 0);
}

namespace {

class CategoryLabelFitter : public QObject {
public:
    CategoryLabelFitter(QCPAxis& axis)
        : QObject(axis.parentPlot())
        , m_axis(axis)
    {
    }
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Resize) // before the plot's own resizeEvent replots
            fitCategoryLabels(m_axis);
        return QObject::eventFilter(watched, event);
    }

private:
    QCPAxis& m_axis;
};

} // namespace

void keepCategoryLabelsFitting(QCPAxis& axis) { axis.parentPlot()->installEventFilter(new CategoryLabelFitter(axis)); }

void setUpMedianBarChart(QWidget& owner, QCustomPlot& plot)
{
    auto* layout = new QVBoxLayout(&owner);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(&plot);
    plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new DurationLogTicker));
    plot.yAxis->setLabel(QCoreApplication::translate("ctxscope::gui::PlotStyle", "median time per op (log scale)"));
    keepCategoryLabelsFitting(*plot.xAxis);
    plot.legend->setVisible(true);
}

void setUpWorkingSetAxes(QCustomPlot& plot, const QString& timeLabel)
{
    plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BytesLog2Ticker));
    plot.xAxis->setLabel(
        QCoreApplication::translate("ctxscope::gui::PlotStyle", "working set per task (bytes, log scale)"));
    plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new DurationLogTicker));
    plot.yAxis->setLabel(timeLabel);
    plot.legend->setVisible(true);
    plot.plotLayout()->addElement(1, 0, plot.legend);
    plot.plotLayout()->setRowStretchFactor(1, 0.001);
    plot.legend->setFillOrder(QCPLegend::foColumnsFirst);
}

} // namespace ctxscope::gui
