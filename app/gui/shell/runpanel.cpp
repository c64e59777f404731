// SPDX-License-Identifier: MIT
#include "runpanel.h"

#include "ctxscope/traced_run.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

namespace ctxscope::gui {

namespace {

QString qs(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

QLabel* noteLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

} // namespace

RunPanel::RunPanel(QWidget* parent)
    : QWidget(parent)
{
    m_bench = new QComboBox(this);
    for (const BenchInfo& b : benchmarks()) {
        m_bench->addItem(qs(b.name), qs(b.name));
        m_bench->setItemData(m_bench->count() - 1, qs(b.op), Qt::ToolTipRole);
    }
    m_benchInfo = noteLabel(this);
    m_mode = new QComboBox(this);
    for (BenchMode mode : { BenchMode::Thread, BenchMode::Process })
        m_mode->addItem(qs(toString(mode)), static_cast<int>(mode));
    m_mode->setToolTip(tr("Threads of one process, or forked processes sharing only a mapping and pipes"));
    m_placement = new QComboBox(this);
    m_placement->setToolTip(tr("Where the tasks run: the PUs clicked on the map, a representative pair of a "
                               "relation class, or wherever the scheduler puts them"));
    m_placementInfo = noteLabel(this);
    m_tasks = new QSpinBox(this);
    m_tasks->setToolTip(tr("Tasks in the ring (more than PUs shows run-queue waiting)"));
    m_lengthKind = new QComboBox(this);
    m_lengthKind->addItem(tr("Minimum time"));
    m_lengthKind->addItem(tr("Iterations"));
    m_minTime = new QDoubleSpinBox(this);
    m_minTime->setRange(0.01, kMaxMinTimeSeconds);
    m_minTime->setDecimals(2);
    m_minTime->setSingleStep(0.1);
    m_minTime->setSuffix(tr(" s per repetition"));
    m_minTime->setValue(0.2);
    m_iterations = new QSpinBox(this);
    m_iterations->setRange(1, static_cast<int>(kMaxIterations));
    m_iterations->setSingleStep(1000);
    m_iterations->setValue(20000);
    m_iterations->setSuffix(tr(" ops per repetition"));
    m_iterations->hide();
    // The two lengths take one row's room whichever is shown: the iterations' largest value is
    // wider than the time's, and a panel that widened with it pushed a 1280-pixel window wider.
    const int lengthWidth = m_minTime->minimumSizeHint().width();
    for (QAbstractSpinBox* box : std::initializer_list<QAbstractSpinBox*> { m_minTime, m_iterations }) {
        box->setSizePolicy(QSizePolicy::Ignored, box->sizePolicy().verticalPolicy());
        box->setMinimumWidth(lengthWidth);
    }
    m_repetitions = new QSpinBox(this);
    m_repetitions->setRange(1, kMaxRepetitions);
    m_repetitions->setValue(5);
    m_policy = new QComboBox(this);
    for (SchedPolicy policy : { SchedPolicy::Other, SchedPolicy::Fifo })
        m_policy->addItem(qs(toString(policy)), static_cast<int>(policy));
    m_policy->setToolTip(tr("SCHED_FIFO needs CAP_SYS_NICE or RLIMIT_RTPRIO; when refused the run uses "
                            "SCHED_OTHER and its result says so"));
    m_ws = new QLineEdit(this);
    m_ws->setPlaceholderText(tr("none (e.g. 4096, 64K, 16M, 1G)"));
    m_ws->setClearButtonEnabled(true);
    m_spinNs = new QSpinBox(this);
    m_spinNs->setRange(0, static_cast<int>(kMaxSpinNs));
    m_spinNs->setSingleStep(500);
    m_spinNs->setValue(static_cast<int>(kDefaultSpinNs));
    m_spinNs->setSuffix(tr(" ns spinning before sleeping"));
    m_spinNs->setToolTip(tr("How long a waiting task spins on the futex word before it sleeps on it (--spin-ns); 0 "
                            "sleeps at once"));
    m_trace = new QCheckBox(tr("T&race the scheduler"), this);
    m_traceHow = new QComboBox(this);
    m_traceHow->addItem(tr("from its events (timeline)"), QString::fromUtf8(toString(TraceBackend::Ftrace)));
    m_traceHow->addItem(tr("in the kernel (steps only)"), QString::fromUtf8(toString(TraceBackend::Bpf)));
    m_keepAwake = new QCheckBox(tr("&Keep the other CPU awake"), this);
    m_shallow = new QCheckBox(tr("&Hold C-states shallow"), this);
    m_tracingRefusal = tr("Whether this machine may trace is known once the worker has started.");
    m_bpfRefusal = m_tracingRefusal;
    m_problem = new QLabel(this);
    m_problem->setWordWrap(true);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setFormat(tr("%p%"));
    m_eta = noteLabel(this);

    auto* form = m_form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("&Benchmark:"), m_bench);
    form->addRow(m_benchInfo);
    form->addRow(tr("M&ode:"), m_mode);
    form->addRow(tr("&Placement:"), m_placement);
    form->addRow(m_placementInfo);
    form->addRow(tr("&Tasks:"), m_tasks);
    form->addRow(tr("&Working set:"), m_ws);
    form->addRow(tr("&Spin:"), m_spinNs);
    form->addRow(tr("&Length:"), m_lengthKind);
    form->addRow(QString(), m_minTime);
    form->addRow(QString(), m_iterations);
    form->addRow(tr("R&epetitions:"), m_repetitions);
    form->addRow(tr("Po&licy:"), m_policy);
    form->addRow(QString(), m_trace);
    form->addRow(tr("Traced:"), m_traceHow);
    form->addRow(QString(), m_keepAwake);
    form->addRow(QString(), m_shallow);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(m_progress);
    layout->addWidget(m_eta);
    layout->addStretch(1);

