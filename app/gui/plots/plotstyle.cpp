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
#include <cmath>
#include <numbers>

namespace ctxscope::gui {

namespace {

// The plot's properties that hold its value axis's two titles (setValueTitles).
constexpr const char* kValueTitle = "ctxscopeValueTitle";
constexpr const char* kValueTitleBrief = "ctxscopeValueTitleBrief";

} // namespace

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

namespace {

constexpr const char* kHintText = "ctxscopeHint"; // a hint item's text before it was broken into lines

// `text` broken at spaces into lines of at most `room` pixels (its own line breaks kept).
QString wrapHint(const QString& text, const QFontMetrics& metrics, int room)
{
    QStringList out;
    for (const QString& paragraph : text.split(QLatin1Char('\n'))) {
        QString line;
        for (const QString& word : paragraph.split(QLatin1Char(' '))) {
            const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
            if (!line.isEmpty() && metrics.horizontalAdvance(longer) > room) {
                out << line;
                line = word;
            } else {
                line = longer;
            }
        }
        out << line;
    }
    return out.join(QLatin1Char('\n'));
}

void fitHints(QCustomPlot& plot)
{
    const int room = std::max(120, plot.axisRect()->width() > 0 ? plot.axisRect()->width() - 16 : plot.width() - 80);
    for (int i = 0; i < plot.itemCount(); ++i)
        if (auto* item = qobject_cast<QCPItemText*>(plot.item(i)); item && item->property(kHintText).isValid())
            item->setText(wrapHint(item->property(kHintText).toString(), QFontMetrics(item->font()), room));
}

// Breaks a plot's hints again at each resize (a one-line hint was cut at both ends in a
// 370-pixel Programs page).
class HintFitter : public QObject {
public:
    explicit HintFitter(QCustomPlot& plot)
        : QObject(&plot)
        , m_plot(plot)
    {
        setObjectName(QStringLiteral("ctxscopeHintFitter"));
    }
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Resize)
            fitHints(m_plot);
        return QObject::eventFilter(watched, event);
    }

private:
    QCustomPlot& m_plot;
};

} // namespace

void addPlotHint(QCustomPlot& plot, const QString& text)
{
    auto* hint = new QCPItemText(&plot);
    hint->position->setType(QCPItemPosition::ptAxisRectRatio);
    hint->position->setCoords(0.5, 0.5);
    hint->setProperty(kHintText, text);
    hint->setColor(plot.palette().color(QPalette::PlaceholderText));
    hint->setFont(plot.xAxis->labelFont());
    if (!plot.findChild<QObject*>(QStringLiteral("ctxscopeHintFitter"), Qt::FindDirectChildrenOnly))
        plot.installEventFilter(new HintFitter(plot));
    fitHints(plot);
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
    // Tilted labels sit between the groups, not under theirs: only for a word no break fits.
    // Then each label is one line, and the angle is the least at which neighbouring labels stay
    // a line apart (wrapped and tilted, the articles' 19 groups ran into each other).
    double angle = 0;
    if (widest > lineRoom) {
        for (QString& label : labels)
            label.remove(QLatin1Char('\n'));
        constexpr double kDegree = std::numbers::pi / 180;
        angle = 90;
        for (const double tilt : { 30.0, 45.0, 60.0 })
            if (slot * std::sin(tilt * kDegree) >= metrics.lineSpacing()) {
                angle = tilt;
                break;
            }
    }
    ticker->setTicks(labels);
    axis.setTickLabelRotation(angle);
    fitValueTitle(axis);
}

void setValueTitles(QCPAxis& categoryAxis, const QString& full, const QString& brief)
{
    QCustomPlot* plot = categoryAxis.parentPlot();
    if (!plot->property(kValueTitle).isValid()) // after each layout, where the axis's length is known
        QObject::connect(plot, &QCustomPlot::afterLayout, plot, [&categoryAxis] { fitValueTitle(categoryAxis); });
    plot->setProperty(kValueTitle, full);
    plot->setProperty(kValueTitleBrief, brief);
    fitValueTitle(categoryAxis);
}

void fitValueTitle(QCPAxis& categoryAxis)
{
    QCustomPlot* plot = categoryAxis.parentPlot();
    const QString full = plot->property(kValueTitle).toString();
    if (full.isEmpty())
        return;
    QCPAxis* value = categoryAxis.axisRect()->axis(
        categoryAxis.orientation() == Qt::Horizontal ? QCPAxis::atLeft : QCPAxis::atBottom);
    // Along the axis as the last layout left it (before the first, the plot's own height): a
    // title longer than that was cut at both ends in a pane 170 pixels high.
    const QRect rect = categoryAxis.axisRect()->rect();
    int room = value->orientation() == Qt::Vertical ? rect.height() : rect.width();
    if (room <= 0)
        room = value->orientation() == Qt::Vertical ? plot->height() : plot->width();
    const bool fits = QFontMetrics(value->labelFont()).horizontalAdvance(full) <= room;
    value->setLabel(fits ? full : plot->property(kValueTitleBrief).toString());
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
    setValueTitles(*plot.xAxis,
        QCoreApplication::translate("ctxscope::gui::PlotStyle", "median time per op (log scale)"),
        QCoreApplication::translate("ctxscope::gui::PlotStyle", "median per op"));
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
