// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "filemenu.h"
#include "lessoncontroller.h"
#include "lessonpanel.h"
#include "liveplot.h"
#include "lookcontroller.h"
#include "machinecompare.h"
#include "machinecontroller.h"
#include "plotsview.h"
#include "programsdock.h"
#include "programspanel.h"
#include "quietstage.h"
#include "runmenu.h"
#include "runpanel.h"
#include "sessionstore.h"
#include "sessionviews.h"
#include "statuspanel.h"
#include "topologymappanel.h"
#include "topologytabs.h"
#include "verdictcard.h"

#include "ctxscope/version.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <QScrollBar>

#include <algorithm>

namespace ctxscope::gui {

namespace {

// The run panel's scroll area: scrolled up and down, never squeezed across. A plain QScrollArea
// asks for almost no width, so beside a lesson at 1280 pixels the Run dock was folded to 80
// pixels ("Benchmar", "Placemen").
class RunScroll : public QScrollArea {
public:
    using QScrollArea::QScrollArea;
    QSize minimumSizeHint() const override
    {
        const QSize least = QScrollArea::minimumSizeHint();
        if (!widget())
            return least;
        return { widget()->minimumSizeHint().width() + verticalScrollBar()->sizeHint().width(), least.height() };
    }

protected:
    // The panel's least width changes with the font (presentation mode): the dock is told, or
    // it kept the larger type's 377 pixels after F11 and pushed the window past a 1280 screen.
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (watched == widget() && event->type() == QEvent::LayoutRequest)
            updateGeometry();
        return QScrollArea::eventFilter(watched, event);
    }
};

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("ctxscope"));
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    m_banner = new QLabel(central);
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("background:#fff3cd;color:#664d03;padding:6px;border:1px solid #ffe69c;"));
    m_banner->hide();
    auto* card = new VerdictCard(central);
    card->hide(); // presentation mode shows it while a lesson is open
    auto* vertical = new QSplitter(Qt::Vertical, central);
    auto* top = new QSplitter(Qt::Horizontal, vertical);
    m_tabs = new TopologyTabs(top);
    m_plots = new PlotsView(top);
    // Their least widths, whatever their contents ask (a legend of long run names made the plots
    // ask 670 pixels, the map's bar 470): with the run panel and a lesson beside them they stay
    // within a projector's 1280 pixels (the map's boxes need about 240, the plots' labels 360).
    // Beside the run panel and a lesson (240) they fit a 1228-pixel window's row of about 900;
    // wider, the splitter folded them both to nothing.
    m_tabs->setMinimumWidth(280);
    m_plots->setMinimumWidth(360);
    top->addWidget(m_tabs);
    top->addWidget(m_plots);
    auto* lessonPanel = new LessonPanel(top);
    lessonPanel->hide();
    top->addWidget(lessonPanel);
    top->setCollapsible(1, false); // the plots: squeezed, the map folds, never they
    top->setCollapsible(2, false); // dragged to nothing it would stay open and unseen
    top->setStretchFactor(0, 4);
    top->setStretchFactor(1, 5);
    top->setStretchFactor(2, 3);
    m_table = new QTableView(vertical);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    // The row numbers are the runs' numbers in the plots' legends ("#3 futex · ...").
    m_table->verticalHeader()->setDefaultAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    vertical->addWidget(top);
    vertical->addWidget(m_table);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 1);
    layout->addWidget(m_banner);
    layout->addWidget(card);
    layout->addWidget(vertical, 1);
    setCentralWidget(central);

    m_runPanel = new RunPanel(this);
    auto* dock = new QDockWidget(tr("Run"), this);
    dock->setObjectName(QStringLiteral("runDock"));
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    // Scrolled, never squeezed: at 800 pixels high the panel's rows and an A/B's outcome took more
    // than the dock had, and the layout cut the benchmark's wrapped description to a line and a half.
    auto* scroll = new RunScroll(dock);
    scroll->setObjectName(QStringLiteral("runScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(m_runPanel);
    dock->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    m_status = new StatusPanel(this);
    statusBar()->addPermanentWidget(m_status);
    // A temporary message gets its own room: the permanent labels give way while it shows.
    connect(statusBar(), &QStatusBar::messageChanged, m_status, [this](const QString& message) {
        m_status->leaveRoomForMessage(message.isEmpty() ? 0 : statusBar()->fontMetrics().horizontalAdvance(message));
    });
    m_programs = new ProgramsPanel(*mapPanel()->map(), this);
    m_programsDock = new ProgramsDock(*this, m_programs, *m_plots); // docked: in the plots' place
    addDockWidget(Qt::RightDockWidgetArea, m_programsDock);
    m_programsDock->hide(); // View → Programs

    createWorkers(top, lessonPanel, card);
    createMenus();
    m_runPanel->loadSettings();
    // Briefly: a message that stayed made the status bar's labels step aside, and a synthetic
    // topology's "runs disabled" was never seen (issue 44).
    statusBar()->showMessage(tr("Ready"), 3000);
    resize(initialWindowSize(screen() ? screen()->availableGeometry().size() : QSize(1280, 800)));
    top->setSizes({ 340, 680, 300 }); // the plot tabs need about 620 pixels to show side by side
    resizeDocks({ dock }, { 290 }, Qt::Horizontal);
    vertical->setSizes({ 540, 190 });
}

MainWindow::~MainWindow() = default;

QSize initialWindowSize(QSize available)
{
    // A projector's screen is used nearly whole; a desktop's leaves room around the window.
    const double share = available.width() <= 1440 ? 0.96 : 0.85;
    const auto fit = [share](int room, int least, int most) {
        return std::min(room, std::clamp(static_cast<int>(room * share), least, most));
    };
    return { fit(available.width(), 1024, 2560), fit(available.height(), 640, 1600) };
}

void MainWindow::createWorkers(QWidget* row, LessonPanel* lessonPanel, VerdictCard* card)
{
    // The session document first: every other object reads or fills it.
    m_store = new SessionStore(this);
    m_views = new SessionViews({ this, m_store, m_plots, m_table, mapPanel(), m_tabs });
    m_launcher = new RunMenu({ this, &m_topology, m_runPanel, m_status, mapPanel()->map(), m_plots, m_views });
    m_views->setController(m_launcher->controller());
    m_programs->setWorkerCpus(m_launcher->controller()->workerCpus());
    m_fileMenu = new FileMenu({ this, &m_topology, m_store, m_views, m_plots, m_launcher->controller() });
    connect(m_fileMenu, &FileMenu::topologyRead, this, &MainWindow::setTopology);
    m_lessons = new LessonController({ this, &m_topology, m_launcher->coordinator(), m_launcher->controller(), m_store,
        m_plots, static_cast<QSplitter*>(row), m_tabs, lessonPanel, card, m_launcher });
    // A lesson is one stage of the live and distribution views: its runs, not the ones before.
    connect(m_lessons, &LessonController::started, m_views, [this] { m_views->beginStage(true); });
    connect(m_lessons, &LessonController::finished, m_views, &SessionViews::endLessonStage);
    m_look = new LookController(*this, *mapPanel()->map(), *m_table);
    m_quiet = new QuietStage(*m_plots->livePlot(), *m_look);
    connect(m_look, &LookController::presentationChanged, m_lessons, &LessonController::setPresenting);
    connect(m_look, &LookController::presentationChanged, m_status, &StatusPanel::setPresenting);
    m_machines = new MachineController({ this, &m_topology, m_launcher, m_store, m_status });
    m_launcher->setConnectionGate(
        [this](std::function<void()> action) { m_machines->whenConnected(std::move(action)); });
    connect(m_machines, &MachineController::machineShown, this, &MainWindow::showTopology);
    m_machines->createToolBar();
    m_machineCompare = new MachineCompare({ this, m_store, m_launcher });
    m_machineCompare->createToolBarActions(findChild<QToolBar*>(QStringLiteral("machineToolBar")));
    connect(m_machines, &MachineController::machineShown, m_machineCompare, &MachineCompare::updateSurveyAction);
    connect(mapPanel()->map(), &TopologyMapWidget::selectionChanged, this, [this](const QVector<int>& cpus) {
        m_runPanel->setMapSelection({ cpus.begin(), cpus.end() });
    });
    // The map places as many tasks as the chosen benchmark runs.
    const auto limitTasks
        = [this] { mapPanel()->map()->setTaskLimit(m_runPanel->mapTaskLimit(), m_runPanel->benchmarkName()); };
    connect(m_runPanel, &RunPanel::specChanged, this, limitTasks);
    limitTasks();
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("Open topology &XML..."), this, &MainWindow::openTopologyXml);
    file->addAction(tr("Open s&ynthetic topology..."), this, &MainWindow::openSynthetic);
    file->addSeparator();
    m_machines->createActions(file);
    file->addSeparator();
    m_fileMenu->createActions(file);
    m_machineCompare->createActions(file);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    m_look->createActions(view);
    m_quiet->createAction(view);
    m_lessons->createViewAction(view);
    QAction* programs = m_programsDock->toggleViewAction();
    programs->setText(tr("&Programs (watch and re-pin running threads)"));
    programs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    view->addAction(programs);
    // Closing the dock (its button or this action) leaves a watch running: Stop ends it.
    view->addSeparator();
    for (const QString& name : PlotsView::viewNames())
        view->addAction(tr("Show %1").arg(name), this, [this, name] { m_plots->showView(name); });

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    m_launcher->createActions(run);
    run->addAction(tr("C&lear results"), m_views, &SessionViews::clear);

    m_lessons->createMenu(menuBar()->addMenu(tr("&Lessons")));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About ctxscope"), this, &MainWindow::showAbout);
}

