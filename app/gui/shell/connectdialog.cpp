// SPDX-License-Identifier: MIT
#include "connectdialog.h"

#include "workerclient.h"

#include "ctxscope/units.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace ctxscope::gui {

namespace {
// ssh gives up on a host that does not answer after kConnectTimeoutS; this is the app's
// own bound on the whole start (login, the remote shell, the worker's hello).
constexpr int kConnectWaitMs = 60'000;
constexpr int kHostRole = Qt::UserRole;
} // namespace

ConnectDialog::ConnectDialog(WorkerClient& controller, const QStringList& recentHosts, const QStringList& configAliases,
    const QString& remoteCli, QWidget* parent)
    : QDialog(parent)
    , m_controller(controller)
    , m_connector(new MachineConnector(controller, this))
{
    setWindowTitle(tr("Connect to a machine"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Measure another machine: ctxscope runs <tt>ssh</tt> in batch mode with your keys and "
                                "~/.ssh/config, and <tt>ctxscope-cli worker</tt> there."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* form = new QFormLayout;
    m_host = new QLineEdit(this);
    m_host->setPlaceholderText(tr("alias, user@host or ssh://user@host:port"));
    m_host->setClearButtonEnabled(true);
    form->addRow(tr("&Host:"), m_host);
    m_hosts = new QListWidget(this);
    m_hosts->setToolTip(tr("Recent hosts, then the Host aliases of the ssh configuration; double-click to connect"));
    const auto add = [this](const QString& host, const QString& where) {
        auto* item = new QListWidgetItem(QStringLiteral("%1 — %2").arg(host, where), m_hosts);
        item->setData(kHostRole, host);
    };
    for (const QString& host : recentHosts)
        add(host, tr("recent"));
    for (const QString& alias : configAliases)
        if (!recentHosts.contains(alias))
            add(alias, tr("ssh config"));
    if (m_hosts->count() == 0)
        m_hosts->addItem(tr("(no recent hosts and no Host aliases in the ssh configuration)"));
    form->addRow(tr("Known &hosts:"), m_hosts);
    m_cli = new QLineEdit(remoteCli.isEmpty() ? QStringLiteral("ctxscope-cli") : remoteCli, this);
    m_cli->setToolTip(tr("The ctxscope-cli to run on the server: a name on its PATH or a path"));
    form->addRow(tr("&Remote CLI:"), m_cli);
    layout->addLayout(form);

    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0); // waiting: no fraction to show
    m_busy->setTextVisible(false);
    m_busy->hide();
    layout->addWidget(m_busy);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    layout->addWidget(m_message);

    auto* buttons = new QDialogButtonBox(this);
    m_connect = buttons->addButton(tr("&Connect"), QDialogButtonBox::AcceptRole);
    m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
    m_connect->setDefault(true);
    m_push = buttons->addButton(tr("C&opy it for this session"), QDialogButtonBox::ActionRole);
    m_push->setToolTip(tr("Copy this machine's portable ctxscope-cli (one static file) over the same ssh to a private "
                          "temporary folder on the server, check its SHA-256, run it there, and remove it when the "
                          "session ends or the connection drops. Nothing is installed."));
    m_push->hide();
    layout->addWidget(buttons);

    connect(m_connect, &QPushButton::clicked, this, &ConnectDialog::connectToHost);
    connect(m_push, &QPushButton::clicked, this, &ConnectDialog::connectWithBundle);
    connect(m_cancel, &QPushButton::clicked, this, &ConnectDialog::reject);
    connect(m_hosts, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (const QString host = item->data(kHostRole).toString(); !host.isEmpty())
            m_host->setText(host);
    });
    connect(m_hosts, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (const QString host = item->data(kHostRole).toString(); !host.isEmpty() && !isConnecting()) {
            m_host->setText(host);
            connectToHost();
        }
    });
    connect(m_connector, &MachineConnector::failed, this, [this](const QString& why) {
        setBusy(false);
        offerBundle(why);
    });
    connect(m_connector, &MachineConnector::connected, this, [this](const Topology& topology) {
        setBusy(false);
        say(QString(), false);
        emit connected(m_connector->link(), topology);
        accept();
    });
    resize(520, sizeHint().height());
}

