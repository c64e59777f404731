// SPDX-License-Identifier: MIT
#include "timelinepage.h"

#include "timelineview.h"

#include "ctxscope/cpu_list.h"
#include "ctxscope/units.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ctxscope::gui {

namespace {

// A figure in the captions as the lessons and the bar write it (formatDuration).
QString figure(double ns) { return QString::fromStdString(formatDuration(ns)); }

} // namespace

TimelinePage::TimelinePage(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_split = new QSplitter(Qt::Vertical, this);
    m_breakdown = new BreakdownPlot(m_split);
    auto* lower = new QWidget(m_split);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(4, 2, 4, 0);
    auto* header = new QHBoxLayout;
    auto* chooserLabel = new QLabel(tr("Ti&meline of"), lower);
    m_chooser = new QComboBox(lower);
    m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    chooserLabel->setBuddy(m_chooser);
    header->addWidget(chooserLabel);
    header->addWidget(m_chooser);
    header->addStretch(1);
    m_caption = new QLabel(lower);
    m_caption->setWordWrap(true);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_view = new TimelineView(lower);
    m_view->setToolTip(tr("Wheel or +/-: zoom · drag: pan · Shift-drag: zoom to a span · right-drag: measure · "
                          "Home or double-click: the whole recording · click a slice: its run"));
    lowerLayout->addLayout(header);
    lowerLayout->addWidget(m_caption);
    m_legend = new QLabel(lower);
    m_legend->setObjectName(QStringLiteral("timelineLegend"));
    m_legend->setWordWrap(true);
    lowerLayout->addWidget(m_legend);
    lowerLayout->addWidget(m_view, 1);
    m_split->addWidget(m_breakdown);
    m_split->addWidget(lower);
    m_split->setStretchFactor(0, 1);
    m_split->setStretchFactor(1, 1);
    m_breakdown->setMinimumHeight(170); // two bars, their labels and the legend
    m_split->setSizes({ 1000, 1000 }); // half each, whatever the lanes' size hint
    m_split->setChildrenCollapsible(false);
    layout->addWidget(m_split);

    connect(m_chooser, &QComboBox::activated, this,
        [this](int index) { showRun(m_chooser->itemData(index).toULongLong()); });
    connect(m_breakdown, &BreakdownPlot::stepClicked, this, &TimelinePage::showExample);
    connect(m_view, &TimelineView::puHovered, this, &TimelinePage::puHovered);
    connect(m_view, &TimelineView::taskClicked, this, [this](std::int32_t pid) {
        if (const Run* shown = m_shown ? run(*m_shown) : nullptr; shown && shown->taskColors.contains(pid))
            emit runTaskClicked(shown->id, pid);
    });
    setRuns({});
}

void TimelinePage::setLanes(std::vector<TimelineLane> lanes)
{
    if (lanes == m_lanes)
        return;
    m_lanes = std::move(lanes);
    if (m_shown) {
        const quint64 id = *std::exchange(m_shown, std::nullopt);
        showRun(id);
    }
}

const TimelinePage::Run* TimelinePage::run(quint64 id) const
{
    const auto it = std::find_if(m_runs.begin(), m_runs.end(), [id](const Run& r) { return r.id == id; });
    return it == m_runs.end() ? nullptr : &*it;
}

void TimelinePage::setRuns(std::vector<Run> runs)
{
    m_runs = std::move(runs);
    std::vector<BreakdownPlot::Run> bars;
    m_chooser->clear();
    for (const Run& r : m_runs) {
        if (r.result && r.result->trace)
            bars.push_back({ r.id, r.barLabel.isEmpty() ? r.label : r.barLabel, breakdownOf(*r.result) });
        if (r.window)
            m_chooser->addItem(r.label, QVariant::fromValue(r.id));
    }
    m_breakdown->setRuns(std::move(bars));
    for (auto it = m_data.begin(); it != m_data.end();)
        it = run(it->first) ? std::next(it) : m_data.erase(it);
    for (auto it = m_examples.begin(); it != m_examples.end();)
        it = run(it->first) ? std::next(it) : m_examples.erase(it);
    const std::optional<quint64> keep = m_shown && run(*m_shown) && run(*m_shown)->window ? m_shown : std::nullopt;
    m_shown.reset();
    if (keep)
        showRun(*keep);
    else if (m_chooser->count() > 0)
        showRun(m_chooser->itemData(m_chooser->count() - 1).toULongLong());
    else {
        m_view->setData(nullptr, m_lanes);
        updateCaption();
    }
}

