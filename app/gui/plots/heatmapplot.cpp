// SPDX-License-Identifier: MIT
#include "heatmapplot.h"

#include "durationlogticker.h"
#include "durationticker.h"
#include "plotstyle.h"
#include "qcp.h"

#include "ctxscope/units.h"

#include <QComboBox>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

namespace ctxscope::gui {

namespace {
constexpr int kMaxLabelledPus = 16;
constexpr int kMinLabelPixels = 7; // below this a printed value is noise; the tooltip has it

QString valueName(HeatValue value)
{
    switch (value) {
    case HeatValue::RoundTrip:
        return HeatmapPlot::tr("median round trip");
    case HeatValue::PerSwitch:
        return HeatmapPlot::tr("cost per switch");
    case HeatValue::OneWay:
        return HeatmapPlot::tr("one-way hand-over");
    }
    return {};
}
} // namespace

HeatmapPlot::HeatmapPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    m_title = new QLabel(this);
    m_title->setWordWrap(true); // a long origin wraps instead of widening the plots
    m_valueChooser = new QComboBox(this);
    offerValues();
    bar->addWidget(m_title, 1);
    bar->addWidget(m_valueChooser);
    layout->addLayout(bar);
    layout->addWidget(m_plot, 1);
    connect(m_valueChooser, &QComboBox::currentIndexChanged, this, &HeatmapPlot::rebuild);

    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    // The legend of the measured-pair rings sits under the cells, never on them (inset, it
    // covered the top row of a small matrix).
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setDataScaleType(QCPAxis::stLogarithmic);
    m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new DurationLogTicker));
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setColorScale(m_scale);
    // Viridis: ordered in lightness, readable by colour-blind viewers, and its top (yellow)
    // stays visible on a white background where a thermal gradient's white would vanish.
    QCPColorGradient viridis;
    viridis.setColorStops({ { 0.0, QColor(0x44, 0x01, 0x54) }, { 0.25, QColor(0x3b, 0x52, 0x8b) },
        { 0.5, QColor(0x21, 0x91, 0x8c) }, { 0.75, QColor(0x5e, 0xc9, 0x62) }, { 1.0, QColor(0xfd, 0xe7, 0x25) } });
    m_map->setGradient(viridis);
    m_map->setInterpolate(false);
    m_marks = m_plot->addGraph();
    m_marks->setLineStyle(QCPGraph::lsNone);
    m_plot->xAxis->setLabel(tr("task B on PU (P#)"));
    m_plot->yAxis->setLabel(tr("task A on PU (P#)"));
    m_plot->yAxis->setRangeReversed(true); // row 0 on top, as a matrix reads
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &HeatmapPlot::mouseMoved);
    connect(m_plot, &QCustomPlot::mousePress, this, &HeatmapPlot::mousePressed);
    connect(m_plot, &QCustomPlot::afterLayout, this, &HeatmapPlot::fitCellLabels);
    restyle();
}

void HeatmapPlot::restyle()
{
    stylePlot(*m_plot);
    const QColor text = palette().color(QPalette::Text);
    QCPAxis* axis = m_scale->axis();
    axis->setBasePen(QPen(text));
    axis->setTickPen(QPen(text));
    axis->setSubTickPen(QPen(text));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->setTickLabelFont(m_plot->xAxis->tickLabelFont());
    axis->setLabelFont(m_plot->xAxis->labelFont());
    rebuild();
}

void HeatmapPlot::setMatrix(std::shared_ptr<const MatrixResult> matrix, const QString& origin)
{
    m_matrix = std::move(matrix);
    m_origin = origin;
    offerValues();
    rebuild();
}

void HeatmapPlot::setValue(HeatValue value)
{
    const int index = m_valueChooser->findData(static_cast<int>(value));
    if (index >= 0)
        m_valueChooser->setCurrentIndex(index);
}

HeatValue HeatmapPlot::value() const { return static_cast<HeatValue>(m_valueChooser->currentData().toInt()); }

