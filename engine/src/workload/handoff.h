// SPDX-License-Identifier: MIT
#pragma once

#include "os/sys.h"

#include <atomic>
#include <cstdint>

namespace ctxscope::workload {

// A one-message mailbox between two threads, through a futex: put() waits while it is full,
// take() while it is empty; close() makes both return false at once, so a stop never waits
// on a partner that has already left.
class Handoff {
public:
    bool put() { return swap(kEmpty, kFull); }
    bool take() { return swap(kFull, kEmpty); }
    void close()
    {
        std::atomic_ref(m_word).store(kClosed, std::memory_order_release);
        sys::futexWake(&m_word, sys::kWakeAll, true);
    }

private:
    static constexpr std::uint32_t kEmpty = 0, kFull = 1, kClosed = 2;

    bool swap(std::uint32_t from, std::uint32_t to)
    {
        std::atomic_ref word(m_word);
        for (;;) {
            std::uint32_t v = word.load(std::memory_order_acquire);
            if (v == kClosed)
                return false;
            if (v == from && word.compare_exchange_strong(v, to, std::memory_order_acq_rel)) {
                sys::futexWake(&m_word, 1, true);
                return true;
            }
            // Bounded: a stop must never hang on a wake-up that did not arrive. A pingpong thread
            // has been found asleep on a word already closed, its stop waiting on the join (the
            // cause is not known), so a waiter looks again every 50 ms, which costs nothing while
            // messages flow.
            if (v != from) {
                constexpr timespec kRecheck { 0, 50'000'000 };
                sys::futexWait(&m_word, v, true, &kRecheck);
            }
        }
    }

    alignas(64) std::uint32_t m_word = kEmpty;
};

} // namespace ctxscope::workload
