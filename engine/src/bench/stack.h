// SPDX-License-Identifier: MIT
// A stack for a user-space context: an anonymous private mapping with a PROT_NONE guard page
// below it, so an overflow faults instead of overwriting memory. Unmapped when it goes.
// coro-fcontext takes boost::context::protected_fixedsize_stack, which is the same mapping;
// coro-ucontext keeps this one because that allocator throws std::bad_alloc without the
// reason (the engine returns errors as values naming errno), only asserts that the guard page
// was protected (a release build would run without one), and does not unpoison the stack for
// ASan when it goes (frames that never returned would be reported in later mappings).
#pragma once

#include "ctxscope/expected.h"

#include <cstddef>
#include <utility>

namespace ctxscope::bench {

class GuardedStack {
public:
    static Expected<GuardedStack> create(std::size_t bytes);
    GuardedStack() = default;
    GuardedStack(GuardedStack&& other) noexcept
        : m_base(std::exchange(other.m_base, nullptr))
        , m_total(std::exchange(other.m_total, 0))
        , m_guard(std::exchange(other.m_guard, 0))
    {
    }
    GuardedStack& operator=(GuardedStack&& other) noexcept;
    GuardedStack(const GuardedStack&) = delete;
    GuardedStack& operator=(const GuardedStack&) = delete;
    ~GuardedStack() { release(); }

    // The usable part, above the guard page.
    void* bottom() const { return static_cast<char*>(m_base) + m_guard; }
    std::size_t size() const { return m_total - m_guard; }

private:
    GuardedStack(void* base, std::size_t total, std::size_t guard)
        : m_base(base)
        , m_total(total)
        , m_guard(guard)
    {
    }
    void release() noexcept;
    void* m_base = nullptr;
    std::size_t m_total = 0;
    std::size_t m_guard = 0;
};

} // namespace ctxscope::bench
