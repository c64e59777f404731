// SPDX-License-Identifier: MIT
// The /proc/stat, /proc/interrupts and /proc/softirqs readers on recorded texts (this 2-vCPU
// KVM guest on Linux 6.18) and on texts in the shapes other kernels and machines give: no
// steal column, 128 CPUs, offline CPUs. Garbage gives a sentence, never a figure or a crash.
#include "os/proc_stat.h"

#include "../reliability/seed.h"
#include "procfs_fixture.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

using namespace ctxscope;
using namespace ctxscope::os;

namespace {

using test::procfsFixture;

// /proc/stat of N online CPUs (the ones in `online`), each with `columns` counters.
std::string procStat(const std::vector<int>& online, int columns)
{
    auto line = [&](const std::string& label, std::uint64_t base) {
        std::string l = label;
        for (int c = 0; c < columns; ++c)
            l += " " + std::to_string(base + static_cast<std::uint64_t>(c));
        return l + "\n";
    };
    std::string t = line("cpu", 1000);
    for (int cpu : online)
        t += line("cpu" + std::to_string(cpu), static_cast<std::uint64_t>(cpu) * 10);
    return t + "intr 5 1 2\nctxt 123456\nbtime 1\nprocesses 10\nprocs_running 1\n";
}

std::string interrupts(const std::vector<int>& online)
{
    std::string t = "     ";
    for (int cpu : online)
        t += "      CPU" + std::to_string(cpu);
    t += "\n  0:";
    for (int cpu : online)
        t += " " + std::to_string(cpu + 1);
    t += "  IO-APIC   2-edge      timer\nLOC:";
    for (std::size_t i = 0; i < online.size(); ++i)
        t += " 100";
    return t + "   Local timer interrupts\nERR:          7\nMIS:          0\n";
}

} // namespace

TEST(ProcStat, ReadsThisGuestsRecordedFile)
{
    const auto s = parseProcStat(procfsFixture("stat-kvm-2cpu-6.18.txt"));
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_EQ(s->cpus.size(), 2U);
    EXPECT_EQ(s->cpus[0].cpu, 0);
    EXPECT_EQ(s->cpus[1].cpu, 1);
    EXPECT_TRUE(s->cpus[0].hasSteal);
    EXPECT_EQ(s->cpus[0].user, 48075U);
    EXPECT_EQ(s->cpus[1].softirq, 250U);
    // The aggregate line is summed by the kernel at a slightly different moment: near, not equal.
    EXPECT_NEAR(static_cast<double>(s->all.user), static_cast<double>(s->cpus[0].user + s->cpus[1].user), 10.0);
    EXPECT_EQ(s->contextSwitches, 905359U);
    EXPECT_EQ(s->cpus[0].total(), s->cpus[0].busy() + s->cpus[0].idle + s->cpus[0].iowait + s->cpus[0].steal);
}

TEST(ProcStat, AKernelWithoutTheStealColumnSaysSo)
{
    const auto s = parseProcStat(procStat({ 0, 1 }, 7)); // Linux 2.6.0 - 2.6.10
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_FALSE(s->cpus[0].hasSteal);
    EXPECT_EQ(s->cpus[0].steal, 0U);
    const auto withGuest = parseProcStat(procStat({ 0 }, 10)); // 2.6.33 and later
    ASSERT_TRUE(withGuest.ok());
    EXPECT_TRUE(withGuest->cpus[0].hasSteal);
    EXPECT_EQ(withGuest->cpus[0].steal, 7U);
    EXPECT_EQ(withGuest->cpus[0].guestNice, 9U);
}

TEST(ProcStat, ManyCpusAndOfflineOnes)
{
    std::vector<int> many(128);
    for (int i = 0; i < 128; ++i)
        many[static_cast<std::size_t>(i)] = i;
    const auto big = parseProcStat(procStat(many, 10));
    ASSERT_TRUE(big.ok());
    EXPECT_EQ(big->cpus.size(), 128U);
    EXPECT_EQ(big->cpu(127)->user, 1270U);

    const auto holes = parseProcStat(procStat({ 0, 1, 3 }, 10)); // CPU 2 offline
    ASSERT_TRUE(holes.ok());
    EXPECT_EQ(holes->cpu(2), nullptr);
    ASSERT_NE(holes->cpu(3), nullptr);
    EXPECT_EQ(holes->cpu(3)->user, 30U);
}

