// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/results_file.h"

#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ctxscope::gui {

// The runs of one machine: this session's, or a results file from another machine or an
// earlier session.
struct CompareSource {
    QString host;
    QString cpuModel;
    QString hypervisor; // "" on bare metal, else the vendor or "hypervisor"
    QString origin; // "this session" or the file name
    // Shared, not copied: the views copy sources at every new row, and a run's samples are MBs.
    std::vector<std::shared_ptr<const RunResult>> results;

    QString legend() const; // "lab-3 · AMD EPYC 7B13 · KVM (lab3.json)"
};
CompareSource compareSource(const ResultsFile& file, const QString& origin);

// One benchmark as every source measured it. Core numbers differ between machines, so runs
// match by bench, mode and relation class (plus tasks and working set): benchmarkName().
struct CompareRow {
    std::string key; // "futex/thread/shared-l3"
    std::vector<std::optional<double>> medianNs; // per source, in the sources' order
    int sourcesWithValue() const;
};
// Rows in the order their key first appears; a source with several runs of one key gives
// its latest.
std::vector<CompareRow> matchSources(const std::vector<CompareSource>& sources);

} // namespace ctxscope::gui
