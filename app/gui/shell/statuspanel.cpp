// SPDX-License-Identifier: MIT
#include "statuspanel.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QSizeGrip>

#include <algorithm>
#include <array>
#include <utility>

namespace ctxscope::gui {

namespace {

enum class Tone { Good, Busy, Bad, Caution };

// Status colours readable on the background: the usual ones on a light palette, lighter
// shades on a dark one (the darker ones fall to about 3:1 on black).
QString toneColor(Tone tone, const QPalette& palette)
{
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    switch (tone) {
    case Tone::Good:
        return dark ? QStringLiteral("#75b798") : QStringLiteral("#146c43");
    case Tone::Busy:
        return dark ? QStringLiteral("#6ea8fe") : QStringLiteral("#0a58ca");
    case Tone::Bad:
        return dark ? QStringLiteral("#ea868f") : QStringLiteral("#b02a37");
    case Tone::Caution:
        return dark ? QStringLiteral("#ffda6a") : QStringLiteral("#997404");
    }
    return {};
}

// A label that, given less room than its text, ends it with "…" instead of cutting it at the
// edge (where it ran into its neighbour); the whole text is in the tooltip.
class ElidingLabel : public QLabel {
public:
    using QLabel::QLabel;

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        const QRect room = contentsRect();
        painter.setPen(palette().color(foregroundRole()));
        painter.drawText(
            room, Qt::AlignLeft | Qt::AlignVCenter, fontMetrics().elidedText(text(), Qt::ElideRight, room.width()));
    }
};

} // namespace

