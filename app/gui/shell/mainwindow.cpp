// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "distributionplot.h"
#include "fileopener.h"
#include "guiaffinity.h"
#include "lessonpanel.h"
#include "liveplot.h"
#include "plotsview.h"
#include "resultsmodel.h"
#include "runcoordinator.h"
#include "runpanel.h"
#include "sessionstore.h"
#include "statuspanel.h"
#include "switchratemeter.h"
#include "topologymappanel.h"

#include "ctxscope/lesson.h"
#include "ctxscope/topology_report.h"
#include "ctxscope/version.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace ctxscope::gui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_controller(new RunController(this))
    , m_affinity(std::make_unique<GuiAffinity>())
{
    m_controller->setWorkerCpus(m_affinity->original());
    setWindowTitle(QStringLiteral("ctxscope"));
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    m_banner = new QLabel(central);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("background:#fff3cd;color:#664d03;padding:6px;border:1px solid #ffe69c;"));
    m_banner->hide();
    auto* vertical = new QSplitter(Qt::Vertical, central);
    auto* top = new QSplitter(Qt::Horizontal, vertical);
    m_tabs = new QTabWidget(top);
    m_mapPanel = new TopologyMapPanel(m_tabs);
    m_topologyText = new QPlainTextEdit(m_tabs);
    m_topologyText->setReadOnly(true);
    m_topologyText->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs->addTab(m_mapPanel, tr("&Map"));
    m_tabs->addTab(m_topologyText, tr("&Text"));
    m_plots = new PlotsView(top);
    top->addWidget(m_tabs);
    top->addWidget(m_plots);
    m_lessonPanel = new LessonPanel(top);
    m_lessonPanel->hide();
    m_lessonView = m_lessonPanel->text();
    top->addWidget(m_lessonPanel);
    top->setCollapsible(2, false); // dragged to nothing it would stay open and unseen
    top->setStretchFactor(0, 4);
    top->setStretchFactor(1, 5);
    top->setStretchFactor(2, 3);
    m_topSplitter = top;
    top->installEventFilter(this); // the lesson row is fitted again when the width changes
    m_store = new SessionStore(this);
    m_runs = new RunCoordinator(this);
    m_opener = new FileOpener(*this);
    m_runs->setStarter([this](const BenchSpec& spec) { return startSpec(spec); });
    m_results = new ResultsModel(this);
    m_table = new QTableView(vertical);
    m_table->setModel(m_results);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    vertical->addWidget(top);
    vertical->addWidget(m_table);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 1);
    layout->addWidget(m_banner);
    layout->addWidget(vertical, 1);
    setCentralWidget(central);

    createMenus();
    createRunViews();
    connectController();
    connectStore();
    connectViews();
    statusBar()->showMessage(tr("Ready"));
    // Large enough for a 256-PU map to stay legible, small enough for a 1280x800 projector.
    const QSize room = screen() ? screen()->availableGeometry().size() * 0.92 : QSize(1280, 800);
    resize(std::min(1280, room.width()), std::min(800, room.height()));
    top->setSizes({ 340, 680, 300 }); // the plot tabs need about 620 pixels to show side by side
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("runDock")))
        resizeDocks({ dock }, { 290 }, Qt::Horizontal);
    vertical->setSizes({ 540, 190 });
}

MainWindow::~MainWindow() = default;

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
    createFileActions(file);
    createSessionActions(file);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    createViewActions(view);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    m_runAction = run->addAction(tr("&Run"));
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setEnabled(false); // enabled once a live topology is shown and the spec is complete
    m_cancelAction = run->addAction(tr("&Cancel"));
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setEnabled(false);
    run->addSeparator();
    m_restartAction = run->addAction(tr("Restart the &worker"));
    m_restartAction->setToolTip(tr("Stop the measuring process and start a new one"));
    createJobActions(run);
    run->addAction(tr("C&lear results"), this, &MainWindow::clearResults);
    connect(m_runAction, &QAction::triggered, this, [this] { (void)startRun(); });
    connect(m_cancelAction, &QAction::triggered, m_controller, &RunController::cancel);
    connect(m_restartAction, &QAction::triggered, this, [this] {
        m_controller->stopWorker();
        m_controller->startWorker();
    });

    QMenu* lessonsMenu = menuBar()->addMenu(tr("&Lessons"));
    for (const LessonInfo& info : lessons()) {
        const QString id = QString::fromUtf8(info.id.data(), static_cast<qsizetype>(info.id.size()));
        QAction* action = lessonsMenu->addAction(id + QStringLiteral(" — ")
            + QString::fromUtf8(info.question.data(), static_cast<qsizetype>(info.question.size())));
        connect(action, &QAction::triggered, this, [this, id] {
            if (const Status s = startLesson(id); !s)
                statusBar()->showMessage(QString::fromStdString(s.error().message), 15000);
        });
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About ctxscope"), this, &MainWindow::showAbout);
}

void MainWindow::createRunViews()
{
    m_runPanel = new RunPanel(this);
    m_runPanel->setActions(m_runAction, m_cancelAction);
    auto* dock = new QDockWidget(tr("Run"), this);
    dock->setObjectName(QStringLiteral("runDock"));
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    dock->setWidget(m_runPanel);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    m_runPanel->loadSettings();

    m_status = new StatusPanel(this);
    statusBar()->addPermanentWidget(m_status);
    m_meter = new SwitchRateMeter(this);
    connect(m_meter, &SwitchRateMeter::rateAvailable, m_status, [this](double rate) { m_status->setSwitchRate(rate); });

    connect(m_mapPanel->map(), &TopologyMapWidget::selectionChanged, this, [this](const QVector<int>& cpus) {
        m_runPanel->setMapSelection({ cpus.begin(), cpus.end() });
    });
    connect(m_runPanel, &RunPanel::specChanged, this, &MainWindow::updateActions);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) { showRunSelection(current.isValid() ? current.row() : -1); });
}

void MainWindow::setTopology(const Topology& topology)
{
    m_topology = topology;
    m_store->setMachineTopologyXml(SessionStore::kLocalMachine, {});
    m_mapPanel->setTopology(topology);
    m_runPanel->setTopology(topology);
    m_topologyText->setPlainText(QString::fromStdString(describeTopology(topology)));
    const bool live = topology.isThisSystem();
    m_banner->setVisible(!live);
    if (!live)
        m_banner->setText(tr("Showing %1. It is not this machine, so runs are disabled: tasks can only be "
                             "pinned and measured on the machine ctxscope runs on.")
                              .arg(QString::fromStdString(topology.origin())));
    setWindowTitle(QStringLiteral("ctxscope — ") + QString::fromStdString(topology.origin()));
    if (live)
        m_controller->startWorker();
    updateActions();
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
