// SPDX-License-Identifier: MIT
// Units as people type and read them, in one place: durations ("2.43 µs"), sizes in bytes
// ("64K" typed, "1.5 MiB" shown; powers of 1024) and cache sizes as lstopo writes them.
#pragma once

#include "ctxscope/expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ctxscope {

// "812 ns", "2.43 µs", "1.20 ms": three significant digits, the unit chosen per value.
std::string formatDuration(double ns);

// A whole number of bytes with an optional binary suffix: K, M, G or T (either case), which
// may be followed by "iB" or "B" ("64K", "64KiB", "64kb"). No sign, no fraction, no spaces
// inside; anything else is an Error that quotes the text.
Expected<std::uint64_t> parseByteSize(std::string_view text);

// "FROM..TO" or "FROM.." (TO left to the caller's default).
struct ByteRange {
    std::uint64_t from = 0;
    std::optional<std::uint64_t> to;
};
Expected<ByteRange> parseByteRange(std::string_view text);

// "0 B", "4 KiB", "1.5 MiB", "32 MiB": at most three significant digits.
std::string formatBytes(std::uint64_t bytes);

// A count or rate rounded to a whole number, thousands grouped: "1,210", "0".
std::string formatCount(double value);

// Cache sizes as lstopo writes them: "48KB", "1280KB", "32MB".
std::string formatCacheSize(std::uint64_t bytes);

} // namespace ctxscope
