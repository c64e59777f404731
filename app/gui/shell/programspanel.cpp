// SPDX-License-Identifier: MIT
#include "programspanel.h"

#include "pindialogs.h"
#include "plotstyle.h"
#include "processtablemodel.h"
#include "programplot.h"
#include "programscontroller.h"
#include "programwatch.h"
#include "threadtablemodel.h"
#include "timelineview.h"
#include "topologymapwidget.h"
#include "wakeupplot.h"

#include "ctxscope/topology.h"
#include "ctxscope/units.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QShowEvent>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace ctxscope::gui {

namespace {

QTableView* makeTable(QWidget* parent, QAbstractItemView::SelectionMode mode)
{
    auto* table = new QTableView(parent);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(mode);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
    return table;
}

} // namespace

ProgramsPanel::ProgramsPanel(TopologyMapWidget& map, QWidget* parent)
    : QWidget(parent)
    , m_map(map)
    , m_programs(new ProgramsController(this))
    , m_dialogs(new PinDialogs(*m_programs, *this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(buildPickRow());
    auto* splitter = new QSplitter(Qt::Vertical, this);
    buildProcessTable(splitter);
    buildWatchRow(splitter);
    buildPlotTabs(splitter);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 3);
    splitter->setSizes({ 120, 300, 300 }); // the list is for picking: once watching, the threads matter
    layout->addWidget(splitter, 1);

    connectControls();
    connectWatch();
    connectController();
    updateButtons();
}

QHBoxLayout* ProgramsPanel::buildPickRow()
{
    auto* pick = new QHBoxLayout;
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by command or PID"));
    m_filter->setClearButtonEnabled(true);
    m_refreshButton = new QPushButton(tr("&Refresh"), this);
    // Beside the filter, which gives way: on the PID or pin row it widened the page past a 1280
    // screen's share.
    m_traceWakeups = new QCheckBox(tr("Trace &wake-ups"), this);
    // It never sets the page's least width (the filter beside it gives way first).
    m_traceWakeups->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_traceWakeups->setMinimumWidth(0);
    pick->addWidget(m_filter, 3);
    pick->addWidget(m_traceWakeups, 2);
    pick->addWidget(m_refreshButton);
    return pick;
}

void ProgramsPanel::buildProcessTable(QSplitter* splitter)
{
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_programs->processes());
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(-1); // the command or the PID
    m_proxy->setSortRole(ProcessTableModel::SortRole);
    m_processTable = makeTable(splitter, QAbstractItemView::SingleSelection);
    m_processTable->setModel(m_proxy);
    m_processTable->setToolTip(tr("Your processes first (bold), then the busiest. Double-click one to watch it."));
}

void ProgramsPanel::buildWatchRow(QSplitter* splitter)
{
    auto* watchRow = new QWidget(splitter);
    auto* watchLayout = new QVBoxLayout(watchRow);
    watchLayout->setContentsMargins(0, 0, 0, 0);
    auto* pidRow = new QHBoxLayout;
    pidRow->addWidget(new QLabel(tr("PID:"), watchRow));
    m_pid = new QLineEdit(watchRow);
    m_pid->setPlaceholderText(tr("a process ID"));
    m_pid->setMaximumWidth(m_pid->fontMetrics().horizontalAdvance(QStringLiteral("0000000000")));
    m_watchButton = new QPushButton(tr("&Watch"), watchRow);
    m_stopButton = new QPushButton(tr("S&top"), watchRow);
    pidRow->addWidget(m_pid);
    pidRow->addWidget(m_watchButton);
    pidRow->addWidget(m_stopButton);
    pidRow->addStretch(1);
    watchLayout->addLayout(pidRow);
    m_status = new QLabel(tr("Pick a process to watch its threads on the map."), watchRow);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    watchLayout->addWidget(m_status);
    m_threadTable = makeTable(watchRow, QAbstractItemView::ExtendedSelection);
    m_threadTable->setModel(m_programs->watchData()->threads());
    m_threadTable->setToolTip(tr("Select the threads to pin (Ctrl or Shift for several); the plot shows them."));
    // Six threads whole in view whatever the splitter does (and a scroll bar under them when
    // the columns are wider than the page).
    m_threadTable->setMinimumHeight(m_threadTable->horizontalHeader()->sizeHint().height()
        + 6 * m_threadTable->verticalHeader()->defaultSectionSize() + 2 * m_threadTable->frameWidth()
        + m_threadTable->style()->pixelMetric(QStyle::PM_ScrollBarExtent));
    watchLayout->addWidget(m_threadTable, 1);
    auto* pinRow = new QHBoxLayout;
    m_target = new QLabel(watchRow);
    m_target->setWordWrap(true);
    m_applyButton = new QPushButton(tr("&Apply"), watchRow);
    m_applyButton->setToolTip(tr("Pin the selected threads to the PUs selected on the map"));
    m_restoreButton = new QPushButton(tr("Re&store"), watchRow);
    m_restoreButton->setToolTip(tr("Give every thread the affinity it had when watching began"));
    // The hint on a line of its own: beside the buttons it wrapped into a column of a few words.
    watchLayout->addWidget(m_target);
    pinRow->addStretch(1);
    pinRow->addWidget(m_applyButton);
    pinRow->addWidget(m_restoreButton);
    watchLayout->addLayout(pinRow);
}

