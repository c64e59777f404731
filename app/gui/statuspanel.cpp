// SPDX-License-Identifier: MIT
#include "statuspanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>

namespace ctxscope::gui {

StatusPanel::StatusPanel(QWidget* parent)
    : QWidget(parent)
    , m_worker(new QLabel(this))
    , m_affinity(new QLabel(this))
    , m_rate(new QLabel(this))
    , m_progress(new QLabel(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(18);
    for (QLabel* label : { m_progress, m_rate, m_affinity, m_worker })
        layout->addWidget(label);
    m_rate->setToolTip(tr("Context switches per second on the whole system, from /proc/stat (vmstat's cs column), "
                          "sampled every 500 ms during a run"));
    m_rate->hide();
    m_affinity->hide();
    setWorkerState(RunController::State::Stopped);
}

void StatusPanel::setWorkerState(RunController::State state, const QString& detail)
{
    QString text;
    QString color;
    switch (state) {
    case RunController::State::Stopped:
        text = tr("Worker: not started");
        break;
    case RunController::State::Starting:
        text = tr("Worker: starting…");
        break;
    case RunController::State::Idle:
        text = tr("Worker: ready");
        color = QStringLiteral("#146c43");
        break;
    case RunController::State::Running:
        text = tr("Worker: running");
        color = QStringLiteral("#0a58ca");
        break;
    case RunController::State::Dead:
        text = tr("Worker: stopped — the next Run starts a new one");
        color = QStringLiteral("#b02a37");
        break;
    }
    m_worker->setText(text);
    m_worker->setStyleSheet(color.isEmpty() ? QString() : QStringLiteral("color:%1;font-weight:bold;").arg(color));
    m_worker->setToolTip(detail);
}

void StatusPanel::setAffinityNote(const QString& note, bool shared)
{
    m_affinity->setText(note);
    m_affinity->setStyleSheet(shared ? QStringLiteral("color:#997404;") : QString());
    m_affinity->setVisible(!note.isEmpty());
}

void StatusPanel::setSwitchRate(std::optional<double> perSecond)
{
    m_rate->setVisible(perSecond.has_value());
    if (perSecond)
        m_rate->setText(tr("System: %1 switches/s").arg(QLocale().toString(qRound64(*perSecond))));
}

void StatusPanel::setSwitchRateOfRun(std::optional<double> perSecond)
{
    m_rate->setVisible(perSecond.has_value());
    if (perSecond)
        m_rate->setText(tr("System during the run: %1 switches/s").arg(QLocale().toString(qRound64(*perSecond))));
}

void StatusPanel::setRunProgress(const QString& text)
{
    m_progress->setText(text);
    m_progress->setVisible(!text.isEmpty());
}

QString StatusPanel::workerText() const { return m_worker->text(); }
QString StatusPanel::switchRateText() const { return m_rate->isVisibleTo(this) ? m_rate->text() : QString(); }
QString StatusPanel::affinityText() const { return m_affinity->text(); }

} // namespace ctxscope::gui