StatusPanel::StatusPanel(QWidget* parent)
    : QWidget(parent)
    , m_machine(new ElidingLabel(this))
    , m_worker(new ElidingLabel(this))
    , m_affinity(new ElidingLabel(this))
    , m_rate(new ElidingLabel(this))
    , m_progress(new ElidingLabel(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(18);
    for (QLabel* label : { m_progress, m_rate, m_affinity, m_machine, m_worker })
        layout->addWidget(label);
    m_rate->setToolTip(tr("Context switches per second on the whole system, from /proc/stat (vmstat's cs column), "
                          "sampled every 500 ms during a run"));
    m_rate->hide();
    m_affinity->hide();
    m_machine->hide();
    // A long CPU model must not widen the window past a projector's 1280 pixels: the label
    // gives way (clipped, whole in its tooltip) before the window grows.
    m_machine->setMinimumWidth(160);
    // In a narrow window each gives way down to a few words, ending in "…" (beside a temporary
    // message they step aside whole instead, see updateVisibility).
    for (QLabel* label : { m_progress, m_rate, m_affinity, m_worker })
        label->setMinimumWidth(60);
    m_machine->setContentsMargins(0, 0, 12, 0); // a gap before the worker's state, elided or not
    setWorkerState(WorkerClient::State::Stopped);
}

void StatusPanel::setWorkerState(WorkerClient::State state, const QString& detail)
{
    m_state = state;
    QString text;
    std::optional<Tone> tone;
    const bool remote = !m_remote.isEmpty();
    switch (state) {
    case WorkerClient::State::Stopped:
        text = remote ? tr("%1: disconnected — the next Run offers to reconnect").arg(m_remote)
                      : tr("Worker: not started");
        tone = remote ? std::optional(Tone::Caution) : std::nullopt;
        break;
    case WorkerClient::State::Starting:
        text = remote ? tr("Connecting to %1…").arg(m_remote) : tr("Worker: starting…");
        break;
    case WorkerClient::State::Idle:
        text = remote ? tr("%1: connected").arg(m_remote) : tr("Worker: ready");
        tone = Tone::Good;
        break;
    case WorkerClient::State::Running:
        text = remote ? tr("%1: running").arg(m_remote) : tr("Worker: running");
        tone = Tone::Busy;
        break;
    case WorkerClient::State::Dead:
        text = remote ? tr("%1: connection lost — the next Run offers to reconnect").arg(m_remote)
                      : tr("Worker: stopped — the next Run starts a new one");
        tone = Tone::Bad;
        break;
    }
    m_worker->setText(text);
    m_workerFailed = tone == Tone::Bad || tone == Tone::Caution;
    updateVisibility();
    m_worker->setStyleSheet(
        tone ? QStringLiteral("color:%1;font-weight:bold;").arg(toneColor(*tone, palette())) : QString());
    m_worker->setToolTip(detail);
    // A short state is read whole ("Worker: re…" told nobody anything at 1280): the machine's
    // label gives way first. A long one (a host's name, a failure) still may elide.
    QFont bold = m_worker->font();
    bold.setBold(true);
    m_worker->setMinimumWidth(std::clamp(QFontMetrics(bold).horizontalAdvance(text) + 4, 60, 220));
}

void StatusPanel::setMachine(const QString& summary, const QString& remote, bool runs)
{
    m_machine->setText(summary);
    m_machine->setToolTip(!runs
            ? tr("The map shows a topology file or description: runs are disabled")
            : (remote.isEmpty() ? tr("Runs measure this machine:") : tr("Runs measure %1 over ssh:").arg(remote))
                + QLatin1Char('\n') + summary);
    m_machine->setVisible(!summary.isEmpty());
    m_remote = remote;
    setWorkerState(m_state, m_worker->toolTip());
}

void StatusPanel::setAffinityNote(const QString& note, bool shared)
{
    m_affinityShared = shared;
    m_affinity->setText(note);
    m_affinity->setStyleSheet(
        shared ? QStringLiteral("color:%1;").arg(toneColor(Tone::Caution, palette())) : QString());
    updateVisibility();
}

void StatusPanel::setSwitchRate(std::optional<double> perSecond)
{
    m_rate->setProperty("shown", perSecond.has_value());
    updateVisibility();
    if (perSecond)
        m_rate->setText(tr("System: %1 switches/s").arg(QLocale().toString(qRound64(*perSecond))));
}

void StatusPanel::setSwitchRateOfRun(std::optional<double> perSecond)
{
    m_rate->setProperty("shown", perSecond.has_value());
    updateVisibility();
    if (perSecond)
        m_rate->setText(tr("System during the run: %1 switches/s").arg(QLocale().toString(qRound64(*perSecond))));
}

void StatusPanel::setRunProgress(const QString& text)
{
    m_progress->setText(text);
    updateVisibility();
}

void StatusPanel::setPresenting(bool on)
{
    m_presenting = on;
    updateVisibility();
}

void StatusPanel::updateVisibility()
{
    // Least needed first: the first to step aside for a temporary message.
    std::array<std::pair<QLabel*, bool>, 5> labels { {
        { m_rate, !m_presenting && m_rate->property("shown").toBool() },
        { m_affinity, !m_presenting && !m_affinity->text().isEmpty() },
        { m_machine, !m_machine->text().isEmpty() },
        { m_progress, !m_progress->text().isEmpty() },
        { m_worker, !m_presenting || m_workerFailed },
    } };
    const QWidget* bar = parentWidget();
    int room = QWIDGETSIZE_MAX;
    if (m_messageWidth > 0 && bar) {
        // QStatusBar draws the message from 6 pixels in to 2 pixels before its first permanent
        // widget, and cuts it there. This panel ends before the size grip (its own right edge
        // moves as its width changes: the bar's layout does not keep it).
        constexpr int kMessageMargins = 6 + 2 + 10; // and a little air
        constexpr int kLayoutMargin = 8;
        const auto* grip = bar->findChild<QSizeGrip*>();
        const bool placed = grip && grip->isVisible() && grip->x() > bar->width() / 2; // not before layout
        const int right = (placed ? grip->x() : bar->width()) - kLayoutMargin;
        room = std::max(0, right - m_messageWidth - kMessageMargins);
        const int spacing = layout()->spacing();
        int need = -spacing;
        for (const auto& [label, wanted] : labels)
            if (wanted)
                need += wholeWidth(*label) + spacing;
        // Shown whole or not at all while the message shows: "Worker: r…" tells nobody anything.
        for (auto& [label, wanted] : labels) {
            if (need <= room)
                break;
            if (wanted) {
                wanted = false;
                need -= wholeWidth(*label) + spacing;
            }
        }
    }
    for (const auto& [label, wanted] : labels)
        label->setVisible(wanted);
    setMaximumWidth(room);
}

int StatusPanel::wholeWidth(const QLabel& label)
{
    const QMargins margins = label.contentsMargins();
    return label.fontMetrics().horizontalAdvance(label.text()) + margins.left() + margins.right();
}

void StatusPanel::leaveRoomForMessage(int width)
{
    m_messageWidth = std::max(0, width);
    updateVisibility();
}

QString StatusPanel::workerText() const { return m_worker->text(); }
QString StatusPanel::machineText() const { return m_machine->text(); }
QString StatusPanel::switchRateText() const { return m_rate->property("shown").toBool() ? m_rate->text() : QString(); }
QString StatusPanel::affinityText() const { return m_affinity->text(); }
QString StatusPanel::runProgressText() const { return m_progress->text(); }

void StatusPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) { // dark, light, presentation: recolour
        setWorkerState(m_state, m_worker->toolTip());
        setAffinityNote(m_affinity->text(), m_affinityShared);
    }
}

} // namespace ctxscope::gui
