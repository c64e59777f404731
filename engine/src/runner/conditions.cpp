// SPDX-License-Identifier: MIT
#include "runner/conditions.h"

#include "ctxscope/runner.h"

#include "ctxscope/cpu_list.h"
#include "ctxscope/result.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <ctime>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

namespace ctxscope::run {

namespace {

constexpr const char* kPmQosPath = "/dev/cpu_dma_latency";

void relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

} // namespace

Expected<std::unique_ptr<KeepAwake>> KeepAwake::start(const std::vector<int>& cpus)
{
    auto k = std::make_unique<KeepAwake>();
    k->m_cpus = cpus;
    k->m_tids.assign(cpus.size(), 0);
    k->m_clocks.assign(cpus.size(), clockid_t {});
    std::vector<int> errors(cpus.size(), 0);
    std::atomic<std::size_t> ready { 0 };
    for (std::size_t i = 0; i < cpus.size(); ++i) {
        KeepAwake* self = k.get();
        self->m_threads.emplace_back([self, i, &ready, &errors] {
            ::pthread_setname_np(::pthread_self(), kKeepAwakeName);
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(static_cast<std::size_t>(self->m_cpus[i]), &set);
            int error = ::sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
            sched_param none {};
            if (error == 0 && ::sched_setscheduler(0, SCHED_IDLE, &none) != 0)
                error = errno;
            self->m_tids[i] = sys::threadId();
            ::pthread_getcpuclockid(::pthread_self(), &self->m_clocks[i]);
            errors[i] = error;
            ready.fetch_add(1);
            if (error != 0)
                return;
            while (!self->m_stop.load(std::memory_order_relaxed))
                relax();
        });
    }
    while (ready.load() < cpus.size())
        std::this_thread::yield();
    for (std::size_t i = 0; i < cpus.size(); ++i)
        if (errors[i] != 0)
            return makeError(fmt::format("the keep-awake thread could not be put on CPU {} at SCHED_IDLE: {}", cpus[i],
                sys::errnoText(errors[i])));
    return k;
}

KeepAwake::~KeepAwake()
{
    m_stop = true;
    for (auto& t : m_threads)
        if (t.joinable())
            t.join();
}

std::uint64_t KeepAwake::cpuNs() const
{
    std::uint64_t sum = 0;
    for (clockid_t c : m_clocks) {
        timespec ts {};
        if (::clock_gettime(c, &ts) == 0)
            sum += static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<std::uint64_t>(ts.tv_nsec);
    }
    return sum;
}

Expected<PmQosHold> PmQosHold::hold(int us)
{
    sys::UniqueFd fd(::open(kPmQosPath, O_WRONLY | O_CLOEXEC));
    if (!fd.valid()) {
        const int e = errno;
        if (e == EACCES || e == EPERM)
            return makeError(fmt::format("--pm-qos-us needs permission to open {} for writing (root, or a udev rule "
                                         "that grants it)",
                kPmQosPath));
        return makeError(fmt::format("--pm-qos-us could not open {}: {}", kPmQosPath, sys::errnoText(e)));
    }
    const std::int32_t value = us;
    if (::write(fd.get(), &value, sizeof value) != static_cast<ssize_t>(sizeof value))
        return makeError(
            fmt::format("--pm-qos-us could not write {} µs to {}: {}", us, kPmQosPath, sys::errnoText(errno)));
    return PmQosHold(std::move(fd));
}

} // namespace ctxscope::run

namespace ctxscope {

Status checkPmQos(int us)
{
    auto held = run::PmQosHold::hold(us);
    if (!held)
        return held.error();
    return {};
}

} // namespace ctxscope

namespace ctxscope {

std::string conditionText(const BenchSpec& spec)
{
    std::vector<std::string> parts;
    if (!spec.keepAwakeCpus.empty())
        parts.push_back("keep-awake " + formatCpuList(spec.keepAwakeCpus));
    if (spec.pmQosUs)
        parts.push_back(fmt::format("pm-qos {} µs", *spec.pmQosUs));
    return fmt::format("{}", fmt::join(parts, ", "));
}

} // namespace ctxscope
