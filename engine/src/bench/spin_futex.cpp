// SPDX-License-Identifier: MIT
// spin-futex: the adaptive hand-over of real locks. A round trip A -> B -> A of a token in one
// futex word; a waiting task spins on it for spinNs, then declares that it sleeps (the waiter
// bit, set by compare-and-swap) and sleeps in FUTEX_WAIT. The sender swaps the token in and
// makes the FUTEX_WAKE system call only when the old value had the waiter bit, so while the
// partner answers within the spin window no task enters the kernel. The swap (one atomic
// exchange where spin has a plain store) is the price of never losing a wake-up. Each task
// counts the tokens it received and how many of them it slept for.
#include "bench/kernel.h"
#include "bench/spin_wait.h"
#include "os/shared_mapping.h"
#include "os/sys.h"

#include <atomic>
#include <chrono>
#include <new>

namespace ctxscope::bench {

namespace {

constexpr std::uint32_t kToken = 1; // set: task 1 holds the turn
constexpr std::uint32_t kWaiter = 2; // the receiving task sleeps (or is about to) in FUTEX_WAIT
constexpr std::uint32_t kStop = 4;
// Turns of the wait loop between clock reads (a read costs tens of ns; a turn about as much).
constexpr unsigned kClockTurns = 8;

struct alignas(64) Counters {
    std::uint64_t received;
    std::uint64_t slept;
};
struct Shared {
    alignas(64) std::uint32_t word;
    Counters task[2]; // each written by its own task only
};

class SpinFutexKernel final : public Kernel {
public:
    SpinFutexKernel(sys::SharedMapping mapping, bool priv, std::uint64_t spinNs)
        : m_mapping(std::move(mapping))
        , m_shared(new (m_mapping.data()) Shared {})
        , m_private(priv)
        , m_spin(std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::nanoseconds(spinNs)))
    {
    }

    OpStatus run(int task, std::uint64_t ops) noexcept override
    {
        const std::uint32_t mine = task == 0 ? 0 : kToken;
        const std::uint32_t theirs = mine ^ kToken;
        Counters& counters = m_shared->task[task];
        for (std::uint64_t i = 0; i < ops; ++i) {
            if (task == 0 && !send(theirs))
                return OpStatus::Stopped;
            if (!receive(mine, counters))
                return OpStatus::Stopped;
            if (task == 1 && !send(theirs))
                return OpStatus::Stopped;
        }
        return OpStatus::Ok;
    }

    void interrupt() noexcept override
    {
        std::atomic_ref(m_shared->word).fetch_or(kStop, std::memory_order_release);
        sys::futexWake(&m_shared->word, sys::kWakeAll, m_private);
    }

    std::optional<HandoffCount> handoffs() const noexcept override
    {
        HandoffCount c;
        for (Counters& t : m_shared->task) { // the pointee is not const: the tasks write it
            c.total += std::atomic_ref(t.received).load(std::memory_order_relaxed);
            c.slept += std::atomic_ref(t.slept).load(std::memory_order_relaxed);
        }
        return c;
    }

private:
    bool send(std::uint32_t token) noexcept
    {
        const std::uint32_t old = std::atomic_ref(m_shared->word).exchange(token, std::memory_order_acq_rel);
        if (old & kStop) {
            interrupt(); // the swap cleared the stop bit: put it back and wake everyone
            return false;
        }
        if (old & kWaiter)
            sys::futexWake(&m_shared->word, 1, m_private);
        return true;
    }

    bool receive(std::uint32_t mine, Counters& counters) const noexcept
    {
        std::atomic_ref word(m_shared->word);
        bool spinning = m_spin.count() > 0;
        const auto deadline
            = spinning ? std::chrono::steady_clock::now() + m_spin : std::chrono::steady_clock::time_point {};
        bool slept = false;
        unsigned turns = 0;
        for (;;) {
            std::uint32_t v = word.load(std::memory_order_acquire);
            if ((v & kToken) == mine && !(v & kStop))
                break;
            if (v & kStop)
                return false;
            if (spinning) {
                cpuRelax();
                if (++turns == kClockTurns) {
                    turns = 0;
                    spinning = std::chrono::steady_clock::now() < deadline;
                }
                continue;
            }
            if (!(v & kWaiter)) {
                if (!word.compare_exchange_weak(v, v | kWaiter, std::memory_order_acq_rel))
                    continue; // the token (or a stop) arrived meanwhile
                v |= kWaiter;
            }
            slept = true;
            sys::futexWait(&m_shared->word, v, m_private);
        }
        std::atomic_ref(counters.received).store(counters.received + 1, std::memory_order_relaxed);
        if (slept)
            std::atomic_ref(counters.slept).store(counters.slept + 1, std::memory_order_relaxed);
        return true;
    }

    sys::SharedMapping m_mapping;
    Shared* m_shared;
    bool m_private;
    std::chrono::steady_clock::duration m_spin;
};

} // namespace

Expected<std::unique_ptr<Kernel>> makeSpinFutexKernel(const KernelParams& params)
{
    auto mapping = sys::SharedMapping::create(4096);
    if (!mapping)
        return mapping.error();
    const bool priv = params.mode == BenchMode::Thread;
    return std::unique_ptr<Kernel>(std::make_unique<SpinFutexKernel>(std::move(*mapping), priv, params.spinNs));
}

} // namespace ctxscope::bench
