// SPDX-License-Identifier: MIT
#include "topologymappanel.h"

#include "apppalette.h"
#include "mapscrollarea.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace ctxscope::gui {

namespace {

QString relationName(Relation r)
{
    const std::string_view name = toString(r);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

// The caption of what the map leaves unlabelled, on the line under the toolbar: always one line
// high, text or not, so its coming, going and changing never moves the map; never wider than
// the panel gives it (cut short with "…" when narrower; the tooltip has it whole, and how
// to zoom).
class MapCaption : public QLabel {
public:
    explicit MapCaption(QWidget* parent)
        : QLabel(parent)
    {
        setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        setTextFormat(Qt::PlainText);
    }

    void setCaption(const QString& caption)
    {
        m_caption = caption;
        setToolTip(caption.isEmpty() ? QString()
                                     : caption + QLatin1Char('\n')
                    + TopologyMapPanel::tr("The map is too small for these labels at one readable type size. "
                                           "A box's tooltip names it; Ctrl+wheel, + and - (the map focused) "
                                           "or the buttons beside this line zoom in and out"));
        fit();
    }

    QSize sizeHint() const override { return { 0, lineHeight() }; }
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        QLabel::resizeEvent(event);
        fit();
    }
    void changeEvent(QEvent* event) override
    {
        QLabel::changeEvent(event);
        if (event->type() == QEvent::FontChange) {
            updateGeometry(); // presentation mode: a taller line
            fit();
        }
    }

private:
    int lineHeight() const
    {
        const QMargins m = contentsMargins();
        return fontMetrics().height() + m.top() + m.bottom() + 2 * margin();
    }
    void fit()
    {
        const int room = contentsRect().width() - 2 * margin();
        setText(room > 0 ? fontMetrics().elidedText(m_caption, Qt::ElideRight, room) : QString());
    }

    QString m_caption; // whole; text() is what fits
};

} // namespace

TopologyMapPanel::TopologyMapPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    auto* chooserLabel = new QLabel(tr("Relation &class:"), this);
    m_relations = new QComboBox(this);
    m_relations->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_relations->setToolTip(tr("Highlights a pair of allowed PUs with this relation on the map"));
    chooserLabel->setBuddy(m_relations);
    m_usePair = new QPushButton(tr("&Use this pair"), this);
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
    auto* caption = new MapCaption(this);
    caption->setObjectName(QStringLiteral("mapLabelsNote"));
    m_note = caption;
    captionRow->addWidget(caption, 1);

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
    m_summary = new QLabel(this);
    applySummaryFont();
    m_summary->setWordWrap(true); // a long placement wraps instead of widening the map
    m_summary->setToolTip(tr("Click a PU to place the next task, click it again to remove it; "
                             "Shift+click puts one more task on the same PU"));
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
        [caption](const QString& note) { caption->setCaption(note); }, Qt::QueuedConnection);
}

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
}

void TopologyMapPanel::setTopology(const Topology& topology)
{
    m_pairs = representativePairs(topology);
    {
        const QSignalBlocker block(m_relations);
        m_relations->clear();
        m_relations->addItem(tr("choose…"));
        for (const PuPair& p : m_pairs)
            m_relations->addItem(QStringLiteral("%1  (P#%2, P#%3)").arg(relationName(p.relation)).arg(p.a).arg(p.b));
        m_relations->setCurrentIndex(0);
    }
    m_usePair->setEnabled(false);
    m_map->setTopology(topology);
    updateSummary();
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

void TopologyMapPanel::updateSummary() { m_summary->setText(m_map->selectionSummary()); }

} // namespace ctxscope::gui
