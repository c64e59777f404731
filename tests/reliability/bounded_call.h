// SPDX-License-Identifier: MIT
// Runs a reader in a forked child so a test can see what it costs: the time it took and how
// much its resident memory grew (the child's peak minus what it inherited).
#pragma once

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ctxscope::test {

struct BoundedCall {
    bool exitedNormally = false; // false: the child crashed (a signal)
    int signal = 0;
    bool accepted = false; // what the call returned
    std::string message; // its error message, when refused
    double seconds = 0; // wall clock
    double cpuSeconds = 0; // user + system: what the call cost, however loaded the machine
    long rssGrowthKiB = 0;
};

inline long residentKiB()
{
    std::ifstream in("/proc/self/status");
    std::string key;
    long value = 0;
    while (in >> key) {
        if (key == "VmRSS:") {
            in >> value;
            return value;
        }
        in.ignore(1 << 16, '\n');
    }
    return 0;
}

// `call` returns "" when it accepted the input, else the error message.
inline BoundedCall boundedCall(const std::function<std::string()>& call)
{
    BoundedCall out;
    int link[2];
    if (::pipe(link) != 0)
        return out;
    const long before = residentKiB();
    std::fflush(nullptr); // the child must not inherit (and repeat) buffered output
    const auto started = std::chrono::steady_clock::now();
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(link[0]);
        const std::string message = call();
        const std::string reply = (message.empty() ? "1" : "0") + message;
        const auto written = ::write(link[1], reply.data(), reply.size());
        ::_exit(written == static_cast<ssize_t>(reply.size()) ? 0 : 1);
    }
    ::close(link[1]);
    std::string reply;
    char buf[4096];
    for (ssize_t n; (n = ::read(link[0], buf, sizeof buf)) > 0;)
        reply.append(buf, static_cast<std::size_t>(n));
    ::close(link[0]);
    int status = 0;
    rusage usage {};
    ::wait4(child, &status, 0, &usage);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    out.exitedNormally = WIFEXITED(status);
    out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    out.accepted = !reply.empty() && reply[0] == '1';
    out.message = reply.empty() ? std::string() : reply.substr(1);
    out.rssGrowthKiB = usage.ru_maxrss - before;
    const auto toSeconds
        = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    out.cpuSeconds = toSeconds(usage.ru_utime) + toSeconds(usage.ru_stime);
    return out;
}

} // namespace ctxscope::test
