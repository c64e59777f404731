// SPDX-License-Identifier: MIT
#pragma once

#include "machinelink.h"

#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

#include <nlohmann/json.hpp>

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <optional>

class QAction;
class QComboBox;
class QMainWindow;
class QMenu;
class QMessageBox;

namespace ctxscope::gui {

class ConnectDialog;
class MachineConnector;
class RunMenu;
class SessionStore;
class StatusPanel;

// The machine runs go to: this one, or a server over ssh. Owns File → Connect to a
// machine…, Disconnect and Show this machine, the recent hosts (QSettings), the question
// that offers to reconnect before a run on a machine no longer connected, and what the
// window title and the status bar say of the machine. Every connection, from the dialog, a
// reconnect or `--remote`, ends in adopt(): the map shows the machine and runs go there.
class MachineController : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QMainWindow* window;
        const std::optional<Topology>* topology; // the window's, as it changes
        RunMenu* launcher;
        SessionStore* store;
        StatusPanel* status;
    };
    explicit MachineController(const Parts& parts);
    ~MachineController() override;

    void createActions(QMenu* file); // Connect to a machine…, Disconnect, Show this machine
    // The Machine toolbar: a switcher listing this machine and every server of the session
    // (connected, or read from a session file), showing the one runs go to.
    void createToolBar();
    // The switcher's choice: this machine (an empty `server`) or a server, connected to
    // anew when it is not the one connected (its failure is said as a reconnect's is).
    void switchTo(const QString& server);
    QComboBox* switcher() const { return m_switcher; }

    // File → Connect to a machine…: the dialog, opened window-modal (not blocking); it
    // closes itself once connected.
    ConnectDialog* showConnectDialog();
    // `--remote`: connects, waiting for the outcome, then adopts the machine.
    Expected<Topology> connectNow(const MachineLink& link, int timeoutMs);
    // A machine the worker is connected to: the map shows its topology, runs go there, a
    // server joins the recent hosts, the title and status bar name it.
    void adopt(const MachineLink& link, const Topology& topology);
    // File → Disconnect: the worker on the server stops; the rows measured there stay and
    // the next Run offers to reconnect.
    void disconnectMachine();
    // File → Show this machine: back to this machine's topology and worker.
    void showThisMachine();

    // Runs `action` now when runs can go to the machine shown; when it is a server no longer
    // connected, asks first (reconnectQuestion()) and runs it once reconnected.
    void whenConnected(std::function<void()> action);
    // The open question "reconnect?", for tests to answer; null when none is open.
    QMessageBox* reconnectQuestion() const;

    // The window title and the status bar's machine, from the topology shown and the hello
    // of the machine's worker.
    void refresh();

    static QStringList recentHosts();
    QAction* disconnectAction() const { return m_disconnect; }

signals:
    // The window shows `topology`: a server's (runs measured there) or this machine's.
    void machineShown(const ctxscope::Topology& topology, bool server);

private:
    void reconnect(std::function<void()> then);
    // Connects to `link` (another server, or the same again) and adopts it; `then` once connected.
    void connectTo(const MachineLink& link, const QString& message, std::function<void()> then);
    void updateSwitcher();
    void cancelReconnect();
    void rememberHost(const MachineLink& link);
    void updateActions();
    const nlohmann::json& helloOf(const MachineLink& link) const;

    Parts m_parts;
    MachineConnector* m_connector = nullptr; // reconnects before a run
    // The connections of the reconnect under way: a cancelled one emits neither outcome, so it
    // is dropped by hand, or the next reconnect would adopt and run twice.
    QPointer<QObject> m_reconnectOnce;
    QPointer<QMessageBox> m_question;
    QPointer<ConnectDialog> m_dialog;
    QAction* m_disconnect = nullptr;
    QComboBox* m_switcher = nullptr;
    std::map<QString, QString> m_remoteClis; // each server's --remote-cli, as last connected
    QString m_shownServer; // the server whose topology the window shows, "" for none
    std::string m_shownServerXml; // as its hello sent it
    QString m_lastFailure; // why the connection ended, for the reconnect question
};

} // namespace ctxscope::gui
