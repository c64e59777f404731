// SPDX-License-Identifier: MIT
#include "runner/interference.h"

#include <algorithm>
#include <set>

#include <sched.h>
#include <time.h>

namespace ctxscope::run {

namespace {

std::uint64_t grown(std::uint64_t before, std::uint64_t after) { return after > before ? after - before : 0; }

// /proc/stat counts in ticks (10 ms at USER_HZ 100) and each end of an interval is off by up
// to one, so a run measured for less than this has no interference figure: its shares could be
// off by more than the 10% that flags a run as disturbed (a 6 ms matrix pair read 40% on a
// quiet CPU). At 0.3 s two ticks are under 7%.
constexpr double kMinSeconds = 0.3;

std::uint64_t countOf(const std::vector<os::PerCpuCount>& counts, int cpu)
{
    for (const auto& c : counts)
        if (c.cpu == cpu)
            return c.count;
    return 0;
}

double seconds(const InterferenceMeter::Snapshot& a, const InterferenceMeter::Snapshot& b)
{
    return std::chrono::duration<double>(b.at - a.at).count();
}

// A process's CPU time so far, every thread's (those that ended too), in ns; 0 when it is gone.
std::uint64_t processCpuNs(long pid)
{
    clockid_t clock {};
    timespec ts {};
    if (::clock_getcpuclockid(static_cast<pid_t>(pid), &clock) != 0 || ::clock_gettime(clock, &ts) != 0)
        return 0;
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000U + static_cast<std::uint64_t>(ts.tv_nsec);
}

// The CPUs a process's main thread may run on (the app moves all its threads together).
void addAllowedCpus(long pid, std::vector<int>& to)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(static_cast<pid_t>(pid), sizeof(set), &set) != 0)
        return;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(static_cast<std::size_t>(cpu), &set) && std::find(to.begin(), to.end(), cpu) == to.end())
            to.push_back(cpu);
}

double busyNs(const os::CpuTimes* x, const os::CpuTimes* y)
{
    return x && y ? static_cast<double>(grown(x->user + x->nice + x->system, y->user + y->nice + y->system)) * 1e9
            / os::ticksPerSecond()
                  : 0.0;
}

} // namespace

InterferenceMeter::InterferenceMeter(std::vector<MeasuredTask> tasks, bool scanTasks, long controllerPid)
    : m_tasks(std::move(tasks))
    , m_scanTasks(scanTasks)
    , m_controller(controllerPid)
{
}

std::optional<InterferenceMeter::Snapshot> InterferenceMeter::snapshot() const
{
    Snapshot s;
    std::string text;
    if (!os::readProcText("/proc/stat", text))
        return std::nullopt;
    auto stat = os::parseProcStat(text);
    if (!stat)
        return std::nullopt;
    s.stat = std::move(*stat);
    // Interrupt counts are a bonus: a kernel that hides them leaves the rates at 0.
    if (os::readProcText("/proc/interrupts", text))
        if (auto irqs = os::parsePerCpuCounters(text, "/proc/interrupts"))
            s.irqs = std::move(*irqs);
    if (os::readProcText("/proc/softirqs", text))
        if (auto soft = os::parsePerCpuCounters(text, "/proc/softirqs"))
            s.softirqs = std::move(*soft);
    for (const MeasuredTask& t : m_tasks) {
        if (auto sched = os::readTaskSchedstat(t.pid, t.tid)) {
            s.taskNs.push_back(sched->runNs);
        } else if (auto task = os::readTaskStat(t.pid, t.tid)) {
            // No schedstat (CONFIG_SCHED_INFO off): the tick-sampled utime + stime.
            s.taskNs.push_back(
                static_cast<std::uint64_t>(static_cast<double>(task->cpuTicks()) * 1e9 / os::ticksPerSecond()));
        } else {
            return std::nullopt;
        }
    }
    if (m_controller > 0)
        s.controllerNs = processCpuNs(m_controller);
    s.at = std::chrono::steady_clock::now();
    return s;
}

void InterferenceMeter::begin()
{
    m_marks.clear();
    m_before.clear();
    m_after.clear();
    m_controllerCpus.clear();
    if (m_controller > 0) {
        if (auto task = os::readTaskStat(m_controller, m_controller))
            m_controllerComm = task->comm;
        addAllowedCpus(m_controller, m_controllerCpus);
    }
    if (m_scanTasks) {
        m_beforeAt = std::chrono::steady_clock::now();
        for (const os::TaskStat& t : os::scanTasks())
            m_before[t.tid] = { t.starttime, t.cpuTicks() };
    }
    mark(false);
}

