// SPDX-License-Identifier: MIT
#include "machineconnect.h"

#include "workerclient.h"

#include <QCoreApplication>
#include <QEventLoop>

#include <optional>

namespace ctxscope::gui {

MachineConnector::MachineConnector(WorkerClient& controller, QObject* parent)
    : QObject(parent)
    , m_controller(controller)
{
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        fail(QCoreApplication::translate("MachineLink", "%1 did not answer within %2 s.")
                 .arg(m_link.displayName())
                 .arg(m_timeout.interval() / 1000));
    });
}

MachineConnector::~MachineConnector() { finish(); }

void MachineConnector::start(const MachineLink& link, int timeoutMs)
{
    cancel();
    m_link = link;
    if (const auto problem = destinationProblem(link.destination); link.isRemote() && problem) {
        emit failed(*problem);
        return;
    }
    m_previous = m_controller.link();
    m_previousRunning
        = m_controller.state() != WorkerClient::State::Stopped && m_controller.state() != WorkerClient::State::Dead;
    m_connecting = true;
    m_controller.stopWorker();
    m_controller.setLink(link);
    m_connections.push_back(connect(&m_controller, &WorkerClient::workerReady, this, [this] {
        const MachineLink reached = m_link;
        finish();
        auto topology
            = reached.isRemote() ? Topology::loadXmlBuffer(m_controller.workerTopologyXml()) : Topology::loadLive();
        if (!topology) {
            m_controller.stopWorker();
            restorePreviousLink();
            emit failed(QCoreApplication::translate("MachineLink", "The topology %1 sent could not be read: %2")
                            .arg(reached.displayName(), QString::fromStdString(topology.error().message)));
            return;
        }
        emit connected(*topology);
    }));
    m_connections.push_back(
        connect(&m_controller, &WorkerClient::workerFailed, this, [this](const QString& why) { fail(why); }));
    m_timeout.start(timeoutMs);
    m_controller.startWorker();
}

void MachineConnector::cancel()
{
    if (!m_connecting)
        return;
    finish();
    m_controller.stopWorker();
    restorePreviousLink();
}

void MachineConnector::finish()
{
    m_connecting = false;
    m_timeout.stop();
    for (const QMetaObject::Connection& c : m_connections)
        disconnect(c);
    m_connections.clear();
}

void MachineConnector::fail(const QString& message)
{
    if (!m_connecting)
        return;
    finish();
    m_controller.stopWorker();
    restorePreviousLink();
    emit failed(message);
}

void MachineConnector::restorePreviousLink()
{
    if (m_controller.link().destination == m_previous.destination
        && m_controller.link().remoteCli == m_previous.remoteCli)
        return;
    m_controller.setLink(m_previous);
    // A local worker that was running comes back; none is started for a synthetic map (or a
    // stopped worker), and a remote one is not logged into again unasked.
    if (!m_previous.isRemote() && m_previousRunning)
        m_controller.startWorker();
}

Expected<Topology> connectMachine(WorkerClient& controller, const MachineLink& link, int timeoutMs)
{
    MachineConnector connector(controller);
    QEventLoop loop;
    std::optional<Expected<Topology>> outcome;
    QObject::connect(&connector, &MachineConnector::connected, &loop, [&](const Topology& topology) {
        outcome = topology;
        loop.quit();
    });
    QObject::connect(&connector, &MachineConnector::failed, &loop, [&](const QString& why) {
        outcome = Error { why.toStdString() };
        loop.quit();
    });
    connector.start(link, timeoutMs);
    if (!outcome)
        loop.exec();
    return std::move(*outcome);
}

} // namespace ctxscope::gui
