// SPDX-License-Identifier: MIT
// Kernel threads and PID 1 move only when asked: the rule on recorded stat texts of
// this 6.18 guest (kthreadd, rcu_preempt, ksoftirqd/0, a user task), then on the live kthreadd
// (TID 2) and PID 1. The live moves run only with CAP_SYS_NICE (the CI runs as root) and give
// kthreadd its CPUs back, also when a check fails.
#include "os/task_stat.h"
#include "programs/pin_guard.h"

#include "privilege.h"
#include "procfs_fixture.h"

#include "ctxscope/pin.h"
#include "ctxscope/placement.h"
#include "ctxscope/thread_affinity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace ctxscope;

namespace {

os::TaskStat recorded(const std::string& name)
{
    auto t = os::parseTaskStat(test::procfsFixture(name));
    EXPECT_TRUE(t.ok()) << name << ": " << (t ? "" : t.error().message);
    return t ? *t : os::TaskStat {};
}

PinGuard guardOf(const os::TaskStat& t, long pid, bool emptyCmdline, const std::string& parent)
{
    return pinGuard(pid, programs::isKernelThread(t, emptyCmdline, parent), t.comm);
}

// Moving `t` to `cpus` is refused with exactly `sentence` without the opt-in, allowed with it.
void expectRefusedUnlessAsked(
    const os::TaskStat& t, PinGuard guard, const std::vector<int>& cpus, const std::string& sentence)
{
    const auto refused = programs::checkMovable(t, guard, cpus, KernelThreads::Refuse);
    ASSERT_FALSE(refused.ok()) << sentence;
    EXPECT_EQ(refused.error().message, sentence);
    EXPECT_TRUE(programs::checkMovable(t, guard, cpus, KernelThreads::Move).ok()) << sentence;
}

} // namespace

TEST(PinGuard, KthreaddIsRefusedWithItsConsequenceUnlessAsked)
{
    const os::TaskStat t = recorded("task-stat-kthreadd-6.18.txt");
    const PinGuard guard = guardOf(t, t.pid, true, "");
    ASSERT_EQ(guard, PinGuard::Kthreadd);
    expectRefusedUnlessAsked(t, guard, { 0 },
        "thread 2 (kthreadd) creates every kernel thread: the kernel could then start new ones only from CPU 0, "
        "waiting whenever it is busy; add --kernel-threads to move it anyway");
}

TEST(PinGuard, AnyOtherKernelThreadIsRefusedUnlessAsked)
{
    const os::TaskStat t = recorded("task-stat-rcu-preempt-6.18.txt");
    const PinGuard guard = guardOf(t, t.pid, true, "kthreadd");
    ASSERT_EQ(guard, PinGuard::KernelThread);
    expectRefusedUnlessAsked(t, guard, { 0, 1 },
        "thread 15 (rcu_preempt) is a kernel thread: the kernel's own work it does would then run only on CPUs "
        "0-1, waiting whenever they are busy; add --kernel-threads to move it anyway");
}

// Without PF_KTHREAD in its flags, a task is still a kernel thread when its command line is
// empty and kthreadd is its parent; an empty command line alone (a zombie) is not enough.
TEST(PinGuard, AnEmptyCommandLineUnderKthreaddMarksAKernelThreadWithoutTheFlag)
{
    os::TaskStat t = recorded("task-stat-rcu-preempt-6.18.txt");
    t.flags &= ~std::uint64_t { 0x00200000 };
    ASSERT_FALSE(t.kernelThread());
    EXPECT_TRUE(programs::isKernelThread(t, true, "kthreadd"));
    EXPECT_FALSE(programs::isKernelThread(t, false, "kthreadd"));
    EXPECT_FALSE(programs::isKernelThread(t, true, "bash"));
    EXPECT_EQ(guardOf(t, t.pid, true, "kthreadd"), PinGuard::KernelThread);
    EXPECT_FALSE(programs::checkMovable(t, PinGuard::KernelThread, { 0 }, KernelThreads::Refuse).ok());
}

TEST(PinGuard, PidOneIsRefusedUnlessAskedAndOtherProgramsAreNot)
{
    os::TaskStat t = recorded("task-stat-kvm-6.18.txt"); // `cat`, a user task
    EXPECT_EQ(guardOf(t, t.pid, false, "bash"), PinGuard::None);
    EXPECT_TRUE(programs::checkMovable(t, PinGuard::None, { 0 }, KernelThreads::Refuse).ok());
    t.comm = "systemd";
    const PinGuard guard = guardOf(t, 1, false, "");
    ASSERT_EQ(guard, PinGuard::Init);
    expectRefusedUnlessAsked(t, guard, { 0 },
        "thread 11723 (systemd) belongs to PID 1, the init process: every program it starts from then on would "
        "inherit CPU 0 only; add --kernel-threads to move it anyway");
}

