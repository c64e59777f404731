// SPDX-License-Identifier: MIT
// Writing a recording for the peers: trace-cmd's trace.dat (version 6, as trace-cmd.dat.v6(5)
// lays it out: Debian's libtracecmd only reads) and the kernel's text format, which Perfetto UI
// opens. Both hold the events exactly as recorded.
#include "ctxscope/trace.h"

#include "trace/tep.h"

#include "ctxscope/version.h"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include <sys/utsname.h>

namespace ctxscope {

namespace {

constexpr std::uint16_t kOptionCpuStat = 2;
constexpr std::uint16_t kOptionTraceClock = 4;
constexpr std::uint16_t kOptionUname = 5;
constexpr std::uint16_t kOptionVersion = 9;

// Numbers in the host's order: the file's endianness byte says which.
class Writer {
public:
    void bytes(const void* p, std::size_t n) { m_out.append(static_cast<const char*>(p), n); }
    void text(std::string_view s) { m_out.append(s); }
    void cstring(std::string_view s)
    {
        m_out.append(s);
        m_out.push_back('\0');
    }
    template <typename T> void number(T v) { bytes(&v, sizeof v); }
    void sized64(std::string_view s)
    {
        number<std::uint64_t>(s.size());
        text(s);
    }
    void option(std::uint16_t id, std::string_view data)
    {
        number(id);
        number<std::uint32_t>(static_cast<std::uint32_t>(data.size()));
        text(data);
    }
    std::string& out() { return m_out; }

private:
    std::string m_out;
};

std::string cmdlines(const RawTrace& raw)
{
    std::string s;
    for (const auto& [pid, comm] : raw.comms)
        s += fmt::format("{} {}\n", pid, comm);
    return s;
}

std::string unameText()
{
    utsname u {};
    if (uname(&u) != 0)
        return {};
    return fmt::format("{} {} {} {}", u.sysname, u.nodename, u.release, u.version);
}

std::string traceDat(const RawTrace& raw)
{
    Writer w;
    const unsigned char magic[] = { 0x17, 0x08, 0x44 };
    w.bytes(magic, sizeof magic);
    w.text("tracing");
    w.cstring("6");
    w.number<std::uint8_t>(tep_is_bigendian() ? 1 : 0);
    w.number<std::uint8_t>(sizeof(long));
    w.number<std::uint32_t>(static_cast<std::uint32_t>(raw.pageSize));
    w.cstring("header_page");
    w.sized64(raw.headerPage);
    w.cstring("header_event");
    w.sized64(raw.headerEvent);

    std::map<std::string, std::vector<const RawTrace::Format*>> systems;
    std::vector<const RawTrace::Format*> ftrace;
    for (const auto& f : raw.formats)
        (f.system == "ftrace" ? ftrace : systems[f.system]).push_back(&f);
    w.number<std::uint32_t>(static_cast<std::uint32_t>(ftrace.size()));
    for (const auto* f : ftrace)
        w.sized64(f->text);
    w.number<std::uint32_t>(static_cast<std::uint32_t>(systems.size()));
    for (const auto& [system, formats] : systems) {
        w.cstring(system);
        w.number<std::uint32_t>(static_cast<std::uint32_t>(formats.size()));
        for (const auto* f : formats)
            w.sized64(f->text);
    }
    w.number<std::uint32_t>(0); // kallsyms: ipi_send_cpu's call site stays an address
    w.number<std::uint32_t>(0); // printk formats
    w.sized64(cmdlines(raw));
    w.number<std::uint32_t>(static_cast<std::uint32_t>(raw.cpuCount));

    w.text(std::string_view("options  \0", 10));
    w.option(kOptionTraceClock, fmt::format("[{}]\n", raw.clock));
    w.option(kOptionUname, unameText() + '\0');
    w.option(kOptionVersion, std::string("ctxscope ") + kVersion + '\0');
    for (const auto& l : raw.losses)
        w.option(
            kOptionCpuStat, fmt::format("CPU: {}\noverrun: {}\ndropped events: {}\n\0", l.cpu, l.overrun, l.dropped));
    w.number<std::uint16_t>(0);

    w.text(std::string_view("flyrecord\0", 10));
    const std::size_t table = w.out().size();
    w.out().resize(table + static_cast<std::size_t>(raw.cpuCount) * 16);
    const std::size_t page = raw.pageSize;
    std::size_t at = (w.out().size() + page - 1) / page * page;
    for (int cpu = 0; cpu < raw.cpuCount; ++cpu) {
        auto buffer
            = std::find_if(raw.buffers.begin(), raw.buffers.end(), [&](const RawCpuBuffer& b) { return b.cpu == cpu; });
        const std::uint64_t size = buffer == raw.buffers.end() ? 0 : buffer->pages.size();
        const std::uint64_t offset = size > 0 ? at : 0;
        std::memcpy(w.out().data() + table + static_cast<std::size_t>(cpu) * 16, &offset, 8);
        std::memcpy(w.out().data() + table + static_cast<std::size_t>(cpu) * 16 + 8, &size, 8);
        if (size == 0)
            continue;
        w.out().resize(at);
        w.bytes(buffer->pages.data(), buffer->pages.size());
        at = w.out().size();
    }
    return w.out();
}

Expected<std::string> ftraceText(const RawTrace& raw, const std::vector<std::string>& comments)
{
    auto tep = trace::makeTep(raw);
    if (!tep)
        return tep.error();
    std::vector<std::pair<std::uint64_t, std::string>> lines;
    trace_seq seq {};
    trace_seq_init(&seq);
    auto onRecord = [&](tep_record& record) {
        trace_seq_reset(&seq);
        tep_print_event(tep->get(), &seq, &record, "%16s-%-7d [%03d] ", TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU);
        // Microseconds, as the kernel prints them: Perfetto's parser reads this form.
        trace_seq_printf(&seq, "%llu.%06llu: ", record.ts / 1000000000ULL, (record.ts / 1000ULL) % 1000000ULL);
        tep_print_event(tep->get(), &seq, &record, "%s: %s\n", TEP_PRINT_NAME, TEP_PRINT_INFO);
        trace_seq_terminate(&seq);
        lines.emplace_back(record.ts, std::string(seq.buffer, seq.len));
    };
    Status walked = trace::forEachRecord(raw, tep->get(), onRecord);
    trace_seq_destroy(&seq);
    if (!walked)
        return walked.error();
    std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out = "# tracer: nop\n#\n";
    for (const auto& c : comments)
        out += "# " + c + "\n";
    out += fmt::format("# trace clock: {}; events lost: {}\n#\n", raw.clock, raw.lostEvents());
    out += "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n#              | |         |         |         |\n";
    for (const auto& [ts, line] : lines)
        out += line;
    return out;
}

} // namespace

Expected<TraceFileFormat> traceFileFormat(const std::string& path)
{
    auto ends = [&](std::string_view ext) { return path.size() > ext.size() && path.ends_with(ext); };
    if (ends(".dat"))
        return TraceFileFormat::TraceDat;
    if (ends(".txt") || ends(".ftrace"))
        return TraceFileFormat::FtraceText;
    return makeError(fmt::format("--trace-out {}: the name must end in .dat (trace-cmd's trace.dat, for trace-cmd "
                                 "report and KernelShark) or .txt (the kernel's text format, for Perfetto UI)",
        path));
}

Status writeTraceFile(const RawTrace& raw, const std::string& path, const std::vector<std::string>& comments)
{
    auto format = traceFileFormat(path);
    if (!format)
        return format.error();
    if (raw.pageSize == 0) // no collect() ever returned: there are no pages to lay out
        return makeError("nothing was recorded, so there is no trace to write");
    std::string content;
    if (*format == TraceFileFormat::TraceDat) {
        content = traceDat(raw);
    } else {
        auto text = ftraceText(raw, comments);
        if (!text)
            return text.error();
        content = std::move(*text);
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        return makeError(fmt::format("could not write the trace to {}: {}", path, std::strerror(errno)));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out)
        return makeError(fmt::format("could not write the trace to {}: {}", path, std::strerror(errno)));
    return {};
}

} // namespace ctxscope