void InterferenceMeter::mark(bool last)
{
    if (m_failed)
        return;
    auto s = snapshot();
    if (!s) {
        m_failed = true;
        return;
    }
    m_marks.push_back(std::move(*s));
    if (last && m_controller > 0)
        addAllowedCpus(m_controller, m_controllerCpus);
    if (!last || !m_scanTasks || m_marks.size() < 2)
        return;
    // Name the busiest tasks only when other tasks took a visible share of a CPU the run may
    // have used: the scan of every task is the costly read.
    std::vector<int> candidates;
    for (const MeasuredTask& t : m_tasks)
        if (t.pinnedCpu < 0) {
            candidates.clear();
            for (const auto& c : m_marks.back().stat.cpus)
                candidates.push_back(c.cpu);
            break;
        } else {
            candidates.push_back(t.pinnedCpu);
        }
    for (const auto& c : figures(m_marks.front(), m_marks.back(), candidates, {}))
        if (c && c->otherShare > kNameTasksShare) {
            m_after = os::scanTasks();
            m_afterAt = std::chrono::steady_clock::now();
            return;
        }
}

std::optional<CpuInterference> InterferenceMeter::between(
    const Snapshot& a, const Snapshot& b, int cpu, double ownNs, double controllerNs)
{
    const os::CpuTimes* x = a.stat.cpu(cpu);
    const os::CpuTimes* y = b.stat.cpu(cpu);
    if (!x || !y)
        return std::nullopt; // offline at one of the marks
    const std::uint64_t tasks = grown(x->user + x->nice + x->system, y->user + y->nice + y->system);
    const std::uint64_t irq = grown(x->irq, y->irq);
    const std::uint64_t softirq = grown(x->softirq, y->softirq);
    const std::uint64_t steal = grown(x->steal, y->steal);
    // iowait may go backwards on some kernels; the sum of the parts is the wall time the
    // counters account for, so the shares stay within [0, 1].
    const std::uint64_t wall = tasks + irq + softirq + steal + grown(x->idle, y->idle) + grown(x->iowait, y->iowait);
    CpuInterference c;
    c.cpu = cpu;
    const double dt = seconds(a, b);
    if (dt > 0) {
        c.irqsPerS = static_cast<double>(grown(countOf(a.irqs, cpu), countOf(b.irqs, cpu))) / dt;
        c.softirqsPerS = static_cast<double>(grown(countOf(a.softirqs, cpu), countOf(b.softirqs, cpu))) / dt;
    }
    if (wall == 0)
        return c; // shorter than a tick: no share can be told
    const double tickNs = 1e9 / os::ticksPerSecond();
    const double wallNs = static_cast<double>(wall) * tickNs;
    const double others = std::max(0.0, static_cast<double>(tasks) * tickNs - ownNs);
    const double controller = std::clamp(controllerNs, 0.0, others);
    c.otherShare = std::clamp((others - controller) / wallNs, 0.0, 1.0);
    c.controllerShare = std::clamp(controller / wallNs, 0.0, 1.0);
    c.stealShare = static_cast<double>(steal) / static_cast<double>(wall);
    c.irqShare = static_cast<double>(irq) / static_cast<double>(wall);
    c.softirqShare = static_cast<double>(softirq) / static_cast<double>(wall);
    return c;
}

std::vector<double> InterferenceMeter::ownNsByCpu(const Snapshot& a, const Snapshot& b, const std::vector<int>& cpus,
    const std::vector<std::vector<int>>& seenByTask) const
{
    std::vector<double> own(cpus.size(), 0.0);
    const auto slot
        = [&](int cpu) { return static_cast<std::size_t>(std::find(cpus.begin(), cpus.end(), cpu) - cpus.begin()); };
    for (std::size_t i = 0; i < m_tasks.size() && i < a.taskNs.size() && i < b.taskNs.size(); ++i) {
        const double ns = static_cast<double>(grown(a.taskNs[i], b.taskNs[i]));
        if (m_tasks[i].pinnedCpu >= 0) {
            if (const std::size_t k = slot(m_tasks[i].pinnedCpu); k < cpus.size())
                own[k] += ns;
            continue;
        }
        // An unpinned task's time is spread over the measured CPUs it was seen on in proportion
        // to each one's busy time over the interval (the kernel does not say how much of it each
        // CPU ran): a pair that ran nearly all the time on CPU 0 and was seen once on CPU 1 is
        // put on CPU 0, not half on an idle CPU 1 (which made CPU 0 look half taken by others).
        std::vector<std::size_t> where;
        if (i < seenByTask.size())
            for (int cpu : seenByTask[i])
                if (const std::size_t k = slot(cpu); k < cpus.size())
                    where.push_back(k);
        if (where.empty())
            for (std::size_t k = 0; k < cpus.size(); ++k)
                where.push_back(k);
        std::vector<double> busy;
        double total = 0;
        for (std::size_t k : where) {
            const os::CpuTimes* x = a.stat.cpu(cpus[k]);
            const os::CpuTimes* y = b.stat.cpu(cpus[k]);
            busy.push_back(x && y
                    ? static_cast<double>(grown(x->user + x->nice + x->system, y->user + y->nice + y->system))
                    : 0.0);
            total += busy.back();
        }
        for (std::size_t j = 0; j < where.size(); ++j)
            own[where[j]] += total > 0 ? ns * busy[j] / total : ns / static_cast<double>(where.size());
    }
    return own;
}

