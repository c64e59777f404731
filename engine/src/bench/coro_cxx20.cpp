// SPDX-License-Identifier: MIT
// coro-cxx20: two stackless C++20 coroutines hand control to each other by symmetric
// transfer (await_suspend returns the coroutine to run next). One op is driver -> worker ->
// driver: two user-space switches, no kernel entry, no stack switch (frames live on the heap).
#include "bench/barrier.h"
#include "bench/kernel.h"

#include <coroutine>
#include <exception>
#include <new>
#include <utility>

namespace ctxscope::bench {

namespace {

// The owner of one coroutine frame: destroys it (suspended or not) when it goes.
class Coro {
public:
    struct promise_type {
        Coro get_return_object() { return Coro(std::coroutine_handle<promise_type>::from_promise(*this)); }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        void return_void() noexcept { }
        void unhandled_exception() noexcept { std::terminate(); }
    };

    explicit Coro(std::coroutine_handle<promise_type> h)
        : m_h(h)
    {
    }
    Coro(Coro&& other) noexcept
        : m_h(std::exchange(other.m_h, {}))
    {
    }
    Coro& operator=(Coro&&) = delete;
    Coro(const Coro&) = delete;
    Coro& operator=(const Coro&) = delete;
    ~Coro()
    {
        if (m_h)
            m_h.destroy();
    }
    std::coroutine_handle<> handle() const { return m_h; }

private:
    std::coroutine_handle<promise_type> m_h;
};

// Symmetric transfer: suspend this coroutine and resume `to` in its place.
struct TransferTo {
    std::coroutine_handle<> to;
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<>) const noexcept { return to; }
    void await_resume() const noexcept { }
};

// GCC turns a transfer into a tail call only when optimizing without sanitizers; in a
// debug or sanitizer build each transfer nests one call deeper until the chain returns
// to the runner. So the driver returns every kBatch ops, which bounds the stack; the
// runner's own resume + return is then 1/kBatch of the time.
constexpr std::uint64_t kBatch = 128;

struct State {
    std::uint64_t batch = 0;
    std::uint64_t count = 0;
    std::coroutine_handle<> driver;
    std::coroutine_handle<> worker;
};

Coro driverBody(State& s)
{
    for (;;) {
        for (std::uint64_t i = 0; i < s.batch; ++i)
            co_await TransferTo { s.worker };
        co_await std::suspend_always {}; // back to run()
    }
}

Coro workerBody(State& s)
{
    for (;;) {
        ++s.count;
        doNotOptimize(s.count);
        co_await TransferTo { s.driver };
    }
}

class CoroCxx20Kernel final : public Kernel {
public:
    CoroCxx20Kernel()
        : m_driver(driverBody(m_state))
        , m_worker(workerBody(m_state))
    {
        m_state.driver = m_driver.handle();
        m_state.worker = m_worker.handle();
    }

    OpStatus run(int, std::uint64_t ops) noexcept override
    {
        while (ops > 0) {
            m_state.batch = ops < kBatch ? ops : kBatch;
            ops -= m_state.batch;
            m_state.driver.resume();
        }
        return OpStatus::Ok;
    }

private:
    State m_state; // declared first: the coroutines refer to it until they are destroyed
    Coro m_driver;
    Coro m_worker;
};

} // namespace

Expected<std::unique_ptr<Kernel>> makeCoroCxx20Kernel(const KernelParams&)
{
    try {
        return std::unique_ptr<Kernel>(std::make_unique<CoroCxx20Kernel>());
    } catch (const std::bad_alloc&) {
        return makeError("could not allocate the coroutine frames of coro-cxx20");
    }
}

} // namespace ctxscope::bench
