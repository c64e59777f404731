// SPDX-License-Identifier: MIT
#pragma once

#include "os/sys.h"

#include "ctxscope/expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
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
    long ppid = 0; // the parent process (0 for kthreadd and init, whose parent is the kernel)
    std::uint64_t flags = 0;
    std::uint64_t utime = 0;
    std::uint64_t stime = 0;
    std::uint64_t starttime = 0; // ticks after boot
    std::uint64_t numThreads = 0; // of its thread group
    std::optional<int> processor; // the CPU it last ran on (absent before Linux 2.2.8)

    // PF_KTHREAD: a kernel thread ([kworker/0:1], [ksoftirqd/0]).
    bool kernelThread() const { return (flags & 0x00200000U) != 0; }
    // PF_NO_SETAFFINITY: the kernel refuses to move it (per-CPU kernel threads: ksoftirqd/0).
    bool affinityFixed() const { return (flags & 0x04000000U) != 0; }
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

// The lines of /proc/PID/task/TID/status a watch needs: the switch counts (pidstat -w reads
// the same two lines), the affinity and the owner.
struct TaskStatus {
    std::uint64_t voluntarySwitches = 0;
    std::uint64_t involuntarySwitches = 0;
    std::vector<int> cpusAllowed; // Cpus_allowed_list
    long uid = -1; // the real user id
};

Expected<TaskStatus> parseTaskStatus(std::string_view text);

// se.nr_migrations of /proc/PID/task/TID/sched, a file only kernels built with
// CONFIG_SCHED_DEBUG have; nullopt when the text holds no such line.
std::optional<std::uint64_t> parseTaskMigrations(std::string_view text);

// The same file's counts a watch needs: migrations and, when the file has them, the switch
// counts that status also gives (nr_voluntary_switches, nr_involuntary_switches).
struct TaskSched {
    std::uint64_t migrations = 0;
    std::optional<std::uint64_t> voluntarySwitches;
    std::optional<std::uint64_t> involuntarySwitches;
};
std::optional<TaskSched> parseTaskSched(std::string_view text);

// USER_HZ: the ticks per second of /proc/stat and of utime and stime.
double ticksPerSecond();

// A small /proc file read with one read(2) into `buffer` (no stream, no allocation beyond the
// buffer's growth): the scan of every task reads hundreds of them. False when it cannot be read.
bool readProcText(const char* path, std::string& buffer);

// The /proc/PID/task/TID files of one process's threads, kept open between the readings of a
// watch: a /proc file read again from its start gives the values of now, and reading one that
// is open costs about a third of opening, reading and closing it (1,000 threads, 4 files each,
// on the development VM: 45 ms of CPU a reading against 18 ms). At most half of the open-file
// limit (RLIMIT_NOFILE) is kept; past it, a file is opened and closed for each read as
// readProcText does. Not thread-safe.
class TaskFiles {
public:
    enum class Kind { Stat, Status, Schedstat, Sched };
    TaskFiles();
    // The file's text now, valid until the next read; none when it cannot be read (the task is
    // gone). One buffer serves every read: no allocation, no clearing, per file.
    std::optional<std::string_view> read(long pid, long tid, Kind kind);
    // Closes the files of the threads not in `tids` (ascending): those that ended.
    void keepOnly(const std::vector<long>& tids);
    std::size_t openFiles() const { return m_open.size(); }

private:
    std::unordered_map<long, sys::UniqueFd> m_open; // by TID * 4 + kind
    std::size_t m_budget = 0;
    std::vector<char> m_buffer;
};

// One task's stat and schedstat; a sentence when it is gone or unreadable. With `files`,
// through those kept open.
Expected<TaskStat> readTaskStat(long pid, long tid, TaskFiles* files = nullptr);
Expected<TaskSchedstat> readTaskSchedstat(long pid, long tid, TaskFiles* files = nullptr);
Expected<TaskStatus> readTaskStatus(long pid, long tid, TaskFiles* files = nullptr);
// nullopt when the kernel has no sched file (or the task is gone).
std::optional<std::uint64_t> readTaskMigrations(long pid, long tid, TaskFiles* files = nullptr);
std::optional<TaskSched> readTaskSched(long pid, long tid, TaskFiles* files = nullptr);

// Whether thread `tid` belongs to process `pid` now (/proc/PID/task/TID exists).
bool hasTask(long pid, long tid);
// The TIDs of one process (empty when it is gone or cannot be listed), ascending.
std::vector<long> listTasks(long pid);
// How many threads a process has, from its task directory's link count (threads + 2): one
// stat, where listing the directory costs about 1.5 µs a thread. Nothing when it is gone.
std::optional<std::size_t> taskCount(long pid);
// The PIDs of every process, ascending.
std::vector<long> listProcesses();

// Every task of every process that can be read now, in no particular order (a task that ends
// during the scan is skipped). A single-threaded process is read once, from /proc/PID/stat,
// without listing its task directory: that halves the reads of a typical system.
std::vector<TaskStat> scanTasks();

} // namespace ctxscope::os
