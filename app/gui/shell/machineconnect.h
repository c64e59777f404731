// SPDX-License-Identifier: MIT
#pragma once

#include "machinelink.h"

#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

#include <QMetaObject>
#include <QObject>
#include <QTimer>

#include <vector>

namespace ctxscope::gui {

class WorkerClient;

// Points a WorkerClient at a machine, starts its worker and waits, without blocking the
// event loop, for its hello or its failure: the one way the app connects to a machine (the
// Connect dialog, a reconnect before a run, and `--remote` through connectMachine). Ends
// with exactly one of connected or failed, unless cancelled. When it fails or is cancelled
// the controller goes back to the machine it had, its worker stopped (this machine's is
// started again: it needs no connection).
class MachineConnector : public QObject {
    Q_OBJECT
public:
    explicit MachineConnector(WorkerClient& controller, QObject* parent = nullptr);
    ~MachineConnector() override;

    // Starts connecting to `link`'s machine; gives up after `timeoutMs`. A destination ssh
    // would misread (destinationProblem) fails before anything runs.
    void start(const MachineLink& link, int timeoutMs);
    // Stops connecting (the worker or ssh is stopped); neither signal follows.
    void cancel();
    bool isConnecting() const { return m_connecting; }
    const MachineLink& link() const { return m_link; }

signals:
    // The worker said hello: `topology` is its machine's (a server's, from the hello's XML).
    void connected(const ctxscope::Topology& topology);
    // One sentence: ssh's failure explained (explainRemoteExit), the timeout, or the destination's problem.
    void failed(const QString& message);

private:
    void finish(); // stops listening to the controller
    void fail(const QString& message);
    void restorePreviousLink();

    WorkerClient& m_controller;
    MachineLink m_link;
    MachineLink m_previous;
    bool m_previousRunning = false; // a local worker ran before: only then is it started again
    QTimer m_timeout;
    std::vector<QMetaObject::Connection> m_connections;
    bool m_connecting = false;
};

// The same, waiting for the outcome (running the event loop, so the window stays drawn): for
// the command line (--remote), which needs the machine before it can check --cpus against it.
Expected<Topology> connectMachine(WorkerClient& controller, const MachineLink& link, int timeoutMs);

} // namespace ctxscope::gui