// The opt-in is for threads the kernel lets anyone move: a per-CPU one stays refused.
TEST(PinGuard, APerCpuKernelThreadStaysRefusedEvenWhenAsked)
{
    const os::TaskStat t = recorded("task-stat-ksoftirqd-6.18.txt");
    const PinGuard guard = guardOf(t, t.pid, true, "kthreadd");
    ASSERT_EQ(guard, PinGuard::KernelThread);
    const auto refused = programs::checkMovable(t, guard, { 0 }, KernelThreads::Move);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("(ksoftirqd/0) is a per-CPU kernel thread"), std::string::npos)
        << refused.error().message;
}

namespace {

std::string commOf(long pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string comm;
    std::getline(in, comm);
    return comm;
}

// Gives a thread back the CPUs it had when this was made, whatever the test did in between.
class RestoreAffinity {
public:
    explicit RestoreAffinity(long tid)
        : m_tid(static_cast<int>(tid))
        , m_original(threadAffinity(m_tid))
    {
    }
    ~RestoreAffinity()
    {
        if (threadAffinity(m_tid) != m_original) {
            EXPECT_TRUE(setThreadAffinity(m_tid, m_original).ok()) << "thread " << m_tid << " was not restored";
        }
    }
    RestoreAffinity(const RestoreAffinity&) = delete;
    RestoreAffinity& operator=(const RestoreAffinity&) = delete;
    const std::vector<int>& original() const { return m_original; }

private:
    int m_tid;
    std::vector<int> m_original;
};

} // namespace

TEST(PinGuardLive, ThisProcessIsNotGuarded)
{
    auto self = os::readTaskStat(::getpid(), ::getpid());
    ASSERT_TRUE(self.ok()) << self.error().message;
    EXPECT_FALSE(programs::isKernelThread(*self)); // its command line is read, and not empty
    EXPECT_EQ(programs::readPinGuard(*self, ::getpid()), ::getpid() == 1 ? PinGuard::Init : PinGuard::None);
}

// kthreadd, TID 2 on every Linux since 2.6.22 (not visible in a PID namespace of its own):
// refused without the opt-in, then with it moved to one CPU and given its CPUs back.
TEST(PinGuardLive, KthreaddMovesOnlyWithTheOptInAndIsRestored)
{
    if (commOf(2) != "kthreadd")
        GTEST_SKIP() << "TID 2 is not kthreadd here (a container?)";
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    RestoreAffinity restore(2);
    const std::vector<int> original = restore.original();
    const auto& allowed = topology->allowedPus();
    if (!std::all_of(original.begin(), original.end(),
            [&](int cpu) { return std::find(allowed.begin(), allowed.end(), cpu) != allowed.end(); }))
        GTEST_SKIP() << "kthreadd may run on CPUs this test may not use (a cpuset): its CPUs could not be given back";
    const std::vector<int> one { original.front() };
    const auto thread = pinThread(*topology, 2, one);
    const auto process = pinProcess(*topology, 2, one);
    ASSERT_FALSE(thread.ok());
    ASSERT_FALSE(process.ok());
    for (const std::string& message : { thread.error().message, process.error().message }) {
        EXPECT_NE(message.find("thread 2 (kthreadd) creates every kernel thread"), std::string::npos) << message;
        EXPECT_NE(message.find("--kernel-threads"), std::string::npos) << message;
    }
    EXPECT_EQ(threadAffinity(2), original) << "a refusal moved kthreadd";
    if (!test::hasSysNice())
        GTEST_SKIP() << "moving kthreadd needs CAP_SYS_NICE; the refusals were checked";
    const auto moved = pinThread(*topology, 2, one, KernelThreads::Move);
    ASSERT_TRUE(moved.ok()) << moved.error().message;
    EXPECT_EQ(moved->before, original);
    EXPECT_EQ(moved->after, one);
    EXPECT_EQ(threadAffinity(2), one);
    const auto back = pinProcess(*topology, 2, original, KernelThreads::Move);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->size(), 1U);
    EXPECT_EQ(back->front().before, one);
    EXPECT_EQ(threadAffinity(2), original);
}

// PID 1 (systemd, or a container's or VM's own init): refused before anything moves.
TEST(PinGuardLive, PidOneIsRefusedWithoutTheOptIn)
{
    if (::getpid() == 1)
        GTEST_SKIP() << "this test is PID 1 (a container's init): its own threads are never guarded";
    auto topology = Topology::loadLive();
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    const std::vector<int> before = threadAffinity(1);
    if (before.empty())
        GTEST_SKIP() << "PID 1's affinity cannot be read here";
    const std::vector<int> one { topology->allowedPus().front() };
    const auto thread = pinThread(*topology, 1, one);
    ASSERT_FALSE(thread.ok());
    EXPECT_NE(thread.error().message.find("belongs to PID 1, the init process"), std::string::npos)
        << thread.error().message;
    const auto process = pinProcess(*topology, 1, one);
    ASSERT_FALSE(process.ok());
    EXPECT_NE(process.error().message.find("belongs to PID 1"), std::string::npos) << process.error().message;
    EXPECT_EQ(threadAffinity(1), before);
}
