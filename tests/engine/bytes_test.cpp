// SPDX-License-Identifier: MIT
// Sizes as people type them on the command line (--ws 64K, --ws 0..1G).
#include "ctxscope/units.h"

#include <gtest/gtest.h>

using namespace ctxscope;

namespace {

std::uint64_t sizeOf(const char* text)
{
    auto v = parseByteSize(text);
    EXPECT_TRUE(v.ok()) << text << ": " << (v.ok() ? "" : v.error().message);
    return v.ok() ? *v : 0;
}

std::string errorOf(const char* text)
{
    auto v = parseByteSize(text);
    EXPECT_FALSE(v.ok()) << text << " was accepted as " << (v.ok() ? *v : 0);
    return v.ok() ? std::string() : v.error().message;
}

} // namespace

TEST(ByteSize, AcceptsPlainNumbersAndBinarySuffixes)
{
    EXPECT_EQ(sizeOf("0"), 0U);
    EXPECT_EQ(sizeOf("4096"), 4096U);
    EXPECT_EQ(sizeOf("64K"), 64U * 1024);
    EXPECT_EQ(sizeOf("64k"), 64U * 1024);
    EXPECT_EQ(sizeOf("64KiB"), 64U * 1024);
    EXPECT_EQ(sizeOf("64kb"), 64U * 1024);
    EXPECT_EQ(sizeOf("16M"), 16U << 20);
    EXPECT_EQ(sizeOf("1G"), 1U << 30);
    EXPECT_EQ(sizeOf("2T"), std::uint64_t { 2 } << 40);
    EXPECT_EQ(sizeOf("512B"), 512U);
}

TEST(ByteSize, RejectsGarbageWithAMessageThatQuotesIt)
{
    for (const char* text : { "", "abc", "-1", "+4K", "1.5M", "64X", "64 K", " 64K", "64KK", "64Kib2", "K", "64MiBs",
             "4096B2", "99999999999999999999", "20000000000G" }) {
        const std::string message = errorOf(text);
        EXPECT_NE(message.find(std::string("'") + text + "'"), std::string::npos) << message;
        EXPECT_NE(message.find("e.g. 4096, 64K"), std::string::npos) << message;
    }
    EXPECT_NE(errorOf("64X").find("unknown unit 'X'"), std::string::npos);
    EXPECT_NE(errorOf("20000000000G").find("too large"), std::string::npos);
}

TEST(ByteSize, RangesHaveAnOptionalEnd)
{
    auto r = parseByteRange("0..64M");
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->from, 0U);
    EXPECT_EQ(r->to, std::optional<std::uint64_t>(64U << 20));
    r = parseByteRange("4K..");
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->from, 4096U);
    EXPECT_FALSE(r->to.has_value());

    auto bad = parseByteRange("64M..4K");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("ends before it starts"), std::string::npos);
    bad = parseByteRange("4K");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("FROM..TO"), std::string::npos);
    bad = parseByteRange("4K..lots");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("'lots'"), std::string::npos);
}

TEST(ByteSize, FormatsWithBinaryUnits)
{
    EXPECT_EQ(formatBytes(0), "0 B");
    EXPECT_EQ(formatBytes(1000), "1000 B");
    EXPECT_EQ(formatBytes(4096), "4 KiB");
    EXPECT_EQ(formatBytes(1536 * 1024), "1.5 MiB");
    EXPECT_EQ(formatBytes(std::uint64_t { 32 } << 20), "32 MiB");
    EXPECT_EQ(formatBytes(std::uint64_t { 1000 } << 10), "1000 KiB");
    EXPECT_EQ(formatBytes(std::uint64_t { 3 } << 30), "3 GiB");
}

TEST(Units, CountsAreGroupedByThousandsWithCommas)
{
    EXPECT_EQ(formatCount(0), "0");
    EXPECT_EQ(formatCount(999), "999");
    EXPECT_EQ(formatCount(1000), "1,000");
    EXPECT_EQ(formatCount(98765.4), "98,765");
    EXPECT_EQ(formatCount(1234567), "1,234,567");
    EXPECT_EQ(formatCount(123456789012.0), "123,456,789,012");
    EXPECT_EQ(formatCount(-5), "0") << "a count is never negative";
}
