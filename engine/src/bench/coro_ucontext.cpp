// SPDX-License-Identifier: MIT
// coro-ucontext: a stackful context made with makecontext and entered and left with
// swapcontext. One op is there and back: two user-space switches, but glibc's swapcontext
// also saves and restores the signal mask with an rt_sigprocmask system call each time, so
// the op enters the kernel twice; the runner's syscall self-check counts those calls.
#include "bench/barrier.h"
#include "bench/kernel.h"
#include "bench/stack.h"

#include <cstdint>
#include <ucontext.h>

namespace ctxscope::bench {

namespace {

constexpr std::size_t kStackBytes = 64 * 1024;

class CoroUcontextKernel final : public Kernel {
public:
    explicit CoroUcontextKernel(GuardedStack stack)
        : m_stack(std::move(stack))
    {
    }

    // makecontext passes int arguments only, so `this` travels as two halves.
    Status start()
    {
        if (::getcontext(&m_coro) != 0)
            return makeError("getcontext failed for coro-ucontext");
        m_coro.uc_stack.ss_sp = m_stack.bottom();
        m_coro.uc_stack.ss_size = m_stack.size();
        m_coro.uc_link = nullptr; // the body never returns
        const auto self = reinterpret_cast<std::uintptr_t>(this);
        ::makecontext(&m_coro, reinterpret_cast<void (*)()>(&entry), 2, static_cast<unsigned>(self >> 32),
            static_cast<unsigned>(self & 0xffffffffU));
        return {};
    }

    OpStatus run(int, std::uint64_t ops) noexcept override
    {
        for (std::uint64_t i = 0; i < ops; ++i)
            ::swapcontext(&m_main, &m_coro);
        return OpStatus::Ok;
    }

private:
    static void entry(unsigned high, unsigned low)
    {
        const std::uintptr_t self = (std::uintptr_t { high } << 32) | low;
        reinterpret_cast<CoroUcontextKernel*>(self)->body();
    }

    [[noreturn]] void body()
    {
        for (;;) {
            ++m_count;
            doNotOptimize(m_count);
            ::swapcontext(&m_coro, &m_main);
        }
    }

    GuardedStack m_stack;
    ucontext_t m_main {};
    ucontext_t m_coro {};
    std::uint64_t m_count = 0;
};

} // namespace

Expected<std::unique_ptr<Kernel>> makeCoroUcontextKernel(const KernelParams&)
{
    auto stack = GuardedStack::create(kStackBytes);
    if (!stack)
        return stack.error();
    auto kernel = std::make_unique<CoroUcontextKernel>(std::move(*stack));
    if (Status s = kernel->start(); !s)
        return s.error();
    return std::unique_ptr<Kernel>(std::move(kernel));
}

} // namespace ctxscope::bench
