// SPDX-License-Identifier: MIT
#pragma once

#include "mainwindow.h"
#include "workerclient.h"

#include <QCoreApplication>
#include <QSignalSpy>

namespace ctxscope::testing {

// Waits for the window's worker's hello and for the run panel to have heard it (a queued
// connection).
inline bool workerReady(gui::MainWindow& window)
{
    gui::WorkerClient* controller = window.controller();
    if (controller->state() != gui::WorkerClient::State::Idle) {
        QSignalSpy ready(controller, &gui::WorkerClient::workerReady);
        controller->startWorker();
        if (!ready.wait(30'000))
            return false;
    }
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    return true;
}

} // namespace ctxscope::testing
