// SPDX-License-Identifier: MIT
#include "bench/working_set.h"
#include "os/shared_mapping.h"

#include "bench/barrier.h"
#include "ctxscope/units.h"

#include <algorithm>
#include <cstring>
#include <fmt/core.h>
#include <numeric>
#include <random>

namespace ctxscope::bench {

namespace {

constexpr unsigned kLinesPerPage = kWsPageBytes / kWsLineBytes;
// Odd, so j * stride mod 64 visits every line of a page once, never two neighbours in a row.
constexpr unsigned kLineStride = 23;

} // namespace

Expected<WorkingSet> WorkingSet::create(int tasks, std::uint64_t bytes)
{
    WorkingSet ws;
    if (bytes == 0 || tasks <= 0)
        return ws;
    const std::uint64_t lines = (bytes + kWsLineBytes - 1) / kWsLineBytes;
    ws.m_bytes = bytes;
    ws.m_pages = static_cast<std::size_t>((lines + kLinesPerPage - 1) / kLinesPerPage);
    ws.m_lastLines = static_cast<unsigned>(lines - (ws.m_pages - 1) * kLinesPerPage);
    ws.m_slice = ws.m_pages * kWsPageBytes;
    auto mapping = sys::SharedMapping::create(ws.m_slice * static_cast<std::size_t>(tasks));
    if (!mapping)
        return makeError(fmt::format("could not map the working sets ({} per task, {} tasks): {}", formatBytes(bytes),
            tasks, mapping.error().message));
    ws.m_mapping = std::move(*mapping);
    try {
        ws.m_order.resize(ws.m_pages * static_cast<std::size_t>(tasks));
    } catch (const std::bad_alloc&) {
        return makeError("could not allocate the page order of the working sets");
    }
    for (int t = 0; t < tasks; ++t) {
        const auto first = ws.m_order.begin() + static_cast<std::ptrdiff_t>(ws.m_pages * static_cast<std::size_t>(t));
        const auto last = first + static_cast<std::ptrdiff_t>(ws.m_pages);
        std::iota(first, last, 0U);
        std::mt19937_64 random(0x63747873U + static_cast<unsigned>(t));
        std::shuffle(first, last, random);
    }
    // Fault every page in now (a shared mapping is not populated by fork for the child, but
    // the pages exist; the calibration phases map them in before anything is measured).
    std::memset(ws.m_mapping.data(), 1, ws.m_mapping.size());
    return ws;
}

void WorkingSet::touch(int task) noexcept
{
    if (m_bytes == 0)
        return;
    char* base = buffer(task);
    const std::uint32_t* order = m_order.data() + m_pages * static_cast<std::size_t>(task);
    const std::size_t lastPage = m_pages - 1;
    for (std::size_t i = 0; i < m_pages; ++i) {
        const std::uint32_t page = order[i];
        char* p = base + static_cast<std::size_t>(page) * kWsPageBytes;
        const auto rotate = static_cast<unsigned>(i);
        const char value = static_cast<char>(i);
        if (page != lastPage || m_lastLines == kLinesPerPage) {
            for (unsigned j = 0; j < kLinesPerPage; ++j)
                p[((j * kLineStride + rotate) % kLinesPerPage) * kWsLineBytes] = value;
        } else {
            for (unsigned j = 0; j < kLinesPerPage; ++j)
                if (const unsigned line = (j * kLineStride + rotate) % kLinesPerPage; line < m_lastLines)
                    p[line * kWsLineBytes] = value;
        }
    }
    clobberMemory();
}

} // namespace ctxscope::bench