bool TimelinePage::showRun(quint64 id)
{
    const Run* r = run(id);
    if (!r || !r->window)
        return false;
    if (m_shown == id)
        return true;
    std::shared_ptr<const TimelineData>& built = m_data[id];
    if (!built)
        built = std::make_shared<const TimelineData>(TimelineData::build(r->window->events, r->window->comms));
    m_shown = id;
    // The same run shown again (its row selected by a click on its slice, the runs refreshed):
    // the view keeps its zoom.
    const bool same = m_view->data() == built.get();
    const std::uint64_t from = m_view->fromNs();
    const std::uint64_t to = m_view->toNs();
    m_view->setData(built, withLanesOfEvents(m_lanes, *built));
    if (same)
        m_view->showSpan(from, to);
    for (const auto& [pid, color] : r->taskColors)
        m_view->setTaskColor(pid, color);
    for (const auto& [pid, name] : r->taskNames)
        m_view->setTaskName(pid, name);
    for (std::int32_t pid : r->keepAwake) {
        m_view->setTaskColor(pid, TimelineView::keepAwakeColor());
        m_view->setTaskName(pid, tr("keep-awake"));
    }
    m_chooser->setCurrentIndex(m_chooser->findData(QVariant::fromValue(id)));
    updateCaption();
    return true;
}

bool TimelinePage::showExample(quint64 id, const QString& step, bool crossCpu)
{
    if (!showRun(id))
        return false;
    const Run* r = run(id);
    if (!r->result || !r->result->trace)
        return false;
    auto found = m_examples.find(id);
    if (found == m_examples.end()) {
        Trace trace;
        trace.events = r->window->events;
        trace.comms = r->window->comms; // "preempting cc1plus" is named as the bar names it
        found
            = m_examples.emplace(id, segmentExamples(trace, r->result->trace->tasks, r->result->trace->keepAwakeTasks))
                  .first;
    }
    const auto& examples = found->second;
    // The way the bar shows (the one most hand-overs took), and its example: each way's example
    // is the one nearest that way's median.
    const BreakdownBar bar = breakdownOf(*r->result);
    const auto shown = std::find_if(bar.steps.begin(), bar.steps.end(),
        [&](const BreakdownStep& b) { return QString::fromStdString(b.name) == step; });
    const SegmentExample* example = nullptr;
    for (const SegmentExample& e : examples)
        if (e.crossCpu == crossCpu && QString::fromStdString(e.name) == step
            && (!example
                || (shown != bar.steps.end() && std::abs(e.ns - shown->p50Ns) < std::abs(example->ns - shown->p50Ns))))
            example = &e;
    if (!example)
        return false;
    // The whole hand-over with a margin of a fifth of it each side; the ruler over the step.
    const std::uint64_t span = std::max<std::uint64_t>(example->endNs - example->beginNs, 1000);
    m_view->showSpan(example->beginNs - std::min(example->beginNs, span / 5), example->endNs + span / 5);
    m_view->setRuler(example->fromNs, example->toNs);
    QString text
        = tr("<br><b>%1</b>, marked by the ruler: %2 in this hand-over").arg(step.toHtmlEscaped(), figure(example->ns));
    if (shown != bar.steps.end()) {
        text += tr("; median %1 over the %2 that took it this way")
                    .arg(figure(shown->p50Ns), QLocale().toString(static_cast<qulonglong>(shown->count)));
        // A step some hand-overs skip weighs less in the typical hand-over than its median.
        if (!shown->oneWay)
            text += tr("; %1 of all %2 took it: it weighs %3 in the typical one")
                        .arg(QStringLiteral("%1%").arg(100 * shown->share, 0, 'f', 0),
                            QLocale().toString(static_cast<qulonglong>(bar.handovers)), figure(shown->ns));
    }
    m_caption->setText(runCaption() + text + QLatin1Char('.'));
    return true;
}

bool TimelinePage::showTypicalHandover()
{
    const BreakdownPlot::Run* chosen = nullptr;
    for (const BreakdownPlot::Run& r : m_breakdown->runs())
        if (run(r.id)->window && !r.bar.steps.empty() && (!chosen || r.bar.crossCpu || !chosen->bar.crossCpu))
            chosen = &r;
    if (!chosen)
        return false;
    const auto longest = std::max_element(chosen->bar.steps.begin(), chosen->bar.steps.end(),
        [](const BreakdownStep& a, const BreakdownStep& b) { return a.ns < b.ns; });
    return showExample(chosen->id, QString::fromStdString(longest->name), chosen->bar.crossCpu);
}

