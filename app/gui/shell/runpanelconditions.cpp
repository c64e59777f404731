// SPDX-License-Identifier: MIT
// RunPanel: the conditions a run may be measured under (keep-awake, a PM QoS hold), each an A/B
// the worker measures as `ctxscope-cli run --keep-awake / --pm-qos-us` does.
#include "runpanel.h"

#include <QCheckBox>
#include <QLineEdit>

#include <algorithm>

namespace ctxscope::gui {

void RunPanel::setIdleStates(int count)
{
    m_idleStates = count;
    emit specChanged(); // updates the switches
}

void RunPanel::updateConditionSwitches()
{
    // What stops both: no run can start here, or a working set (the engine measures a condition
    // without one).
    const auto ws = workingSetBytes(m_ws);
    const QString both = !m_disabled.isEmpty() ? m_disabled
        : ws && *ws > 0 ? tr("A condition is measured without a working set: clear the working set to use it.")
                        : QString();
    const QString awakeWhy = !both.isEmpty() ? both
        : placementKind() == PlacementKind::Unpinned
        ? tr("An unpinned run has no CPUs of its own to keep awake: place the tasks on the map or choose a class.")
        : QString();
    m_keepAwake->setEnabled(awakeWhy.isEmpty());
    m_keepAwake->setToolTip(awakeWhy.isEmpty()
            ? tr("Measure the run twice, as is and then with every CPU of the placement kept out of idle (both "
                 "tasks' CPUs: each task is the other's wakee in turn, so each CPU is \"the other CPU\" for one "
                 "direction; on one PU, that PU). A SCHED_IDLE thread on each CPU spins while the CPU would "
                 "idle and yields at once to any task, so a wake-up never waits for the CPU to leave idle. It "
                 "costs those CPUs' idle power for the run; its CPU time is reported and is not counted as "
                 "interference. The A/B says whether it changed the op's time and, traced, which step moved.")
            : awakeWhy);
    const QString shallowWhy = !both.isEmpty() ? both
        : m_idleStates < 0
        ? tr("Whether the machine has idle states to hold shallow is known once its worker has started.")
        : m_idleStates == 0 ? tr("This machine has no cpuidle states (on many VMs idle is a HLT the hypervisor "
                                 "handles), so holding /dev/cpu_dma_latency at 0 would change nothing here.")
                            : QString();
    m_shallow->setEnabled(shallowWhy.isEmpty());
    m_shallow->setToolTip(shallowWhy.isEmpty()
            ? tr("Measure the run twice, as is and then with /dev/cpu_dma_latency held at 0 µs, as cyclictest and "
                 "tuned's latency-performance profile do: every CPU stays in its shallowest idle state, so a "
                 "wake-up does not wait for a deep C-state's exit. It costs idle power for the run, and needs "
                 "permission to open /dev/cpu_dma_latency (root, or a udev rule): without it the run is refused "
                 "with the reason. The kernel lets the hold go when the run ends, however it ends.")
            : shallowWhy);
}

void RunPanel::addConditions(BenchSpec& spec) const
{
    if (m_keepAwake->isEnabled() && m_keepAwake->isChecked() && m_topology) {
        std::vector<int> cpus = measuredCpus(spec, *m_topology);
        std::sort(cpus.begin(), cpus.end());
        cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
        spec.keepAwakeCpus = std::move(cpus);
    }
    if (m_shallow->isEnabled() && m_shallow->isChecked())
        spec.pmQosUs = 0;
}

} // namespace ctxscope::gui
