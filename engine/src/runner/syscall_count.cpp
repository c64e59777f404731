// SPDX-License-Identifier: MIT
#include "runner/syscall_count.h"

#include "os/sys.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <fmt/format.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <map>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <system_error>
#include <thread>

namespace ctxscope::run {

namespace {

// The marker the helper makes before and after the ops: a prctl option no kernel has. The
// supervisor answers it itself, so it never reaches the kernel.
constexpr unsigned long kMarker = 0x43545853; // "CTXS"
constexpr unsigned long kBegin = 1;
constexpr unsigned long kEnd = 2;

// How long the supervisor waits for the next notification before it gives up on a helper
// that hangs (the ops of one pass take milliseconds).
constexpr int kPollMs = 5000;

struct Shared {
    std::atomic<int> listener { -1 };
    std::atomic<int> installError { 0 }; // errno of a refused filter
};

sock_filter statement(unsigned short code, unsigned k) { return sock_filter { code, 0, 0, k }; }
sock_filter jumpIfEqual(unsigned k, unsigned char ifTrue, unsigned char ifFalse)
{
    return sock_filter { BPF_JMP | BPF_JEQ | BPF_K, ifTrue, ifFalse, k };
}

// Every system call of the filtered thread goes to the supervisor, except the two that end
// it (so the thread can always leave, even once nobody listens).
int installFilter()
{
    std::array<sock_filter, 5> code { {
        statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        jumpIfEqual(SYS_exit, 2, 0),
        jumpIfEqual(SYS_exit_group, 1, 0),
        statement(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    } };
    const sock_fprog program { static_cast<unsigned short>(code.size()), code.data() };
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return static_cast<int>(
        ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program));
}

void helperBody(bench::Kernel& kernel, std::uint64_t ops, Shared& shared) noexcept
{
    const int fd = installFilter();
    if (fd < 0) {
        shared.installError.store(errno != 0 ? errno : EINVAL, std::memory_order_release);
        return;
    }
    // From here every call waits for the supervisor, which polls for the listener.
    shared.listener.store(fd, std::memory_order_release);
    ::syscall(SYS_prctl, kMarker, kBegin, 0, 0, 0);
    kernel.run(0, ops);
    ::syscall(SYS_prctl, kMarker, kEnd, 0, 0, 0);
}

struct Tally {
    std::map<long, std::uint64_t> byNumber;
    bool begun = false;
    bool ended = false;
    std::string failure;
};

bool isMarker(const seccomp_notif& n, unsigned long which)
{
    return n.data.nr == SYS_prctl && n.data.args[0] == kMarker && n.data.args[1] == which;
}

// Answers every notification until the helper has left (POLLHUP once no task uses the
// filter) or hangs.
void supervise(int fd, Tally& tally)
{
    for (;;) {
        pollfd p { fd, POLLIN, 0 };
        const int ready = ::poll(&p, 1, kPollMs);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            tally.failure = "the counting thread stopped answering";
            return;
        }
        if (!(p.revents & POLLIN))
            return; // POLLHUP: the helper is gone
        seccomp_notif request;
        std::memset(&request, 0, sizeof request);
        if (::ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) {
            if (errno == EINTR || errno == ENOENT)
                continue;
            tally.failure = "reading a notification failed: " + sys::errnoText(errno);
            return;
        }
        seccomp_notif_resp response;
        std::memset(&response, 0, sizeof response);
        response.id = request.id;
        if (isMarker(request, kBegin)) {
            tally.begun = true;
        } else if (isMarker(request, kEnd)) {
            tally.ended = true;
        } else {
            if (tally.begun && !tally.ended)
                ++tally.byNumber[request.data.nr];
            response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        }
        // ENOENT: the call was interrupted meanwhile; it will come again.
        ::ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &response);
    }
}

std::string refusal(int err)
{
    return fmt::format("System calls were not counted: the kernel refused a seccomp user-notification filter "
                       "({}; it needs Linux 5.5 or later and seccomp allowed in this container).",
        sys::errnoText(err));
}

} // namespace

std::string syscallName(long number)
{
    static const std::map<long, std::string_view> names {
        { SYS_rt_sigprocmask, "rt_sigprocmask" },
        { SYS_getppid, "getppid" },
        { SYS_getpid, "getpid" },
        { SYS_gettid, "gettid" },
        { SYS_clock_gettime, "clock_gettime" },
        { SYS_futex, "futex" },
        { SYS_read, "read" },
        { SYS_write, "write" },
        { SYS_sched_yield, "sched_yield" },
        { SYS_mmap, "mmap" },
        { SYS_munmap, "munmap" },
        { SYS_madvise, "madvise" },
        { SYS_rt_sigaction, "rt_sigaction" },
        { SYS_sigaltstack, "sigaltstack" },
        { SYS_prctl, "prctl" },
    };
    const auto it = names.find(number);
    return it != names.end() ? std::string(it->second) : "syscall " + std::to_string(number);
}

SyscallCheck countSyscalls(bench::Kernel& kernel, std::uint64_t ops, double claimedPerOp)
{
    SyscallCheck check;
    check.claimed = claimedPerOp;
    check.ops = ops;
    Shared shared;
    Tally tally;
    std::thread helper;
    try {
        helper = std::thread([&] { helperBody(kernel, ops, shared); });
    } catch (const std::system_error& e) {
        check.how = std::string("System calls were not counted: no thread could be started (") + e.what() + ").";
        return check;
    }
    // The helper publishes the listener or the refusal without a system call of its own.
    int fd = -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kPollMs);
    while ((fd = shared.listener.load(std::memory_order_acquire)) < 0
        && shared.installError.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    if (fd >= 0) {
        supervise(fd, tally);
        // Closing the listener fails any call still waiting (with ENOSYS), so the helper
        // cannot hang on a supervisor that stopped answering.
        ::close(fd);
    }
    helper.join();
    if (const int err = shared.installError.load(); err != 0) {
        check.how = refusal(err);
        return check;
    }
    if (fd < 0 || !tally.failure.empty() || !tally.begun || !tally.ended) {
        check.how = "System calls were not counted: "
            + (tally.failure.empty() ? std::string("the counting thread did not finish") : tally.failure) + ".";
        return check;
    }
    std::uint64_t total = 0;
    for (const auto& [number, count] : tally.byNumber) {
        total += count;
        check.calls.push_back(
            SyscallCount { syscallName(number), static_cast<double>(count) / static_cast<double>(ops) });
    }
    std::stable_sort(check.calls.begin(), check.calls.end(),
        [](const SyscallCount& a, const SyscallCount& b) { return a.perOp > b.perOp; });
    check.perOp = static_cast<double>(total) / static_cast<double>(ops);
    std::vector<std::string> calls;
    for (const SyscallCount& c : check.calls)
        calls.push_back(fmt::format("{} {:.2f}", c.name, c.perOp));
    const std::string list = fmt::format("{}", fmt::join(calls, ", "));
    check.how = fmt::format("Counted {:.2f} system calls per op{} over {} ops: a seccomp filter on a helper thread "
                            "reported each call the ops made.",
        *check.perOp, list.empty() ? "" : " (" + list + ")", ops);
    if (tally.byNumber.count(SYS_rt_sigprocmask) > 0)
        check.how += " rt_sigprocmask is how swapcontext saves and restores the signal mask: a trip into the kernel "
                     "on every swap.";
    return check;
}

} // namespace ctxscope::run
