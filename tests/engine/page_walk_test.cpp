// SPDX-License-Identifier: MIT
// The ring-buffer pages a watch decodes are walked by trace::walkPage, not libtraceevent's
// kbuffer (page_walk.h says why). Here both read the same pages, laid out as the kernel lays
// them, and must give the same events: the same time stamps through deltas, time extends,
// paddings (discarded events) and absolute time stamps, the same payloads and sizes, long
// events, and the lost-event flags of the page header. The layout comes from the kernel's
// header files: the same pages with a 4-byte commit word (a 32-bit kernel's header_page) are
// read right too. The pages of a live recording are compared in TraceLive.
#include "trace/page_walk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <kbuffer.h>
}

using namespace ctxscope::trace;

namespace {

// How a 6.18 x86-64 kernel prints them.
constexpr const char* kHeaderPage64 = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                                      "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                                      "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                                      "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
// A 32-bit kernel's: its long, the commit word, is 4 bytes, and the events start at 12.
constexpr const char* kHeaderPage32 = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                                      "\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
                                      "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                                      "\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
constexpr const char* kHeaderEvent = "# compressed entry header\n"
                                     "\ttype_len    :    5 bits\n"
                                     "\ttime_delta  :   27 bits\n"
                                     "\tarray       :   32 bits\n"
                                     "\n"
                                     "\tpadding     : type == 29\n"
                                     "\ttime_extend : type == 30\n"
                                     "\ttime_stamp : type == 31\n"
                                     "\tdata max type_len  == 28\n";

constexpr std::size_t kPage = 4096;

// One page written as the kernel's ring buffer writes it (this host's byte order, the
// little-endian bit fields of header_event: type_len in the low 5 bits).
class PageBuilder {
public:
    PageBuilder(std::size_t commitSize, std::size_t dataOffset, std::uint64_t pageTs)
        : m_commitSize(commitSize)
        , m_dataOffset(dataOffset)
        , m_page(kPage, 0xee) // what lies past the commit is never read
    {
        std::memcpy(m_page.data(), &pageTs, sizeof pageTs);
    }

    // An event of `bytes` (a multiple of 4) of payload, `delta` ns after the one before: type_len
    // bytes / 4 up to 112 bytes, else (or with `forceLong`) type_len 0 with its length in the
    // array word.
    void event(std::uint32_t delta, std::size_t bytes, bool forceLong = false)
    {
        const bool small = !forceLong && bytes > 0 && bytes <= 28 * 4;
        header(small ? static_cast<std::uint32_t>(bytes / 4) : 0, delta);
        if (!small)
            put32(static_cast<std::uint32_t>(bytes + 4));
        for (std::size_t i = 0; i < bytes; ++i)
            m_data.push_back(static_cast<std::uint8_t>(m_data.size() * 7 + i));
    }
    // A delta too wide for the header: its high bits in the array word.
    void extend(std::uint64_t delta)
    {
        header(30, static_cast<std::uint32_t>(delta & ((1U << 27) - 1)));
        put32(static_cast<std::uint32_t>(delta >> 27));
    }
    // An absolute time stamp: its low 59 bits.
    void stamp(std::uint64_t ts)
    {
        header(31, static_cast<std::uint32_t>(ts & ((1U << 27) - 1)));
        put32(static_cast<std::uint32_t>((ts >> 27) & 0xffffffffU));
    }
    // A discarded event of `bytes` in all, its delta kept (the kernel's rb_event_discard).
    void padding(std::uint32_t delta, std::size_t bytes)
    {
        header(29, delta);
        put32(static_cast<std::uint32_t>(bytes - 4));
        m_data.resize(m_data.size() + bytes - 8, 0);
    }

