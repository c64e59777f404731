// SPDX-License-Identifier: MIT
// The private ftrace instance: made, set up and emptied through libtracefs; the global
// instance's settings are only ever read (formats, headers, task names).
#include "ctxscope/trace.h"
#include "ctxscope/trace_session.h"

#include "os/huge_pages.h"
#include "os/procfs.h"
#include "trace/instance_names.h"
#include "trace/tracefs_mount.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

extern "C" {
#include <tracefs.h>
}

namespace ctxscope {

namespace {

struct EventName {
    const char* system;
    const char* name;
    bool required;
};

// What a hand-over is made of. sched_waking and sched_switch are the least a cut needs.
constexpr EventName kEvents[] = {
    { "sched", "sched_waking", true },
    { "sched", "sched_wakeup", false },
    { "sched", "sched_wakeup_new", false },
    { "sched", "sched_switch", true },
    { "sched", "sched_migrate_task", false },
    { "sched", "sched_wake_idle_without_ipi", false },
    { "ipi", "ipi_send_cpu", false },
    { "power", "cpu_idle", false },
    { "irq", "irq_handler_entry", false },
    { "irq", "irq_handler_exit", false },
    { "irq", "softirq_entry", false },
    { "irq", "softirq_exit", false },
    { "raw_syscalls", "sys_enter", false },
    { "raw_syscalls", "sys_exit", false },
};

// The system calls a hand-over goes through (the wake call, the wait it returns from); the
// numbers are this architecture's, which is the kernel's.
std::string syscallFilter()
{
    return fmt::format("id == {} || id == {} || id == {} || id == {}", SYS_futex, SYS_read, SYS_write, SYS_sched_yield);
}

bool isSchedCore(const EventName& e)
{
    const std::string_view name = e.name;
    return name == "sched_waking" || name == "sched_wakeup_new" || name == "sched_switch";
}

// Consecutive ids as [first, last] ranges, the closest merged until at most `most` remain.
std::vector<std::pair<long, long>> idRanges(const std::set<long>& ids, std::size_t most)
{
    std::vector<std::pair<long, long>> ranges;
    for (long id : ids) {
        if (!ranges.empty() && ranges.back().second + 1 == id)
            ranges.back().second = id;
        else
            ranges.emplace_back(id, id);
    }
    while (ranges.size() > std::max<std::size_t>(most, 1)) {
        std::size_t closest = 0;
        for (std::size_t i = 1; i + 1 < ranges.size(); ++i)
            if (ranges[i + 1].first - ranges[i].second < ranges[closest + 1].first - ranges[closest].second)
                closest = i;
        ranges[closest].second = ranges[closest + 1].second;
        ranges.erase(ranges.begin() + static_cast<std::ptrdiff_t>(closest) + 1);
    }
    return ranges;
}

std::string rangeFilter(const std::vector<std::pair<long, long>>& ranges, std::initializer_list<const char*> fields)
{
    std::string filter;
    for (const char* field : fields)
        for (const auto& [first, last] : ranges)
            filter += fmt::format("{}({} >= {} && {} <= {})", filter.empty() ? "" : " || ", field, first, field, last);
    return filter;
}

std::string cpuListText(const std::vector<int>& cpus) { return fmt::format("{}", fmt::join(cpus, ",")); }

// tracing_cpumask's format: 32-bit hex groups, the highest CPUs first, comma-separated.
std::string cpuMask(const std::vector<int>& cpus, int cpuCount)
{
    std::vector<std::uint32_t> words(static_cast<std::size_t>((std::max(cpuCount, 1) + 31) / 32), 0);
    for (int c : cpus)
        if (c >= 0 && c < cpuCount)
            words[static_cast<std::size_t>(c / 32)] |= 1U << (c % 32);
    std::string mask;
    for (auto w = words.rbegin(); w != words.rend(); ++w)
        mask += fmt::format("{}{:08x}", mask.empty() ? "" : ",", *w);
    return mask;
}

std::uint64_t statField(const std::string& stats, std::string_view key)
{
    const auto at = stats.find(key);
    if (at == std::string::npos)
        return 0;
    return std::strtoull(stats.c_str() + at + key.size(), nullptr, 10);
}

class Session final : public TraceSession {
public:
    Session(std::shared_ptr<trace::TracefsMount> mount, tracefs_instance* instance, TraceOptions options)
        : m_mount(std::move(mount))
        , m_instance(instance)
        , m_options(std::move(options))
    {
    }

