// SPDX-License-Identifier: MIT
#include "topologymappanel.h"

#include "apppalette.h"
#include "elidedline.h"
#include "mapscrollarea.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace ctxscope::gui {

TopologyMapPanel::TopologyMapPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    // Short words: the bar fits the map's least width (300 pixels) beside a lesson at 1280.
    auto* chooserLabel = new QLabel(tr("&Class:"), this);
    chooserLabel->setToolTip(tr("Relation class: how far apart two PUs are (same PU, same core, shared L3, ...)"));
    m_relations = new QComboBox(this);
    // A dozen characters, the popup shows the rest: sized to its longest pair the bar held the
    // map 470 pixels wide, and a lesson's row past a 1280 screen.
    m_relations->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_relations->setMinimumContentsLength(8);
    m_relations->setToolTip(tr("Highlights a pair of allowed PUs with this relation on the map"));
    chooserLabel->setBuddy(m_relations);
    m_usePair = new QPushButton(tr("&Use pair"), this);
    m_usePair->setToolTip(tr("Place tasks A and B on the highlighted pair"));
    m_usePair->setEnabled(false);
    m_clear = new QPushButton(tr("C&lear"), this);
    m_clear->setToolTip(tr("Remove all tasks from the map"));
    bar->addWidget(chooserLabel);
    bar->addWidget(m_relations);
    bar->addWidget(m_usePair);
    bar->addStretch(1);
    bar->addWidget(m_clear);
    // What this size leaves unlabelled, on its own line under the bar (MapCaption), with the zoom
    // buttons at its end: there they leave the bar as narrow as it was, so a lesson beside the
    // plots still leaves the map its room (LessonController::fitRow).
    auto* captionRow = new QHBoxLayout;
    auto* caption = new ElidedLine(this);
    caption->setObjectName(QStringLiteral("mapLabelsNote"));
    m_note = caption;
    captionRow->addWidget(caption, 1);
    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("mapKindLegend"));
    m_legend->setTextFormat(Qt::RichText);
    m_legend->hide();
    captionRow->addWidget(m_legend);

    m_map = new TopologyMapWidget;
    m_view = new MapScrollArea(m_map, this);
    const auto zoomButton = [&](const QString& text, const QString& tip, void (MapScrollArea::*slot)()) {
        auto* button = new QToolButton(this);
        button->setText(text);
        button->setToolTip(tip);
        button->setAutoRaise(true);
        button->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed); // the caption has the rest
        connect(button, &QToolButton::clicked, m_view, slot);
        captionRow->addWidget(button);
    };
    zoomButton(tr("−"), tr("Zoom out (-, Ctrl+wheel)"), &MapScrollArea::zoomOut);
    zoomButton(tr("+"), tr("Zoom in (+, Ctrl+wheel): labels come back as the boxes grow"), &MapScrollArea::zoomIn);
    zoomButton(tr("Fit"), tr("The whole machine in the pane (0)"), &MapScrollArea::resetZoom);
    // One line whatever it says (cut short, whole in the tooltip): a click that places B on a
    // large machine never wraps it and so never moves the map under the mouse.
    m_summary = new ElidedLine(this);
    m_summary->setObjectName(QStringLiteral("mapSummary"));
    applySummaryFont();
    layout->addLayout(bar);
    layout->addLayout(captionRow);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_summary);

    connect(m_relations, &QComboBox::currentIndexChanged, this, &TopologyMapPanel::relationChosen);
    connect(m_usePair, &QPushButton::clicked, this, &TopologyMapPanel::useHighlightedPair);
    connect(m_clear, &QPushButton::clicked, m_map, &TopologyMapWidget::clearSelection);
    connect(m_map, &TopologyMapWidget::selectionChanged, this, &TopologyMapPanel::updateSummary);
    connect(m_map, &TopologyMapWidget::pinTargetsChanged, this, &TopologyMapPanel::updateSummary);
    connect(m_map, &TopologyMapWidget::repinModeChanged, this, &TopologyMapPanel::updateSummary);
    // Queued: the map announces its note while it paints.
    connect(
        m_map, &TopologyMapWidget::labelsNoteChanged, caption,
        [caption](const QString& note) {
            caption->setFullText(note);
            caption->setToolTip(note.isEmpty() ? QString()
                                               : note + QLatin1Char('\n')
                        + tr("The map is too small for these labels at one readable type size. A box's tooltip "
                             "names it; Ctrl+wheel, + and - (the map focused) or the buttons beside this line zoom "
                             "in and out"));
        },
        Qt::QueuedConnection);
}