TEST(ProcInterrupts, ReadsThisGuestsRecordedFiles)
{
    const auto irqs = parsePerCpuCounters(procfsFixture("interrupts-kvm-2cpu-6.18.txt"), "/proc/interrupts");
    ASSERT_TRUE(irqs.ok()) << irqs.error().message;
    ASSERT_EQ(irqs->size(), 2U);
    // Every per-CPU row counts (summed by hand from the file), ERR and MIS do not.
    EXPECT_EQ((*irqs)[0].count, 258455U);
    EXPECT_EQ((*irqs)[1].count, 354581U);
    const auto soft = parsePerCpuCounters(procfsFixture("softirqs-kvm-2cpu-6.18.txt"), "/proc/softirqs");
    ASSERT_TRUE(soft.ok()) << soft.error().message;
    ASSERT_EQ(soft->size(), 2U);
    EXPECT_EQ((*soft)[0].count, 140527U);
    EXPECT_EQ((*soft)[1].count, 261889U);
}

TEST(ProcInterrupts, OfflineCpusAndSystemWideRows)
{
    const auto r = parsePerCpuCounters(interrupts({ 0, 1, 3 }), "/proc/interrupts");
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->size(), 3U);
    EXPECT_EQ((*r)[2].cpu, 3);
    EXPECT_EQ((*r)[2].count, 104U); // IRQ 0 (4) + LOC (100); ERR's 7 is nobody's
    std::vector<int> many(128);
    for (int i = 0; i < 128; ++i)
        many[static_cast<std::size_t>(i)] = i;
    const auto big = parsePerCpuCounters(interrupts(many), "/proc/interrupts");
    ASSERT_TRUE(big.ok());
    EXPECT_EQ(big->back().count, 228U);
}

TEST(ProcStat, GarbageIsASentenceNotAFigure)
{
    for (const char* text : { "", "\n\n", "cpu 1 2\ncpu0 1 2\n", "cpu 1 2 3 4\ncpu0 1 x 3 4\n",
             "cpu 1 2 3 4\ncpu0 1 2 3 4\ncpu0 1 2 3 4\n", "cpu 1 2 3 4\n", "cpu 1 2 3 4\ncpu0 1 2 3 4\nctxt\n",
             "cpu 1 2 3 4\ncpu0 -1 2 3 4\n", "cpu 1 2 3 4\ncpu0 99999999999999999999999 2 3 4\n" }) {
        const auto s = parseProcStat(text);
        ASSERT_FALSE(s.ok()) << text;
        EXPECT_NE(s.error().message.find("/proc/stat could not be read: "), std::string::npos);
    }
    for (const char* text : { "", "CPU0 CPUx\n", "CPU0\n 0 1\n", "CPU0 CPU1\n0: 1\n", "GPU0\n0: 1\n" }) {
        const auto r = parsePerCpuCounters(text, "/proc/interrupts");
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_NE(r.error().message.find("/proc/interrupts could not be read: "), std::string::npos);
    }
}

TEST(ProcStat, MutatedFilesNeverCrash)
{
    std::mt19937 rng(test::seed());
    const std::string base = procfsFixture("stat-kvm-2cpu-6.18.txt") + procfsFixture("interrupts-kvm-2cpu-6.18.txt");
    for (int i = 0; i < 2000; ++i) {
        std::string t = base.substr(0, 1 + rng() % base.size());
        for (int k = 0; k < 8; ++k)
            t[rng() % t.size()] = static_cast<char>(rng() % 256);
        (void)parseProcStat(t);
        (void)parsePerCpuCounters(t, "/proc/interrupts");
    }
}
