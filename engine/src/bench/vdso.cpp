// SPDX-License-Identifier: MIT
// vdso: one clock_gettime(CLOCK_MONOTONIC), answered in user space by the vDSO: the floor
// under `syscall`.
#include "bench/kernel.h"

#include <ctime>

namespace ctxscope::bench {

namespace {
class VdsoKernel final : public Kernel {
public:
    OpStatus run(int, std::uint64_t ops) noexcept override
    {
        timespec ts {};
        for (std::uint64_t i = 0; i < ops; ++i) {
            ::clock_gettime(CLOCK_MONOTONIC, &ts);
            // Keeps the compiler from dropping a call whose result is unused.
            asm volatile("" : : "r"(&ts) : "memory");
        }
        return OpStatus::Ok;
    }
};
} // namespace

Expected<std::unique_ptr<Kernel>> makeVdsoKernel(const KernelParams&)
{
    return std::unique_ptr<Kernel>(std::make_unique<VdsoKernel>());
}

} // namespace ctxscope::bench
