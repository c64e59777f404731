// SPDX-License-Identifier: MIT
#include "os/sys.h"

#include <cstring>
#include <sys/mman.h>

namespace ctxscope::sys {

std::string errnoText(int err)
{
    char buffer[256];
    // GNU strerror_r returns the message, which may or may not live in buffer.
    return ::strerror_r(err, buffer, sizeof buffer);
}

Expected<SharedMapping> SharedMapping::create(std::size_t bytes)
{
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return makeError("could not map " + std::to_string(bytes >> 20) + " MiB of shared memory: " + errnoText(errno));
    return SharedMapping(p, bytes);
}

SharedMapping& SharedMapping::operator=(SharedMapping&& other) noexcept
{
    if (this != &other) {
        if (m_data)
            ::munmap(m_data, m_size);
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
    }
    return *this;
}

SharedMapping::~SharedMapping()
{
    if (m_data)
        ::munmap(m_data, m_size);
}

} // namespace ctxscope::sys
