// SPDX-License-Identifier: MIT
// Small RAII wrappers around the OS handles the runner and the kernels use. Everything here
// is safe in a forked child of a multithreaded parent (no allocation, no locks) except
// errnoText and numaMapsNode.
#pragma once

#include "ctxscope/expected.h"

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <linux/futex.h>
#include <optional>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

namespace ctxscope::sys {

// strerror as a string (thread-safe).
std::string errnoText(int err);

class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd)
        : m_fd(fd)
    {
    }
    UniqueFd(UniqueFd&& other) noexcept
        : m_fd(std::exchange(other.m_fd, -1))
    {
    }
    UniqueFd& operator=(UniqueFd&& other) noexcept
    {
        if (this != &other)
            reset(std::exchange(other.m_fd, -1));
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    void reset(int fd = -1) noexcept
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

// The NUMA node of the page holding `address` in this process, asked with move_pages(2) and no
// target nodes (a query: nothing moves); -errno when the kernel cannot say (-ENOENT: the page is
// not mapped here yet, -ENOSYS: a kernel without NUMA).
inline int pageNode(const void* address) noexcept
{
    const long page = ::sysconf(_SC_PAGESIZE);
    void* pages[1] = { reinterpret_cast<void*>(
        reinterpret_cast<std::uintptr_t>(address) & ~static_cast<std::uintptr_t>(page > 0 ? page - 1 : 4095)) };
    int status[1] = { -ENOENT };
    if (::syscall(SYS_move_pages, 0, 1UL, pages, nullptr, status, 0) != 0)
        return -errno;
    return status[0];
}

// The node of the pages of the mapping that starts at `mappingStart` as /proc/self/numa_maps
// lists it; none when it is not listed, has no page yet, or spans two nodes. Allocates: not for
// a forked child.
std::optional<int> numaMapsNode(const void* mappingStart);

// FUTEX_WAIT / FUTEX_WAKE. priv selects FUTEX_PRIVATE_FLAG (waiters and wakers must agree);
// words shared between processes need priv = false.
inline long futexWait(std::uint32_t* word, std::uint32_t expected, bool priv, const timespec* timeout = nullptr)
{
    const int op = FUTEX_WAIT | (priv ? FUTEX_PRIVATE_FLAG : 0);
    return ::syscall(SYS_futex, word, op, expected, timeout, nullptr, 0);
}

inline long futexWake(std::uint32_t* word, int count, bool priv)
{
    const int op = FUTEX_WAKE | (priv ? FUTEX_PRIVATE_FLAG : 0);
    return ::syscall(SYS_futex, word, op, count, nullptr, nullptr, 0);
}

inline constexpr int kWakeAll = INT_MAX;

inline long threadId() { return ::syscall(SYS_gettid); }

} // namespace ctxscope::sys
