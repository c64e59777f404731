// SPDX-License-Identifier: MIT
#include "workload/programs.h"

#include "os/clock_read.h"
#include "workload/handoff.h"

#include <deque>

#include <time.h>

namespace ctxscope::workload {

namespace {

struct Handoffs {
    explicit Handoffs(std::size_t n)
        : slots(n)
    {
    }
    std::deque<Handoff> slots; // a deque: Handoff is neither copyable nor movable
    void closeAll()
    {
        for (auto& s : slots)
            s.close();
    }
};

} // namespace

Program pingpong(int pairs)
{
    const auto n = static_cast<std::size_t>(pairs);
    // Pair k: ping puts on slot 2k and takes from 2k+1; pong the other way round.
    auto shared = std::make_shared<Handoffs>(2 * n);
    Program p;
    for (std::size_t k = 0; k < n; ++k) {
        p.names.push_back("ping" + std::to_string(k));
        p.names.push_back("pong" + std::to_string(k));
    }
    p.body = [h = shared.get()](std::size_t i, std::atomic<std::uint64_t>& work) {
        Handoff& there = h->slots[i & ~std::size_t { 1 }];
        Handoff& back = h->slots[i | 1];
        if (i % 2 == 0) {
            while (there.put() && back.take())
                work.fetch_add(1, std::memory_order_relaxed); // one round trip
        } else {
            while (there.take() && back.put()) { }
        }
    };
    p.stop = [h = shared.get()] { h->closeAll(); };
    p.state = shared;
    return p;
}

Program pipeline(int stages)
{
    const auto n = static_cast<std::size_t>(stages);
    // Slot k links thread k (producer, stage1..N) to thread k + 1 (stage1..N, consumer).
    auto shared = std::make_shared<Handoffs>(n + 1);
    Program p;
    p.names.push_back("producer");
    for (std::size_t k = 1; k <= n; ++k)
        p.names.push_back("stage" + std::to_string(k));
    p.names.push_back("consumer");
    p.body = [h = shared.get(), n](std::size_t i, std::atomic<std::uint64_t>& work) {
        if (i == 0) {
            while (h->slots[0].put()) { }
        } else if (i <= n) {
            while (h->slots[i - 1].take() && h->slots[i].put()) { }
        } else {
            while (h->slots[n].take())
                work.fetch_add(1, std::memory_order_relaxed); // one message through every stage
        }
    };
    p.stop = [h = shared.get()] { h->closeAll(); };
    p.state = shared;
    return p;
}

Program busy(int threads)
{
    auto stop = std::make_shared<std::atomic<bool>>(false);
    Program p;
    for (int k = 0; k < threads; ++k)
        p.names.push_back("busy" + std::to_string(k));
    p.body = [flag = stop.get()](std::size_t i, std::atomic<std::uint64_t>& work) {
        std::uint64_t x = i + 1;
        while (!flag->load(std::memory_order_relaxed)) {
            for (int step = 0; step < 65536; ++step) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                asm volatile("" : "+r"(x)); // kept: the compiler may not fold the loop away
            }
            work.fetch_add(1, std::memory_order_relaxed); // one loop of 65,536 multiply-adds
        }
    };
    p.stop = [flag = stop.get()] { flag->store(true); };
    p.state = stop;
    return p;
}

std::int64_t nextWake(std::int64_t deadlineNs, std::int64_t nowNs, std::int64_t periodNs)
{
    const std::int64_t missed = nowNs > deadlineNs ? (nowNs - deadlineNs) / periodNs : 0;
    return deadlineNs + (missed + 1) * periodNs;
}

Program sleepers(int threads)
{
    auto stop = std::make_shared<std::atomic<bool>>(false);
    Program p;
    for (int k = 0; k < threads; ++k)
        p.names.push_back("sleeper" + std::to_string(k));
    p.body = [flag = stop.get()](std::size_t, std::atomic<std::uint64_t>& work) {
        // On a grid of 100 ms, so a late wake-up does not stretch the next period: the timer
        // wakes each thread ten times a second while the machine has the time to run them.
        constexpr std::int64_t kPeriodNs = 100'000'000;
        std::int64_t deadline = static_cast<std::int64_t>(clk::monotonicNs());
        while (!flag->load(std::memory_order_relaxed)) {
            deadline = nextWake(deadline, static_cast<std::int64_t>(clk::monotonicNs()), kPeriodNs);
            const timespec at { static_cast<time_t>(deadline / 1'000'000'000),
                static_cast<long>(deadline % 1'000'000'000) };
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);
            work.fetch_add(1, std::memory_order_relaxed); // one wake-up
        }
    };
    p.stop = [flag = stop.get()] { flag->store(true); };
    p.state = stop;
    return p;
}

} // namespace ctxscope::workload
