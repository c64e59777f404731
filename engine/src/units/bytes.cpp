// SPDX-License-Identifier: MIT
#include "ctxscope/units.h"

#include <array>
#include <cctype>
#include <charconv>
#include <fmt/core.h>
#include <limits>

namespace ctxscope {

namespace {

Error bad(std::string_view text, std::string_view why)
{
    return makeError(fmt::format("'{}' is not a size in bytes ({}; e.g. 4096, 64K, 16M, 1G)", text, why));
}

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

} // namespace

Expected<std::uint64_t> parseByteSize(std::string_view text)
{
    if (text.empty())
        return bad(text, "it is empty");
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [rest, ec] = std::from_chars(text.data(), end, value);
    if (rest == text.data())
        return bad(text, "it does not start with a number");
    if (ec == std::errc::result_out_of_range)
        return bad(text, "the number is too large");
    std::string_view suffix(rest, static_cast<std::size_t>(end - rest));
    int shift = 0;
    if (!suffix.empty()) {
        switch (lower(suffix.front())) {
        case 'k':
            shift = 10;
            break;
        case 'm':
            shift = 20;
            break;
        case 'g':
            shift = 30;
            break;
        case 't':
            shift = 40;
            break;
        case 'b':
            break;
        default:
            return bad(text, fmt::format("unknown unit '{}'", suffix));
        }
        std::string tail;
        for (char c : suffix.substr(shift > 0 ? 1 : 0))
            tail += lower(c);
        if (!(tail.empty() || tail == "b" || (shift > 0 && tail == "ib")))
            return bad(text, fmt::format("unknown unit '{}'", suffix));
    }
    if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift))
        return bad(text, "the number is too large");
    return value << shift;
}

Expected<ByteRange> parseByteRange(std::string_view text)
{
    const std::size_t dots = text.find("..");
    if (dots == std::string_view::npos)
        return makeError(fmt::format("'{}' is not a range of sizes: write FROM..TO (e.g. 0..64M)", text));
    ByteRange range;
    auto from = parseByteSize(text.substr(0, dots));
    if (!from)
        return from.error();
    range.from = *from;
    const std::string_view toText = text.substr(dots + 2);
    if (!toText.empty()) {
        auto to = parseByteSize(toText);
        if (!to)
            return to.error();
        if (*to < range.from)
            return makeError(fmt::format("the range '{}' ends before it starts", text));
        range.to = *to;
    }
    return range;
}

std::string formatBytes(std::uint64_t bytes)
{
    static constexpr std::array<const char*, 5> kUnits { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = static_cast<double>(bytes);
    std::size_t unit = 0;
    while (v >= 1024 && unit + 1 < kUnits.size()) {
        v /= 1024;
        ++unit;
    }
    if (unit == 0)
        return fmt::format("{} B", bytes);
    std::string number = fmt::format("{:.{}f}", v, v < 10 ? 2 : v < 100 ? 1 : 0);
    if (number.find('.') != std::string::npos) {
        number.erase(number.find_last_not_of('0') + 1);
        if (number.back() == '.')
            number.pop_back();
    }
    return number + " " + kUnits[unit];
}

std::string formatCacheSize(std::uint64_t bytes)
{
    // lstopo's rule: KB below 10 MiB, MB below 10 GiB, GB below 10 TiB, then TB; rounded.
    constexpr std::array<const char*, 4> kUnits { "KB", "MB", "GB", "TB" };
    std::size_t unit = 0;
    while (unit + 1 < kUnits.size() && bytes >= (10ULL << (20 + 10 * unit)))
        ++unit;
    const unsigned shift = static_cast<unsigned>(9 + 10 * unit);
    return fmt::format("{}{}", ((bytes >> shift) + 1) >> 1, kUnits[unit]);
}

} // namespace ctxscope
