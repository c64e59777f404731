// SPDX-License-Identifier: MIT
#include "guiaffinity.h"

#include "ctxscope/topology.h"

#include <QCoreApplication>
#include <QDir>

#include <algorithm>
#include <sched.h>
#include <sys/types.h>

namespace ctxscope::gui {

namespace {

QString cpuList(const std::vector<int>& cpus) { return QString::fromStdString(formatCpuList(cpus)); }

std::vector<int> processAffinity()
{
    cpu_set_t mask;
    CPU_ZERO(&mask);
    std::vector<int> cpus;
    if (::sched_getaffinity(0, sizeof(mask), &mask) != 0)
        return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(static_cast<std::size_t>(cpu), &mask))
            cpus.push_back(cpu);
    return cpus;
}

} // namespace

GuiAffinity::GuiAffinity()
    : m_original(processAffinity())
    , m_current(m_original)
{
}

GuiAffinity::~GuiAffinity() { restore(); }

void GuiAffinity::restore()
{
    if (m_current != m_original)
        apply(m_original);
}

bool GuiAffinity::apply(const std::vector<int>& cpus)
{
    if (cpus.empty())
        return false;
    cpu_set_t mask;
    CPU_ZERO(&mask);
    for (int cpu : cpus)
        if (cpu >= 0 && cpu < CPU_SETSIZE)
            CPU_SET(static_cast<std::size_t>(cpu), &mask);
    // sched_setaffinity binds one thread; Qt and its plugins may have started others, and
    // threads started later inherit from the one creating them.
    bool ok = true;
    const QStringList tasks = QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& task : tasks)
        ok = ::sched_setaffinity(static_cast<pid_t>(task.toInt()), sizeof(mask), &mask) == 0 && ok;
    if (tasks.isEmpty())
        ok = ::sched_setaffinity(0, sizeof(mask), &mask) == 0;
    if (ok)
        m_current = cpus;
    return ok;
}

QString GuiAffinity::keepOff(const std::vector<int>& measured)
{
    std::vector<int> spare;
    std::copy_if(m_original.begin(), m_original.end(), std::back_inserter(spare),
        [&](int cpu) { return std::find(measured.begin(), measured.end(), cpu) == measured.end(); });
    if (spare.empty()) {
        restore();
        return QCoreApplication::translate("GuiAffinity", "The GUI shares CPU %1 with the run: it may use only %2.")
            .arg(cpuList(measured), cpuList(m_original));
    }
    if (!apply(spare))
        return QCoreApplication::translate("GuiAffinity", "The GUI could not move off CPU %1.").arg(cpuList(measured));
    return QCoreApplication::translate("GuiAffinity", "GUI on CPU %1, off the measured CPU %2.")
        .arg(cpuList(spare), cpuList(measured));
}

QString GuiAffinity::shareAll()
{
    restore();
    return QCoreApplication::translate("GuiAffinity", "Unpinned run: the GUI may share CPUs %1 with it.")
        .arg(cpuList(m_original));
}

} // namespace ctxscope::gui
