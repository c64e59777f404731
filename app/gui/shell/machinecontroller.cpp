// SPDX-License-Identifier: MIT
#include "machinecontroller.h"

#include "connectdialog.h"
#include "machineconnect.h"
#include "machinedescription.h"
#include "runmenu.h"
#include "sessionstore.h"
#include "statuspanel.h"

#include <algorithm>
#include <vector>

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QToolBar>

namespace ctxscope::gui {

namespace {
constexpr int kConnectWaitMs = 60'000; // as the dialog: login, remote shell and hello
constexpr qsizetype kRecentHosts = 8;
const QString kRecentKey = QStringLiteral("machines/recent");
const QString kCliKey = QStringLiteral("machines/remoteCli");
} // namespace

MachineController::MachineController(const Parts& parts)
    : QObject(parts.window)
    , m_parts(parts)
    , m_connector(new MachineConnector(*parts.launcher->controller(), this))
{
    WorkerClient* c = m_parts.launcher->controller();
    // Queued like the launcher's: the hello and the state are read from the event loop.
    connect(
        c, &WorkerClient::workerReady, this,
        [this, c] {
            if (c->link().isRemote())
                m_parts.store->setMachineContext(c->link().destination, c->workerContext());
            else
                m_parts.store->setLocalWorkerContext(c->workerContext());
            m_lastFailure.clear();
            refresh();
        },
        Qt::QueuedConnection);
    connect(
        c, &WorkerClient::workerFailed, this, [this](const QString& why) { m_lastFailure = why; },
        Qt::QueuedConnection);
    connect(c, &WorkerClient::stateChanged, this, &MachineController::updateActions, Qt::QueuedConnection);
    connect(m_parts.store, &SessionStore::machineChanged, this, [this] {
        updateSwitcher();
        refresh(); // the title and status bar name the machine shown
    });
    connect(m_connector, &MachineConnector::failed, this, [this](const QString& why) {
        m_parts.window->statusBar()->showMessage(why, 30'000);
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Connect"), why, QMessageBox::Ok, m_parts.window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

MachineController::~MachineController() = default;

void MachineController::createActions(QMenu* file)
{
    QAction* connectAction = file->addAction(tr("&Connect to a machine..."), this, [this] { showConnectDialog(); });
    connectAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    connectAction->setToolTip(tr("Measure another machine over ssh"));
    m_disconnect = file->addAction(tr("&Disconnect"), this, &MachineController::disconnectMachine);
    m_disconnect->setToolTip(tr("Stop the worker on the server; what was measured there stays"));
    file->addAction(tr("Show this &machine"), this, &MachineController::showThisMachine);
    updateActions();
}

void MachineController::createToolBar()
{
    QToolBar* bar = m_parts.window->addToolBar(tr("Machine"));
    bar->setObjectName(QStringLiteral("machineToolBar")); // saveState needs a name
    bar->setMovable(false);
    bar->addWidget(new QLabel(tr("Machine: "), bar));
    m_switcher = new QComboBox(bar);
    m_switcher->setObjectName(QStringLiteral("machineSwitcher"));
    m_switcher->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_switcher->setToolTip(tr("The machine the map shows and runs, sweeps, matrices and lessons go to: this one, "
                              "or a server over ssh (File → Connect to a machine… adds one)"));
    bar->addWidget(m_switcher);
    connect(m_switcher, &QComboBox::activated, this, [this](int index) {
        const QVariant server = m_switcher->itemData(index);
        if (server.isValid())
            switchTo(server.toString());
        else
            updateSwitcher(); // the file or description shown: already there
    });
    updateSwitcher();
}

void MachineController::switchTo(const QString& server)
{
    const MachineLink& now = m_parts.launcher->controller()->link();
    if (server.isEmpty()) {
        if (now.isRemote() || !m_parts.launcher->isLive())
            showThisMachine();
        return;
    }
    if (now.isRemote() && now.destination == server && !m_parts.launcher->needsConnection()
        && m_parts.launcher->showsServer()) {
        updateSwitcher();
        return; // already there
    }
    cancelReconnect();
    MachineLink link;
    link.destination = server;
    const auto cli = m_remoteClis.find(server);
    link.remoteCli = cli != m_remoteClis.end() ? cli->second
                                               : QSettings().value(kCliKey, QStringLiteral("ctxscope-cli")).toString();
    // A server the session saw before shows its map as saved while ssh logs in; if that fails,
    // it stays shown behind the banner and the next Run offers to reconnect.
    const std::string& saved = m_parts.store->machine(server).topologyXml;
    if (auto topology = Topology::loadXmlBuffer(saved); !saved.empty() && topology) {
        m_parts.launcher->controller()->stopWorker();
        m_parts.launcher->controller()->setLink(link);
        m_shownServer = server;
        m_shownServerXml.clear(); // the hello's topology replaces it once connected
        m_lastFailure.clear();
        emit machineShown(*topology, true);
    }
    connectTo(link, tr("Connecting to %1…").arg(server), [] {});
}

ConnectDialog* MachineController::showConnectDialog()
{
    if (m_dialog) {
        m_dialog->raise();
        return m_dialog;
    }
    cancelReconnect(); // one connection attempt at a time: the dialog's
    QStringList aliases;
    QFile config(sshConfigFile(qEnvironmentVariable("CTXSCOPE_SSH_COMMAND")));
    if (config.open(QIODevice::ReadOnly))
        aliases = sshConfigHostAliases(QString::fromUtf8(config.readAll()));
    const QString cli = QSettings().value(kCliKey, QStringLiteral("ctxscope-cli")).toString();
    m_dialog = new ConnectDialog(*m_parts.launcher->controller(), recentHosts(), aliases, cli, m_parts.window);
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_dialog, &ConnectDialog::connected, this, &MachineController::adopt);
    m_dialog->open();
    return m_dialog;
}

Expected<Topology> MachineController::connectNow(const MachineLink& link, int timeoutMs)
{
    auto topology = connectMachine(*m_parts.launcher->controller(), link, timeoutMs);
    if (topology)
        adopt(link, *topology);
    return topology;
}

void MachineController::adopt(const MachineLink& link, const Topology& topology)
{
    WorkerClient* c = m_parts.launcher->controller();
    if (link.isRemote()) {
        // The hello came before this (the connector waited for it): the machine is known now.
        m_parts.store->setMachineTopologyXml(link.destination, c->workerTopologyXml());
        m_parts.store->setMachineContext(link.destination, c->workerContext());
        m_remoteClis[link.destination] = link.remoteCli;
        rememberHost(link);
    }
    m_lastFailure.clear();
    // A reconnect to the same server keeps the map as it is (its selection, the run panel's
    // placement): only another machine, or another topology, is shown anew.
    const std::string xml = link.isRemote() ? c->workerTopologyXml() : std::string();
    const bool same = link.isRemote() && m_parts.launcher->showsServer() && m_shownServer == link.destination
        && m_shownServerXml == xml;
    m_shownServer = link.isRemote() ? link.destination : QString();
    m_shownServerXml = xml;
    if (same)
        refresh();
    else
        emit machineShown(topology, link.isRemote());
    updateActions(); // and the switcher
}

void MachineController::disconnectMachine()
{
    WorkerClient* c = m_parts.launcher->controller();
    if (!c->link().isRemote())
        return;
    cancelReconnect();
    c->stopWorker();
    m_lastFailure = tr("you disconnected");
    m_parts.window->statusBar()->showMessage(
        tr("Disconnected from %1: what was measured there stays; the next Run offers to reconnect.")
            .arg(c->link().destination),
        15'000);
    updateActions();
}

void MachineController::showThisMachine()
{
    auto live = Topology::loadLive();
    if (!live) {
        QMessageBox::warning(m_parts.window, tr("Topology"), QString::fromStdString(live.error().message));
        return;
    }
    WorkerClient* c = m_parts.launcher->controller();
    if (c->link().isRemote()) {
        cancelReconnect();
        c->stopWorker();
        c->setLink(MachineLink {});
    }
    m_shownServer.clear();
    m_shownServerXml.clear();
    emit machineShown(*live, false); // the window starts this machine's worker
    updateActions(); // and the switcher
}

void MachineController::updateSwitcher()
{
    if (!m_switcher)
        return;
    const MachineLink& link = m_parts.launcher->controller()->link();
    struct Item {
        QString text;
        QVariant server; // "" for this machine, invalid for a topology that is no machine to run on
        QString tip;
    };
    const WorkerClient::State state = m_parts.launcher->controller()->state();
    std::vector<Item> items;
    // An XML file or a synthetic description is what the map shows, not "this machine": it
    // comes first, named as the title names it, until another machine is picked.
    const std::optional<Topology>& topology = *m_parts.topology;
    const bool other = topology && !m_parts.launcher->isLive();
    if (other)
        items.push_back({ QString::fromStdString(topology->origin()), QVariant(),
            tr("The map shows %1: runs are disabled until this machine or a server is picked")
                .arg(QString::fromStdString(topology->origin())) });
    items.push_back({ tr("this machine"), QString(), tr("This machine, with a local worker") });
    for (const QString& key : m_parts.store->machineKeys()) {
        // A machine of a session that ssh could not take by its name (numbered or unnamed,
        // SessionStore::detachLoadedMachine) is no place for runs: its rows name it.
        if (key == SessionStore::kLocalMachine || destinationProblem(key))
            continue;
        const bool connected = link.isRemote() && link.destination == key && !m_connector->isConnecting()
            && (state == WorkerClient::State::Idle || state == WorkerClient::State::Running);
        items.push_back({ connected ? key : tr("%1 (not connected)").arg(key), key,
            describeMachine(key, m_parts.store->machine(key).context).summary() });
    }
    const QSignalBlocker quiet(m_switcher);
    // Rebuilt only when the machines changed: a rebuild would close the list while it is open;
    // a machine that connects or disconnects only changes its text.
    bool same = m_switcher->count() == static_cast<int>(items.size());
    for (int i = 0; same && i < m_switcher->count(); ++i)
        same = m_switcher->itemData(i) == items[static_cast<std::size_t>(i)].server;
    if (same) {
        for (int i = 0; i < m_switcher->count(); ++i) {
            const Item& item = items[static_cast<std::size_t>(i)];
            m_switcher->setItemText(i, item.text);
            m_switcher->setItemData(i, item.tip, Qt::ToolTipRole);
        }
    } else {
        m_switcher->clear();
        for (const Item& item : items) {
            m_switcher->addItem(item.text, item.server);
            m_switcher->setItemData(m_switcher->count() - 1, item.tip, Qt::ToolTipRole);
        }
    }
    // A switch stops the worker: not while it measures (Cancel first).
    m_switcher->setEnabled(!m_parts.launcher->controller()->isBusy());
    // The machine runs go to: a server even when its connection dropped (a run offers to reconnect).
    const int shown = other ? 0 : link.isRemote() ? m_switcher->findData(link.destination) : 0;
    m_switcher->setCurrentIndex(std::max(shown, 0));
}

void MachineController::whenConnected(std::function<void()> action)
{
    if (!m_parts.launcher->needsConnection()) {
        action();
        return;
    }
    if (m_question || m_connector->isConnecting())
        return; // already asking, or already reconnecting
    const QString host = m_parts.launcher->controller()->link().destination;
    auto* box = new QMessageBox(QMessageBox::Question, tr("Reconnect to %1").arg(host),
        m_lastFailure.isEmpty() ? tr("%1 is not connected. Reconnect and run there?").arg(host)
                                : tr("%1 is not connected (%2). Reconnect and run there?").arg(host, m_lastFailure),
        QMessageBox::Yes | QMessageBox::No, m_parts.window);
    box->setDefaultButton(QMessageBox::Yes);
    box->button(QMessageBox::Yes)->setText(tr("&Reconnect"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this, [this, box, action = std::move(action)](QAbstractButton* button) {
        if (button == box->button(QMessageBox::Yes))
            reconnect(action);
    });
    m_question = box;
    box->open(); // window-modal, without a nested event loop
}

void MachineController::reconnect(std::function<void()> then)
{
    const MachineLink link = m_parts.launcher->controller()->link();
    connectTo(link, tr("Reconnecting to %1…").arg(link.destination), std::move(then));
}

void MachineController::connectTo(const MachineLink& link, const QString& message, std::function<void()> then)
{
    m_parts.window->statusBar()->showMessage(message);
    // One connection for each attempt: its outcome runs `then` once.
    delete m_reconnectOnce;
    auto* once = new QObject(this);
    m_reconnectOnce = once;
    connect(m_connector, &MachineConnector::connected, once, [this, once, link, then](const Topology& topology) {
        once->deleteLater();
        m_parts.window->statusBar()->showMessage(tr("Connected to %1.").arg(link.destination), 10'000);
        adopt(link, topology);
        then();
    });
    connect(m_connector, &MachineConnector::failed, once, [this, once] {
        once->deleteLater();
        updateSwitcher(); // back on the machine it was on
    });
    m_connector->start(link, kConnectWaitMs);
}

void MachineController::cancelReconnect()
{
    m_connector->cancel();
    delete m_reconnectOnce;
}

void MachineController::refresh()
{
    const std::optional<Topology>& topology = *m_parts.topology;
    const MachineLink& link = m_parts.launcher->controller()->link();
    // A session measured elsewhere, shown from its file, is described as the session's machine.
    const bool sessionsOwn = !link.isRemote() && !m_parts.store->machine().topologyXml.empty();
    const MachineDescription machine
        = describeMachine(sessionsOwn ? tr("the session's machine") : link.displayName(), helloOf(link));
    const bool measured = m_parts.launcher->isLive();
    QString title = QStringLiteral("ctxscope");
    if (measured || sessionsOwn)
        title += QStringLiteral(" — ") + machine.summary() + (link.isRemote() ? tr(" (over ssh)") : QString());
    else if (topology)
        title += QStringLiteral(" — ") + QString::fromStdString(topology->origin());
    m_parts.window->setWindowTitle(title);
    updateSwitcher(); // it names a file or description shown as the title does
    if (!measured && !sessionsOwn && topology) // a file or a description: nothing is measured
        m_parts.status->setMachine(
            tr("%1 · runs disabled").arg(QString::fromStdString(topology->origin())), QString(), false);
    else
        m_parts.status->setMachine(machine.summary(), link.isRemote() ? link.destination : QString());
}

QMessageBox* MachineController::reconnectQuestion() const { return m_question; }

QStringList MachineController::recentHosts() { return QSettings().value(kRecentKey).toStringList(); }

void MachineController::rememberHost(const MachineLink& link)
{
    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(link.destination);
    recent.prepend(link.destination);
    settings.setValue(kRecentKey, recent.mid(0, kRecentHosts));
    settings.setValue(kCliKey, link.remoteCli);
}

void MachineController::updateActions()
{
    updateSwitcher();
    if (!m_disconnect)
        return;
    WorkerClient* c = m_parts.launcher->controller();
    m_disconnect->setEnabled(c->link().isRemote() && !m_parts.launcher->needsConnection());
    m_disconnect->setText(
        c->link().isRemote() ? tr("&Disconnect from %1").arg(c->link().destination) : tr("&Disconnect"));
}

const nlohmann::json& MachineController::helloOf(const MachineLink& link) const
{
    return m_parts.store->contextOf(link.isRemote() ? link.destination : SessionStore::kLocalMachine);
}

} // namespace ctxscope::gui
