// SPDX-License-Identifier: MIT
// pipe: a round trip through two pipes, one byte each way (UnixBench context1, lmbench
// lat_ctx with two tasks, perf bench sched pipe): exactly the ring of two tasks.
#include "bench/kernel.h"

namespace ctxscope::bench {

Expected<std::unique_ptr<Kernel>> makePipeKernel(const KernelParams& params)
{
    KernelParams two = params;
    two.tasks = 2;
    return makeRingKernel(two);
}

} // namespace ctxscope::bench