void ConnectDialog::offerBundle(const QString& why)
{
    m_bundle.clear();
    m_push->hide();
    if (!m_controller.remoteCliMissing()) {
        say(why, true);
        return;
    }
    const auto bundle = findPushBundle();
    if (!bundle) {
        say(why
                + tr(" Or copy a portable ctxscope-cli there for this session: build it here with "
                     "`./packaging/dev.sh bundle` and start the app with CTXSCOPE_BUNDLE set to its path."),
            true);
        return;
    }
    m_bundle = *bundle;
    say(tr("%1 has no `%2`. Copy this machine's portable ctxscope-cli (%3, %4) to a private temporary folder "
           "there for this session? It is checked, run from there and removed when the session ends; nothing is "
           "installed.")
            .arg(m_connector->link().destination, m_connector->link().remoteCli, QFileInfo(m_bundle).fileName(),
                QString::fromStdString(formatBytes(static_cast<std::uint64_t>(QFileInfo(m_bundle).size())))),
        true);
    m_push->show();
    m_push->setDefault(true);
}

void ConnectDialog::connectWithBundle()
{
    if (m_bundle.isEmpty() || isConnecting())
        return;
    auto bundle = ssh::readPushBundle(m_bundle.toStdString());
    if (!bundle) {
        say(QString::fromStdString(bundle.error().message), true);
        return;
    }
    connectTo(std::make_shared<const ssh::PushBundle>(std::move(*bundle)));
}

void ConnectDialog::connectToHost() { connectTo(nullptr); }

void ConnectDialog::connectTo(std::shared_ptr<const ssh::PushBundle> push)
{
    if (isConnecting())
        return;
    m_push->hide();
    m_connect->setDefault(true);
    const MachineLink link { m_host->text().trimmed(),
        m_cli->text().trimmed().isEmpty() ? QStringLiteral("ctxscope-cli") : m_cli->text().trimmed(), std::move(push) };
    if (const auto problem = destinationProblem(link.destination)) {
        say(*problem, true);
        return;
    }
    if (m_controller.isBusy()) {
        say(tr("A run is in progress: cancel it first (Esc in the main window), then connect."), true);
        return;
    }
    setBusy(true);
    say((link.push ? tr("Copying ctxscope-cli to %1 and connecting… (ssh gives up on a host that does not answer "
                        "after %2 s)")
                   : tr("Connecting to %1… (ssh gives up on a host that does not answer after %2 s)"))
            .arg(link.destination)
            .arg(kConnectTimeoutS),
        false);
    m_connector->start(link, kConnectWaitMs);
}

bool ConnectDialog::isConnecting() const { return m_connector->isConnecting(); }

QString ConnectDialog::message() const { return m_message->isVisibleTo(this) ? m_message->text() : QString(); }

void ConnectDialog::reject()
{
    if (!isConnecting()) {
        QDialog::reject();
        return;
    }
    m_connector->cancel();
    setBusy(false);
    say(tr("Cancelled: not connected to %1.").arg(m_connector->link().destination), false);
}

void ConnectDialog::setBusy(bool busy)
{
    m_busy->setVisible(busy);
    m_host->setEnabled(!busy);
    m_hosts->setEnabled(!busy);
    m_cli->setEnabled(!busy);
    m_connect->setEnabled(!busy);
}

void ConnectDialog::say(const QString& text, bool failure)
{
    m_message->setText(text);
    // The status bar's red, lighter on a dark palette.
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    m_message->setStyleSheet(
        failure ? QStringLiteral("color:%1;").arg(QLatin1String(dark ? "#ea868f" : "#b02a37")) : QString());
    m_message->setVisible(!text.isEmpty());
    // A wrapped sentence needs the height its lines take at the dialog's width: grow to it
    // (a dialog does not follow its height-for-width labels by itself).
    layout()->activate();
    const int needed = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width()) : sizeHint().height();
    if (needed > height())
        resize(width(), needed);
}

} // namespace ctxscope::gui