void ProgramsPanel::buildPlotTabs(QSplitter* splitter)
{
    // The rates, and a traced watch's wake-up latencies and timeline, as tabs of one pane: a
    // pane each did not fit a projector's 800 pixels beside the thread table.
    m_plotTabs = new QTabWidget(splitter);
    m_plotTabs->setDocumentMode(true);
    m_plot = new ProgramPlot(*m_programs->watchData(), m_plotTabs);
    m_plotTabs->addTab(m_plot, tr("S&witches"));
    m_wakeups = new WakeupPlot(m_plotTabs);
    m_plotTabs->addTab(m_wakeups, tr("Wake-&ups"));
    auto* timelinePage = new QWidget(m_plotTabs);
    auto* timelineLayout = new QVBoxLayout(timelinePage);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    m_recordEvents = new QCheckBox(tr("Record the &events to draw them"), timelinePage);
    m_recordEvents->setToolTip(
        tr("A traced watch counts each thread's wake-ups in the kernel (BPF) where it may, and keeps no events. "
           "Checked, it records the scheduler's events with ftrace to draw the threads' runs here, at a higher cost "
           "to the watched program. A change watches the program again."));
    timelineLayout->addWidget(m_recordEvents);
    m_timelineNote = new QLabel(timelinePage);
    m_timelineNote->setWordWrap(true);
    m_timelineNote->setAlignment(Qt::AlignLeft | Qt::AlignTop); // at the top when the timeline is hidden
    timelineLayout->addWidget(m_timelineNote);
    m_timeline = new TimelineView(timelinePage);
    m_timeline->setToolTip(tr("Each PU's last seconds: the watched threads' runs, the selected ones in their curves' "
                              "colours; the thin band is idle or a task not watched, blank is left out. Wheel: zoom, "
                              "drag: pan, Home: all, right-drag: measure; click a run to select its thread."));
    timelineLayout->addWidget(m_timeline, 1);
    m_plotTabs->addTab(timelinePage, tr("&Timeline"));
    for (const int tab : { WakeupsTab, TimelineTab }) {
        m_plotTabs->setTabEnabled(tab, false);
        m_plotTabs->setTabToolTip(tab, tr("Check Trace wake-ups and watch: the scheduler's events of the threads"));
    }
}

