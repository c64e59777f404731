// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QPointer>

#include <functional>
#include <vector>

class QMessageBox;
class QWidget;

namespace ctxscope::gui {

class ProgramsController;

// The Programs dock's questions around its re-pins: whether to give the threads back their
// first affinity (Restore) before a watch ends or the app quits, and whether to move a kernel
// thread or a thread of PID 1 (issue 33, makeKernelThreadQuestion). Each answer goes to the
// dock's ProgramsController; the boxes are the dock's (`parent`), window-modal but the one
// before quitting, one of each kind at a time.
class PinDialogs : public QObject {
    Q_OBJECT
public:
    PinDialogs(ProgramsController& programs, QWidget& parent);

    // Before the watch ends or another begins: when threads were re-pinned, asks whether to
    // restore them first (Yes: restore; No; Cancel: nothing happens), then runs `then`; at once
    // when none were.
    void askToRestore(const std::function<void()>& then);
    // Quitting the app: asks, and waits (3 s at most) for the restore to be answered.
    void restoreBeforeQuit();
    // Pins `tids` to `cpus` once the user said yes to moving a kernel thread or PID 1's.
    void askToMove(const std::vector<long>& tids, const std::vector<int>& cpus);

    // The open question "restore?" before a watch ends; null when none.
    QMessageBox* restoreQuestion() const;
    // The open question before a kernel thread or PID 1 is moved; null when none.
    QMessageBox* moveQuestion() const;

signals:
    void moveDeclined(); // the answer to askToMove was not Yes: nothing was pinned

private:
    ProgramsController& m_programs;
    QWidget& m_parent;
    QPointer<QMessageBox> m_restoreQuestion;
    QPointer<QMessageBox> m_moveQuestion;
};

} // namespace ctxscope::gui
