// SPDX-License-Identifier: MIT
// The kernel's ring-buffer pages walked here rather than by libtraceevent's kbuffer, which
// spends about 225 instructions an event behind indirect calls (kbuffer_next_event): a traced
// watch of 1,000 threads decodes tens of thousands of events a second, and the walk was the
// largest part of its cost (docs/performance.md, "Decoding"). The walk follows kbuffer's reading event for event
// (tests/engine/page_walk_test.cpp holds them to the same events), and takes the page and
// event header layout from the kernel's own events/header_page and events/header_event, which
// a recording carries: no offset or bit width is assumed.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace ctxscope::trace {

struct PageLayout {
    // The page header (header_page): its time stamp, its commit word (the bytes of events, with
    // the lost-event flags in its high bits), and where the events start.
    std::size_t timestampOffset = 0;
    std::size_t commitOffset = 0;
    std::size_t commitSize = 0; // the kernel's long: 4 or 8
    std::size_t dataOffset = 0;
    // The event header (header_event): a 32-bit word of type_len and time_delta, then, for
    // some types, a 32-bit array word.
    unsigned typeLenBits = 0;
    unsigned timeDeltaBits = 0;
    unsigned padding = 0; // type_len of a padding (a discarded event, the end of a page)
    unsigned timeExtend = 0; // of a time extend: the delta's high bits in the array word
    unsigned timeStamp = 0; // of an absolute time stamp (the high bits from the page's)
    unsigned dataMax = 0; // the largest type_len whose event is type_len * 4 bytes long

    // The layout the two files describe; nothing when one is missing or says what this reader
    // does not read (a time stamp other than 8 bytes, an event header word other than 32 bits).
    static std::optional<PageLayout> parse(std::string_view headerPage, std::string_view headerEvent);
};

// The commit word's flags and length, as the kernel's ring buffer sets them (ring_buffer.c's
// RB_MISSED_EVENTS, RB_MISSED_STORED) and libtraceevent reads them; header_page does not
// describe them.
constexpr std::uint64_t kPageMissedEvents = std::uint64_t { 1 } << 31;
constexpr std::uint64_t kPageMissedStored = std::uint64_t { 1 } << 30;
constexpr std::uint64_t kPageCommitMask = (std::uint64_t { 1 } << 27) - 1;

namespace walk {

inline std::uint32_t load32(const std::uint8_t* at)
{
    std::uint32_t v;
    std::memcpy(&v, at, sizeof v);
    return v;
}

inline std::uint64_t loadLong(const std::uint8_t* at, std::size_t size)
{
    if (size == 4)
        return load32(at);
    std::uint64_t v;
    std::memcpy(&v, at, sizeof v);
    return v;
}

} // namespace walk

// Calls `event(ts, data, size)` for each event of one page (`pageSize` bytes, in this host's
// byte order), in order, with the time stamps the deltas, extends and absolute stamps give.
// Returns the events the kernel lost before this page: 0, their count, or -1 when it lost
// some without room on the page to say how many. A length that runs past the page's commit
// ends the walk (a page kbuffer would read past).
template <typename OnEvent>
std::int64_t walkPage(const PageLayout& l, const std::uint8_t* page, std::size_t pageSize, OnEvent&& event)
{
    using walk::load32;
    if (pageSize < l.dataOffset + 4)
        return 0;
    std::uint64_t ts;
    std::memcpy(&ts, page + l.timestampOffset, sizeof ts);
    const std::uint64_t commit = walk::loadLong(page + l.commitOffset, l.commitSize);
    const std::uint8_t* data = page + l.dataOffset;
    const std::size_t room = pageSize - l.dataOffset;
    const std::size_t size = std::min<std::size_t>(commit & kPageCommitMask, room);
    std::int64_t lost = 0;
    if ((commit & kPageMissedEvents) != 0) {
        lost = -1;
        if ((commit & kPageMissedStored) != 0 && size + l.commitSize <= room)
            lost = static_cast<std::int64_t>(walk::loadLong(data + size, l.commitSize));
    }
    // An absolute stamp holds the time's low timeDelta + 32 bits; the bits above come from the
    // time so far (kbuffer's TS_MSB).
    const unsigned stampBits = l.timeDeltaBits + 32;
    const std::uint64_t stampHigh = stampBits >= 64 ? 0 : ~((std::uint64_t { 1 } << stampBits) - 1);
    const std::uint32_t typeMask = (std::uint32_t { 1 } << l.typeLenBits) - 1;
    const std::uint32_t deltaMask
        = l.timeDeltaBits >= 32 ? ~std::uint32_t { 0 } : (std::uint32_t { 1 } << l.timeDeltaBits) - 1;
    for (std::size_t at = 0; at + 4 <= size;) {
        const std::uint32_t word = load32(data + at);
        // The header's bit fields fill the word from its low bits on a little-endian machine,
        // from its high bits on a big-endian one.
        std::uint32_t type;
        std::uint64_t delta;
        if constexpr (std::endian::native == std::endian::little) {
            type = word & typeMask;
            delta = (word >> l.typeLenBits) & deltaMask;
        } else {
            type = (word >> l.timeDeltaBits) & typeMask;
            delta = word & deltaMask;
        }
        if (type == l.padding) {
            if (at + 8 > size)
                break;
            ts += delta;
            at += 4 + std::size_t { load32(data + at + 4) };
            continue;
        }
        if (type == l.timeExtend || type == l.timeStamp) {
            if (at + 8 > size)
                break;
            const std::uint64_t wide = (std::uint64_t { load32(data + at + 4) } << l.timeDeltaBits) + delta;
            ts = type == l.timeStamp ? wide | (ts & stampHigh) : ts + wide;
            at += 8;
            continue;
        }
        std::size_t payload = at + 4;
        std::size_t length = 0;
        if (type == 0) { // a long event: its length in the array word, which counts itself
            if (at + 8 > size)
                break;
            const std::uint32_t words = load32(data + at + 4);
            if (words < 4)
                break;
            length = (std::size_t { words } - 4 + 3) & ~std::size_t { 3 };
            payload = at + 8;
        } else if (type <= l.dataMax) {
            length = std::size_t { type } * 4;
        } else {
            break; // a type the header does not name
        }
        ts += delta;
        if (payload + length > size)
            break;
        event(ts, data + payload, static_cast<int>(length));
        at = payload + length;
    }
    return lost;
}

} // namespace ctxscope::trace
