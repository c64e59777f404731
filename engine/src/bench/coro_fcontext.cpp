// SPDX-License-Identifier: MIT
// coro-fcontext: a stackful Boost.Context fiber. One op is a jump into the fiber and a jump
// back: two user-space switches that save and restore only the callee-saved registers and
// the stack pointer (no signal mask, no kernel entry).
#include "bench/barrier.h"
#include "bench/kernel.h"

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include <exception>
#include <memory>

namespace ctxscope::bench {

namespace ctx = boost::context;

namespace {

constexpr std::size_t kStackBytes = 64 * 1024;

class CoroFcontextKernel final : public Kernel {
public:
    CoroFcontextKernel()
        : m_fiber(std::allocator_arg, ctx::protected_fixedsize_stack(kStackBytes),
            [this](ctx::fiber&& caller) { return body(std::move(caller)); })
    {
    }

    // Lets the fiber return so its stack unwinds normally (no forced_unwind exception).
    ~CoroFcontextKernel() override
    {
        m_quit = true;
        if (m_fiber)
            m_fiber = std::move(m_fiber).resume();
    }
    CoroFcontextKernel(const CoroFcontextKernel&) = delete;
    CoroFcontextKernel& operator=(const CoroFcontextKernel&) = delete;

    OpStatus run(int, std::uint64_t ops) noexcept override
    {
        for (std::uint64_t i = 0; i < ops; ++i)
            m_fiber = std::move(m_fiber).resume();
        return OpStatus::Ok;
    }

private:
    ctx::fiber body(ctx::fiber&& caller)
    {
        while (!m_quit) {
            ++m_count;
            doNotOptimize(m_count);
            caller = std::move(caller).resume();
        }
        return std::move(caller);
    }

    bool m_quit = false;
    std::uint64_t m_count = 0;
    ctx::fiber m_fiber;
};

} // namespace

Expected<std::unique_ptr<Kernel>> makeCoroFcontextKernel(const KernelParams&)
{
    try {
        return std::unique_ptr<Kernel>(std::make_unique<CoroFcontextKernel>());
    } catch (const std::exception& e) {
        return makeError(std::string("could not create the Boost.Context fiber of coro-fcontext: ") + e.what());
    }
}

} // namespace ctxscope::bench
