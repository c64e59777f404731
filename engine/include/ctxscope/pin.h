// SPDX-License-Identifier: MIT
// Re-pinning a running program's threads (what `taskset -p` does): checked against the
// topology's allowed set, refused with a reason for per-CPU kernel threads and without the
// privilege another user's program needs.
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

#include <string>
#include <vector>

namespace ctxscope {

struct PinChange {
    long tid = 0;
    std::string name;
    std::vector<int> before;
    std::vector<int> after; // as the kernel reports it once set
};

// Sets one thread's affinity to `cpus` (OS indices). Every CPU must be usable in `topology`
// (checkPuUsable's sentence otherwise), which must be this machine.
Expected<PinChange> pinThread(const Topology& topology, long tid, const std::vector<int>& cpus);
// Every thread of a process; a thread that ends meanwhile is left out.
Expected<std::vector<PinChange>> pinProcess(const Topology& topology, long pid, const std::vector<int>& cpus);

} // namespace ctxscope