// A spin matrix is read one-way (no context switch to cost); the others by round trip or per
// switch. The choice stays while the next matrix offers the same values.
void HeatmapPlot::offerValues()
{
    const bool handoff = m_matrix && isHandoffMatrix(*m_matrix);
    const std::array<HeatValue, 2> offered = handoff ? std::array { HeatValue::OneWay, HeatValue::RoundTrip }
                                                     : std::array { HeatValue::RoundTrip, HeatValue::PerSwitch };
    if (m_valueChooser->count() == 2 && m_valueChooser->itemData(0).toInt() == static_cast<int>(offered[0]))
        return;
    const QSignalBlocker quiet(m_valueChooser);
    m_valueChooser->clear();
    for (const HeatValue v : offered)
        m_valueChooser->addItem(valueName(v), static_cast<int>(v));
}

void HeatmapPlot::rebuild()
{
    const HeatValue value = this->value();
    m_grid = HeatmapGrid(m_matrix, value);
    const int n = m_grid.size();
    m_map->data()->setSize(std::max(n, 1), std::max(n, 1));
    m_map->data()->setRange(QCPRange(0, std::max(n - 1, 0)), QCPRange(0, std::max(n - 1, 0)));
    QVector<double> markX, markY;
    const bool someFilled = m_matrix && m_matrix->matrixMode == MatrixMode::Classes;
    // 512 PUs are 262,144 cells: one pass, and an alpha map only for the cells left empty.
    m_map->data()->clearAlpha();
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            const auto v = m_grid.valueAt(x, y);
            m_map->data()->setCell(x, y, v ? *v : m_grid.minValue());
            if (!v)
                m_map->data()->setAlpha(x, y, 0);
            if (!someFilled)
                continue;
            const MatrixCell* cell = m_grid.cellAt(x, y);
            if (cell && cell->measured) {
                markX << x;
                markY << y;
            }
        }
    }
    if (n == 0)
        m_map->data()->fillAlpha(0);
    m_marks->setData(markX, markY);
    addCellLabels();
    const double cellPixels = n > 0 ? std::max(4.0, 360.0 / n) : 8;
    m_marks->setScatterStyle(QCPScatterStyle(
        QCPScatterStyle::ssCircle, QPen(Qt::white, 1.6), Qt::NoBrush, std::clamp(cellPixels * 0.6, 5.0, 14.0)));
    m_marks->setName(tr("measured pair (others filled from their class)"));
    m_plot->legend->setVisible(someFilled && !markX.isEmpty());
    if (m_grid.maxValue() > 0)
        m_map->setDataRange(QCPRange(m_grid.minValue(), std::max(m_grid.maxValue(), m_grid.minValue() * 1.01)));
    m_scale->axis()->setLabel(valueName(value));

    // P# labels, thinned to about 16 so 256 PUs stay readable.
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const int every = std::max(1, static_cast<int>(std::ceil(n / 16.0)));
    for (int i = 0; i < n; i += every)
        ticker->addTick(i, QString::number(m_grid.pus()[static_cast<std::size_t>(i)]));
    for (QCPAxis* axis : { m_plot->xAxis, m_plot->yAxis }) {
        axis->setTicker(ticker);
        axis->setSubTicks(false);
        axis->grid()->setVisible(false);
        axis->setRange(-0.5, std::max(n, 1) - 0.5);
    }
    if (m_matrix)
        m_title->setText(tr("<b>%1 %2</b>, %3 PUs%4%5")
                             .arg(QString::fromStdString(m_matrix->bench),
                                 QString::fromStdString(std::string(toString(m_matrix->mode))))
                             .arg(n)
                             .arg(m_matrix->matrixMode == MatrixMode::Classes
                                     ? tr(": one pair per relation class measured (ringed), the rest filled")
                                     : tr(": every pair measured"))
                             .arg(m_origin.isEmpty() ? QString() : QStringLiteral(" — ") + m_origin));
    else
        m_title->setText(tr("Open a matrix (ctxscope-cli matrix futex --json FILE) to see every pair of PUs."));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// Small matrices carry their values in the cells, so a class can read the numbers.