    ~Session() override
    {
        for (const auto& [cpu, fd] : m_pipes) // an open buffer keeps the instance from going
            ::close(fd);
        tracefs_trace_off(m_instance);
        tracefs_event_disable(m_instance, nullptr, nullptr);
        tracefs_instance_destroy(m_instance);
        tracefs_instance_free(m_instance);
    }

    Status configure()
    {
        // A new instance records from birth: off first, so nothing before start() counts.
        if (tracefs_trace_off(m_instance) != 0)
            return fail("could not turn the new trace instance off");
        if (tracefs_instance_file_write(m_instance, "trace_clock", "mono") < 0)
            return fail("the kernel has no 'mono' trace clock");
        m_cpuCount = static_cast<int>(sysconf(_SC_NPROCESSORS_CONF));
        if (m_options.cpus.empty())
            for (int c = 0; c < m_cpuCount; ++c)
                m_options.cpus.push_back(c);
        if (tracefs_instance_file_write(m_instance, "tracing_cpumask", cpuMask(m_options.cpus, m_cpuCount).c_str()) < 0)
            return fail(fmt::format("the kernel refused to trace CPUs {}", cpuListText(m_options.cpus)));
        if (Status s = sizeBuffers(); !s)
            return s;
        for (const auto& e : kEvents) {
            if (m_options.schedOnly && !isSchedCore(e))
                continue;
            if (tracefs_event_enable(m_instance, e.system, e.name) == 0) {
                m_enabled.push_back(e);
                continue;
            }
            if (e.required)
                return fail(fmt::format("this kernel has no {}:{} event, which a trace needs", e.system, e.name));
            m_missing.push_back(fmt::format("{}:{}", e.system, e.name));
        }
        if (!m_options.pids.empty())
            if (Status s = addPids(m_options.pids); !s)
                return s;
        if (m_options.syscalls && !m_options.schedOnly) {
            const std::string filter = syscallFilter();
            for (const char* name : { "sys_enter", "sys_exit" })
                tracefs_event_file_write(m_instance, "raw_syscalls", name, "filter", filter.c_str());
        } else {
            tracefs_event_disable(m_instance, "raw_syscalls", nullptr);
        }
        return {};
    }

    Status start() override
    {
        if (tracefs_trace_on(m_instance) != 0)
            return fail("could not start tracing");
        return {};
    }

    Status mark(const std::string& text) override
    {
        // A mark goes into the buffer of the CPU that writes it, and the kernel refuses it on
        // a CPU outside tracing_cpumask: write it from a traced CPU, then move back (every CPU
        // is traced when none were named).
        cpu_set_t before;
        const bool pinned = !m_options.cpus.empty() && sched_getaffinity(0, sizeof before, &before) == 0;
        if (pinned) {
            cpu_set_t traced;
            CPU_ZERO(&traced);
            for (int c : m_options.cpus)
                if (c >= 0 && c < CPU_SETSIZE)
                    CPU_SET(static_cast<std::size_t>(c), &traced);
            sched_setaffinity(0, sizeof traced, &traced);
        }
        // trace_marker of this instance only; the write is one event, at most a page long.
        const bool written = tracefs_instance_file_write(m_instance, "trace_marker", text.c_str()) >= 0;
        const int error = errno;
        if (pinned)
            sched_setaffinity(0, sizeof before, &before);
        errno = error;
        if (!written)
            return fail("could not write a mark into the trace");
        return {};
    }

