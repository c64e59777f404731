// SPDX-License-Identifier: MIT
// yield: each of two tasks calls sched_yield() once per op. On one PU each call hands the
// CPU to the other task (2 switches per op); on two PUs there is usually nobody to hand it
// to and sched_yield returns at once (0 switches).
#include "bench/kernel.h"

#include <sched.h>

namespace ctxscope::bench {

namespace {
class YieldKernel final : public Kernel {
public:
    OpStatus run(int, std::uint64_t ops) noexcept override
    {
        for (std::uint64_t i = 0; i < ops; ++i)
            ::sched_yield();
        return OpStatus::Ok;
    }
};
} // namespace

Expected<std::unique_ptr<Kernel>> makeYieldKernel(const KernelParams&)
{
    return std::unique_ptr<Kernel>(std::make_unique<YieldKernel>());
}

} // namespace ctxscope::bench
