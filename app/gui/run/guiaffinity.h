// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

#include <vector>

namespace ctxscope::gui {

// Keeps this process's threads (the GUI) off the PUs a run measures, so drawing and event
// handling do not steal time from the measured tasks. The worker is started with the
// affinity the app began with (see WorkerClient::setWorkerCpus), never the narrowed one.
class GuiAffinity {
public:
    GuiAffinity(); // remembers the affinity the process has now
    ~GuiAffinity(); // gives it back
    GuiAffinity(const GuiAffinity&) = delete;
    GuiAffinity& operator=(const GuiAffinity&) = delete;
    const std::vector<int>& original() const { return m_original; }
    const std::vector<int>& current() const { return m_current; }

    // Moves every thread of this process onto the original PUs minus the measured ones; with
    // none to spare, onto all of them. Returns a sentence for the status bar.
    QString keepOff(const std::vector<int>& measured);
    // For a run whose PUs the scheduler picks (unpinned).
    QString shareAll();
    // Back to the original PUs between runs, so that nothing else in the app (a topology
    // reloaded from "Show this machine") sees the narrowed affinity as the machine's.
    void restore();

private:
    bool apply(const std::vector<int>& cpus);
    std::vector<int> m_original;
    std::vector<int> m_current;
};

} // namespace ctxscope::gui