    Status addPids(const std::vector<long>& pids) override
    {
        m_pids.insert(pids.begin(), pids.end());
        return filterTasks();
    }

    Status stop() override
    {
        if (tracefs_trace_off(m_instance) != 0)
            return fail("could not stop tracing");
        return {};
    }

    Expected<RawTrace> collect(Collect what) override
    {
        // The page layout and the formats do not change while the instance lives: read once,
        // not on every pump of a watch (every 100 ms).
        if (!m_layout) {
            auto layout = readLayout();
            if (!layout)
                return layout.error();
            m_layout = std::move(*layout);
        }
        RawTrace raw;
        if (what.layout) {
            raw = *m_layout;
        } else {
            raw.cpuCount = m_layout->cpuCount;
            raw.clock = m_layout->clock;
            raw.pageSize = m_layout->pageSize;
        }
        if (m_options.savedComms)
            readComms(m_mount->path(), raw.comms);
        for (int cpu : m_options.cpus) {
            auto buffer = readCpu(cpu, raw.pageSize);
            if (!buffer)
                return buffer.error();
            if (!buffer->pages.empty())
                raw.buffers.push_back(std::move(*buffer));
            if (what.losses)
                raw.losses.push_back(readLoss(cpu));
        }
        return raw;
    }

    std::string instancePath() const override
    {
        return fmt::format("{}/instances/{}", m_mount->path(), tracefs_instance_get_name(m_instance));
    }

private:
    // What a recording needs besides its events: the sub-buffer size, the page header and the
    // enabled events' formats (the instance's, which are the global ones).
    Expected<RawTrace> readLayout() const
    {
        RawTrace raw;
        raw.cpuCount = m_cpuCount;
        raw.clock = "mono";
        raw.pageSize = subBufferSize();
        const std::string top = m_mount->path();
        raw.headerPage = readSmallFile(top + "/events/header_page").value_or("");
        raw.headerEvent = readSmallFile(top + "/events/header_event").value_or("");
        if (raw.headerPage.empty())
            return makeError("could not read the trace's page layout (events/header_page)");
        for (const auto& e : m_enabled) {
            auto text = readSmallFile(fmt::format("{}/events/{}/{}/format", top, e.system, e.name));
            if (text)
                raw.formats.push_back({ e.system, e.name, std::move(*text) });
        }
        if (auto print = readSmallFile(top + "/events/ftrace/print/format"))
            raw.formats.push_back({ "ftrace", "print", std::move(*print) });
        raw.missingEvents = m_missing;
        return raw;
    }

    // The scheduler's events of these tasks only, as event filters on their pid fields. Not
    // set_event_pid: with it the kernel drops the switch from the idle task into a traced task
    // on some CPUs (seen on 6.18). A process's threads have mostly consecutive ids, so the
    // filter names ranges; past one page the nearest ranges merge, and the reader keeps only
    // the tasks it follows.
    Status filterTasks()
    {
        const auto ranges = idRanges(m_pids, 3000 / 60);
        const std::string wakee = rangeFilter(ranges, { "pid" });
        const std::string sw = rangeFilter(ranges, { "prev_pid", "next_pid" });
        for (const char* event : { "sched_waking", "sched_wakeup", "sched_wakeup_new" })
            tracefs_event_file_write(m_instance, "sched", event, "filter", wakee.c_str());
        if (tracefs_event_file_write(m_instance, "sched", "sched_switch", "filter", sw.c_str()) < 0)
            return fail("the kernel refused the filter of the tasks to trace");
        return {};
    }

    Error fail(const std::string& what) const
    {
        return makeError(fmt::format("{} (instance {}): {}", what, instancePath(), std::strerror(errno)));
    }

