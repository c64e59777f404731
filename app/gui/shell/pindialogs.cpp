// SPDX-License-Identifier: MIT
#include "pindialogs.h"

#include "kernelthreadquestion.h"
#include "programscontroller.h"
#include "programwatch.h"
#include "threadtablemodel.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QWidget>

#include <algorithm>

namespace ctxscope::gui {

PinDialogs::PinDialogs(ProgramsController& programs, QWidget& parent)
    : QObject(&parent)
    , m_programs(programs)
    , m_parent(parent)
{
}

QMessageBox* PinDialogs::restoreQuestion() const { return m_restoreQuestion; }

QMessageBox* PinDialogs::moveQuestion() const { return m_moveQuestion; }

void PinDialogs::askToRestore(const std::function<void()>& then)
{
    const int changed = static_cast<int>(m_programs.watchData()->restorePlan().size());
    if (!m_programs.isWatching() || changed == 0) {
        then();
        return;
    }
    if (m_restoreQuestion)
        return; // already asking
    auto* box = new QMessageBox(QMessageBox::Question, tr("Restore the affinity?"),
        tr("%n thread(s) of %1 run(s) on other CPUs than when watching began. Give them back their "
           "affinity before the watch ends?",
            nullptr, changed)
            .arg(m_programs.watchData()->name()),
        QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel, &m_parent);
    box->setDefaultButton(QMessageBox::Yes);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    connect(box, &QMessageBox::finished, this, [this, box, then](int) {
        const auto answer = box->standardButton(box->clickedButton());
        if (answer == QMessageBox::Cancel || answer == QMessageBox::NoButton)
            return;
        if (answer == QMessageBox::Yes)
            m_programs.restore(); // the pins go out before the cancel: the worker answers both
        then();
    });
    m_restoreQuestion = box;
    box->open();
}

void PinDialogs::restoreBeforeQuit()
{
    const int changed = static_cast<int>(m_programs.watchData()->restorePlan().size());
    if (changed == 0)
        return;
    const auto answer = QMessageBox::question(&m_parent, tr("Restore the affinity?"),
        tr("%n thread(s) of %1 run(s) on other CPUs than when watching began. Give them back their "
           "affinity before ctxscope quits?",
            nullptr, changed)
            .arg(m_programs.watchData()->name()),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
    if (answer != QMessageBox::Yes || m_programs.restore() == 0)
        return;
    QElapsedTimer waited;
    waited.start();
    while (m_programs.pinsInFlight() > 0 && waited.elapsed() < 3000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
}

void PinDialogs::askToMove(const std::vector<long>& tids, const std::vector<int>& cpus)
{
    if (m_moveQuestion)
        return; // already asking
    const ProgramWatch* watch = m_programs.watchData();
    const auto& threads = watch->threads()->threads();
    const auto first
        = std::find_if(threads.begin(), threads.end(), [&](const ThreadRates& t) { return t.tid == tids.front(); });
    const QString name = first != threads.end() ? QString::fromStdString(first->name) : watch->name();
    auto* box = makeKernelThreadQuestion(
        &m_parent, watch->guard(), tids.front(), name, static_cast<int>(tids.size()) - 1, cpus);
    connect(box, &QMessageBox::finished, this, [this, box, tids, cpus](int) {
        if (box->standardButton(box->clickedButton()) == QMessageBox::Yes)
            m_programs.pinThreads(tids, cpus, KernelThreads::Move);
        else
            emit moveDeclined();
    });
    m_moveQuestion = box;
    box->open();
}

} // namespace ctxscope::gui
