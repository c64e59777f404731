// SPDX-License-Identifier: MIT
#include "os/task_stat.h"

#include "os/proc_text.h"

#include "ctxscope/cpu_list.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ctxscope::os {

namespace {

Error bad(std::string_view what, std::string_view why)
{
    return makeError(std::string(what) + " could not be read: " + std::string(why));
}

std::string taskPath(long pid, long tid, const char* file)
{
    return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + file;
}

// A directory entry that is a number (a PID or a TID), or -1.
long numericName(const char* name)
{
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(name, &end, 10);
    return (errno == 0 && end != name && *end == '\0' && v > 0) ? v : -1;
}

// Calls f(number) for every numeric entry of a directory.
template <typename F> void forEachNumber(const std::string& dir, F&& f)
{
    DIR* d = ::opendir(dir.c_str());
    if (!d)
        return;
    while (const dirent* e = ::readdir(d))
        if (const long n = numericName(e->d_name); n > 0)
            f(n);
    ::closedir(d);
}

} // namespace

Expected<TaskStat> parseTaskStat(std::string_view text)
{
    constexpr std::string_view what = "a task's stat";
    // "TID (comm) S ppid ...": comm may hold spaces and ')' itself, so it ends at the last ')'.
    const auto open = text.find('(');
    const auto close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return bad(what, "it has no command in parentheses");
    const auto head = text::words(text.substr(0, open));
    const auto tid = head.size() == 1 ? text::number(head[0]) : std::nullopt;
    if (!tid || *tid == 0 || *tid > 1U << 30)
        return bad(what, "it does not start with a task id");
    const auto w = text::words(text.substr(close + 1));
    // w[0] is field 3 (state); field N is w[N - 3]. starttime is field 22, processor 39.
    if (w.size() < 20 || w[0].size() != 1)
        return bad(what, "it has " + std::to_string(w.size()) + " fields after the command, fewer than 20");
    TaskStat t;
    t.pid = static_cast<long>(*tid);
    t.tid = t.pid;
    t.comm = std::string(text.substr(open + 1, close - open - 1));
    t.state = w[0][0];
    const auto field = [&](std::size_t n) { return text::number(w[n - 3]); };
    const auto ppid = field(4);
    const auto flags = field(9);
    const auto utime = field(14);
    const auto stime = field(15);
    const auto start = field(22);
    const auto threads = field(20);
    if (!ppid || *ppid > 1U << 30 || !flags || !utime || !stime || !start || !threads)
        return bad(what, "its ppid, flags, utime, stime or starttime is not a number");
    t.ppid = static_cast<long>(*ppid);
    t.flags = *flags;
    t.utime = *utime;
    t.stime = *stime;
    t.starttime = *start;
    t.numThreads = *threads;
    if (w.size() >= 37) {
        const auto cpu = field(39);
        if (!cpu || *cpu > 1U << 20)
            return bad(what, "its processor field is not a CPU number");
        t.processor = static_cast<int>(*cpu);
    }
    return t;
}

Expected<TaskSchedstat> parseTaskSchedstat(std::string_view text)
{
    const auto w = text::words(text.substr(0, text.find('\n')));
    if (w.size() != 3)
        return bad("a task's schedstat", "it does not hold three numbers");
    const auto run = text::number(w[0]);
    const auto wait = text::number(w[1]);
    const auto slices = text::number(w[2]);
    if (!run || !wait || !slices)
        return bad("a task's schedstat", "it does not hold three numbers");
    return TaskSchedstat { *run, *wait, *slices };
}

Expected<TaskStatus> parseTaskStatus(std::string_view text)
{
    constexpr std::string_view what = "a task's status";
    TaskStatus s;
    bool voluntary = false;
    bool involuntary = false;
    bool cpus = false;
    for (const auto line : text::lines(text)) {
        const auto colon = line.find(':');
        if (colon == std::string_view::npos)
            continue;
        const auto key = line.substr(0, colon);
        if (key != "voluntary_ctxt_switches" && key != "nonvoluntary_ctxt_switches" && key != "Cpus_allowed_list"
            && key != "Uid")
            continue; // most of the file: split only the lines it needs (a watch reads it for every thread)
        const auto w = text::words(line.substr(colon + 1));
        if (key == "voluntary_ctxt_switches" || key == "nonvoluntary_ctxt_switches") {
            const auto n = w.size() == 1 ? text::number(w[0]) : std::nullopt;
            if (!n)
                return bad(what, "its " + std::string(key) + " is not a number");
            (key[0] == 'v' ? s.voluntarySwitches : s.involuntarySwitches) = *n;
            (key[0] == 'v' ? voluntary : involuntary) = true;
        } else if (key == "Cpus_allowed_list") {
            auto list = parseCpuList(w.size() == 1 ? w[0] : std::string_view());
            if (!list)
                return bad(what, "its Cpus_allowed_list is not a CPU list");
            s.cpusAllowed = std::move(*list);
            cpus = true;
        } else if (key == "Uid") {
            const auto n = w.empty() ? std::nullopt : text::number(w[0]);
            if (!n || *n > 1U << 31)
                return bad(what, "its Uid line is not a user id");
            s.uid = static_cast<long>(*n);
        }
    }
    if (!voluntary || !involuntary || !cpus)
        return bad(what, "it has no voluntary_ctxt_switches, nonvoluntary_ctxt_switches or Cpus_allowed_list line");
    return s;
}

