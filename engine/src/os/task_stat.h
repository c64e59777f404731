// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Readers of one task's /proc/PID/task/TID/stat and schedstat: pure parsers of the text (so
// recorded texts from other kernels test them, and garbage gives a sentence), plus the reads
// of one task and the scan of every task. Interference accounting and `watch` both read tasks
// through these.
namespace ctxscope::os {

// The fields of /proc/PID/task/TID/stat a CPU-time accounting needs; times in USER_HZ ticks.
struct TaskStat {
    long pid = 0; // the thread group (process); set by the readers, the text holds only the TID
    long tid = 0;
    std::string comm; // may hold spaces and parentheses
    char state = '?';
    std::uint64_t flags = 0;
    std::uint64_t utime = 0;
    std::uint64_t stime = 0;
    std::uint64_t starttime = 0; // ticks after boot
    std::uint64_t numThreads = 0; // of its thread group
    std::optional<int> processor; // the CPU it last ran on (absent before Linux 2.2.8)

    // PF_KTHREAD: a kernel thread ([kworker/0:1], [ksoftirqd/0]).
    bool kernelThread() const { return (flags & 0x00200000U) != 0; }
    std::uint64_t cpuTicks() const { return utime + stime; }
};

Expected<TaskStat> parseTaskStat(std::string_view text);

// /proc/PID/task/TID/schedstat: nanoseconds on a CPU and waiting for one, and timeslices.
struct TaskSchedstat {
    std::uint64_t runNs = 0;
    std::uint64_t waitNs = 0;
    std::uint64_t timeslices = 0;
};

Expected<TaskSchedstat> parseTaskSchedstat(std::string_view text);

// USER_HZ: the ticks per second of /proc/stat and of utime and stime.
double ticksPerSecond();

// A small /proc file read with one read(2) into `buffer` (no stream, no allocation beyond the
// buffer's growth): the scan of every task reads hundreds of them. False when it cannot be read.
bool readProcText(const char* path, std::string& buffer);

// One task's stat and schedstat; a sentence when it is gone or unreadable.
Expected<TaskStat> readTaskStat(long pid, long tid);
Expected<TaskSchedstat> readTaskSchedstat(long pid, long tid);

// Every task of every process that can be read now, in no particular order (a task that ends
// during the scan is skipped). A single-threaded process is read once, from /proc/PID/stat,
// without listing its task directory: that halves the reads of a typical system.
std::vector<TaskStat> scanTasks();

} // namespace ctxscope::os