void ProgramsPanel::connectControls()
{
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_refreshButton, &QPushButton::clicked, m_programs, &ProgramsController::refreshProcesses);
    connect(m_processTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            if (current.isValid())
                m_pid->setText(current.data(ProcessTableModel::PidRole).toString());
        });
    connect(m_processTable, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        m_pid->setText(index.data(ProcessTableModel::PidRole).toString());
        watchChosen();
    });
    connect(m_pid, &QLineEdit::returnPressed, this, &ProgramsPanel::watchChosen);
    connect(m_watchButton, &QPushButton::clicked, this, &ProgramsPanel::watchChosen);
    connect(m_stopButton, &QPushButton::clicked, this, &ProgramsPanel::stopWatching);
    connect(m_applyButton, &QPushButton::clicked, this, &ProgramsPanel::applyPin);
    connect(m_restoreButton, &QPushButton::clicked, this, &ProgramsPanel::restore);
    connect(m_traceWakeups, &QCheckBox::toggled, m_programs, &ProgramsController::setTraced);
    connect(m_recordEvents, &QCheckBox::toggled, this, [this](bool on) {
        m_programs->setTimeline(on);
        const ProgramWatch* watch = m_programs->watchData();
        // The traced watch that runs gets (or drops) its events by starting again, and its
        // first traced sample opens this tab again.
        if (m_programs->isWatching() && watch->traced() && m_programs->watchKeepsEvents() != on) {
            const long pid = watch->pid();
            m_tracedTab = TimelineTab;
            m_dialogs->askToRestore([this, pid] { m_programs->watch(pid); });
        }
        m_timelineNote->setText(timelineCaption());
    });
    // What the table shows decides which threads' details the watch sends.
    m_focusTimer = new QTimer(this);
    m_focusTimer->setSingleShot(true);
    m_focusTimer->setInterval(kFocusDebounceMs);
    connect(m_focusTimer, &QTimer::timeout, this, [this] { m_programs->showThreads(shownThreads()); });
    connect(m_threadTable->verticalScrollBar(), &QScrollBar::valueChanged, this, &ProgramsPanel::focusSoon);
    m_threadTable->viewport()->installEventFilter(this);
    connect(m_threadTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        focusSoon();
        m_plot->setThreads(selectedThreads());
        updateWakeups();
        colourTimeline();
        updateMarkers();
        updateButtons();
    });
    connect(&m_map, &TopologyMapWidget::pinTargetsChanged, this, &ProgramsPanel::updateButtons);
    connect(m_plotTabs, &QTabWidget::currentChanged, this, [this] {
        if (m_timelineStale)
            updateTimeline();
    });
    // The timeline and the map light each other's PU; a thread's slice selects its row.
    connect(m_timeline, &TimelineView::puHovered, &m_map, &TopologyMapWidget::setHoveredPu);
    connect(&m_map, &TopologyMapWidget::puHovered, m_timeline, &TimelineView::highlightPu);
    connect(m_timeline, &TimelineView::taskClicked, this, [this](std::int32_t tid) {
        const int row = m_programs->watchData()->threads()->rowOfThread(tid);
        if (row >= 0)
            m_threadTable->selectRow(row);
    });
}

void ProgramsPanel::connectWatch()
{
    ProgramWatch* watch = m_programs->watchData();
    connect(watch, &ProgramWatch::sampleAdded, this, [this, watch] {
        focusSoon(); // rows came or went, or the wake-up plot's thread changed
        updateMarkers();
        updateButtons();
        m_plot->refresh();
        updateWakeups();
        // A traced watch without events: the tab's note says why no timeline comes, in its place.
        const bool noEvents = watch->traced() && !m_programs->watchKeepsEvents();
        m_timeline->setHidden(noEvents);
        if (noEvents)
            m_timelineNote->setText(timelineCaption());
        if (watch->samples() == 0)
            return;
        if (watch->samples() == 1)
            m_threadTable->resizeColumnsToContents();
        const auto& rate = watch->systemSwitchesPerS();
        QString traced = !watch->traced()           ? QString()
            : watch->backend() == SchedBackend::Bpf ? tr(", traced in the kernel (BPF)")
                                                    : tr(", traced with ftrace");
        if (watch->traced() && !watch->backendFallback().isEmpty()) // why not BPF, as the CLI says it
            traced += tr(" (not BPF: %1)").arg(watch->backendFallback());
        say(tr("Watching %1 (PID %2): %3 threads, %4 s%5.%6")
                .arg(watch->name())
                .arg(watch->pid())
                .arg(watch->threads()->rowCount())
                .arg(QString::number(watch->lastSeconds(), 'f', 0))
                .arg(traced)
                .arg(rate ? tr(" The whole system: %1 switches/s.").arg(QString::fromStdString(formatCount(*rate)))
                          : QString()));
    });
    connect(watch, &ProgramWatch::timelineChanged, this, &ProgramsPanel::updateTimeline);
    connect(watch, &ProgramWatch::pinsChanged, m_plot, &ProgramPlot::refresh);
    connect(watch, &ProgramWatch::pinsChanged, this, &ProgramsPanel::updateWakeups);
    connect(watch, &ProgramWatch::pinsChanged, this, &ProgramsPanel::updateButtons);
}

