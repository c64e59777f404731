// SPDX-License-Identifier: MIT
#include "sessionstore.h"

#include <algorithm>
#include <map>
#include <utility>

#include <QSysInfo>

namespace ctxscope::gui {

SessionStore::SessionStore(QObject* parent)
    : QObject(parent)
{
    m_machines[kLocalMachine] = {};
    m_machineOrder << kLocalMachine;
}

void SessionStore::setLocalWorkerContext(nlohmann::json context)
{
    m_localWorker = std::move(context);
    emit machineChanged(kLocalMachine);
}

const nlohmann::json& SessionStore::contextOf(const QString& key) const
{
    const MachineContext& m = machine(key);
    if (key != kLocalMachine)
        return m.context;
    const bool loadedElsewhere = !m.topologyXml.empty() && m.context.is_object();
    return m_localWorker.is_object() && !loadedElsewhere ? m_localWorker : m.context;
}

QStringList SessionStore::machineKeys() const { return m_machineOrder; }

bool SessionStore::runsSpanMachines() const
{
    return std::any_of(
        m_runs.begin(), m_runs.end(), [this](const ResultRow& r) { return r.machine != m_runs.front().machine; });
}

const ResultRow* SessionStore::run(quint64 id) const
{
    const auto it = std::find_if(m_runs.begin(), m_runs.end(), [id](const ResultRow& r) { return r.id == id; });
    return it == m_runs.end() ? nullptr : &*it;
}

void SessionStore::addRun(ResultRow row, const QString& origin)
{
    if (!row.result)
        return;
    if (origin.isEmpty())
        ++m_unsavedRuns;
    m_runs.push_back(std::move(row));
    emit runAdded(m_runs.back(), origin);
}

std::size_t SessionStore::addSweep(std::shared_ptr<const SweepCurves> sweep)
{
    m_sweeps.push_back(std::move(sweep));
    emit sweepAdded(m_sweeps.size() - 1);
    return m_sweeps.size() - 1;
}

void SessionStore::replaceSweep(std::size_t index, std::shared_ptr<const SweepCurves> sweep)
{
    if (index >= m_sweeps.size())
        return;
    m_sweeps[index] = std::move(sweep);
    emit sweepChanged(index);
}

void SessionStore::addMatrix(std::shared_ptr<const MatrixResult> matrix, const QString& origin)
{
    m_matrices.push_back({ std::move(matrix), origin });
    emit matrixAdded(m_matrices.size() - 1);
}

std::size_t SessionStore::addLesson(LessonRecord lesson)
{
    ++m_unsavedLessons;
    m_lessons.push_back(std::move(lesson));
    emit lessonAdded(m_lessons.size() - 1);
    return m_lessons.size() - 1;
}

void SessionStore::replaceLesson(std::size_t index, LessonRecord lesson)
{
    if (index >= m_lessons.size())
        return;
    m_lessons[index] = std::move(lesson);
    emit lessonChanged(index);
}

void SessionStore::addMachineCard(MachineCardEntry card)
{
    m_machineCards.push_back(std::move(card));
    emit machineCardsChanged();
}

void SessionStore::addCompared(CompareSource source, nlohmann::json context)
{
    m_compared.push_back(std::move(source));
    m_comparedContexts.push_back(std::move(context));
    emit comparedChanged();
}

const MachineContext& SessionStore::machine(const QString& key) const
{
    static const MachineContext none;
    const auto it = m_machines.find(key);
    return it == m_machines.end() ? none : it->second;
}

void SessionStore::setMachineContext(const QString& key, nlohmann::json context)
{
    if (!m_machines.count(key))
        m_machineOrder << key;
    m_machines[key].context = std::move(context);
    emit machineChanged(key);
}

void SessionStore::setMachineTopologyXml(const QString& key, std::string xml)
{
    if (!m_machines.count(key))
        m_machineOrder << key;
    m_machines[key].topologyXml = std::move(xml);
    emit machineChanged(key);
}

namespace {
// A context block's host name; empty when it names none.
QString hostOf(const nlohmann::json& context)
{
    if (!context.is_object())
        return {};
    const auto host = context.find("host_name");
    return host != context.end() && host->is_string() ? QString::fromStdString(host->get<std::string>()) : QString();
}
} // namespace

QString SessionStore::detachLoadedMachine()
{
    MachineContext& local = m_machines[kLocalMachine];
    if (local.topologyXml.empty())
        return {};
    const bool held = std::any_of(m_runs.begin(), m_runs.end(), [](const ResultRow& r) { return r.machine.isEmpty(); });
    // A session of this very host (shown from its file because hwloc's export differs, after a
    // kernel update or from another cgroup) was this machine's all along.
    const QString host = hostOf(local.context);
    const QString here = m_localWorker.is_object() ? hostOf(m_localWorker) : QSysInfo::machineHostName();
    if (!held || (!host.isEmpty() && host == here)) {
        setMachineTopologyXml(kLocalMachine, {});
        return {};
    }
    // A machine of the session by that name, with that host and topology, is this one (a
    // second session of it): the runs join it. Any other keeps its name; this one is numbered.
    const QString base = host.isEmpty() ? QStringLiteral("the session's machine") : host;
    QString key = base;
    for (int n = 2; m_machines.count(key); ++n) {
        const MachineContext& other = m_machines[key];
        if (!host.isEmpty() && hostOf(other.context) == host && other.topologyXml == local.topologyXml)
            break;
        key = QStringLiteral("%1 (%2)").arg(base).arg(n);
    }
    if (!m_machineOrder.contains(key))
        m_machineOrder << key;
    m_machines[key] = std::exchange(local, MachineContext {});
    for (ResultRow& row : m_runs)
        if (row.machine.isEmpty())
            row.machine = key;
    emit machineChanged(kLocalMachine);
    emit machineChanged(key);
    emit runMachinesChanged();
    return key;
}

void SessionStore::clearMeasurements()
{
    m_runs.clear();
    m_sweeps.clear();
    m_matrices.clear();
    m_lessons.clear();
    markSaved(); // nothing measured is left to lose
    emit measurementsCleared();
}

void SessionStore::markSaved()
{
    m_unsavedRuns = 0;
    m_unsavedLessons = 0;
}

Session SessionStore::toSession(const nlohmann::json& liveContext, const std::string& shownXml) const
{
    const MachineContext& local = machine();
    Session s;
    s.topologyXml = local.topologyXml.empty() ? shownXml : local.topologyXml;
    const nlohmann::json& own = contextOf(kLocalMachine);
    s.context = liveContext.is_object() ? liveContext : own.is_object() ? own : nlohmann::json::object();
    if (s.context.contains("ctxscope") && s.context["ctxscope"].is_object()
        && s.context["ctxscope"].contains("sysinfo"))
        s.sysinfo = s.context["ctxscope"]["sysinfo"];
    std::vector<std::shared_ptr<const TraceWindow>> ownWindows;
    std::map<std::string, std::vector<std::shared_ptr<const TraceWindow>>> machineWindows;
    for (const ResultRow& row : m_runs) {
        if (row.machine.isEmpty()) {
            s.runs.push_back(*row.result);
            ownWindows.push_back(row.traceWindow);
            continue;
        }
        machineWindows[row.machine.toStdString()].push_back(row.traceWindow);
        const std::string name = row.machine.toStdString();
        auto it = std::find_if(
            s.machines.begin(), s.machines.end(), [&](const SessionMachine& m) { return m.name == name; });
        if (it == s.machines.end()) {
            const nlohmann::json& context = contextOf(row.machine);
            s.machines.push_back({ name, machine(row.machine).topologyXml,
                context.is_object() ? context : nlohmann::json::object(), {} });
            it = s.machines.end() - 1;
        }
        it->runs.push_back(*row.result);
    }
    // One entry per run in the file's order: this machine's runs, then each machine's.
    s.traceWindows = std::move(ownWindows);
    for (const SessionMachine& m : s.machines)
        for (auto& window : machineWindows[m.name])
            s.traceWindows.push_back(std::move(window));
    if (std::all_of(s.traceWindows.begin(), s.traceWindows.end(), [](const auto& w) { return !w; }))
        s.traceWindows.clear();
    s.sweeps = m_sweeps;
    s.matrices = m_matrices;
    s.compared = m_compared;
    s.comparedContexts = m_comparedContexts;
    s.lessons = m_lessons;
    s.machineCards = m_machineCards;
    return s;
}

void SessionStore::load(Session session, std::vector<ResultRow> rows, const QString& origin)
{
    clearMeasurements();
    m_compared = std::move(session.compared);
    m_comparedContexts = std::move(session.comparedContexts);
    m_machines[kLocalMachine].context = std::move(session.context);
    emit machineChanged(kLocalMachine);
    for (SessionMachine& m : session.machines) {
        const QString key = QString::fromStdString(m.name);
        setMachineTopologyXml(key, std::move(m.topologyXml));
        setMachineContext(key, std::move(m.context));
    }
    for (ResultRow& row : rows)
        addRun(std::move(row), origin);
    for (auto& sweep : session.sweeps)
        addSweep(std::move(sweep));
    for (auto& m : session.matrices)
        addMatrix(std::move(m.matrix), m.origin);
    for (auto& lesson : session.lessons)
        addLesson(std::move(lesson));
    m_machineCards = std::move(session.machineCards);
    markSaved(); // as the file has it
    emit comparedChanged();
    emit machineCardsChanged();
}

} // namespace ctxscope::gui