std::optional<std::uint64_t> parseTaskMigrations(std::string_view text)
{
    for (const auto line : text::lines(text)) {
        if (!line.starts_with("se.nr_migrations"))
            continue; // split only the one line it needs (a watch reads the file for every thread)
        const auto w = text::words(line);
        if (w.size() == 3 && w[0] == "se.nr_migrations" && w[1] == ":")
            return text::number(w[2]);
    }
    return std::nullopt;
}

std::optional<TaskSched> parseTaskSched(std::string_view text)
{
    TaskSched out;
    bool migrations = false;
    for (const auto line : text::lines(text)) {
        std::optional<std::uint64_t>* into = nullptr;
        if (line.starts_with("nr_voluntary_switches"))
            into = &out.voluntarySwitches;
        else if (line.starts_with("nr_involuntary_switches"))
            into = &out.involuntarySwitches;
        else if (!line.starts_with("se.nr_migrations"))
            continue; // split only the lines it needs (a watch reads the file for every thread)
        const auto w = text::words(line);
        if (w.size() != 3 || w[1] != ":")
            continue;
        const auto n = text::number(w[2]);
        if (into && w[0] == (into == &out.voluntarySwitches ? "nr_voluntary_switches" : "nr_involuntary_switches"))
            *into = n;
        else if (!into && w[0] == "se.nr_migrations" && n) {
            out.migrations = *n;
            migrations = true;
        }
    }
    if (!migrations)
        return std::nullopt;
    return out;
}

double ticksPerSecond()
{
    static const double hz = [] {
        const long v = ::sysconf(_SC_CLK_TCK);
        return v > 0 ? static_cast<double>(v) : 100.0;
    }();
    return hz;
}

bool readProcText(const char* path, std::string& buffer)
{
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    if (buffer.size() < 1024)
        buffer.resize(1024);
    std::size_t used = 0;
    for (;;) {
        const ssize_t n = ::read(fd, buffer.data() + used, buffer.size() - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ::close(fd);
            buffer.resize(used);
            return n == 0;
        }
        used += static_cast<std::size_t>(n);
        if (used == buffer.size())
            buffer.resize(buffer.size() * 2);
    }
}

namespace {

const char* kindName(TaskFiles::Kind kind)
{
    switch (kind) {
    case TaskFiles::Kind::Stat:
        return "stat";
    case TaskFiles::Kind::Status:
        return "status";
    case TaskFiles::Kind::Schedstat:
        return "schedstat";
    case TaskFiles::Kind::Sched:
        break;
    }
    return "sched";
}

// The whole file from offset 0, whatever was read of it before, into `buffer` (grown, never
// shrunk); its length, or none when it cannot be read.
std::optional<std::size_t> readFromStart(int fd, std::vector<char>& buffer)
{
    if (buffer.size() < 4096)
        buffer.resize(4096);
    std::size_t used = 0;
    for (;;) {
        const ssize_t n = ::pread(fd, buffer.data() + used, buffer.size() - used, static_cast<off_t>(used));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return std::nullopt;
        if (n == 0)
            return used;
        used += static_cast<std::size_t>(n);
        if (used == buffer.size())
            buffer.resize(buffer.size() * 2);
    }
}

// One task file's text through `files` when given (a view into its buffer), else read into
// `own` by opening and closing it.
std::optional<std::string_view> readTaskFile(
    long pid, long tid, TaskFiles::Kind kind, TaskFiles* files, std::string& own)
{
    if (files)
        return files->read(pid, tid, kind);
    if (!readProcText(taskPath(pid, tid, kindName(kind)).c_str(), own))
        return std::nullopt;
    return std::string_view(own);
}

} // namespace