void ProgramsPanel::connectController()
{
    connect(m_programs, &ProgramsController::processesChanged, this, [this] {
        m_processTable->resizeColumnsToContents();
        updateButtons();
    });
    connect(m_programs, &ProgramsController::watchStarted, this, [this](long pid) {
        say(tr("Starting to watch PID %1…").arg(pid));
        m_watchOriginNs.reset();
        m_timeline->setTimeOrigin(std::nullopt);
        updateRepinMode(isVisible());
        updateButtons();
    });
    connect(m_programs, &ProgramsController::watchEnded, this, &ProgramsPanel::watchEnded);
    connect(m_programs, &ProgramsController::pinDone, this,
        [this](const QString& what) { say(tr("Pinned: %1. The plot marks the moment.").arg(what)); });
    connect(m_programs, &ProgramsController::pinRefused, this, [this](const QString& message) { say(message, true); });
    connect(m_programs, &ProgramsController::failed, this, [this](const QString& message) { say(message, true); });
    connect(m_programs, &ProgramsController::busyChanged, this, &ProgramsPanel::updateButtons);
    connect(m_dialogs, &PinDialogs::moveDeclined, this, [this] { say(tr("Nothing was pinned.")); });
}

ProgramsPanel::~ProgramsPanel() = default;

void ProgramsPanel::setMachine(const MachineLink& link, bool live)
{
    m_live = live;
    m_programs->setMachine(link);
    m_map.setThreadMarkers({});
    if (!live)
        say(tr("The map shows a topology that is not a connected machine's: there is nothing to watch."));
    updateButtons();
}

void ProgramsPanel::setWorkerCpus(std::vector<int> cpus) { m_programs->setWorkerCpus(std::move(cpus)); }

QString ProgramsPanel::statusText() const { return m_status->text(); }

QMessageBox* ProgramsPanel::restoreQuestion() const { return m_dialogs->restoreQuestion(); }

QMessageBox* ProgramsPanel::moveQuestion() const { return m_dialogs->moveQuestion(); }

QSize ProgramsPanel::sizeHint() const { return { fontMetrics().horizontalAdvance(QLatin1Char('M')) * 42, 700 }; }

void ProgramsPanel::say(const QString& text, bool problem)
{
    m_status->setText(text);
    m_status->setStyleSheet(problem ? QStringLiteral("color:#b02a37;") : QString());
}

void ProgramsPanel::watchChosen()
{
    bool ok = false;
    const long pid = m_pid->text().trimmed().toLong(&ok);
    if (!ok || pid <= 0) {
        say(tr("Type a process ID (a whole number above 0), or pick a process from the list."), true);
        return;
    }
    if (m_programs->isWatching() && m_programs->watchData()->pid() == pid)
        return;
    m_dialogs->askToRestore([this, pid] { m_programs->watch(pid); });
}

void ProgramsPanel::stopWatching()
{
    if (m_programs->isWatching())
        m_dialogs->askToRestore([this] { m_programs->stop(); });
}

