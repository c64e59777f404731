// SPDX-License-Identifier: MIT
#include "os/shared_mapping.h"

#include "os/sys.h"

#include <cerrno>
#include <string>
#include <sys/mman.h>

namespace ctxscope::sys {

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