TaskFiles::TaskFiles()
{
    rlimit limit {};
    const bool known = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
    m_budget = known ? static_cast<std::size_t>(limit.rlim_cur / 2) : 1U << 16;
}

std::optional<std::string_view> TaskFiles::read(long pid, long tid, Kind kind)
{
    const long key = tid * 4 + static_cast<long>(kind);
    if (auto it = m_open.find(key); it != m_open.end()) {
        if (const auto n = readFromStart(it->second.get(), m_buffer))
            return std::string_view(m_buffer.data(), *n);
        m_open.erase(it); // the thread ended (a new one with its TID gets a file of its own)
    }
    sys::UniqueFd fd(::open(taskPath(pid, tid, kindName(kind)).c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return std::nullopt;
    const auto n = readFromStart(fd.get(), m_buffer);
    if (!n)
        return std::nullopt;
    if (m_open.size() < m_budget)
        m_open.emplace(key, std::move(fd));
    return std::string_view(m_buffer.data(), *n);
}

void TaskFiles::keepOnly(const std::vector<long>& tids)
{
    std::erase_if(
        m_open, [&](const auto& entry) { return !std::binary_search(tids.begin(), tids.end(), entry.first / 4); });
}

Expected<TaskStat> readTaskStat(long pid, long tid, TaskFiles* files)
{
    std::string own;
    const auto text = readTaskFile(pid, tid, TaskFiles::Kind::Stat, files, own);
    if (!text)
        return makeError("task " + std::to_string(tid) + " of process " + std::to_string(pid) + " is gone");
    auto t = parseTaskStat(*text);
    if (t)
        t->pid = pid;
    return t;
}

Expected<TaskSchedstat> readTaskSchedstat(long pid, long tid, TaskFiles* files)
{
    std::string own;
    const auto text = readTaskFile(pid, tid, TaskFiles::Kind::Schedstat, files, own);
    if (!text)
        return makeError("the schedstat of task " + std::to_string(tid)
            + " could not be read (gone, or a kernel without CONFIG_SCHED_INFO)");
    return parseTaskSchedstat(*text);
}

Expected<TaskStatus> readTaskStatus(long pid, long tid, TaskFiles* files)
{
    std::string own;
    const auto text = readTaskFile(pid, tid, TaskFiles::Kind::Status, files, own);
    if (!text)
        return makeError("task " + std::to_string(tid) + " of process " + std::to_string(pid) + " is gone");
    return parseTaskStatus(*text);
}

std::optional<std::uint64_t> readTaskMigrations(long pid, long tid, TaskFiles* files)
{
    std::string own;
    const auto text = readTaskFile(pid, tid, TaskFiles::Kind::Sched, files, own);
    return text ? parseTaskMigrations(*text) : std::nullopt;
}

std::optional<TaskSched> readTaskSched(long pid, long tid, TaskFiles* files)
{
    std::string own;
    const auto text = readTaskFile(pid, tid, TaskFiles::Kind::Sched, files, own);
    return text ? parseTaskSched(*text) : std::nullopt;
}

bool hasTask(long pid, long tid)
{
    const std::string path = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid);
    return ::access(path.c_str(), F_OK) == 0;
}

std::vector<long> listTasks(long pid)
{
    std::vector<long> out;
    forEachNumber("/proc/" + std::to_string(pid) + "/task", [&](long tid) { out.push_back(tid); });
    std::sort(out.begin(), out.end());
    return out;
}

std::optional<std::size_t> taskCount(long pid)
{
    struct stat st { };
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    if (::stat(dir.c_str(), &st) != 0 || st.st_nlink < 3)
        return std::nullopt;
    return static_cast<std::size_t>(st.st_nlink - 2);
}

std::vector<long> listProcesses()
{
    std::vector<long> out;
    forEachNumber("/proc", [&](long pid) { out.push_back(pid); });
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<TaskStat> scanTasks()
{
    std::vector<TaskStat> out;
    std::string buffer;
    forEachNumber("/proc", [&](long pid) {
        const std::string dir = "/proc/" + std::to_string(pid);
        if (readProcText((dir + "/stat").c_str(), buffer))
            if (auto t = parseTaskStat(buffer); t && t->numThreads == 1) {
                t->pid = pid;
                out.push_back(std::move(*t));
                return;
            }
        forEachNumber(dir + "/task", [&](long tid) {
            if (!readProcText(taskPath(pid, tid, "stat").c_str(), buffer))
                return;
            if (auto t = parseTaskStat(buffer)) {
                t->pid = pid;
                out.push_back(std::move(*t));
            }
        });
    });
    return out;
}

} // namespace ctxscope::os
