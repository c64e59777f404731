// SPDX-License-Identifier: MIT
#include "bench/stack.h"

#include "os/sys.h"

#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace ctxscope::bench {

Expected<GuardedStack> GuardedStack::create(std::size_t bytes)
{
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t usable = (bytes + page - 1) / page * page;
    const std::size_t total = usable + page;
    void* p = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (p == MAP_FAILED)
        return makeError("could not map a " + std::to_string(usable >> 10) + " KiB stack: " + sys::errnoText(errno));
    if (::mprotect(p, page, PROT_NONE) != 0) {
        const int err = errno;
        ::munmap(p, total);
        return makeError("could not protect the guard page of a stack: " + sys::errnoText(err));
    }
    return GuardedStack(p, total, page);
}

GuardedStack& GuardedStack::operator=(GuardedStack&& other) noexcept
{
    if (this != &other) {
        release();
        m_base = std::exchange(other.m_base, nullptr);
        m_total = std::exchange(other.m_total, 0);
        m_guard = std::exchange(other.m_guard, 0);
    }
    return *this;
}

void GuardedStack::release() noexcept
{
    if (!m_base)
        return;
#if defined(__SANITIZE_ADDRESS__)
    // Frames that never returned leave their redzones poisoned; clear them so memory mapped
    // here later is not reported as a stack overflow.
    __asan_unpoison_memory_region(bottom(), size());
#endif
    ::munmap(m_base, m_total);
    m_base = nullptr;
}

} // namespace ctxscope::bench