QLabel* TopologyMapPanel::labelsNote() const { return m_note; }
QLabel* TopologyMapPanel::summaryLabel() const { return m_summary; }

void TopologyMapPanel::applySummaryFont()
{
    QFont big = scaledFont(font(), 1.3);
    big.setBold(true);
    m_summary->setFont(big);
}

void TopologyMapPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    // Presentation mode enlarges the application font: the summary follows once it has spread.
    if (event->type() == QEvent::FontChange)
        QTimer::singleShot(0, this, &TopologyMapPanel::applySummaryFont);
    // The legend's swatches are the map's fills, which follow the palette.
    if (event->type() == QEvent::PaletteChange)
        updateLegend();
}

void TopologyMapPanel::setTopology(const Topology& topology)
{
    m_pairs = representativePairs(topology);
    {
        const QSignalBlocker block(m_relations);
        m_relations->clear();
        m_relations->addItem(tr("choose…"));
        for (const PuPair& p : m_pairs)
            m_relations->addItem(QStringLiteral("%1  (P#%2, P#%3)")
                                     .arg(QString::fromStdString(relationText(p.relation, p.kinds)))
                                     .arg(p.a)
                                     .arg(p.b));
        m_relations->setCurrentIndex(0);
    }
    m_usePair->setEnabled(false);
    m_map->setTopology(topology);
    updateSummary();
    updateLegend();
}

void TopologyMapPanel::updateLegend()
{
    const auto& topology = m_map->topology();
    if (!topology || !topology->hybrid()) {
        m_legend->clear();
        m_legend->hide();
        return;
    }
    // Each kind's swatch (the PU fill inside its core's border) and name, the most performant first.
    std::vector<const CpuKind*> kinds;
    for (const CpuKind& k : topology->cpuKinds())
        kinds.push_back(&k);
    std::stable_sort(
        kinds.begin(), kinds.end(), [](const CpuKind* a, const CpuKind* b) { return a->efficiency > b->efficiency; });
    // A swatch is a bordered cell (the core's fill around, as the map draws a PU inside its core),
    // so the plain kind's white shows on a white window too.
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"0\"><tr>");
    QStringList tip;
    for (const CpuKind* k : kinds) {
        html += QStringLiteral("<td style=\"background-color:%1; border: 3px solid %2\">&nbsp;&nbsp;&nbsp;&nbsp;</td>"
                               "<td>&nbsp;%3&nbsp;&nbsp;</td>")
                    .arg(m_map->kindFill(k->index, false).name(), m_map->kindFill(k->index, true).name(),
                        QString::fromStdString(k->name).toHtmlEscaped());
        tip << tr("%1: P#%2").arg(QString::fromStdString(k->name), QString::fromStdString(formatCpuList(k->pus)));
    }
    html += QStringLiteral("</tr></table>");
    m_legend->setText(html);
    m_legend->setToolTip(tr("Kinds of core (hwloc's CPU kinds), shaded on the map:\n") + tip.join(QLatin1Char('\n')));
    m_legend->show();
}

bool TopologyMapPanel::chooseRelation(Relation relation)
{
    for (std::size_t i = 0; i < m_pairs.size(); ++i)
        if (m_pairs[i].relation == relation) {
            m_relations->setCurrentIndex(static_cast<int>(i) + 1);
            return true;
        }
    return false;
}

void TopologyMapPanel::relationChosen(int index)
{
    const bool pair = index >= 1 && index <= static_cast<int>(m_pairs.size());
    m_map->setHighlightedPair(pair ? std::optional(m_pairs[static_cast<std::size_t>(index - 1)]) : std::nullopt);
    m_usePair->setEnabled(pair);
}

void TopologyMapPanel::useHighlightedPair()
{
    if (const auto pair = m_map->highlightedPair())
        (void)m_map->setSelection({ pair->a, pair->b }); // pairs come from allowed PUs only
}

void TopologyMapPanel::setRunsDisabled(const QString& why)
{
    m_runsDisabled = why;
    updateSummary();
}

void TopologyMapPanel::updateSummary()
{
    const QString summary
        = m_map->selection().empty() && !m_runsDisabled.isEmpty() ? m_runsDisabled : m_map->selectionSummary();
    m_summary->setFullText(summary);
    m_summary->setToolTip(summary + QLatin1Char('\n')
        + (m_map->repinMode() ? tr("Click a PU to pin the selected threads there too, again to drop it; the run's "
                                   "tasks stay where they are")
                              : tr("Click a PU to place the next task, click a task to take it off; Shift+click puts "
                                   "one more task on the same PU")));
}

} // namespace ctxscope::gui
