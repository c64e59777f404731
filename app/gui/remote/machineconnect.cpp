// SPDX-License-Identifier: MIT
#include "machineconnect.h"

#include "runcontroller.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>

namespace ctxscope::gui {

Expected<Topology> connectMachine(RunController& controller, const MachineLink& link, int timeoutMs)
{
    if (const auto problem = destinationProblem(link.destination); link.isRemote() && problem)
        return Error { problem->toStdString() };
    controller.stopWorker();
    controller.setLink(link);
    QEventLoop loop;
    QString failure;
    QTimer timeout;
    timeout.setSingleShot(true);
    QObject::connect(&timeout, &QTimer::timeout, &loop, [&] {
        failure = QCoreApplication::translate("MachineLink", "%1 did not answer within %2 s.")
                      .arg(link.displayName())
                      .arg(timeoutMs / 1000);
        loop.quit();
    });
    QObject::connect(&controller, &RunController::workerReady, &loop, &QEventLoop::quit);
    QObject::connect(&controller, &RunController::workerFailed, &loop, [&](const QString& why) {
        failure = why;
        loop.quit();
    });
    timeout.start(timeoutMs);
    controller.startWorker();
    if (controller.state() != RunController::State::Idle && failure.isEmpty())
        loop.exec();
    if (failure.isEmpty() && controller.state() != RunController::State::Idle)
        failure = QCoreApplication::translate("MachineLink", "The worker on %1 stopped before it said hello.")
                      .arg(link.displayName());
    if (!failure.isEmpty()) {
        controller.stopWorker();
        return Error { failure.toStdString() };
    }
    if (!link.isRemote())
        return Topology::loadLive();
    return Topology::loadXmlBuffer(controller.workerTopologyXml());
}

} // namespace ctxscope::gui
