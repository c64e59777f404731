// SPDX-License-Identifier: MIT
#include "kernelthreadquestion.h"

#include <QMessageBox>

namespace ctxscope::gui {

QMessageBox* makeKernelThreadQuestion(
    QWidget* parent, PinGuard guard, long tid, const QString& name, int others, const std::vector<int>& cpus)
{
    QString text = QString::fromStdString(pinGuardConsequence(guard, tid, name.toStdString(), cpus)) + QLatin1Char('.');
    if (others > 0)
        text += QLatin1Char(' ')
            + QMessageBox::tr("The same goes for the %n other selected thread(s).", nullptr, others);
    auto* box = new QMessageBox(QMessageBox::Warning,
        guard == PinGuard::Init ? QMessageBox::tr("Move a thread of PID 1?") : QMessageBox::tr("Move a kernel thread?"),
        text, QMessageBox::Yes | QMessageBox::No, parent);
    box->setInformativeText(QMessageBox::tr("Move it anyway? Restore gives back the CPUs it had when watching began."));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    return box;
}

} // namespace ctxscope::gui