    connect(m_bench, &QComboBox::currentIndexChanged, this, &RunPanel::benchmarkChanged);
    connect(m_placement, &QComboBox::currentIndexChanged, this, &RunPanel::updatePlacementInfo);
    connect(m_lengthKind, &QComboBox::currentIndexChanged, this, [this](int kind) {
        m_minTime->setVisible(kind == 0);
        m_iterations->setVisible(kind == 1);
    });
    for (QComboBox* box : { m_mode, m_lengthKind, m_policy })
        connect(box, &QComboBox::currentIndexChanged, this, &RunPanel::specChanged);
    connect(m_tasks, &QSpinBox::valueChanged, this, &RunPanel::updatePlacementInfo);
    connect(m_ws, &QLineEdit::textChanged, this, &RunPanel::specChanged);
    for (QCheckBox* box : { m_keepAwake, m_shallow })
        connect(box, &QCheckBox::toggled, this, &RunPanel::specChanged);
    connect(m_spinNs, &QSpinBox::valueChanged, this, &RunPanel::specChanged);
    // The conditions' availability first: the problem line reads the spec they go into.
    connect(this, &RunPanel::specChanged, this, &RunPanel::updateConditionSwitches);
    connect(this, &RunPanel::specChanged, this, &RunPanel::showProblem);
    // Sized to their longest entry (at first show, in presentation mode's larger type) the
    // choices widened the panel to 400 pixels and a 1280 window past the screen after F11: a
    // dozen characters and the popup's full width instead.
    connect(m_trace, &QCheckBox::toggled, this, &RunPanel::updateTraceSwitch);
    connect(m_traceHow, &QComboBox::activated, this, [this](int index) {
        m_chosenBackend = index == 1 ? TraceBackend::Bpf : TraceBackend::Ftrace; // as the person chose it
    });
    for (QComboBox* box : { m_bench, m_mode, m_placement, m_lengthKind, m_policy, m_traceHow }) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(12);
    }
    benchmarkChanged();
}

RunPanel::~RunPanel() { saveSettings(); }

void RunPanel::setActions(QAction* run, QAction* cancel)
{
    auto* buttons = new QHBoxLayout;
    for (QAction* action : { run, cancel }) {
        auto* button = new QToolButton(this);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        QFont font = button->font();
        font.setBold(action == run);
        button->setFont(font);
        buttons->addWidget(button);
    }
    auto* box = qobject_cast<QVBoxLayout*>(layout());
    box->insertLayout(box->indexOf(m_progress), buttons);
}

