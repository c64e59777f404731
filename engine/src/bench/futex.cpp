// SPDX-License-Identifier: MIT
// futex: a round trip A -> B -> A through two futex words. Task 0 fills `ping` and wakes
// task 1, then sleeps on `pong` until task 1 fills it. Threads use FUTEX_PRIVATE_FLAG;
// processes share the words through an anonymous shared mapping (no PRIVATE flag).
#include "bench/kernel.h"
#include "bench/working_set.h"
#include "os/shared_mapping.h"
#include "os/sys.h"

#include <atomic>
#include <new>

namespace ctxscope::bench {

namespace {

constexpr std::uint32_t kFull = 1;
constexpr std::uint32_t kStop = 1U << 31;

// Each word on its own cache line, so the two tasks do not false-share.
struct alignas(64) Word {
    std::uint32_t value;
};
struct Words {
    Word ping;
    Word pong;
};

class FutexKernel final : public Kernel {
public:
    FutexKernel(sys::SharedMapping mapping, bool priv, WorkingSet ws)
        : m_ws(std::move(ws))
        , m_mapping(std::move(mapping))
        , m_words(new (m_mapping.data()) Words {})
        , m_private(priv)
    {
    }

    OpStatus run(int task, std::uint64_t ops) noexcept override
    {
        std::uint32_t* ping = &m_words->ping.value;
        std::uint32_t* pong = &m_words->pong.value;
        for (std::uint64_t i = 0; i < ops; ++i) {
            if (task == 0) {
                send(ping);
                if (!receive(pong))
                    return OpStatus::Stopped;
                m_ws.touch(0);
            } else {
                if (!receive(ping))
                    return OpStatus::Stopped;
                m_ws.touch(1);
                send(pong);
            }
        }
        return OpStatus::Ok;
    }

    void interrupt() noexcept override
    {
        for (std::uint32_t* w : { &m_words->ping.value, &m_words->pong.value }) {
            std::atomic_ref(*w).fetch_or(kStop, std::memory_order_release);
            sys::futexWake(w, sys::kWakeAll, m_private);
        }
    }

private:
    // Read-modify-write, not a store, so a stop bit set meanwhile is never lost.
    void send(std::uint32_t* word) const noexcept
    {
        std::atomic_ref(*word).fetch_or(kFull, std::memory_order_release);
        sys::futexWake(word, 1, m_private);
    }

    bool receive(std::uint32_t* word) const noexcept
    {
        for (;;) {
            const std::uint32_t v = std::atomic_ref(*word).load(std::memory_order_acquire);
            if (v & kStop)
                return false;
            if (v & kFull)
                break;
            sys::futexWait(word, v, m_private);
        }
        std::atomic_ref(*word).fetch_and(~kFull, std::memory_order_relaxed);
        return true;
    }

    WorkingSet m_ws; // each task's own buffer, touched after it takes the token
    sys::SharedMapping m_mapping;
    Words* m_words;
    bool m_private;
};

} // namespace

Expected<std::unique_ptr<Kernel>> makeFutexKernel(const KernelParams& params)
{
    auto mapping = sys::SharedMapping::create(4096);
    if (!mapping)
        return mapping.error();
    const bool priv = params.mode == BenchMode::Thread;
    auto ws = WorkingSet::create(2, params.wsBytes);
    if (!ws)
        return ws.error();
    return std::unique_ptr<Kernel>(std::make_unique<FutexKernel>(std::move(*mapping), priv, std::move(*ws)));
}

} // namespace ctxscope::bench
