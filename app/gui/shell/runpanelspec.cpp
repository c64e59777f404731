// SPDX-License-Identifier: MIT
// RunPanel: from the choices on screen to a BenchSpec, and the placement they mean.
#include "runpanel.h"
#include "taskselection.h"

#include "ctxscope/placement.h"
#include "ctxscope/units.h"
#include "ctxscope/working_set.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStringList>

namespace ctxscope::gui {

namespace {

QString qs(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
const QString kMap = QStringLiteral("map");
const QString kUnpinned = QStringLiteral("unpinned");

QString cpuNames(const std::vector<int>& cpus)
{
    QStringList names;
    for (std::size_t i = 0; i < cpus.size(); ++i)
        names << taskName(static_cast<int>(i)) + QStringLiteral("=P#") + QString::number(cpus[i]);
    return names.join(QStringLiteral(", "));
}

} // namespace

Expected<std::uint64_t> workingSetBytes(const QLineEdit* field)
{
    const QString text = field->text().trimmed();
    if (text.isEmpty() || !field->isEnabled())
        return std::uint64_t { 0 };
    auto bytes = parseByteSize(text.toStdString());
    if (!bytes)
        return makeError("Working set: " + bytes.error().message);
    return bytes;
}

Expected<std::uint64_t> RunPanel::checkedWorkingSet() const
{
    auto bytes = workingSetBytes(m_ws);
    if (!bytes || *bytes == 0 || !m_local)
        return bytes;
    const std::optional<std::uint64_t> available = memAvailableBytes();
    const auto tasks = static_cast<std::uint64_t>(std::max(1, taskCount()));
    if (!available || *bytes > kMaxWsBytes || *bytes * tasks <= *available / kWorkingSetMemoryDivisor)
        return bytes;
    return makeError(
        tr("Working set: %1 tasks of %2 need %3, more than a quarter of the %4 this machine has "
           "available.")
            .arg(tasks)
            .arg(QString::fromStdString(formatBytes(*bytes)), QString::fromStdString(formatBytes(*bytes * tasks)),
                QString::fromStdString(formatBytes(*available)))
            .toStdString());
}

void RunPanel::setLocalMachine(bool local)
{
    m_local = local;
    emit specChanged();
}

const BenchInfo* RunPanel::currentBench() const
{
    return findBenchmark(m_bench->currentData().toString().toStdString());
}

int RunPanel::taskCount() const
{
    const BenchInfo* info = currentBench();
    if (!info)
        return 1;
    const bool ring = info->maxTasks > info->minTasks;
    // A ring placed on the map has one task per placed PU.
    if (ring && placementKind() == PlacementKind::Map && m_mapCpus.size() >= 2)
        return static_cast<int>(m_mapCpus.size());
    return ring ? m_tasks->value() : info->defaultTasks;
}

int RunPanel::mapTaskLimit() const
{
    const BenchInfo* info = currentBench();
    if (!info)
        return 0;
    return info->maxTasks > info->minTasks ? m_tasks->maximum() : info->defaultTasks;
}

QString RunPanel::benchmarkName() const { return m_bench->currentData().toString(); }

void RunPanel::setTopology(const Topology& topology)
{
    m_topology = topology;
    const QString previous = m_placement->currentData().toString();
    {
        const QSignalBlocker block(m_placement);
        m_placement->clear();
        m_placement->addItem(tr("tasks placed on the map"), kMap);
        const std::vector<int> allowed = topology.allowedPus();
        if (!allowed.empty())
            m_placement->addItem(tr("same-pu (both on P#%1)").arg(allowed.front()), qs(toString(Relation::SamePu)));
        for (const PuPair& p : representativePairs(topology))
            if (p.relation != Relation::SamePu)
                m_placement->addItem(QStringLiteral("%1 (P#%2, P#%3)").arg(qs(toString(p.relation))).arg(p.a).arg(p.b),
                    qs(toString(p.relation)));
        m_placement->addItem(tr("unpinned (the scheduler decides)"), kUnpinned);
        m_placement->setCurrentIndex(std::max(0, m_placement->findData(previous)));
    }
    updatePlacementInfo();
}

void RunPanel::setMapSelection(const std::vector<int>& cpus)
{
    m_mapCpus = cpus;
    updatePlacementInfo();
}

RunPanel::PlacementKind RunPanel::placementKind() const
{
    const QString key = m_placement->currentData().toString();
    if (key == kMap || key.isEmpty())
        return PlacementKind::Map;
    return key == kUnpinned ? PlacementKind::Unpinned : PlacementKind::Relation;
}

void RunPanel::usePlacement(PlacementKind kind, std::optional<Relation> relation)
{
    const QString key = kind == PlacementKind::Map ? kMap
        : kind == PlacementKind::Unpinned          ? kUnpinned
                                                   : qs(toString(relation.value_or(Relation::SamePu)));
    m_placement->setCurrentIndex(std::max(0, m_placement->findData(key)));
}

bool RunPanel::setBenchmark(const QString& name)
{
    const int index = m_bench->findData(name);
    if (index >= 0)
        m_bench->setCurrentIndex(index);
    return index >= 0;
}

bool RunPanel::setMode(BenchMode mode)
{
    const int index = m_mode->findData(static_cast<int>(mode));
    if (index < 0 || (!m_mode->isEnabled() && index != 0))
        return false;
    m_mode->setCurrentIndex(index);
    return true;
}

void RunPanel::setIterations(int iterations)
{
    m_lengthKind->setCurrentIndex(1);
    m_iterations->setValue(iterations);
}

void RunPanel::setMinTime(double seconds)
{
    m_lengthKind->setCurrentIndex(0);
    m_minTime->setValue(seconds);
}

void RunPanel::setRepetitions(int repetitions) { m_repetitions->setValue(repetitions); }

void RunPanel::setWorkingSet(const QString& text) { m_ws->setText(text); }

void RunPanel::setSpinNs(int ns) { m_spinNs->setValue(ns); }

Expected<BenchSpec> RunPanel::spec() const
{
    const BenchInfo* info = currentBench();
    if (!info)
        return makeError("Choose a benchmark.");
    BenchSpec spec;
    spec.bench = std::string(info->name);
    spec.mode = static_cast<BenchMode>(m_mode->currentData().toInt());
    spec.tasks = info->maxTasks > info->minTasks ? taskCount() : 0;
    if (m_lengthKind->currentIndex() == 1)
        spec.iterations = static_cast<std::uint64_t>(m_iterations->value());
    else
        spec.minTimeSeconds = m_minTime->value();
    spec.repetitions = m_repetitions->value();
    spec.policy = static_cast<SchedPolicy>(m_policy->currentData().toInt());
    auto ws = checkedWorkingSet();
    if (!ws)
        return ws.error();
    spec.wsBytes = *ws;
    if (info->spinThenSleep)
        spec.spinNs = static_cast<std::uint64_t>(m_spinNs->value());
    switch (placementKind()) {
    case PlacementKind::Unpinned:
        spec.relation = Relation::Unpinned;
        break;
    case PlacementKind::Relation:
        spec.relation = relationFromString(m_placement->currentData().toString().toStdString());
        break;
    case PlacementKind::Map: {
        const int tasks = taskCount();
        if (m_mapCpus.empty())
            return makeError("Click PUs on the map to place the tasks, or choose a placement above.");
        if (tasks == 1) {
            spec.cpus = { m_mapCpus.front() }; // one task: A's PU
        } else if (static_cast<int>(m_mapCpus.size()) < tasks) {
            return makeError(tr("%1 runs %2 tasks: place B on the map too (Shift+click A's PU for same-pu).")
                                 .arg(qs(info->name))
                                 .arg(tasks)
                                 .toStdString());
        } else {
            spec.cpus.assign(m_mapCpus.begin(), m_mapCpus.begin() + tasks);
        }
        break;
    }
    }
    addConditions(spec);
    return spec;
}

std::vector<int> RunPanel::measuredCpus() const
{
    const auto s = spec();
    return s && m_topology ? measuredCpus(*s, *m_topology) : std::vector<int> {};
}

std::vector<int> RunPanel::measuredCpus(const BenchSpec& spec, const Topology& topology)
{
    if (!spec.cpus.empty())
        return spec.cpus;
    // The engine places a class on its first representative pair (same-pu, or no class at
    // all: the first allowed PU).
    const Relation relation = spec.relation.value_or(Relation::SamePu);
    if (relation == Relation::Unpinned)
        return {};
    const std::vector<int> allowed = topology.allowedPus();
    if (relation == Relation::SamePu)
        return allowed.empty() ? std::vector<int> {} : std::vector<int> { allowed.front() };
    for (const PuPair& p : representativePairs(topology))
        if (p.relation == relation)
            return { p.a, p.b };
    return {};
}

void RunPanel::updatePlacementInfo()
{
    QString text;
    switch (placementKind()) {
    case PlacementKind::Map:
        text = !m_mapCpus.empty()  ? tr("On the map: %1").arg(cpuNames(m_mapCpus))
            : m_disabled.isEmpty() ? tr("No tasks on the map yet: click a PU for A, another (or Shift+click) for B.")
                                   : tr("Nothing to place: runs are disabled (above).");
        // A one-task benchmark after A and B were placed: B stays on the map, unused, and says so.
        if (const int tasks = taskCount(); static_cast<int>(m_mapCpus.size()) > tasks)
            text += tr(" (%1 runs %2: %3 unused)")
                        .arg(benchmarkName(), tasks == 1 ? tr("1 task") : tr("%1 tasks").arg(tasks),
                            taskName(tasks) + (static_cast<int>(m_mapCpus.size()) > tasks + 1 ? tr("…") : QString()));
        break;
    case PlacementKind::Relation:
        text = tr("A representative pair of this class; the map shows it when the run starts.");
        break;
    case PlacementKind::Unpinned:
        text = tr("Not pinned: the result says where the tasks actually ran.");
        break;
    }
    m_placementInfo->setText(text);
    emit specChanged();
}

} // namespace ctxscope::gui