void MainWindow::setTopology(const Topology& topology) { showTopology(topology, false); }

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_fileMenu->confirmQuit()) {
        event->ignore();
        return;
    }
    m_programs->restoreBeforeQuit();
    QMainWindow::closeEvent(event);
}

void MainWindow::showTopology(const Topology& topology, bool server)
{
    m_topology = topology;
    m_launcher->setShowsServer(server);
    // A session measured elsewhere keeps its runs as that machine's (FileMenu::showSession
    // sets the store's topology again after this when it shows one).
    m_store->detachLoadedMachine();
    m_tabs->setTopology(topology); // the map and the text
    m_runPanel->setTopology(topology);
    const bool live = m_launcher->isLive();
    const MachineLink& link = controller()->link();
    // A server's map as a session saved it, its worker not (yet) connected.
    const bool unconnected = live && m_launcher->needsConnection();
    m_banner->setVisible(!live || unconnected);
    if (unconnected)
        m_banner->setText(tr("Showing %1 as this session last saw it: it is not connected. Runs go there once it "
                             "is; the next Run offers to reconnect.")
                              .arg(link.destination));
    else if (!live && link.isRemote())
        m_banner->setText(tr("Showing %1. Runs go to %2 over ssh, which this is not, so they are disabled.")
                              .arg(QString::fromStdString(topology.origin()), link.destination));
    else if (!live)
        m_banner->setText(tr("Showing %1. It is not this machine, so runs are disabled: tasks can only be "
                             "pinned and measured on the machine ctxscope runs on.")
                              .arg(QString::fromStdString(topology.origin())));
    m_programs->setMachine(link, live && !unconnected);
    m_runPanel->setLocalMachine(live && !link.isRemote());
    const QString runsOff = live ? QString()
                                 : tr("Runs are disabled: the map shows %1, not a machine to measure.")
                                       .arg(QString::fromStdString(topology.origin()));
    m_runPanel->setRunsDisabled(runsOff);
    mapPanel()->setRunsDisabled(runsOff);
    m_plots->livePlot()->setRunsDisabled(!live);
    m_machines->refresh(); // the title and the status bar name the machine
    m_views->refreshRunViews(); // the ladder shows the runs of the machine runs go to
    if (live && !link.isRemote())
        controller()->startWorker(); // a server's is started by whoever connects (MachineConnector)
    m_launcher->updateActions();
}

