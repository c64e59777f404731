// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/placement.h"

#include <QString>

#include <optional>
#include <vector>

namespace ctxscope::gui {

// The PUs chosen for the tasks of a benchmark, in task order: A, B, C ... (a ring uses more
// than two). A PU may carry several tasks (same-pu runs time-share one PU).
class TaskSelection {
public:
    const std::vector<int>& cpus() const { return m_cpus; }
    bool isEmpty() const { return m_cpus.empty(); }

    // A click on a PU: a PU without a task gets the next one; a PU with tasks loses its last
    // one, unless addAnother asks for one more task on it.
    void click(int osCpu, bool addAnother);
    void set(std::vector<int> cpus) { m_cpus = std::move(cpus); }
    void clear() { m_cpus.clear(); }

    // Indices of the tasks placed on a PU, ascending.
    std::vector<int> tasksOn(int osCpu) const;

    // The relation class of two tasks; with more, the widest class any two of them have.
    std::optional<Relation> relation(const Topology& topology) const;
    // "Tasks A=P#0, B=P#1 — shared-l3", or what to do next when fewer than two are placed.
    QString summary(const Topology& topology) const;

private:
    std::vector<int> m_cpus;
};

// "A" ... "Z", then "T27", "T28" ...
QString taskName(int index);

// Why a task cannot run on this PU ("CPU 5 is outside the allowed set 0-3 (cgroup cpuset)"),
// or an empty string when it can.
QString unavailableReason(const Topology& topology, int osCpu);

} // namespace ctxscope::gui