    Status sizeBuffers()
    {
        // A traced hand-over on one CPU writes about 16 events of 40-80 bytes: 20,000 round trips
        // fill 16 MB there. A few pinned CPUs get 32 MB each; a whole machine 8 MB a CPU.
        const std::size_t kb = m_options.bufferKbPerCpu > 0 ? m_options.bufferKbPerCpu
            : m_options.cpus.size() <= 8                    ? 32768
                                                            : 8192;
        // Untraced CPUs keep the least the kernel gives, so a 384-CPU machine does not hold
        // hundreds of MB for buffers nobody writes.
        if (static_cast<int>(m_options.cpus.size()) < m_cpuCount)
            tracefs_instance_set_buffer_size(m_instance, 4, -1);
        for (int cpu : m_options.cpus)
            if (tracefs_instance_set_buffer_size(m_instance, kb, cpu) != 0)
                return makeError(fmt::format(
                    "the kernel refused a trace buffer of {} KiB on CPU {} ({}): ask for less with --trace-buffer", kb,
                    cpu, std::strerror(errno)));
        return {};
    }

    std::size_t subBufferSize() const
    {
        long long kb = 0;
        if (tracefs_instance_file_read_number(m_instance, "buffer_subbuf_size_kb", &kb) == 0 && kb > 0)
            return static_cast<std::size_t>(kb) * 1024;
        return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    }

    Expected<RawCpuBuffer> readCpu(int cpu, std::size_t pageSize)
    {
        RawCpuBuffer buffer;
        buffer.cpu = cpu;
        // Opened once and kept: a watch empties the buffers every 100 ms.
        auto pipe = m_pipes.find(cpu);
        if (pipe == m_pipes.end()) {
            const std::string path = fmt::format("{}/per_cpu/cpu{}/trace_pipe_raw", instancePath(), cpu);
            const int opened = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
            if (opened < 0)
                return makeError(fmt::format("could not read {}: {}", path, std::strerror(errno)));
            pipe = m_pipes.emplace(cpu, opened).first;
        }
        const int fd = pipe->second;
        // Room for what the last read found and a little more: a watch reads every 25 to 500 ms,
        // and growing page by page copied the pages read so far again and again. The first read,
        // which for a traced run is its whole recording (a hundred MB and more), makes room for
        // what the kernel says the ring holds, with an eighth more for the pages' headers and
        // their unfilled ends, backed by huge pages where the kernel gives them (a fault a
        // 4 KiB page otherwise).
        const auto last = m_lastReadBytes.find(cpu);
        const std::size_t held = last != m_lastReadBytes.end() ? last->second + last->second / 2 : unreadBytes(cpu);
        buffer.pages.reserve(held + held / 8 + 4 * pageSize);
        os::adviseHugePages(buffer.pages);
        // Each read gives one whole sub-buffer, the last one possibly part-filled (its header
        // says how much), until the ring is empty.
        for (;;) {
            const std::size_t at = buffer.pages.size();
            buffer.pages.resize(at + pageSize);
            const ssize_t n = ::read(fd, buffer.pages.data() + at, pageSize);
            if (n <= 0) {
                buffer.pages.resize(at);
                break;
            }
            buffer.pages.resize(at + pageSize); // a short read keeps its page's full stride
        }
        m_lastReadBytes[cpu] = buffer.pages.size();
        return buffer;
    }

    // CPU's per_cpu/cpuN/stats (entries, overrun, bytes, dropped events...); nullopt when
    // unreadable.
    std::optional<std::string> cpuStats(int cpu) const
    {
        return readSmallFile(fmt::format("{}/per_cpu/cpu{}/stats", instancePath(), cpu));
    }

    // The bytes of the events in CPU's ring not yet read (its stats' "bytes:"); 0 when unknown.
    std::size_t unreadBytes(int cpu) const
    {
        const auto stats = cpuStats(cpu);
        return stats ? static_cast<std::size_t>(statField(*stats, "\nbytes: ")) : 0;
    }

