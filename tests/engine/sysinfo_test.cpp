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
    EXPECT_NE(w[0].find("virtual machine (KVMKVMKVM)"), std::string::npos); // as it was given
    EXPECT_NE(w[1].find("'powersave'"), std::string::npos);
    EXPECT_NE(w[2].find("debug build"), std::string::npos);

    SysInfo quiet;
    quiet.governorPerformance = TriState::On;
    EXPECT_TRUE(machineWarnings(quiet).empty());
}

TEST(SysInfo, HypervisorNamesReadAsPeopleWriteThem)
{
    // CPUID leaf 0x40000000 signatures, as cpuidHypervisorVendor reads them (trailing NULs and
    // spaces left or not), and the words of /sys/hypervisor/type.
    EXPECT_EQ(hypervisorName("KVMKVMKVM"), "KVM");
    EXPECT_EQ(hypervisorName(std::string("KVMKVMKVM\0\0\0", 12)), "KVM");
    EXPECT_EQ(hypervisorName("Linux KVM Hv"), "KVM");
    EXPECT_EQ(hypervisorName("Microsoft Hv"), "Hyper-V");
    EXPECT_EQ(hypervisorName("VMwareVMware"), "VMware");
    EXPECT_EQ(hypervisorName("XenVMMXenVMM"), "Xen");
    EXPECT_EQ(hypervisorName("xen"), "Xen");
    EXPECT_EQ(hypervisorName("bhyve bhyve "), "bhyve");
    EXPECT_EQ(hypervisorName("TCGTCGTCGTCG"), "QEMU TCG");
    EXPECT_EQ(hypervisorName("ACRNACRNACRN"), "ACRN");
    EXPECT_EQ(hypervisorName("VBoxVBoxVBox"), "VirtualBox");
    EXPECT_EQ(hypervisorName(" prl hyperv  "), "Parallels");
    // A name it already is stays (files written with the name), an unknown one is only trimmed.
    EXPECT_EQ(hypervisorName("KVM"), "KVM");
    EXPECT_EQ(hypervisorName("Hyper-V"), "Hyper-V");
    EXPECT_EQ(hypervisorName("NewVisor X "), "NewVisor X");
    EXPECT_EQ(hypervisorName(""), "");
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