void RunPanel::benchmarkChanged()
{
    const BenchInfo* info = currentBench();
    if (!info)
        return;
    m_benchInfo->setText(tr("One op: %1").arg(qs(info->op)));
    m_mode->setEnabled(info->processMode);
    if (!info->processMode)
        m_mode->setCurrentIndex(0);
    const bool ring = info->maxTasks > info->minTasks;
    m_tasks->setRange(info->minTasks, ring ? std::min(info->maxTasks, 64) : info->maxTasks);
    m_tasks->setValue(info->defaultTasks);
    m_tasks->setEnabled(ring);
    m_ws->setEnabled(info->workingSet);
    // The row, label included, appears only for the benchmark that spins then sleeps.
    m_form->setRowVisible(m_spinNs, info->spinThenSleep);
    updateTraceSwitch();
    updatePlacementInfo();
}

void RunPanel::setTracingRefusal(const QString& refusal)
{
    m_tracingRefusal = refusal;
    updateTraceSwitch();
}

void RunPanel::setBpfRefusal(const QString& refusal)
{
    m_bpfRefusal = refusal;
    updateTraceSwitch();
}

void RunPanel::setTraceBackend(TraceBackend backend)
{
    if (backend != TraceBackend::Auto)
        m_chosenBackend = backend;
    updateTraceSwitch();
}

TraceBackend RunPanel::traceBackend() const
{
    return traceBackendFrom(m_traceHow->currentData().toString().toStdString()).value_or(TraceBackend::Ftrace);
}

void RunPanel::setTraced(bool on) { m_trace->setChecked(on); }

bool RunPanel::traced() const { return m_trace->isEnabled() && m_trace->isChecked(); }

void RunPanel::updateTraceSwitch()
{
    BenchSpec probe;
    probe.bench = benchmarkName().toStdString();
    const std::string nothing = traceRefusal(probe, {});
    const bool ftraceAllowed = m_tracingRefusal.isEmpty();
    const bool bpfAllowed = m_bpfRefusal.isEmpty();
    const QString why = !ftraceAllowed && !bpfAllowed ? m_tracingRefusal : QString::fromStdString(nothing);
    m_trace->setEnabled(why.isEmpty());
    m_trace->setToolTip(why.isEmpty()
            ? tr("After the run, run it once more with the scheduler observed, and cut each hand-over into its "
                 "steps. The untraced figures stay the ones compared.")
            : why);
    // Each way only where the worker allows it: the one chosen where it may, else the other where
    // that one is allowed (the choice itself is kept for a worker that allows it again).
    auto* items = qobject_cast<QStandardItemModel*>(m_traceHow->model());
    items->item(0)->setEnabled(ftraceAllowed);
    items->item(1)->setEnabled(bpfAllowed);
    const int chosen = m_chosenBackend == TraceBackend::Bpf ? 1 : 0;
    const bool move = !items->item(chosen)->isEnabled() && items->item(1 - chosen)->isEnabled();
    m_traceHow->setCurrentIndex(move ? 1 - chosen : chosen);
    m_traceHow->setEnabled(m_trace->isEnabled() && m_trace->isChecked());
    QString how
        = tr("From its events: the run once more inside a private ftrace instance, every scheduler event recorded: "
             "the Timeline tab shows each PU's switches, and File → Export trace saves them.");
    how += ftraceAllowed ? QString() : QStringLiteral(" (") + m_tracingRefusal + QStringLiteral(")");
    how += tr("\nIn the kernel: BPF programs cut each hand-over as it happens and keep only the steps' bins: "
              "a fraction of the cost, no events, each task pinned to a PU.");
    how += bpfAllowed ? QString() : QStringLiteral(" (") + m_bpfRefusal + QStringLiteral(")");
    m_traceHow->setToolTip(how);
}

void RunPanel::setRunsDisabled(const QString& why)
{
    m_disabled = why;
    showProblem();
    updatePlacementInfo();
}

QString RunPanel::problemText() const { return m_problem->isVisibleTo(this) ? m_problem->text() : QString(); }

void RunPanel::showProblem()
{
    const auto s = spec();
    // No run can start here: what the placement lacks would be advice to no purpose.
    m_problem->setText(!m_disabled.isEmpty() ? m_disabled : s ? QString() : QString::fromStdString(s.error().message));
    m_problem->setStyleSheet(m_disabled.isEmpty() ? QStringLiteral("color:#b02a37;") : QString());
    m_problem->setVisible(!m_disabled.isEmpty() || !s);
    // The field itself says when its text is not a size, next to where it is typed.
    const auto ws = checkedWorkingSet();
    m_ws->setStyleSheet(ws ? QString() : QStringLiteral("QLineEdit { border: 1px solid #b02a37; }"));
    m_ws->setToolTip(ws ? tr("Bytes each task writes per op (one byte per cache line) after taking the token; the "
                             "result adds the hot touch baseline and the switch cost")
                        : QString::fromStdString(ws.error().message));
}

