// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// The demonstration programs as threads: each body runs until stop() and counts its work.
namespace ctxscope::workload {

struct Program {
    std::vector<std::string> names; // one per thread, at most 15 characters (the kernel's comm)
    // Thread i's loop; it adds to `work` the units it finishes and returns once stop() ran.
    std::function<void(std::size_t i, std::atomic<std::uint64_t>& work)> body;
    std::function<void()> stop;
    std::shared_ptr<void> state; // what the threads share, alive until they are joined
};

// `count` is --threads: pairs, stages or busy threads.
Program pingpong(int pairs);
Program pipeline(int stages);
Program busy(int threads);
Program sleepers(int threads);

// A sleeper's next deadline on its grid of `periodNs` after waking at `nowNs` from the one
// at `deadlineNs`: the next period's, or, when it woke a period or more late (the machine
// too busy to run it), the first one after now. The periods it missed are skipped rather
// than run back to back, which on a crowded machine added wake-ups where there was no time.
std::int64_t nextWake(std::int64_t deadlineNs, std::int64_t nowNs, std::int64_t periodNs);

} // namespace ctxscope::workload
