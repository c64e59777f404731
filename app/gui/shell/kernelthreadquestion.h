// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/pin.h"

#include <QString>

#include <vector>

class QMessageBox;
class QWidget;

namespace ctxscope::gui {

// The question the Programs dock asks before it moves a kernel thread or a thread of PID 1
// (issue 33: a click must not do what tuna does on purpose). It names the first thread (`tid`,
// `name`), counts the `others` selected with it, and says what the move to `cpus` would do
// (pinGuardConsequence); No is the default. Window-modal and deleted when closed: connect to
// finished, then open().
QMessageBox* makeKernelThreadQuestion(
    QWidget* parent, PinGuard guard, long tid, const QString& name, int others, const std::vector<int>& cpus);

} // namespace ctxscope::gui
