// SPDX-License-Identifier: MIT
// A real `ctxscope-cli worker` started on two pipes, as the desktop app starts it: the test
// writes its input, reads its output line by line, and closes either end when it likes.
#pragma once

#include "test_paths.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace ctxscope::test {

class WorkerProcess {
public:
    WorkerProcess()
    {
        int in[2];
        int out[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
            return;
        m_pid = ::fork();
        if (m_pid == 0) {
            ::dup2(in[0], 0);
            ::dup2(out[1], 1);
            ::execl(ctxscope::test::cliPath(), "ctxscope-cli", "worker", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        m_in = in[1];
        m_out = out[0];
    }
    ~WorkerProcess()
    {
        closeInput();
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
        closeOutput();
    }
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    int pid() const { return m_pid; }

    bool send(const std::string& line)
    {
        const std::string all = line + "\n";
        std::size_t done = 0;
        while (done < all.size()) {
            const ssize_t n = ::write(m_in, all.data() + done, all.size() - done);
            if (n <= 0)
                return false;
            done += static_cast<std::size_t>(n);
        }
        return true;
    }
    // The next line, or nullopt after the time limit.
    std::optional<std::string> receive(std::chrono::milliseconds limit)
    {
        const auto until = std::chrono::steady_clock::now() + limit;
        for (;;) {
            if (auto nl = m_buffer.find('\n'); nl != std::string::npos) {
                std::string line = m_buffer.substr(0, nl);
                m_buffer.erase(0, nl + 1);
                return line;
            }
            const auto left
                = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
            pollfd p { m_out, POLLIN, 0 };
            if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0)
                return std::nullopt;
            char buf[65536];
            const ssize_t n = ::read(m_out, buf, sizeof buf);
            if (n <= 0)
                return std::nullopt;
            m_buffer.append(buf, static_cast<std::size_t>(n));
        }
    }
    long peakResidentKiB() const
    {
        std::ifstream in("/proc/" + std::to_string(m_pid) + "/status");
        std::string key;
        long value = 0;
        while (in >> key)
            if (key == "VmHWM:" && in >> value)
                return value;
        return 0;
    }
    // The controller's ends of the pipes: the worker's input ends, its output has no reader.
    void closeInput()
    {
        if (m_in >= 0)
            ::close(m_in);
        m_in = -1;
    }
    void closeOutput()
    {
        if (m_out >= 0)
            ::close(m_out);
        m_out = -1;
    }
    int wait()
    {
        int status = 0;
        ::waitpid(m_pid, &status, 0);
        m_pid = -1;
        return status;
    }
    // The worker's exit status once it has exited within the limit, else nullopt.
    std::optional<int> waitFor(std::chrono::milliseconds limit)
    {
        const auto until = std::chrono::steady_clock::now() + limit;
        for (;;) {
            int status = 0;
            if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                m_pid = -1;
                return status;
            }
            if (std::chrono::steady_clock::now() >= until)
                return std::nullopt;
            ::usleep(1000);
        }
    }

private:
    pid_t m_pid = -1;
    int m_in = -1;
    int m_out = -1;
    std::string m_buffer;
};

} // namespace ctxscope::test