void ProgramsPanel::updateTimeline()
{
    if (!m_timeline->isVisible()) { // built when its tab is shown: a hidden one costs nothing
        m_timelineStale = true;
        return;
    }
    m_timelineStale = false;
    const ProgramWatch* watch = m_programs->watchData();
    const TraceWindow& window = watch->timeline();
    // Like a scope: a view at the newest events follows them, showing the newest stretch without
    // a gap (a busy program's last interval, a quiet one's whole window) while it showed the one
    // before, else keeping its width; a view of older events stays on them while they are held.
    const TimelineData* before = m_timeline->data();
    const std::uint64_t from = m_timeline->fromNs();
    const std::uint64_t to = m_timeline->toNs();
    const bool empty = before == nullptr || before->empty();
    const bool atEdge = empty || to >= before->endNs();
    const bool wholeStretch = empty || from <= std::max(before->beginNs(), m_stretchFromNs);
    auto built = std::make_shared<const TimelineData>(TimelineData::build(window.events, window.comms));
    std::vector<TimelineLane> lanes
        = m_map.topology() ? timelineLanes(*m_map.topology()) : std::vector<TimelineLane> {};
    m_timeline->setData(built, withLanesOfEvents(std::move(lanes), *built));
    m_stretchFromNs = watch->timelineStretchFromNs();
    if (!built->empty() && !m_watchOriginNs) {
        m_watchOriginNs = built->beginNs();
        m_timeline->setTimeOrigin(m_watchOriginNs);
    }
    if (!built->empty()) {
        if (atEdge && wholeStretch)
            m_timeline->showSpan(std::max(built->beginNs(), m_stretchFromNs), built->endNs());
        else if (atEdge)
            m_timeline->showSpan(
                built->endNs() - std::min(built->endNs() - built->beginNs(), to - from), built->endNs());
        else if (from >= built->beginNs())
            m_timeline->showSpan(from, to);
    }
    colourTimeline();
    m_timelineNote->setText(timelineCaption());
}

void ProgramsPanel::colourTimeline()
{
    // The selected threads in their curves' colours (ProgramPlot), the others muted.
    m_timeline->clearTaskColors();
    const std::vector<long> selected = selectedThreads();
    for (std::size_t i = 0; i < selected.size(); ++i)
        m_timeline->setTaskColor(static_cast<std::int32_t>(selected[i]), runColor(static_cast<int>(i), palette()));
}

QString ProgramsPanel::timelineCaption() const
{
    const ProgramWatch* watch = m_programs->watchData();
    const TimelineData* shown = m_timeline->data();
    if (watch->traced() && !m_programs->watchKeepsEvents())
        return tr("This watch keeps no events: %1. Check Record the events to draw the threads' runs on each PU.")
            .arg(watch->backend() == SchedBackend::Bpf ? tr("its figures are counted in the kernel (BPF)")
                                                       : tr("ftrace's events give its figures and are dropped"));
    if (shown == nullptr || shown->empty())
        return tr("The watched threads' runs on each PU come here after the first interval of a traced watch.");
    // Seconds since the watch began, as the axis reads them.
    const std::uint64_t origin = m_timeline->timeOriginNs();
    const auto since = [origin](std::uint64_t ns) {
        return QString::number(static_cast<double>(ns - std::min(ns, origin)) / 1e9, 'f', 1);
    };
    QString text = tr("What PID %1's threads ran on each PU from %2 s to %3 s after the watch began (%4 scheduler "
                      "events).")
                       .arg(watch->pid())
                       .arg(since(shown->beginNs()), since(shown->endNs()))
                       .arg(QString::fromStdString(formatCount(static_cast<double>(watch->timeline().events.size()))));
    if (watch->timelineLeftOut() > 0)
        text += tr(" A blank stretch is time with too many events to keep: only the latest of each interval are "
                   "drawn (%1 left out).")
                    .arg(QString::fromStdString(formatCount(static_cast<double>(watch->timelineLeftOut()))));
    return text + tr(" The thin band: idle, or a task not watched.");
}

void ProgramsPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    updateRepinMode(true);
    focusSoon();
    if (m_timelineStale)
        updateTimeline();
    if (m_live && m_programs->processes()->rowCount() == 0)
        m_programs->refreshProcesses();
}

void ProgramsPanel::hideEvent(QHideEvent* event)
{
    QWidget::hideEvent(event);
    updateRepinMode(false);
    focusSoon();
}

