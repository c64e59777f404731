// SPDX-License-Identifier: MIT
#include "ctxscope/sysinfo.h"

#include "os/procfs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ctxscope;

TEST(SysInfo, CpuinfoFieldReadsTheFirstProcessorBlockOnly)
{
    const std::string cpuinfo = "processor\t: 0\nmodel name\t: Test CPU @ 2.0GHz\ncpu MHz\t\t: 1999.5\n"
                                "model\t\t: 17\n\nprocessor\t: 1\nmodel name\t: Other\n";
    EXPECT_EQ(cpuinfoField(cpuinfo, "model name"), "Test CPU @ 2.0GHz");
    EXPECT_EQ(cpuinfoField(cpuinfo, "cpu MHz"), "1999.5");
    EXPECT_EQ(cpuinfoField(cpuinfo, "model"), "17"); // not confused with "model name"
    EXPECT_EQ(cpuinfoField(cpuinfo, "flags"), "");
}

TEST(SysInfo, WarningsAreSentencesForEachCondition)
{
    SysInfo info;
    info.hypervisor = true;
    info.hypervisorVendor = "KVMKVMKVM";
    info.governorPerformance = TriState::Off;
    info.governor = "powersave";
    info.debugBuild = true;
    const auto w = machineWarnings(info);
    ASSERT_EQ(w.size(), 3U);
    EXPECT_NE(w[0].find("virtual machine (KVMKVMKVM)"), std::string::npos);
    EXPECT_NE(w[1].find("'powersave'"), std::string::npos);
    EXPECT_NE(w[2].find("debug build"), std::string::npos);

    SysInfo quiet;
    quiet.governorPerformance = TriState::On;
    EXPECT_TRUE(machineWarnings(quiet).empty());
}

TEST(SysInfo, LiveReadFillsWhatEveryLinuxHas)
{
    const SysInfo info = readSysInfo();
    EXPECT_FALSE(info.kernel.empty());
    EXPECT_GT(info.onlineCpus, 0);
    EXPECT_FALSE(info.clocksource.empty());
    const auto j = toJson(info);
    EXPECT_EQ(j.at("kernel"), info.kernel);
    EXPECT_TRUE(j.at("governor_performance") == "on" || j.at("governor_performance") == "off"
        || j.at("governor_performance") == "unknown");
}