void RunPanel::loadSettings()
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("run"));
    setBenchmark(settings.value(QStringLiteral("bench"), m_bench->currentData()).toString());
    m_mode->setCurrentIndex(std::max(0, m_mode->findText(settings.value(QStringLiteral("mode")).toString())));
    const int placement = m_placement->findData(settings.value(QStringLiteral("placement")).toString());
    if (placement >= 0)
        m_placement->setCurrentIndex(placement);
    m_tasks->setValue(settings.value(QStringLiteral("tasks"), m_tasks->value()).toInt());
    m_lengthKind->setCurrentIndex(settings.value(QStringLiteral("lengthKind"), 0).toInt() == 1 ? 1 : 0);
    m_minTime->setValue(settings.value(QStringLiteral("minTime"), m_minTime->value()).toDouble());
    m_iterations->setValue(settings.value(QStringLiteral("iterations"), m_iterations->value()).toInt());
    m_repetitions->setValue(settings.value(QStringLiteral("repetitions"), m_repetitions->value()).toInt());
    m_policy->setCurrentIndex(std::max(0, m_policy->findText(settings.value(QStringLiteral("policy")).toString())));
    m_ws->setText(settings.value(QStringLiteral("workingSet")).toString());
    m_spinNs->setValue(settings.value(QStringLiteral("spinNs"), m_spinNs->value()).toInt());
    setTraceBackend(traceBackendFrom(settings.value(QStringLiteral("traceBackend")).toString().toStdString())
                        .value_or(TraceBackend::Ftrace));
    emit specChanged();
}

void RunPanel::saveSettings() const
{
    QSettings settings;
    settings.beginGroup(QStringLiteral("run"));
    settings.setValue(QStringLiteral("bench"), m_bench->currentData());
    settings.setValue(QStringLiteral("mode"), m_mode->currentText());
    settings.setValue(QStringLiteral("placement"), m_placement->currentData());
    settings.setValue(QStringLiteral("tasks"), m_tasks->value());
    settings.setValue(QStringLiteral("lengthKind"), m_lengthKind->currentIndex());
    settings.setValue(QStringLiteral("minTime"), m_minTime->value());
    settings.setValue(QStringLiteral("iterations"), m_iterations->value());
    settings.setValue(QStringLiteral("repetitions"), m_repetitions->value());
    settings.setValue(QStringLiteral("policy"), m_policy->currentText());
    settings.setValue(QStringLiteral("workingSet"), m_ws->text());
    settings.setValue(QStringLiteral("spinNs"), m_spinNs->value());
    settings.setValue(QStringLiteral("traceBackend"), QString::fromUtf8(toString(m_chosenBackend)));
}

void RunPanel::runStarted()
{
    m_runClock.start();
    m_progress->setValue(0);
    m_eta->setText(tr("starting…"));
}

void RunPanel::showProgress(const QString& stage, int repetition, int repetitions, double fraction)
{
    m_progress->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
    QString text = stage == QStringLiteral("measuring")
        ? tr("measuring, repetition %1 of %2").arg(repetition + 1).arg(repetitions)
        : stage + QStringLiteral("…");
    // An estimate only once a little of the run is done: early fractions are too noisy.
    if (fraction >= 0.05 && fraction < 1.0 && m_runClock.isValid()) {
        const double elapsed = static_cast<double>(m_runClock.elapsed()) / 1000.0;
        const double left = elapsed * (1.0 - fraction) / fraction;
        text += left < 1.0 ? tr(" · under a second left") : tr(" · about %1 s left").arg(qRound(left));
    }
    m_eta->setText(text);
}

void RunPanel::runEnded(const QString& outcome, bool completed)
{
    m_runClock.invalidate();
    if (completed)
        m_progress->setValue(m_progress->maximum());
    m_eta->setText(outcome);
}

QString RunPanel::outcomeText() const { return m_eta->text(); }

} // namespace ctxscope::gui
