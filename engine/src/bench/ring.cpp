// SPDX-License-Identifier: MIT
// ring: one lap of a one-byte token around N tasks through N pipes, as lmbench's lat_ctx
// does. Task i writes pipe i and reads pipe i-1; task 0 starts each lap and ends it when
// the token comes back. `pipe` is the ring of two.
#include "bench/kernel.h"
#include "bench/working_set.h"
#include "os/sys.h"

#include <atomic>
#include <fcntl.h>
#include <vector>

namespace ctxscope::bench {

namespace {

constexpr char kToken = 't';
constexpr char kStopByte = 's';

struct Pipe {
    sys::UniqueFd read;
    sys::UniqueFd write;
};

class RingKernel final : public Kernel {
public:
    RingKernel(std::vector<Pipe> pipes, WorkingSet ws)
        : m_ws(std::move(ws))
        , m_pipes(std::move(pipes))
        , m_n(static_cast<int>(m_pipes.size()))
    {
    }

    OpStatus run(int task, std::uint64_t ops) noexcept override
    {
        const int in = inOf(task);
        const int out = m_pipes[static_cast<std::size_t>(task)].write.get();
        for (std::uint64_t i = 0; i < ops; ++i) {
            if (task == 0) {
                if (!put(out, kToken))
                    return OpStatus::PeerGone;
            }
            const OpStatus got = take(in, out);
            if (got != OpStatus::Ok)
                return got;
            m_ws.touch(task);
            if (task != 0 && !put(out, kToken))
                return OpStatus::PeerGone;
        }
        return OpStatus::Ok;
    }

    void interrupt() noexcept override
    {
        // Once: every pipe gets one stop byte, enough to wake whoever reads it.
        if (m_interrupted.exchange(true))
            return;
        for (const Pipe& p : m_pipes)
            put(p.write.get(), kStopByte);
    }

    std::size_t fdsOf(int task, std::span<int> out) const noexcept override
    {
        if (out.size() < 2)
            return 0;
        out[0] = inOf(task);
        out[1] = m_pipes[static_cast<std::size_t>(task)].write.get();
        return 2;
    }

private:
    int inOf(int task) const noexcept { return m_pipes[static_cast<std::size_t>((task + m_n - 1) % m_n)].read.get(); }

    static bool put(int fd, char byte) noexcept
    {
        for (;;) {
            const ssize_t n = ::write(fd, &byte, 1);
            if (n == 1)
                return true;
            if (n < 0 && errno == EINTR)
                continue;
            return false;
        }
    }

    // A stop byte is passed on, so it travels the whole ring even where the parent no
    // longer holds the pipe.
    static OpStatus take(int in, int out) noexcept
    {
        char byte = 0;
        for (;;) {
            const ssize_t n = ::read(in, &byte, 1);
            if (n == 1)
                break;
            if (n < 0 && errno == EINTR)
                continue;
            return OpStatus::PeerGone;
        }
        if (byte == kToken)
            return OpStatus::Ok;
        put(out, kStopByte);
        return OpStatus::Stopped;
    }

    WorkingSet m_ws; // each task's own buffer, touched after it takes the token
    std::vector<Pipe> m_pipes;
    int m_n;
    std::atomic<bool> m_interrupted { false };
};

} // namespace

Expected<std::unique_ptr<Kernel>> makeRingKernel(const KernelParams& params)
{
    std::vector<Pipe> pipes;
    pipes.reserve(static_cast<std::size_t>(params.tasks));
    for (int i = 0; i < params.tasks; ++i) {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            return makeError("could not create pipe " + std::to_string(i + 1) + " of " + std::to_string(params.tasks)
                + ": " + sys::errnoText(errno));
        pipes.push_back(Pipe { sys::UniqueFd(fds[0]), sys::UniqueFd(fds[1]) });
    }
    auto ws = WorkingSet::create(params.tasks, params.wsBytes);
    if (!ws)
        return ws.error();
    return std::unique_ptr<Kernel>(std::make_unique<RingKernel>(std::move(pipes), std::move(*ws)));
}

} // namespace ctxscope::bench
