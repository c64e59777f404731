// SPDX-License-Identifier: MIT
// Thread mode: one std::thread per task, pinned through the placement layer.
#include "os/sys.h"
#include "runner/launch.h"
#include "runner/task.h"

#include "ctxscope/placement.h"

#include <pthread.h>
#include <sched.h>
#include <system_error>
#include <thread>

namespace ctxscope::run {

namespace {

class ThreadGroup final : public TaskGroup {
public:
    explicit ThreadGroup(const LaunchPlan& plan)
        : m_plan(plan)
        , m_errors(plan.cpus.size())
    {
    }
    ~ThreadGroup() override { finish(std::chrono::milliseconds(0)); }

    Status start()
    {
        for (std::size_t i = 0; i < m_plan.cpus.size(); ++i) {
            try {
                m_threads.emplace_back([this, i] { body(static_cast<int>(i)); });
            } catch (const std::system_error& e) {
                requestStop(m_plan.block->control());
                m_plan.kernel->interrupt();
                finish(std::chrono::milliseconds(0));
                return makeError("could not start task " + std::to_string(i) + " as a thread: " + e.what());
            }
        }
        return {};
    }

    std::string checkDeaths() override { return {}; }

    void finish(std::chrono::milliseconds) noexcept override
    {
        for (auto& t : m_threads)
            if (t.joinable())
                t.join();
    }

    std::string setupError(int task) const override { return m_errors[static_cast<std::size_t>(task)]; }

private:
    void body(int index)
    {
        Control& ctl = m_plan.block->control();
        TaskSlot& slot = m_plan.block->slot(index);
        slot.id = sys::threadId();
        const int cpu = m_plan.cpus[static_cast<std::size_t>(index)];
        slot.pinnedCpu = cpu;
        if (cpu >= 0) {
            const Status pinned = pinCurrentThread(*m_plan.topology, cpu);
            if (!pinned) {
                // Each thread writes only its own element; read after join.
                m_errors[static_cast<std::size_t>(index)] = pinned.error().message;
                failTask(ctl, slot, TaskError::PinFailed, 0);
                return;
            }
        }
        if (m_plan.fifo) {
            const sched_param param { kFifoPriority };
            if (const int rc = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &param); rc != 0) {
                failTask(ctl, slot, TaskError::SchedFailed, rc);
                return;
            }
        }
        runTask(TaskContext { m_plan.block, m_plan.kernel, index, m_plan.clock });
    }

    LaunchPlan m_plan;
    std::vector<std::string> m_errors;
    std::vector<std::thread> m_threads;
};

} // namespace

Expected<std::unique_ptr<TaskGroup>> startThreads(const LaunchPlan& plan)
{
    auto group = std::make_unique<ThreadGroup>(plan);
    if (Status s = group->start(); !s)
        return s.error();
    return std::unique_ptr<TaskGroup>(std::move(group));
}

} // namespace ctxscope::run
