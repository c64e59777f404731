// SPDX-License-Identifier: MIT
#include "guiaffinity.h"

#include "ctxscope/thread_affinity.h"
#include "ctxscope/topology.h"

#include <QCoreApplication>
#include <QDir>

#include <algorithm>

namespace ctxscope::gui {

namespace {

QString cpuList(const std::vector<int>& cpus) { return QString::fromStdString(formatCpuList(cpus)); }

} // namespace

GuiAffinity::GuiAffinity()
    : m_original(threadAffinity(0))
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
    // One thread at a time: Qt and its plugins may have started others, and threads started
    // later inherit from the one creating them.
    bool ok = true;
    const QStringList tasks = QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& task : tasks)
        ok = setThreadAffinity(task.toInt(), cpus).ok() && ok;
    if (tasks.isEmpty())
        ok = setThreadAffinity(0, cpus).ok();
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
        return QCoreApplication::translate("GuiAffinity", "The GUI shares P#%1 with the run: it may use only P#%2.")
            .arg(cpuList(measured), cpuList(m_original));
    }
    if (!apply(spare))
        return QCoreApplication::translate("GuiAffinity", "The GUI could not move off P#%1.").arg(cpuList(measured));
    return QCoreApplication::translate("GuiAffinity", "GUI on P#%1, off the measured P#%2.")
        .arg(cpuList(spare), cpuList(measured));
}

QString GuiAffinity::shareAll()
{
    restore();
    return QCoreApplication::translate("GuiAffinity", "Unpinned run: the GUI may share P#%1 with it.")
        .arg(cpuList(m_original));
}

} // namespace ctxscope::gui
