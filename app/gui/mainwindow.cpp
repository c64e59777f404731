// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "topologymappanel.h"

#include "ctxscope/topology_report.h"
#include "ctxscope/version.h"

#include <QAction>
#include <QFileDialog>
#include <QFontDatabase>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScreen>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace ctxscope::gui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("ctxscope"));
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    m_banner = new QLabel(central);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("background:#fff3cd;color:#664d03;padding:6px;border:1px solid #ffe69c;"));
    m_banner->hide();
    m_tabs = new QTabWidget(central);
    m_mapPanel = new TopologyMapPanel(m_tabs);
    m_topologyText = new QPlainTextEdit(m_tabs);
    m_topologyText->setReadOnly(true);
    m_topologyText->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs->addTab(m_mapPanel, tr("&Map"));
    m_tabs->addTab(m_topologyText, tr("&Text"));
    layout->addWidget(m_banner);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);
    createMenus();
    statusBar()->showMessage(tr("Ready"));
    // Large enough for a 256-PU map to stay legible, small enough for a 1280x800 projector.
    const QSize room = screen() ? screen()->availableGeometry().size() * 0.92 : QSize(1280, 800);
    resize(std::min(1280, room.width()), std::min(800, room.height()));
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Open topology &XML..."), this, &MainWindow::openTopologyXml);
    file->addAction(tr("Open s&ynthetic topology..."), this, &MainWindow::openSynthetic);
    file->addAction(tr("Show this &machine"), this, [this] {
        auto live = Topology::loadLive();
        if (live)
            setTopology(*live);
        else
            QMessageBox::warning(this, tr("Topology"), QString::fromStdString(live.error().message));
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    m_runAction = run->addAction(tr("&Run"));
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setEnabled(false); // enabled once a live topology and the worker are ready
    m_cancelAction = run->addAction(tr("&Cancel"));
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setEnabled(false);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About ctxscope"), this, &MainWindow::showAbout);
}

void MainWindow::setTopology(const Topology& topology)
{
    m_topology = topology;
    m_mapPanel->setTopology(topology);
    m_topologyText->setPlainText(QString::fromStdString(describeTopology(topology)));
    const bool live = topology.isThisSystem();
    m_banner->setVisible(!live);
    if (!live)
        m_banner->setText(tr("Showing %1. It is not this machine, so runs are disabled: tasks can only be "
                             "pinned and measured on the machine ctxscope runs on.")
                              .arg(QString::fromStdString(topology.origin())));
    setWindowTitle(QStringLiteral("ctxscope — ") + QString::fromStdString(topology.origin()));
}

void MainWindow::openTopologyXml()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open hwloc XML topology"), QString(), tr("hwloc XML (*.xml);;All files (*)"));
    if (path.isEmpty())
        return;
    auto topo = Topology::loadXmlFile(path.toStdString());
    if (!topo) {
        QMessageBox::warning(this, tr("Open topology"), QString::fromStdString(topo.error().message));
        emit topologyFailed(QString::fromStdString(topo.error().message));
        return;
    }
    setTopology(*topo);
}

void MainWindow::openSynthetic()
{
    bool ok = false;
    const QString desc
        = QInputDialog::getText(this, tr("Synthetic topology"), tr("hwloc synthetic description (levels with counts):"),
            QLineEdit::Normal, QStringLiteral("pack:2 l3:2 core:4 pu:2"), &ok);
    if (!ok || desc.isEmpty())
        return;
    auto topo = Topology::loadSynthetic(desc.toStdString());
    if (!topo) {
        QMessageBox::warning(this, tr("Synthetic topology"), QString::fromStdString(topo.error().message));
        emit topologyFailed(QString::fromStdString(topo.error().message));
        return;
    }
    setTopology(*topo);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About ctxscope"),
        tr("<b>ctxscope %1</b><p>Explore what a context switch costs on this machine: syscalls, futex and "
           "pipe ping-pong, coroutines, and how placement and working sets change the cost.</p>")
            .arg(QString::fromLatin1(kVersion)));
}

} // namespace ctxscope::gui