void HeatmapPlot::addCellLabels()
{
    m_plot->clearItems();
    m_labels.clear();
    const int n = m_grid.size();
    if (n > kMaxLabelledPus)
        return;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            if (const auto v = m_grid.valueAt(x, y)) {
                auto* label = new QCPItemText(m_plot);
                label->position->setCoords(x, y);
                label->setText(QString::fromStdString(formatDuration(*v)));
                const bool light = m_grid.maxValue() > m_grid.minValue()
                    && (*v - m_grid.minValue()) / (m_grid.maxValue() - m_grid.minValue()) > 0.6;
                label->setColor(light ? Qt::black : Qt::white);
                label->setPadding(QMargins());
                m_labels.push_back(label);
            }
}

// After each layout (a resize, a new matrix): the largest type up to the axes' own that lets
// every value fit its cell, or no values when even kMinLabelPixels does not.
void HeatmapPlot::fitCellLabels()
{
    if (m_labels.isEmpty())
        return;
    const double cellWidth = std::abs(m_plot->xAxis->coordToPixel(1) - m_plot->xAxis->coordToPixel(0));
    const double cellHeight = std::abs(m_plot->yAxis->coordToPixel(1) - m_plot->yAxis->coordToPixel(0));
    QFont font = m_plot->xAxis->tickLabelFont();
    int pixels = QFontInfo(font).pixelSize();
    const auto fits = [&] {
        font.setPixelSize(pixels);
        const QFontMetricsF fm(font);
        if (fm.height() > cellHeight)
            return false;
        return std::all_of(m_labels.begin(), m_labels.end(),
            [&](const QCPItemText* label) { return fm.horizontalAdvance(label->text()) + 4 <= cellWidth; });
    };
    while (pixels > kMinLabelPixels && !fits())
        --pixels;
    const bool visible = fits();
    for (QCPItemText* label : std::as_const(m_labels)) {
        label->setFont(font);
        label->setVisible(visible);
    }
}

QString HeatmapPlot::toolTipAt(int x, int y) const
{
    const MatrixCell* cell = m_grid.cellAt(x, y);
    if (!cell)
        return {};
    const int a = m_grid.pus()[static_cast<std::size_t>(y)];
    const int b = m_grid.pus()[static_cast<std::size_t>(x)];
    QString text = tr("P#%1 ↔ P#%2 · %3\nround trip %4")
                       .arg(a)
                       .arg(b)
                       .arg(QString::fromStdString(std::string(toString(cell->relation))),
                           QString::fromStdString(formatDuration(cell->medianNs)));
    if (isHandoffMatrix(*m_grid.matrix()))
        text += tr(", %1 one way").arg(QString::fromStdString(formatDuration(cell->medianNs / 2)));
    else if (cell->perSwitchNs)
        text += tr(", %1 per switch").arg(QString::fromStdString(formatDuration(*cell->perSwitchNs)));
    text += cell->measured ? tr("\nmeasured on this pair") : tr("\nfilled from its class's representative pair");
    return text;
}

QPoint HeatmapPlot::cellAtPixel(const QPointF& pos) const
{
    const int x = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pos.x())));
    const int y = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pos.y())));
    if (!m_plot->axisRect()->rect().contains(pos.toPoint()) || !m_grid.cellAt(x, y))
        return { -1, -1 };
    return { x, y };
}

void HeatmapPlot::mouseMoved(QMouseEvent* event)
{
    const QPoint cell = cellAtPixel(event->position());
    const QString text = cell.x() < 0 ? QString() : toolTipAt(cell.x(), cell.y());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

void HeatmapPlot::mousePressed(QMouseEvent* event)
{
    const QPoint cell = cellAtPixel(event->position());
    if (cell.x() < 0)
        return;
    emit pairClicked(
        m_grid.pus()[static_cast<std::size_t>(cell.y())], m_grid.pus()[static_cast<std::size_t>(cell.x())]);
}

} // namespace ctxscope::gui
