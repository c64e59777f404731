// SPDX-License-Identifier: MIT
// Process mode: one forked child per task. The child does only what is safe after fork()
// in a multithreaded parent (system calls and atomics on the shared mapping, no malloc, no
// locks), pins itself, and leaves with _exit. The parent reaps every child on every path.
#include "os/sys.h"
#include "runner/launch.h"
#include "runner/task.h"

#include <algorithm>
#include <array>
#include <csignal>
#include <cstring>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ctxscope::run {

namespace {

constexpr int kExitOk = 0;
constexpr int kExitTaskError = 1; // details in the task's slot
constexpr int kExitOrphan = 3;

// A CPU set sized for the CPU, allocated in the parent before fork().
class CpuMask {
public:
    explicit CpuMask(int cpu)
    {
        if (cpu < 0)
            return;
        const auto count = static_cast<std::size_t>(cpu) + 1;
        m_set = CPU_ALLOC(count);
        m_size = CPU_ALLOC_SIZE(count);
        if (m_set) {
            CPU_ZERO_S(m_size, m_set);
            CPU_SET_S(static_cast<std::size_t>(cpu), m_size, m_set);
        }
    }
    CpuMask(CpuMask&& o) noexcept
        : m_set(std::exchange(o.m_set, nullptr))
        , m_size(o.m_size)
    {
    }
    CpuMask(const CpuMask&) = delete;
    CpuMask& operator=(const CpuMask&) = delete;
    CpuMask& operator=(CpuMask&&) = delete;
    ~CpuMask()
    {
        if (m_set)
            CPU_FREE(m_set);
    }
    const cpu_set_t* set() const { return m_set; }
    std::size_t size() const { return m_size; }

private:
    cpu_set_t* m_set = nullptr;
    std::size_t m_size = 0;
};

// Closes the descriptors first..last. Kernels before 5.9 have no close_range (the portable
// bundle runs on 4.18): there each is closed in turn, up to the descriptor limit.
void closeRange(unsigned first, unsigned last) noexcept
{
    if (::close_range(first, last, 0) == 0)
        return;
    rlimit limit {};
    unsigned top = 65535;
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur > 0)
        top = static_cast<unsigned>(std::min<rlim_t>(limit.rlim_cur - 1, ~0U - 1));
    top = std::min(top, last);
    for (unsigned fd = first; fd <= top; ++fd)
        ::close(static_cast<int>(fd));
}

// Closes every descriptor but stdin/out/err and `keep`, so a child holds only its own
// pipe ends (and a pipe whose writers all died reads as EOF).
void closeAllBut(std::span<int> keep) noexcept
{
    std::sort(keep.begin(), keep.end());
    unsigned from = 3;
    for (int fd : keep) {
        if (fd < 3)
            continue;
        const auto u = static_cast<unsigned>(fd);
        if (u > from)
            closeRange(from, u - 1);
        from = u + 1;
    }
    closeRange(from, ~0U);
}

[[noreturn]] void childMain(const LaunchPlan& plan, const CpuMask& mask, int index, pid_t parent) noexcept
{
    // Die with the parent thread that forked us; if it is already gone, stop here.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
        ::_exit(kExitOrphan);
    ::signal(SIGPIPE, SIG_IGN);
    ::signal(SIGINT, SIG_IGN); // Ctrl-C is the parent's to handle: it stops us cleanly
    std::array<int, 8> keep {};
    const std::size_t kept = plan.kernel->fdsOf(index, keep);
    closeAllBut(std::span<int>(keep.data(), kept));

    Control& ctl = plan.block->control();
    TaskSlot& slot = plan.block->slot(index);
    slot.id = ::getpid();
    const int cpu = plan.cpus[static_cast<std::size_t>(index)];
    slot.pinnedCpu = cpu;
    if (cpu >= 0) {
        if (!mask.set() || ::sched_setaffinity(0, mask.size(), mask.set()) != 0) {
            failTask(ctl, slot, TaskError::PinFailed, mask.set() ? errno : ENOMEM);
            ::_exit(kExitTaskError);
        }
        if (const int now = ::sched_getcpu(); now != cpu) {
            slot.cpuOnError = now;
            failTask(ctl, slot, TaskError::PinMoved, 0);
            ::_exit(kExitTaskError);
        }
    }
    if (plan.fifo) {
        const sched_param param { kFifoPriority };
        if (::sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
            failTask(ctl, slot, TaskError::SchedFailed, errno);
            ::_exit(kExitTaskError);
        }
    }
    runTask(TaskContext { plan.block, plan.kernel, index, plan.clock });
    ::_exit(slot.error != 0 ? kExitTaskError : kExitOk);
}