bool ProgramsPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_threadTable->viewport() && event->type() == QEvent::Resize)
        focusSoon();
    return QWidget::eventFilter(watched, event);
}

void ProgramsPanel::focusSoon()
{
    if (m_focusTimer && m_programs->isWatching())
        m_focusTimer->start();
}

std::vector<long> ProgramsPanel::shownThreads() const
{
    std::vector<long> tids = selectedThreads();
    if (m_wakeupsThread != 0)
        tids.push_back(m_wakeupsThread);
    // Re-pinned threads stay in focus, so that what Restore's pin splits off (the wake-ups
    // before it) is never still held back by the worker when its answer comes.
    for (const auto& [tid, cpus] : m_programs->watchData()->restorePlan())
        tids.push_back(tid);
    // The rows in sight, in the view's (sorted, filtered) order: their TIDs through its model.
    const QAbstractItemModel* shown = m_threadTable->model();
    const int first = isVisible() ? m_threadTable->rowAt(0) : -1;
    if (first >= 0) {
        const int below = m_threadTable->rowAt(m_threadTable->viewport()->height() - 1);
        const int last = below >= 0 ? below : shown->rowCount() - 1;
        for (int row = first; row <= last; ++row)
            tids.push_back(static_cast<long>(shown->index(row, 0).data(ThreadTableModel::TidRole).toLongLong()));
    }
    std::sort(tids.begin(), tids.end());
    tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
    return tids;
}

void ProgramsPanel::updateRepinMode(bool shown)
{
    // Floating or docking hides and shows the panel: the targets wait, the watch goes on.
    m_map.setRepinMode(shown && m_programs->isWatching());
}

void ProgramsPanel::restoreBeforeQuit()
{
    if (m_live)
        m_dialogs->restoreBeforeQuit();
}

void ProgramsPanel::watchEnded(const QString& why)
{
    m_map.setThreadMarkers({});
    m_map.setRepinMode(false);
    m_map.clearPinTargets();
    if (!why.isEmpty())
        say(why, true);
    else if (m_programs->watchData()->samples() > 0)
        say(tr("Stopped watching %1 (PID %2) after %3 s. The table and the plot keep what was seen.")
                .arg(m_programs->watchData()->name())
                .arg(m_programs->watchData()->pid())
                .arg(QString::number(m_programs->watchData()->lastSeconds(), 'f', 0)));
    updateButtons();
}

std::vector<long> ProgramsPanel::selectedThreads() const
{
    std::vector<long> tids;
    for (const QModelIndex& row : m_threadTable->selectionModel()->selectedRows())
        tids.push_back(row.data(ThreadTableModel::TidRole).toLongLong());
    std::sort(tids.begin(), tids.end());
    return tids;
}

std::vector<int> ProgramsPanel::targetCpus() const { return m_map.pinTargets(); }

void ProgramsPanel::applyPin()
{
    const auto tids = selectedThreads();
    const auto cpus = targetCpus();
    if (tids.empty() || cpus.empty()) {
        say(tids.empty() ? tr("Select the threads to pin in the table first.")
                         : tr("Click the PUs to pin them to on the map first."),
            true);
        return;
    }
    if (m_programs->watchData()->guard() != PinGuard::None)
        m_dialogs->askToMove(tids, cpus);
    else
        m_programs->pinThreads(tids, cpus);
}

void ProgramsPanel::restore()
{
    const int asked = m_programs->restore();
    if (asked == 0)
        say(tr("Every thread already has the affinity it had when watching began."));
}

