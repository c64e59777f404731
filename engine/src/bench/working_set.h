// SPDX-License-Identifier: MIT
// The per-task working sets of the cache-pollution benchmarks: after taking the token, a
// task writes one byte in every cache line of its own buffer before passing the token on.
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "os/shared_mapping.h"
#include "os/sys.h"

#include <cstdint>
#include <vector>

namespace ctxscope::bench {

// The unit the random order shuffles (a base page on x86 and most ARM) and the line size
// one write covers.
inline constexpr std::size_t kWsPageBytes = 4096;
inline constexpr std::size_t kWsLineBytes = 64;

class WorkingSet {
public:
    // One buffer of `bytes` per task, page-aligned slices of one anonymous shared mapping
    // (a forked child uses the same pages, with no copy-on-write on its first write), every
    // page written now so no fault lands in a measurement, and a random page order per task
    // fixed now (seeded, so every run touches in the same order). 0 bytes: an empty set
    // whose touch does nothing.
    static Expected<WorkingSet> create(int tasks, std::uint64_t bytes);
    WorkingSet() = default;

    // One write per cache line of the task's buffer: pages in the task's random order (so the
    // prefetchers cannot run ahead), the 64 lines of a page in a strided order rotated per
    // page. No allocation, no system call: safe in a measured loop and a forked child.
    void touch(int task) noexcept;

    std::uint64_t bytes() const { return m_bytes; }
    // The task's buffer: the W bytes it touches, then the rest of its last page.
    char* buffer(int task) const
    {
        return static_cast<char*>(m_mapping.data()) + m_slice * static_cast<std::size_t>(task);
    }
    std::size_t sliceBytes() const { return m_slice; }
    bool empty() const { return m_bytes == 0; }

private:
    sys::SharedMapping m_mapping;
    std::uint64_t m_bytes = 0;
    std::size_t m_slice = 0; // bytes between two tasks' buffers
    std::size_t m_pages = 0; // per task, the last one maybe partly used
    unsigned m_lastLines = 0; // lines used in the last page
    std::vector<std::uint32_t> m_order; // tasks x pages: the page to touch at each step
};

} // namespace ctxscope::bench
