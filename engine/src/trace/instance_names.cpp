// SPDX-License-Identifier: MIT
#include "trace/instance_names.h"

#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "os/procfs.h"
#include "os/task_stat.h"
#include "trace/tracefs_mount.h"

#include <fmt/core.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <filesystem>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ctxscope::trace {

namespace {

constexpr std::string_view kPrefix = "ctxscope-";

} // namespace

std::string newInstanceName()
{
    static std::atomic<int> next { 1 };
    return fmt::format("{}{}-{}", kPrefix, getpid(), next.fetch_add(1));
}

std::optional<long> instanceOwner(const std::string& name)
{
    if (!name.starts_with(kPrefix))
        return std::nullopt;
    const char* begin = name.data() + kPrefix.size();
    const char* end = name.data() + name.size();
    long pid = 0;
    auto [after, ec] = std::from_chars(begin, end, pid);
    if (ec != std::errc() || after == begin || after == end || *after != '-' || pid <= 0)
        return std::nullopt;
    int n = 0;
    auto [last, ec2] = std::from_chars(after + 1, end, n);
    if (ec2 != std::errc() || last != end)
        return std::nullopt;
    return pid;
}

std::optional<double> processStartTime(long pid)
{
    const auto stat = readSmallFile("/proc/stat");
    const auto task = os::readTaskStat(pid, pid);
    const long ticks = sysconf(_SC_CLK_TCK);
    if (!stat || !task || ticks <= 0)
        return std::nullopt;
    const auto at = stat->find("\nbtime ");
    if (at == std::string::npos)
        return std::nullopt;
    const char* begin = stat->data() + at + 7;
    long long boot = 0;
    if (std::from_chars(begin, stat->data() + stat->size(), boot).ec != std::errc())
        return std::nullopt;
    return static_cast<double>(boot) + static_cast<double>(task->starttime) / static_cast<double>(ticks);
}

bool ownerIsGone(long pid, double madeAt)
{
    if (pid == getpid())
        return false;
    if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        return true;
    // The pid lives. Its maker, or a process that took the pid after the maker died? Only the
    // start time tells: a name does not (test binaries of other names tracing at once, as
    // `ctest -j` runs them, removed each other's instances while a comm rule decided).
    const auto started = processStartTime(pid);
    return started && *started > madeAt + kProcessStartSlackSeconds;
}

} // namespace ctxscope::trace

namespace ctxscope {

int removeStaleTraceInstances()
{
    const std::string where = trace::mountedTracefs();
    if (where.empty())
        return 0;
    std::error_code ec;
    int removed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(where + "/instances", ec)) {
        const std::string name = entry.path().filename().string();
        auto owner = trace::instanceOwner(name);
        struct stat made { };
        if (!owner || ::stat(entry.path().c_str(), &made) != 0
            || !trace::ownerIsGone(*owner, static_cast<double>(made.st_ctim.tv_sec)))
            continue;
        // A dead owner holds no file open, so the kernel lets the directory go.
        if (rmdir(entry.path().c_str()) == 0)
            ++removed;
    }
    return removed;
}

} // namespace ctxscope
