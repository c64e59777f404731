// SPDX-License-Identifier: MIT
#include "os/huge_pages.h"

#include <cstdint>
#include <sys/mman.h>

namespace ctxscope::os {

void adviseHugePages(const void* data, std::size_t bytes)
{
    constexpr std::uintptr_t kHuge = std::uintptr_t { 2 } << 20;
    if (data == nullptr || bytes < 2 * kHuge)
        return;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
    const std::uintptr_t end = (begin + bytes) & ~(kHuge - 1);
    if (end > first)
        ::madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE); // advice: a refusal changes nothing
}

} // namespace ctxscope::os