QString TimelinePage::caption() const { return m_caption->text(); }

QString TimelinePage::runCaption() const
{
    const Run* r = m_shown ? run(*m_shown) : nullptr;
    if (!r) {
        // Steps without events: runs opened from a results file (which keeps the trace's steps,
        // not its events), or traced in the kernel (BPF: the run panel's "in the kernel", or
        // ctxscope-cli run --trace on pinned tasks).
        const bool stepsOnly
            = std::any_of(m_runs.begin(), m_runs.end(), [](const Run& x) { return x.result && x.result->trace; });
        if (stepsOnly)
            return tr("The traced runs here kept their steps (the bars above), not their events: a results file "
                      "holds none, and a run traced in the kernel (BPF) records none. To see what each PU did, check "
                      "\"Trace the scheduler\" in the run panel, traced from its events, and run it here.");
        return tr("No traced run on this stage. Check \"Trace the scheduler\" in the run panel: after the run, "
                  "the same benchmark runs once more with the kernel's scheduler events recorded.");
    }
    QString text = tr("<b>%1</b>").arg(r->label.toHtmlEscaped());
    if (r->result && r->result->trace) {
        const TraceSummary& t = *r->result->trace;
        const double cost = t.untracedNsPerOp > 0 ? 100 * (t.nsPerOp / t.untracedNsPerOp - 1) : 0;
        // Both are means over each run's ops. Tracing adds work, never takes it away: a traced
        // run faster than the untraced one says one of them was disturbed, not what tracing costs.
        if (cost >= 0)
            text += tr(" · mean per op traced %1 against %2 untraced (tracing: +%3%)")
                        .arg(figure(t.nsPerOp), figure(t.untracedNsPerOp))
                        .arg(cost, 0, 'f', 0);
        else
            text += tr(" · mean per op traced %1 against %2 untraced: the traced run was faster, so one of the two "
                       "was disturbed (this is not a cost of tracing)")
                        .arg(figure(t.nsPerOp), figure(t.untracedNsPerOp));
        if (t.lostEvents > 0)
            text += tr(" · <span style='color:#b02a37'>the kernel lost %1 events</span>")
                        .arg(QLocale().toString(static_cast<qulonglong>(t.lostEvents)));
        // A run on one PU traces that PU alone: say why the other lanes are empty.
        if (!t.cpus.empty() && t.cpus.size() < m_lanes.size())
            text += tr(" · only P#%1 traced: the other lanes stay empty")
                        .arg(QString::fromStdString(formatCpuList(t.cpus)));
    }
    if (r->window && r->window->recorded > r->window->events.size())
        text += tr(" · its last %1 of %2 events")
                    .arg(QLocale().toString(static_cast<qulonglong>(r->window->events.size())),
                        QLocale().toString(static_cast<qulonglong>(r->window->recorded)));
    return text;
}

QString TimelinePage::legend() const { return m_legend->text(); }

void TimelinePage::updateCaption()
{
    m_caption->setText(runCaption());
    // What each colour is: the measured tasks by the map's letters, the rest in muted hues, idle
    // as the thin band.
    const Run* r = m_shown ? run(*m_shown) : nullptr;
    if (!r) {
        m_legend->clear();
        return;
    }
    // A square in the colour (a label's rich text draws no span background).
    const auto swatch = [](const QColor& color, const QString& what) {
        return QStringLiteral("<span style='color:%1;font-size:large'>&#9632;</span>&nbsp;%2").arg(color.name(), what);
    };
    QStringList parts;
    for (const auto& [pid, color] : r->taskColors) {
        const auto name = r->taskNames.find(pid);
        parts << swatch(color, tr("task %1").arg(name == r->taskNames.end() ? QString::number(pid) : name->second));
    }
    if (!r->keepAwake.empty())
        parts << swatch(TimelineView::keepAwakeColor(), tr("keep-awake"));
    parts << swatch(m_view->taskColor(1), tr("other tasks (a hue each)"))
          << swatch(palette().color(QPalette::Mid), tr("idle (thin band; darker: deeper idle)"));
    m_legend->setText(parts.join(QStringLiteral(" &nbsp; ")));
}

void TimelinePage::restyle()
{
    m_breakdown->restyle();
    m_view->update();
}

} // namespace ctxscope::gui