    TraceCpuLoss readLoss(int cpu) const
    {
        TraceCpuLoss loss;
        loss.cpu = cpu;
        if (const auto stats = cpuStats(cpu)) {
            loss.overrun = statField(*stats, "overrun: ");
            loss.dropped = statField(*stats, "dropped events: ");
        }
        return loss;
    }

    static void readComms(const std::string& top, std::map<int, std::string>& comms)
    {
        auto text = readSmallFile(top + "/saved_cmdlines");
        if (!text)
            return;
        std::size_t at = 0;
        while (at < text->size()) {
            std::size_t end = text->find('\n', at);
            if (end == std::string::npos)
                end = text->size();
            const std::string line = text->substr(at, end - at);
            const auto space = line.find(' ');
            if (space != std::string::npos)
                comms[std::atoi(line.c_str())] = line.substr(space + 1);
            at = end + 1;
        }
    }

    std::shared_ptr<trace::TracefsMount> m_mount;
    tracefs_instance* m_instance;
    TraceOptions m_options;
    int m_cpuCount = 0;
    std::vector<EventName> m_enabled;
    std::vector<std::string> m_missing;
    std::set<long> m_pids;
    std::optional<RawTrace> m_layout; // no buffers, losses or comms: those are read each time
    std::map<int, int> m_pipes; // CPU -> its open trace_pipe_raw
    std::map<int, std::size_t> m_lastReadBytes; // CPU -> the bytes its last read found
};

} // namespace

Status tracingAllowed()
{
    if (std::string refusal = trace::tracingRefusal(); !refusal.empty())
        return makeError(refusal);
    return {};
}

Expected<std::unique_ptr<TraceSession>> TraceSession::open(const TraceOptions& options)
{
    auto mount = trace::TracefsMount::acquire();
    if (!mount)
        return mount.error();
    removeStaleTraceInstances();
    const std::string name = trace::newInstanceName();
    tracefs_instance* instance = tracefs_instance_create(name.c_str());
    if (instance == nullptr)
        return makeError(fmt::format("could not make the ftrace instance {} under {}/instances: {}", name,
            (*mount)->path(), std::strerror(errno)));
    auto session = std::make_unique<Session>(std::move(*mount), instance, options);
    if (Status s = session->configure(); !s)
        return s.error();
    return std::unique_ptr<TraceSession>(std::move(session));
}

namespace {

std::uint64_t sumOfLosses(const std::vector<TraceCpuLoss>& losses)
{
    std::uint64_t n = 0;
    for (const auto& l : losses)
        n += l.total();
    return n;
}

} // namespace

std::uint64_t RawTrace::lostEvents() const { return sumOfLosses(losses); }

std::uint64_t Trace::lostEvents() const { return sumOfLosses(losses); }

std::size_t RawTrace::pageBytes() const
{
    std::size_t bytes = 0;
    for (const RawCpuBuffer& b : buffers)
        bytes += b.pages.size();
    return bytes;
}

void appendRecording(RawTrace& into, RawTrace&& later)
{
    if (into.pageSize == 0) {
        into = std::move(later);
        return;
    }
    for (RawCpuBuffer& b : later.buffers) {
        auto same = std::find_if(
            into.buffers.begin(), into.buffers.end(), [&](const RawCpuBuffer& x) { return x.cpu == b.cpu; });
        if (same == into.buffers.end())
            into.buffers.push_back(std::move(b));
        else
            same->pages.insert(same->pages.end(), b.pages.begin(), b.pages.end());
    }
    for (auto& [pid, comm] : later.comms)
        into.comms[pid] = std::move(comm);
    // The kernel counts losses from the instance's start: the latest counts hold the earlier
    // (a collect without them keeps those read before).
    if (!later.losses.empty())
        into.losses = std::move(later.losses);
}

} // namespace ctxscope