std::vector<double> InterferenceMeter::controllerNsByCpu(const Snapshot& a, const Snapshot& b,
    const std::vector<int>& cpus, const std::vector<double>& own, const std::vector<int>& allowed)
{
    std::vector<double> out(cpus.size(), 0.0);
    const double ns = static_cast<double>(grown(a.controllerNs, b.controllerNs));
    if (ns <= 0)
        return out;
    double total = 0;
    for (const auto& y : b.stat.cpus) {
        if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), y.cpu) == allowed.end())
            continue;
        double other = busyNs(a.stat.cpu(y.cpu), &y);
        const auto k = static_cast<std::size_t>(std::find(cpus.begin(), cpus.end(), y.cpu) - cpus.begin());
        if (k < cpus.size()) {
            other = std::max(0.0, other - (k < own.size() ? own[k] : 0.0));
            out[k] = other;
        }
        total += other;
    }
    for (double& x : out)
        x = total > 0 ? ns * x / total : 0;
    return out;
}

std::vector<std::optional<CpuInterference>> InterferenceMeter::figures(const Snapshot& a, const Snapshot& b,
    const std::vector<int>& cpus, const std::vector<std::vector<int>>& seenByTask) const
{
    const auto own = ownNsByCpu(a, b, cpus, seenByTask);
    const auto controller = controllerNsByCpu(a, b, cpus, own, m_controllerCpus);
    std::vector<std::optional<CpuInterference>> out;
    for (std::size_t k = 0; k < cpus.size(); ++k)
        out.push_back(between(a, b, cpus[k], own[k], controller[k]));
    return out;
}

std::vector<InterferingTask> InterferenceMeter::topTasks(const std::vector<CpuInterference>& cpus) const
{
    const double interval = std::chrono::duration<double>(m_afterAt - m_beforeAt).count();
    if (interval <= 0)
        return {};
    std::set<long> mine;
    for (const MeasuredTask& t : m_tasks)
        mine.insert(t.tid);
    std::vector<InterferingTask> out;
    for (const os::TaskStat& t : m_after) {
        // A task is put on the CPU it last ran on: exact for a task pinned there, a guess for
        // one the scheduler moved, whose CPU time elsewhere would count here too. So its share
        // is capped at what all other tasks took of that CPU (exact, from /proc/stat): a named
        // task never took more of a CPU than the line above it says others took.
        const auto where = std::find_if(
            cpus.begin(), cpus.end(), [&](const CpuInterference& c) { return t.processor && c.cpu == *t.processor; });
        // The controller is named apart (Interference::controllerPid), never among other tasks.
        if (mine.count(t.tid) || where == cpus.end() || (m_controller > 0 && t.pid == m_controller))
            continue;
        std::uint64_t before = 0;
        if (const auto it = m_before.find(t.tid); it != m_before.end() && it->second.first == t.starttime)
            before = it->second.second;
        const std::uint64_t gained = grown(before, t.cpuTicks());
        if (gained == 0)
            continue;
        out.push_back({ t.pid, t.tid, t.comm, t.kernelThread(),
            std::min(where->otherShare, static_cast<double>(gained) / os::ticksPerSecond() / interval), where->cpu });
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.share > b.share; });
    if (out.size() > 3)
        out.resize(3);
    return out;
}

std::optional<Interference> InterferenceMeter::finish(
    std::vector<int> cpus, const std::vector<std::vector<int>>& seenByTask) const
{
    if (m_failed || m_marks.size() < 2)
        return std::nullopt;
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    Interference out;
    out.seconds = seconds(m_marks.front(), m_marks.back());
    if (out.seconds < kMinSeconds)
        return std::nullopt;
    const auto whole = figures(m_marks.front(), m_marks.back(), cpus, seenByTask);
    std::vector<std::vector<std::optional<CpuInterference>>> byRepetition;
    for (std::size_t r = 0; r + 1 < m_marks.size(); ++r)
        byRepetition.push_back(figures(m_marks[r], m_marks[r + 1], cpus, seenByTask));
    for (std::size_t k = 0; k < cpus.size(); ++k) {
        auto c = whole[k];
        if (!c)
            continue;
        for (const auto& rep : byRepetition)
            c->otherShareByRepetition.push_back(rep[k] ? rep[k]->otherShare : 0);
        out.cpus.push_back(std::move(*c));
    }
    if (out.cpus.empty())
        return std::nullopt;
    if (m_controller > 0 && m_marks.front().controllerNs > 0) { // a controller that could be read
        out.controllerPid = m_controller;
        out.controllerComm = m_controllerComm;
    }
    if (out.maxOtherShare() > kNameTasksShare && !m_after.empty())
        out.topTasks = topTasks(out.cpus);
    return out;
}

} // namespace ctxscope::run
