// SPDX-License-Identifier: MIT
#include "ctxscope/workload.h"

#include "os/sys.h"
#include "workload/programs.h"

#include <chrono>
#include <condition_variable>
#include <latch>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace ctxscope {

namespace {

constexpr int kMaxThreads = 10000; // the 10,000-thread watch benchmark (perf_watch_cli)

struct alignas(64) Counter {
    std::atomic<std::uint64_t> work { 0 };
};

int onlineCpus()
{
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
}

Expected<workload::Program> makeProgram(const std::string& name, int threads)
{
    if (threads < 0)
        return makeError("a workload needs a positive thread count, not " + std::to_string(threads));
    if (name == "pingpong")
        return workload::pingpong(threads == 0 ? 1 : threads);
    if (name == "pipeline")
        return workload::pipeline(threads == 0 ? 2 : threads);
    if (name == "busy")
        return workload::busy(threads == 0 ? 2 * onlineCpus() : threads);
    if (name == "sleepers")
        return workload::sleepers(threads == 0 ? 100 : threads);
    return makeError("no workload named '" + name + "' (workloads: " + workloadNameList() + ")");
}

} // namespace

const std::vector<WorkloadInfo>& workloadList()
{
    static const std::vector<WorkloadInfo> list {
        { "pingpong", "pairs of threads handing a message back and forth through futexes, like a queue",
            "pairs (default 1)", "round trips" },
        { "pipeline", "a producer, N stages and a consumer, each handing a message to the next through a futex",
            "stages (default 2)", "messages through every stage" },
        { "busy", "more busy threads than CPUs, each computing without pause", "threads (default 2 per online CPU)",
            "loops of 65,536 multiply-adds" },
        { "sleepers", "threads that each sleep on a 100 ms timer and wake: ten wake-ups a second each, little CPU",
            "threads (default 100)", "wake-ups" },
    };
    return list;
}

std::string workloadNameList()
{
    std::string out;
    for (const auto& w : workloadList())
        out += (out.empty() ? "" : ", ") + w.name;
    return out;
}

struct RunningWorkload::State {
    workload::Program program;
    std::vector<Counter> counters;
    std::vector<WorkloadThread> threads;
    std::vector<std::jthread> pool;

    explicit State(workload::Program p)
        : program(std::move(p))
        , counters(program.names.size())
        , threads(program.names.size())
    {
    }
    void stop()
    {
        if (pool.empty())
            return;
        program.stop();
        pool.clear(); // joins
    }
};

Expected<RunningWorkload> RunningWorkload::start(const std::string& name, int threads)
{
    auto program = makeProgram(name, threads);
    if (!program)
        return program.error();
    const std::size_t n = program->names.size();
    if (n > kMaxThreads)
        return makeError("a workload of " + std::to_string(n) + " threads is more than the "
            + std::to_string(kMaxThreads) + " this tool starts");
    auto state = std::make_unique<State>(std::move(*program));
    std::latch ready(static_cast<std::ptrdiff_t>(n));
    state->pool.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        state->pool.emplace_back([s = state.get(), &ready, i] {
            ::pthread_setname_np(::pthread_self(), s->program.names[i].c_str());
            s->threads[i] = WorkloadThread { sys::threadId(), s->program.names[i] };
            ready.count_down();
            s->program.body(i, s->counters[i].work);
        });
    ready.wait();
    return RunningWorkload(std::move(state));
}

RunningWorkload::RunningWorkload(std::unique_ptr<State> state)
    : m_state(std::move(state))
{
}
RunningWorkload::RunningWorkload(RunningWorkload&&) noexcept = default;
RunningWorkload& RunningWorkload::operator=(RunningWorkload&& other) noexcept
{
    if (this != &other) {
        stop();
        m_state = std::move(other.m_state);
    }
    return *this;
}
RunningWorkload::~RunningWorkload() { stop(); }

const std::vector<WorkloadThread>& RunningWorkload::threads() const { return m_state->threads; }

std::uint64_t RunningWorkload::work() const
{
    std::uint64_t work = 0;
    for (const auto& c : m_state->counters)
        work += c.work.load(std::memory_order_relaxed);
    return work;
}

void RunningWorkload::stop()
{
    if (m_state)
        m_state->stop();
}

Status runWorkload(
    const std::string& name, int threads, double durationS, std::stop_token stop, const WorkloadCallbacks& callbacks)
{
    if (!(durationS >= 0))
        return makeError("a workload's duration must be 0 (until stopped) or more seconds");
    auto running = RunningWorkload::start(name, threads);
    if (!running)
        return running.error();
    if (callbacks.started)
        callbacks.started(running->threads());

    using Clock = std::chrono::steady_clock;
    const auto begin = Clock::now();
    const auto end = durationS > 0
        ? begin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(durationS))
        : Clock::time_point::max();
    std::mutex mutex;
    std::condition_variable_any wake;
    std::uint64_t lastWork = 0;
    auto lastTime = begin;
    for (int second = 1; !stop.stop_requested(); ++second) {
        const auto next = std::min(begin + std::chrono::seconds(second), end);
        {
            std::unique_lock lock(mutex);
            wake.wait_until(lock, stop, next, [] { return false; });
        }
        if (stop.stop_requested())
            break;
        const auto now = Clock::now();
        const std::uint64_t work = running->work();
        const double span = std::chrono::duration<double>(now - lastTime).count();
        if (callbacks.tick && span > 0)
            callbacks.tick(WorkloadTick { std::chrono::duration<double>(now - begin).count(), work,
                static_cast<double>(work - lastWork) / span });
        lastWork = work;
        lastTime = now;
        if (now >= end)
            break;
    }
    running->stop();
    return {};
}

} // namespace ctxscope
