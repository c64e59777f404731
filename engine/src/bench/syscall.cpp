// SPDX-License-Identifier: MIT
// syscall: one raw getppid system call. A mode switch into the kernel and back, not a
// context switch; raw so no libc cache can answer it.
#include "bench/kernel.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace ctxscope::bench {

namespace {
class SyscallKernel final : public Kernel {
public:
    OpStatus run(int, std::uint64_t ops) noexcept override
    {
        for (std::uint64_t i = 0; i < ops; ++i)
            ::syscall(SYS_getppid);
        return OpStatus::Ok;
    }
};
} // namespace

Expected<std::unique_ptr<Kernel>> makeSyscallKernel(const KernelParams&)
{
    return std::unique_ptr<Kernel>(std::make_unique<SyscallKernel>());
}

} // namespace ctxscope::bench