void ProgramsPanel::updateMarkers()
{
    if (!m_programs->isWatching()) {
        m_map.setThreadMarkers({});
        return;
    }
    const auto selected = selectedThreads();
    // The busiest first: a PU shows as many markers as fit, then "+N", and the threads that
    // switch and run are the ones to see (idle helpers took the slots before ping and pong).
    std::vector<const ThreadRates*> threads;
    for (const ThreadRates& t : m_programs->watchData()->threads()->threads())
        if (t.cpu)
            threads.push_back(&t);
    const auto busy = [](const ThreadRates* t) { return t->cpuShare + (t->voluntaryPerS + t->involuntaryPerS) * 1e-6; };
    std::stable_sort(
        threads.begin(), threads.end(), [&](const ThreadRates* a, const ThreadRates* b) { return busy(a) > busy(b); });
    std::vector<TopologyMapWidget::ThreadMarker> markers;
    for (const ThreadRates* t : threads) {
        const QString name = QString::fromStdString(t->name);
        markers.push_back({ *t->cpu, name.isEmpty() ? QString::number(t->tid) : name, name,
            std::binary_search(selected.begin(), selected.end(), t->tid), t->tid });
    }
    m_map.setThreadMarkers(std::move(markers));
}

void ProgramsPanel::updateWakeups()
{
    const ProgramWatch* watch = m_programs->watchData();
    const bool traced = watch->traced();
    if (traced != m_plotTabs->isTabEnabled(WakeupsTab)) {
        // The traced tabs open with the first traced sample (the user asked for wake-ups), and
        // close with a watch that is not traced.
        for (const int tab : { WakeupsTab, TimelineTab })
            m_plotTabs->setTabEnabled(tab, traced);
        m_plotTabs->setCurrentIndex(traced ? m_tracedTab : RatesTab);
    }
    m_wakeupsThread = 0;
    if (!traced)
        return;
    const std::vector<long> selected = selectedThreads();
    long shown = selected.empty() ? 0 : selected.front();
    if (shown == 0) { // none selected: the thread woken most
        std::uint64_t most = 0;
        for (const ThreadRates& t : watch->threads()->threads())
            if (const auto* epochs = watch->wakeups(t.tid); epochs && epochs->back().count > most) {
                most = epochs->back().count;
                shown = t.tid;
            }
    }
    QString name;
    for (const ThreadRates& t : watch->threads()->threads())
        if (t.tid == shown)
            name = QStringLiteral("%1 %2").arg(t.tid).arg(QString::fromStdString(t.name));
    m_wakeupsThread = shown;
    m_wakeups->setThread(shown ? watch->wakeups(shown) : nullptr, name);
}

void ProgramsPanel::updateButtons()
{
    const bool watching = m_programs->isWatching();
    // Where the worker may not trace, its sentence says why; a change applies to the next watch.
    const QString refusal = m_programs->tracingRefusal();
    m_traceWakeups->setEnabled(m_live && refusal.isEmpty());
    m_traceWakeups->setToolTip(refusal.isEmpty()
            ? tr("The next watch also follows the scheduler (watch --trace): each thread's wake-up latencies, "
                 "wakers and preemptors, in the Wake-ups tab; before and after a re-pin side by side. Counted in the "
                 "kernel (BPF) where the worker may, else from ftrace's events")
            : refusal);
    // One job at a time in the worker: the list waits for the watch to end.
    m_refreshButton->setEnabled(m_live && !m_programs->isListing() && !watching);
    m_refreshButton->setToolTip(watching
            ? tr("Stop the watch to list the processes again")
            : tr("List the running processes again, sampled over %1 s").arg(ProgramsController::kListSeconds));
    m_watchButton->setEnabled(m_live);
    m_processTable->setEnabled(m_live);
    m_stopButton->setEnabled(watching);
    const auto cpus = targetCpus();
    const auto tids = selectedThreads();
    m_applyButton->setEnabled(watching && !tids.empty() && !cpus.empty());
    m_restoreButton->setEnabled(m_live && !m_programs->watchData()->restorePlan().empty());
    if (!watching)
        m_target->setText(tr("Watch a program, then select threads and click PUs on the map to pin them."));
    else if (cpus.empty())
        m_target->setText(tr("Click PUs on the map to choose where the selected threads may run."));
    else
        m_target->setText(tr("Pin %n selected thread(s) to P#%1", nullptr, static_cast<int>(tids.size()))
                              .arg(QString::fromStdString(formatCpuList(cpus))));
}

} // namespace ctxscope::gui
