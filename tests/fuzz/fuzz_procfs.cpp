// SPDX-License-Identifier: MIT
// The /proc readers on arbitrary text: /proc/stat, /proc/interrupts (and softirqs), a task's
// stat and schedstat. Garbage gives a sentence; a figure it gives must be consistent.
#include "os/proc_stat.h"
#include "os/task_stat.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace ctxscope::os;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto s = parseProcStat(text)) {
        for (const CpuTimes& c : s->cpus)
            if (c.cpu < 0 || s->cpu(c.cpu) != &c)
                std::abort(); // a CPU listed twice, or the aggregate among the CPUs
    }
    if (auto r = parsePerCpuCounters(text, "/proc/interrupts"))
        for (const PerCpuCount& c : *r)
            if (c.cpu < 0)
                std::abort();
    if (auto t = parseTaskStat(text))
        if (t->tid <= 0 || t->comm.size() >= size)
            std::abort();
    (void)parseTaskSchedstat(text);
    if (auto s = parseTaskStatus(text))
        for (int cpu : s->cpusAllowed)
            if (cpu < 0)
                std::abort();
    (void)parseTaskMigrations(text);
    return 0;
}
