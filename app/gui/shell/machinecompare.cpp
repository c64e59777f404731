// SPDX-License-Identifier: MIT
#include "machinecompare.h"

#include "machinecompareview.h"
#include "runmenu.h"
#include "sessionstore.h"
#include "workerclient.h"

#include <QAction>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace ctxscope::gui {

MachineCompare::MachineCompare(const Parts& parts)
    : QObject(parts.window)
    , m_parts(parts)
{
    // A window of its own: the bars, the verdicts and the causes need more room than a tab.
    m_window = new QWidget(parts.window, Qt::Window);
    m_window->setObjectName(QStringLiteral("compareMachinesWindow"));
    m_window->setWindowTitle(tr("Compare machines — ctxscope"));
    m_view = new MachineCompareView(m_window);
    auto* layout = new QVBoxLayout(m_window);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    m_window->resize(1200, 760);
    connect(m_view, &MachineCompareView::addCardsRequested, this, &MachineCompare::chooseCards);
    connect(m_parts.store, &SessionStore::machineCardsChanged, this,
        [this] { m_view->setCards(m_parts.store->machineCards()); });
    m_view->setCards(m_parts.store->machineCards());

    WorkerClient* c = m_parts.launcher->controller();
    connect(c, &WorkerClient::stateChanged, this, &MachineCompare::updateSurveyAction);
    connect(c, &WorkerClient::progress, this,
        [this](quint64 id, const QString& stage, int, int, double fraction) { surveyProgress(id, stage, fraction); });
    // After StreamRouter's (connected first): the card is in the store when the window shows.
    connect(c, &WorkerClient::surveyFinished, this, [this](quint64 id, std::shared_ptr<const nlohmann::json>) {
        const bool ours = m_surveyId == id;
        surveyEnded(id);
        if (ours)
            showWindow();
    });
    connect(c, &WorkerClient::runFailed, this, [this](quint64 id, const QString&) { surveyEnded(id); });
    connect(c, &WorkerClient::runCancelled, this, &MachineCompare::surveyEnded);
}

void MachineCompare::createActions(QMenu* file)
{
    QAction* compare = file->addAction(tr("Compare &machines..."), this, &MachineCompare::chooseCards);
    compare->setToolTip(tr("Machine cards (ctxscope-cli survey --json, or this toolbar's survey) or results files "
                           "side by side, by benchmark and relation class, with verdicts and possible causes"));
}

void MachineCompare::createToolBarActions(QToolBar* machineBar)
{
    machineBar->addSeparator();
    m_survey = machineBar->addAction(
        tr("Survey this machine"), this, [this] { m_parts.launcher->whenConnected([this] { (void)survey(); }); });
    m_survey->setObjectName(QStringLiteral("surveyAction"));
    updateSurveyAction();
}

void MachineCompare::updateSurveyAction()
{
    if (!m_survey)
        return;
    const WorkerClient* c = m_parts.launcher->controller();
    const bool server = c->link().isRemote();
    m_survey->setText(server ? tr("Survey this server") : tr("Survey this machine"));
    m_survey->setToolTip(tr("The survey of ctxscope-cli survey (%1 at most) on %2, through its worker: its card "
                            "joins the session and File → Compare machines…")
                             .arg(tr("%1 s").arg(m_budget), server ? c->link().destination : tr("this machine")));
    m_survey->setEnabled(!c->isBusy());
}

std::optional<quint64> MachineCompare::survey()
{
    WorkerClient* c = m_parts.launcher->controller();
    if (!m_parts.launcher->isLive()) {
        m_parts.window->statusBar()->showMessage(
            tr("A survey measures this machine or a connected server, not a topology opened from a file."), 10000);
        return std::nullopt;
    }
    m_surveyed = c->link().displayName();
    m_surveyId = m_parts.launcher->startSurvey(m_budget);
    if (m_surveyId)
        m_view->setProgress(tr("Surveying %1…").arg(m_surveyed));
    updateSurveyAction();
    return m_surveyId;
}

void MachineCompare::surveyProgress(quint64 id, const QString& stage, double fraction)
{
    if (m_surveyId != id)
        return;
    m_view->setProgress(
        tr("Surveying %1: %2 (%3% of the estimate)").arg(m_surveyed, stage).arg(qRound(100 * std::min(1.0, fraction))));
}

void MachineCompare::surveyEnded(quint64 id)
{
    if (m_surveyId != id)
        return;
    m_surveyId.reset();
    m_view->setProgress(QString());
    updateSurveyAction();
}

void MachineCompare::chooseCards()
{
    const QStringList paths = QFileDialog::getOpenFileNames(m_parts.window, tr("Compare machines"), QString(),
        tr("Machine cards and results files (*.json);;All files (*)"));
    if (paths.isEmpty()) {
        showWindow(); // the session's cards, and its survey action
        return;
    }
    if (Status opened = openCards(paths); !opened)
        QMessageBox::warning(m_parts.window, tr("Compare machines"), QString::fromStdString(opened.error().message));
}

Status MachineCompare::openCards(const QStringList& paths)
{
    std::vector<MachineCardEntry> read;
    for (const QString& path : paths) {
        auto card = readMachineCardEntry(path);
        if (!card)
            return card.error();
        read.push_back(std::move(*card));
    }
    for (MachineCardEntry& card : read)
        m_parts.store->addMachineCard(std::move(card));
    showWindow();
    return {};
}

void MachineCompare::showWindow()
{
    m_window->show();
    m_window->raise();
    m_window->activateWindow();
}

} // namespace ctxscope::gui
