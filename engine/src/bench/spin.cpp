// SPDX-License-Identifier: MIT
// spin: a round trip A -> B -> A of a token through one shared cache line, both tasks
// busy-waiting. Task 0 stores 1 and waits for 0; task 1 waits for 1 and stores 0. Each
// hand-over is one release store by the sender and acquire loads by the receiver: the line
// moves once per direction, as in a spin lock's hand-off (no compare-and-swap, no system
// call). Threads and processes share the line through an anonymous shared mapping of one page,
// which nobody touches before task 0 does, pinned, before the start barrier: the kernel places
// the page by task 0's CPU (first touch), and the line's node and first toucher are reported.
#include "bench/kernel.h"
#include "bench/spin_wait.h"
#include "os/shared_mapping.h"
#include "os/sys.h"

#include <atomic>
#include <sched.h>

namespace ctxscope::bench {

namespace {

struct alignas(64) Line {
    std::uint32_t token; // 1: task 1 holds the turn, 0: task 0
};
struct alignas(64) StopLine {
    std::uint32_t stop;
};
struct alignas(64) TouchLine {
    std::int32_t firstTask; // the first toucher's index + 1, so the zero-filled page reads "nobody yet"
    std::int32_t firstCpu;
    std::int32_t nodeAtTouch;
};
struct Shared {
    Line line;
    StopLine stop; // on its own line, so asking to stop never disturbs the token's line
    TouchLine touch; // written once by the first toucher, read by the runner after the run
};

class SpinKernel final : public Kernel {
public:
    explicit SpinKernel(sys::SharedMapping mapping)
        : m_mapping(std::move(mapping))
        // Not constructed here: the mapping is zero-filled (a valid Shared), and a store from
        // this thread would be the page's first touch.
        , m_shared(static_cast<Shared*>(m_mapping.data()))
    {
    }

    void setUpTask(int task) noexcept override
    {
        if (task != 0)
            return;
        std::atomic_ref(m_shared->line.token).store(0, std::memory_order_relaxed); // the first touch
        m_shared->touch.firstCpu = ::sched_getcpu();
        m_shared->touch.nodeAtTouch = sys::pageNode(&m_shared->line);
        std::atomic_ref(m_shared->touch.firstTask).store(task + 1, std::memory_order_release);
    }

    std::optional<LinePlacement> linePlacement() const noexcept override
    {
        LinePlacement p;
        p.firstTask = std::atomic_ref(m_shared->touch.firstTask).load(std::memory_order_acquire) - 1;
        if (p.firstTask < 0)
            return p; // no task reached its set-up: the page may not exist yet
        p.firstCpu = m_shared->touch.firstCpu;
        p.nodeAtTouch = m_shared->touch.nodeAtTouch;
        // A forked task's page is mapped here only once this process reads it (the read maps
        // the page the task made; it makes none).
        (void)std::atomic_ref(m_shared->line.token).load(std::memory_order_relaxed);
        p.node = sys::pageNode(&m_shared->line);
        p.page = m_mapping.data();
        return p;
    }

    OpStatus run(int task, std::uint64_t ops) noexcept override
    {
        std::atomic_ref token(m_shared->line.token);
        const std::uint32_t mine = task == 0 ? 0 : 1; // the value that gives this task the turn
        for (std::uint64_t i = 0; i < ops; ++i) {
            if (task == 0)
                token.store(1, std::memory_order_release);
            unsigned turns = 0;
            while (token.load(std::memory_order_acquire) != mine) {
                cpuRelax();
                if (++turns == kStopCheckTurns) {
                    turns = 0;
                    if (std::atomic_ref(m_shared->stop.stop).load(std::memory_order_relaxed))
                        return OpStatus::Stopped;
                }
            }
            if (task == 1)
                token.store(0, std::memory_order_release);
        }
        return OpStatus::Ok;
    }

    void interrupt() noexcept override { std::atomic_ref(m_shared->stop.stop).store(1, std::memory_order_relaxed); }

private:
    sys::SharedMapping m_mapping;
    Shared* m_shared;
};

} // namespace

Expected<std::unique_ptr<Kernel>> makeSpinKernel(const KernelParams&)
{
    auto mapping = sys::SharedMapping::create(4096); // mmap rounds it up to a whole page
    if (!mapping)
        return mapping.error();
    return std::unique_ptr<Kernel>(std::make_unique<SpinKernel>(std::move(*mapping)));
}

} // namespace ctxscope::bench
