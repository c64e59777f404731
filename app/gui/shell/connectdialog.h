// SPDX-License-Identifier: MIT
#pragma once

#include "machineconnect.h"
#include "machinelink.h"

#include "ctxscope/topology.h"

#include <QDialog>
#include <QStringList>

#include <memory>

class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace ctxscope::gui {

class WorkerClient;

// File → Connect to a machine…: a host as ssh takes it (typed, or picked from the recent
// hosts and the Host aliases of the ssh configuration), the CLI to run there, and Connect,
// which connects the app's worker through a MachineConnector while the dialog shows that it
// waits (Cancel stops waiting). A failure stays in the dialog as ssh's failure explained;
// success emits connected and closes it.
class ConnectDialog : public QDialog {
    Q_OBJECT
public:
    ConnectDialog(WorkerClient& controller, const QStringList& recentHosts, const QStringList& configAliases,
        const QString& remoteCli, QWidget* parent = nullptr);

    // What Connect does: refused with a sentence when the host is not one or a run is on.
    void connectToHost();
    // What "Copy it for this session" does, offered when the server has no such CLI and this
    // machine has a portable bundle (findPushBundle): connects with that bundle pushed.
    void connectWithBundle();
    bool isConnecting() const;

    QLineEdit* hostField() const { return m_host; }
    QLineEdit* cliField() const { return m_cli; }
    QListWidget* hostList() const { return m_hosts; }
    QPushButton* connectButton() const { return m_connect; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* pushButton() const { return m_push; } // shown only when a bundle can be offered
    QString message() const; // the sentence on show: waiting, failed, or empty
    QLabel* messageLabel() const { return m_message; }

public slots:
    // Esc and Cancel: stop connecting when it is, else close.
    void reject() override;

signals:
    void connected(const ctxscope::gui::MachineLink& link, const ctxscope::Topology& topology);

private:
    void setBusy(bool busy);
    void connectTo(std::shared_ptr<const ssh::PushBundle> push);
    // A failure in words, and where the server has no CLI, the offer to copy this machine's bundle.
    void offerBundle(const QString& why);
    void say(const QString& text, bool failure);

    WorkerClient& m_controller;
    MachineConnector* m_connector = nullptr;
    QLineEdit* m_host = nullptr;
    QListWidget* m_hosts = nullptr;
    QLineEdit* m_cli = nullptr;
    QProgressBar* m_busy = nullptr;
    QLabel* m_message = nullptr;
    QPushButton* m_connect = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_push = nullptr;
    QString m_bundle; // the bundle offered, when m_push shows
};

} // namespace ctxscope::gui
