// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <vector>

namespace ctxscope::os {

// Asks the kernel to back the whole 2 MiB pages inside [data, data + bytes) with transparent
// huge pages (madvise MADV_HUGEPAGE), for a buffer of tens or hundreds of MB filled once: where
// THP is "madvise" (Debian's default), each 4 KiB page of it otherwise costs a page fault when
// first written. Below 4 MiB, where it is refused, or where THP is off, nothing changes: it is
// advice, and the memory works the same either way.
void adviseHugePages(const void* data, std::size_t bytes);

// The same for what `v` holds room for (its capacity): call it after a reserve.
template <typename T> void adviseHugePages(const std::vector<T>& v)
{
    adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

} // namespace ctxscope::os