    // The page, its commit word flagging `missed` lost events (-1: lost, no count stored).
    std::vector<std::uint8_t> page(std::int64_t missed = 0) const
    {
        std::vector<std::uint8_t> p = m_page;
        std::uint64_t commit = m_data.size();
        std::copy(m_data.begin(), m_data.end(), p.begin() + static_cast<std::ptrdiff_t>(m_dataOffset));
        if (missed != 0) {
            commit |= std::uint64_t { 1 } << 31;
            if (missed > 0) {
                commit |= std::uint64_t { 1 } << 30;
                std::memcpy(p.data() + m_dataOffset + m_data.size(), &missed, m_commitSize);
            }
        }
        std::memcpy(p.data() + 8, &commit, m_commitSize);
        return p;
    }

private:
    void header(std::uint32_t type, std::uint32_t delta) { put32(type | (delta << 5)); }
    void put32(std::uint32_t v)
    {
        const auto at = m_data.size();
        m_data.resize(at + 4);
        std::memcpy(m_data.data() + at, &v, 4);
    }

    std::size_t m_commitSize;
    std::size_t m_dataOffset;
    std::vector<std::uint8_t> m_page;
    std::vector<std::uint8_t> m_data;
};

struct Seen {
    std::uint64_t ts;
    std::ptrdiff_t offset; // of the payload in the page
    int size;
    bool operator==(const Seen&) const = default;
};

struct Read {
    std::vector<Seen> events;
    std::int64_t missed = 0;
};

Read byKbuffer(std::vector<std::uint8_t> page, bool long8)
{
    Read r;
    kbuffer* kbuf = kbuffer_alloc(long8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4, KBUFFER_ENDIAN_SAME_AS_HOST);
    if (kbuf == nullptr || kbuffer_load_subbuffer(kbuf, page.data()) != 0) {
        ADD_FAILURE() << "kbuffer could not load the page";
        return r;
    }
    r.missed = kbuffer_missed_events(kbuf);
    unsigned long long ts = 0;
    for (void* data = kbuffer_read_event(kbuf, &ts); data != nullptr; data = kbuffer_next_event(kbuf, &ts))
        r.events.push_back({ ts, static_cast<std::uint8_t*>(data) - page.data(), kbuffer_event_size(kbuf) });
    kbuffer_free(kbuf);
    return r;
}

Read byWalk(const std::vector<std::uint8_t>& page, const char* headerPage)
{
    Read r;
    const auto layout = PageLayout::parse(headerPage, kHeaderEvent);
    if (!layout) {
        ADD_FAILURE() << "the headers were not read";
        return r;
    }
    r.missed = walkPage(*layout, page.data(), page.size(), [&](std::uint64_t ts, const std::uint8_t* data, int size) {
        r.events.push_back({ ts, data - page.data(), size });
    });
    return r;
}

// The events of a busy page: every kind of record between them.
PageBuilder busyPage(std::size_t commitSize, std::size_t dataOffset)
{
    PageBuilder b(commitSize, dataOffset, 0x0123'4567'89abULL);
    b.event(0, 48); // a sched_switch-sized event at the page's own time
    b.event(1500, 40);
    b.padding(700, 48); // a discarded event: its delta still counts
    b.event(20, 112); // the largest event whose type_len holds its length
    b.extend((std::uint64_t { 3 } << 27) + 12345); // a pause longer than 134 ms
    b.event(9, 40);
    b.event(100, 200); // a long event (type_len 0)
    b.event(5, 8, true); // a short one written long
    b.stamp(0x0123'7000'0000ULL); // an absolute stamp (the page's high bits kept)
    b.event(0, 40);
    b.event(77, 44);
    b.padding(0, 16);
    b.event(3, 40);
    return b;
}

TEST(PageWalk, TheHeadersTheKernelPrintsGiveTheLayout)
{
    const auto l = PageLayout::parse(kHeaderPage64, kHeaderEvent);
    ASSERT_TRUE(l.has_value());
    EXPECT_EQ(l->timestampOffset, 0U);
    EXPECT_EQ(l->commitOffset, 8U);
    EXPECT_EQ(l->commitSize, 8U);
    EXPECT_EQ(l->dataOffset, 16U);
    EXPECT_EQ(l->typeLenBits, 5U);
    EXPECT_EQ(l->timeDeltaBits, 27U);
    EXPECT_EQ(l->padding, 29U);
    EXPECT_EQ(l->timeExtend, 30U);
    EXPECT_EQ(l->timeStamp, 31U);
    EXPECT_EQ(l->dataMax, 28U);
    const auto l32 = PageLayout::parse(kHeaderPage32, kHeaderEvent);
    ASSERT_TRUE(l32.has_value());
    EXPECT_EQ(l32->commitSize, 4U);
    EXPECT_EQ(l32->dataOffset, 12U);
}

TEST(PageWalk, HeadersItCannotReadGiveNoLayout)
{
    EXPECT_FALSE(PageLayout::parse("", kHeaderEvent).has_value());
    EXPECT_FALSE(PageLayout::parse(kHeaderPage64, "").has_value());
    std::string wide = kHeaderEvent;
    wide.replace(wide.find("27 bits"), 7, "59 bits"); // not one 32-bit word
    EXPECT_FALSE(PageLayout::parse(kHeaderPage64, wide).has_value());
}

TEST(PageWalk, ABusyPageGivesKbuffersEventsTimesAndSizes)
{
    for (const bool long8 : { true, false }) {
        const auto page = busyPage(long8 ? 8 : 4, long8 ? 16 : 12).page();
        const Read walked = byWalk(page, long8 ? kHeaderPage64 : kHeaderPage32);
        const Read reference = byKbuffer(page, long8);
        ASSERT_EQ(walked.events.size(), 9U) << (long8 ? "64-bit" : "32-bit");
        EXPECT_EQ(walked.events, reference.events) << (long8 ? "64-bit" : "32-bit");
        EXPECT_EQ(walked.missed, 0);
        EXPECT_EQ(reference.missed, 0);
        // The times the records give, worked out by hand.
        const std::uint64_t t0 = 0x0123'4567'89abULL;
        EXPECT_EQ(walked.events[0].ts, t0);
        EXPECT_EQ(walked.events[2].ts, t0 + 1500 + 700 + 20);
        EXPECT_EQ(walked.events[3].ts, t0 + 1500 + 700 + 20 + (std::uint64_t { 3 } << 27) + 12345 + 9);
        EXPECT_EQ(walked.events[6].ts, 0x0123'7000'0000ULL);
        EXPECT_EQ(walked.events[4].size, 200);
        EXPECT_EQ(walked.events[5].size, 8);
    }
}

TEST(PageWalk, LostEventsFlaggedByThePageAreCountedAsKbufferCountsThem)
{
    for (const bool long8 : { true, false }) {
        PageBuilder b(long8 ? 8 : 4, long8 ? 16 : 12, 1000);
        b.event(0, 40);
        b.event(10, 40);
        const char* header = long8 ? kHeaderPage64 : kHeaderPage32;
        for (const std::int64_t missed : { std::int64_t { 0 }, std::int64_t { 4711 }, std::int64_t { -1 } }) {
            const auto page = b.page(missed);
            const Read walked = byWalk(page, header);
            const Read reference = byKbuffer(page, long8);
            EXPECT_EQ(walked.missed, missed);
            EXPECT_EQ(reference.missed, missed);
            EXPECT_EQ(walked.events, reference.events);
            EXPECT_EQ(walked.events.size(), 2U);
        }
    }
}

TEST(PageWalk, AnEmptyPageHasNoEvents)
{
    const auto page = PageBuilder(8, 16, 5).page();
    EXPECT_TRUE(byWalk(page, kHeaderPage64).events.empty());
    EXPECT_TRUE(byKbuffer(page, true).events.empty());
}

// A page whose commit word says more than the page holds (a damaged recording) is read up to
// its end, never past it.
TEST(PageWalk, ACommitPastThePageStopsAtItsEnd)
{
    PageBuilder b(8, 16, 5);
    for (int i = 0; i < 39; ++i) // 39 events of 104 bytes: 4,056 of the page's 4,080
        b.event(1, 100);
    auto page = b.page();
    const std::uint64_t commit = 100000;
    std::memcpy(page.data() + 8, &commit, 8);
    const Read walked = byWalk(page, kHeaderPage64);
    EXPECT_EQ(walked.events.size(), 39U);
    for (const Seen& e : walked.events)
        EXPECT_LE(static_cast<std::size_t>(e.offset + e.size), kPage);
}

} // namespace
