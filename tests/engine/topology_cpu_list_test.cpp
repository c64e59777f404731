// SPDX-License-Identifier: MIT
// CPU lists as taskset and cpusets write them.
#include "ctxscope/topology.h"

#include <gtest/gtest.h>

using namespace ctxscope;

TEST(CpuList, FormatsRangesLikeTaskset)
{
    EXPECT_EQ(formatCpuList({}), "");
    EXPECT_EQ(formatCpuList({ 3 }), "3");
    EXPECT_EQ(formatCpuList({ 0, 1 }), "0-1");
    EXPECT_EQ(formatCpuList({ 0, 1, 2, 3, 5, 7, 8 }), "0-3,5,7-8");
    EXPECT_EQ(formatCpuList({ 8, 5, 1, 0, 1, 5 }), "0-1,5,8"); // unsorted, duplicates
    EXPECT_EQ(formatCpuList({ 0, 2, 4 }), "0,2,4");
    EXPECT_EQ(formatCpuList({ 0, 1, 1, 2 }), "0-2"); // in order, a duplicate
}

TEST(CpuList, ParsesWhatItFormats)
{
    for (const std::vector<int>& cpus :
        std::vector<std::vector<int>> { { 0 }, { 0, 1, 2, 3, 5, 7, 8 }, { 4, 6 }, { 1, 2, 3, 100, 101, 65535 } }) {
        auto parsed = parseCpuList(formatCpuList(cpus));
        ASSERT_TRUE(parsed.ok()) << parsed.error().message;
        EXPECT_EQ(*parsed, cpus);
    }
    auto range = parseCpuList("0-3,5");
    ASSERT_TRUE(range.ok());
    EXPECT_EQ(*range, (std::vector<int> { 0, 1, 2, 3, 5 }));
    auto whole = parseCpuList("0-65535");
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(whole->size(), 65536U);
}

TEST(CpuList, RejectsWhatIsNotACpuList)
{
    for (const char* text : { "", ",", "1,", ",1", "1,,2", "-1", "3-1", "1-", "-", "a", "1-a", "0x3", " 1", "1 ", "1.5",
             "65536", "0-65536", "99999999999999999999", "1-2-3" }) {
        auto parsed = parseCpuList(text);
        ASSERT_FALSE(parsed.ok()) << "'" << text << "' was accepted";
        EXPECT_NE(parsed.error().message.find("is not a CPU list"), std::string::npos) << parsed.error().message;
    }
}