void MainWindow::showTopologyOrSay(Expected<Topology> topology, const QString& title)
{
    if (!topology) {
        QMessageBox::warning(this, title, QString::fromStdString(topology.error().message));
        emit topologyFailed(QString::fromStdString(topology.error().message));
        return;
    }
    setTopology(*topology);
}

void MainWindow::openTopologyXml()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open hwloc XML topology"), QString(), tr("hwloc XML (*.xml);;All files (*)"));
    if (!path.isEmpty())
        showTopologyOrSay(Topology::loadXmlFile(path.toStdString()), tr("Open topology"));
}

void MainWindow::openSynthetic()
{
    bool ok = false;
    const QString desc
        = QInputDialog::getText(this, tr("Synthetic topology"), tr("hwloc synthetic description (levels with counts):"),
            QLineEdit::Normal, QStringLiteral("pack:2 l3:2 core:4 pu:2"), &ok);
    if (ok && !desc.isEmpty())
        showTopologyOrSay(Topology::loadSynthetic(desc.toStdString()), tr("Synthetic topology"));
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About ctxscope"),
        tr("<b>ctxscope %1</b><p>Explore what a context switch costs on this machine: syscalls, futex and "
           "pipe ping-pong, coroutines, and how placement and working sets change the cost.</p>")
            .arg(QString::fromLatin1(kVersion)));
}

WorkerClient* MainWindow::controller() const { return m_launcher->controller(); }
TopologyMapPanel* MainWindow::mapPanel() const { return m_tabs->mapPanel(); }
RunBroker* MainWindow::runs() const { return m_launcher->coordinator(); }
FileOpener* MainWindow::opener() const { return m_fileMenu->opener(); }
LessonSession* MainWindow::lesson() const { return m_lessons->lesson(); }
LessonPanel* MainWindow::lessonPanel() const { return m_lessons->panel(); }
VerdictCard* MainWindow::verdictCard() const { return m_lessons->card(); }
QTextBrowser* MainWindow::lessonView() const { return m_lessons->panel()->text(); }
ResultsModel* MainWindow::resultsModel() const { return m_views->resultsModel(); }
QAction* MainWindow::runAction() const { return m_launcher->runAction(); }
QAction* MainWindow::cancelAction() const { return m_launcher->cancelAction(); }

} // namespace ctxscope::gui
