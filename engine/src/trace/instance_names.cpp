// SPDX-License-Identifier: MIT
#include "trace/instance_names.h"

#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"
#include "os/procfs.h"
#include "trace/tracefs_mount.h"

#include <fmt/core.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <filesystem>

#include <signal.h>
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

bool ownerIsGone(long pid)
{
    if (pid == getpid())
        return false;
    if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        return true;
    // The pid lives: gone all the same when it is now another program's, neither a ctxscope
    // nor a copy of this program (two test binaries tracing at once, as `ctest -j` runs them,
    // removed each other's instances).
    auto comm = readFirstLine(fmt::format("/proc/{}/comm", pid));
    if (!comm || comm->starts_with("ctxscope"))
        return false;
    return comm != readFirstLine("/proc/self/comm");
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
        if (!owner || !trace::ownerIsGone(*owner))
            continue;
        // A dead owner holds no file open, so the kernel lets the directory go.
        if (rmdir(entry.path().c_str()) == 0)
            ++removed;
    }
    return removed;
}

} // namespace ctxscope