std::string describeEnd(int task, pid_t pid, int status)
{
    const std::string who = "task " + std::to_string(task) + " (pid " + std::to_string(pid) + ")";
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = ::sigdescr_np(sig);
        return who + " was killed by signal " + std::to_string(sig) + " (" + (name ? name : "unknown") + ")";
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == kExitOrphan)
        return who + " found its parent gone and stopped";
    return who + " ended early with exit status " + std::to_string(WEXITSTATUS(status));
}

class ProcessGroup final : public TaskGroup {
public:
    explicit ProcessGroup(const LaunchPlan& plan)
        : m_plan(plan)
    {
    }
    ~ProcessGroup() override { finish(std::chrono::milliseconds(0)); }

    Status start()
    {
        std::vector<CpuMask> masks;
        masks.reserve(m_plan.cpus.size());
        for (int cpu : m_plan.cpus)
            masks.emplace_back(cpu);
        m_children.reserve(m_plan.cpus.size());
        const pid_t parent = ::getpid();
        for (std::size_t i = 0; i < m_plan.cpus.size(); ++i) {
            const pid_t pid = ::fork();
            if (pid == 0)
                childMain(m_plan, masks[i], static_cast<int>(i), parent);
            if (pid < 0) {
                const int err = errno;
                requestStop(m_plan.block->control());
                m_plan.kernel->interrupt();
                finish(std::chrono::milliseconds(200));
                return makeError("could not start task " + std::to_string(i) + " as a process: " + sys::errnoText(err));
            }
            m_children.push_back(Child { pid, false, 0 });
        }
        return {};
    }

    std::string checkDeaths() override
    {
        std::string first;
        for (std::size_t i = 0; i < m_children.size(); ++i) {
            Child& c = m_children[i];
            if (c.reaped || !tryReap(c))
                continue;
            // A child that reported its own error explains itself through its slot. One that
            // exited cleanly once the stop word was set obeyed it (a cancel, a peer's failure):
            // the stop's own reason is the explanation. Mid-run a child exits 0 only on a stop,
            // and every stop sets the word before it wakes the tasks (requestStop, then the
            // kernel's interrupt()); reaping the child orders this read after that store. Without
            // this, a cancel racing the runner's wait loop was reported as "ended early".
            const bool explained = WIFEXITED(c.status)
                && (WEXITSTATUS(c.status) == kExitTaskError
                    || (WEXITSTATUS(c.status) == kExitOk && stopRequested(m_plan.block->control())));
            if (first.empty() && !explained)
                first = describeEnd(static_cast<int>(i), c.pid, c.status);
        }
        return first;
    }

    void finish(std::chrono::milliseconds grace) noexcept override
    {
        const auto deadline = std::chrono::steady_clock::now() + grace;
        for (;;) {
            bool all = true;
            for (Child& c : m_children)
                all = (c.reaped || tryReap(c)) && all;
            if (all)
                return;
            if (std::chrono::steady_clock::now() >= deadline)
                break;
            ::usleep(1000);
        }
        for (Child& c : m_children) {
            if (c.reaped)
                continue;
            ::kill(c.pid, SIGKILL);
            while (::waitpid(c.pid, &c.status, 0) < 0 && errno == EINTR) { }
            c.reaped = true;
        }
    }

private:
    struct Child {
        pid_t pid = -1;
        bool reaped = false;
        int status = 0;
    };

    static bool tryReap(Child& c) noexcept
    {
        const pid_t r = ::waitpid(c.pid, &c.status, WNOHANG);
        if (r == c.pid || (r < 0 && errno == ECHILD))
            c.reaped = true;
        return c.reaped;
    }

    LaunchPlan m_plan;
    std::vector<Child> m_children;
};

} // namespace

Expected<std::unique_ptr<TaskGroup>> startProcesses(const LaunchPlan& plan)
{
    auto group = std::make_unique<ProcessGroup>(plan);
    if (Status s = group->start(); !s)
        return s.error();
    return std::unique_ptr<TaskGroup>(std::move(group));
}

} // namespace ctxscope::run
