// SPDX-License-Identifier: MIT
// Memory that a forked child shares with its parent. Safe in a forked child of a multithreaded
// parent but for SharedMapping::create (it allocates the error's sentence).
#pragma once

#include "ctxscope/expected.h"

#include <cstddef>
#include <utility>

namespace ctxscope::sys {

// An anonymous MAP_SHARED mapping: visible to forked children, zero-filled, pages only
// committed when touched (MAP_NORESERVE).
class SharedMapping {
public:
    static Expected<SharedMapping> create(std::size_t bytes);
    SharedMapping() = default;
    SharedMapping(SharedMapping&& other) noexcept
        : m_data(std::exchange(other.m_data, nullptr))
        , m_size(std::exchange(other.m_size, 0))
    {
    }
    SharedMapping& operator=(SharedMapping&& other) noexcept;
    SharedMapping(const SharedMapping&) = delete;
    SharedMapping& operator=(const SharedMapping&) = delete;
    ~SharedMapping();

    void* data() const { return m_data; }
    std::size_t size() const { return m_size; }

private:
    SharedMapping(void* data, std::size_t size)
        : m_data(data)
        , m_size(size)
    {
    }
    void* m_data = nullptr;
    std::size_t m_size = 0;
};

} // namespace ctxscope::sys
