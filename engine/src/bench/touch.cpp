// SPDX-License-Identifier: MIT
// touch: one task writes its W-byte working set once per op, exactly as a task of futex,
// pipe or ring does after taking the token, with no switch around it. Run repeatedly on one
// CPU it is the hot baseline the working-set curves subtract.
#include "bench/kernel.h"
#include "bench/working_set.h"

namespace ctxscope::bench {

namespace {

class TouchKernel final : public Kernel {
public:
    explicit TouchKernel(WorkingSet ws)
        : m_ws(std::move(ws))
    {
    }

    OpStatus run(int, std::uint64_t ops) noexcept override
    {
        for (std::uint64_t i = 0; i < ops; ++i)
            m_ws.touch(0);
        return OpStatus::Ok;
    }

private:
    WorkingSet m_ws;
};

} // namespace

Expected<std::unique_ptr<Kernel>> makeTouchKernel(const KernelParams& params)
{
    auto ws = WorkingSet::create(1, params.wsBytes);
    if (!ws)
        return ws.error();
    return std::unique_ptr<Kernel>(std::make_unique<TouchKernel>(std::move(*ws)));
}

} // namespace ctxscope::bench
