// SPDX-License-Identifier: MIT
#include "ctxscope/thread_affinity.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ctxscope {

namespace {

// Big enough for every topology the engine accepts (8192 PUs).
constexpr int kMaxCpus = 8192;

struct CpuSetFree {
    void operator()(cpu_set_t* set) const { CPU_FREE(set); }
};
using CpuSet = std::unique_ptr<cpu_set_t, CpuSetFree>;

} // namespace

int currentThreadId() { return static_cast<int>(::gettid()); }

std::vector<int> threadAffinity(int tid)
{
    std::vector<int> cpus;
    // The system call itself, which says how many bytes of the mask the kernel wrote (its CPU
    // count's worth): glibc's wrapper zeroes the rest of a mask of kMaxCpus, which the loop
    // below then read word by word. A watch asks this of every thread of a program in turns.
    std::array<unsigned long, kMaxCpus / (8 * sizeof(unsigned long))> mask {};
    const long written = ::syscall(SYS_sched_getaffinity, tid, sizeof mask, mask.data());
    if (written <= 0)
        return cpus;
    constexpr std::size_t kBits = 8 * sizeof(unsigned long);
    const std::size_t words = std::min(mask.size(), static_cast<std::size_t>(written) / sizeof(unsigned long));
    for (std::size_t w = 0; w < words; ++w)
        for (unsigned long bits = mask[w]; bits != 0; bits &= bits - 1)
            cpus.push_back(static_cast<int>(w * kBits + static_cast<std::size_t>(__builtin_ctzl(bits))));
    return cpus;
}

Status setThreadAffinity(int tid, const std::vector<int>& cpus)
{
    CpuSet set(CPU_ALLOC(kMaxCpus));
    const std::size_t size = CPU_ALLOC_SIZE(kMaxCpus);
    if (!set)
        return makeError("out of memory for a CPU set");
    CPU_ZERO_S(size, set.get());
    for (int cpu : cpus)
        if (cpu >= 0 && cpu < kMaxCpus)
            CPU_SET_S(static_cast<std::size_t>(cpu), size, set.get());
    if (cpus.empty() || ::sched_setaffinity(tid, size, set.get()) != 0) {
        const int err = cpus.empty() ? EINVAL : errno;
        Error error { "could not move thread " + std::to_string(tid) + " to CPU " + formatCpuList(cpus) + ": "
            + (cpus.empty() ? std::string("no CPU given") : std::string(std::strerror(err))) };
        errno = err; // for callers that explain EPERM or ESRCH in their own words
        return error;
    }
    return {};
}

KeepThreadOff::KeepThreadOff(const Topology& topology, int tid, const std::vector<int>& measured)
    : m_tid(tid)
    , m_original(threadAffinity(tid))
{
    if (measured.empty())
        return; // nothing measured (a job refused before it starts)
    std::vector<int> spare;
    for (int cpu : topology.allowedPus())
        if (std::find(measured.begin(), measured.end(), cpu) == measured.end()
            && std::find(m_original.begin(), m_original.end(), cpu) != m_original.end())
            spare.push_back(cpu);
    if (spare.empty()) {
        m_warning = std::string("The worker's reading thread shares the measured CPU")
            + (measured.size() > 1 ? "s " : " ") + formatCpuList(measured) + ": no other allowed CPU is free for it.";
        return;
    }
    if (spare == m_original)
        return; // already off the measured PUs
    if (auto moved = setThreadAffinity(tid, spare); !moved) {
        m_warning = "The worker's reading thread could not be moved off the measured CPUs: " + moved.error().message;
        return;
    }
    m_placedOn = std::move(spare);
}

KeepThreadOff::~KeepThreadOff()
{
    if (!m_placedOn.empty() && !m_original.empty())
        (void)setThreadAffinity(m_tid, m_original);
}

} // namespace ctxscope
