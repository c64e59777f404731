// SPDX-License-Identifier: MIT
// The conditions a run may be held under (BenchSpec::keepAwakeCpus, pmQosUs): each held by an
// object for the run and let go by its destructor, so every way out of the run ends it.
#pragma once

#include "ctxscope/expected.h"
#include "os/sys.h"

#include <atomic>
#include <cstdint>
#include <ctime>
#include <memory>
#include <thread>
#include <vector>

namespace ctxscope::run {

// The keep-awake thread's name (comm), which the trace and /proc show.
inline constexpr const char* kKeepAwakeName = "ctxscope-awake";

// A SCHED_IDLE thread polling on each of some CPUs: the CPU never enters idle, and any task that
// becomes runnable there preempts it at once. Stopped and joined by the destructor.
class KeepAwake {
public:
    static Expected<std::unique_ptr<KeepAwake>> start(const std::vector<int>& cpus);
    KeepAwake() = default;
    KeepAwake(const KeepAwake&) = delete;
    KeepAwake& operator=(const KeepAwake&) = delete;
    ~KeepAwake();

    const std::vector<long>& tids() const { return m_tids; }
    const std::vector<int>& cpus() const { return m_cpus; }
    // The threads' CPU time so far, summed (each thread's own clock).
    std::uint64_t cpuNs() const;

private:
    std::atomic<bool> m_stop { false };
    std::vector<int> m_cpus;
    std::vector<long> m_tids;
    std::vector<clockid_t> m_clocks;
    std::vector<std::jthread> m_threads;
};

// /dev/cpu_dma_latency held at `us` microseconds while the object lives; the kernel lets the
// request go when the file closes (also when the process dies).
class PmQosHold {
public:
    static Expected<PmQosHold> hold(int us);

private:
    explicit PmQosHold(sys::UniqueFd fd)
        : m_fd(std::move(fd))
    {
    }
    sys::UniqueFd m_fd;
};

} // namespace ctxscope::run
