// SPDX-License-Identifier: MIT
#include "survey_hosts.h"

#include "commands.h"
#include "interrupt.h"

#include "ctxscope/machine_compare.h"
#include "ctxscope/results_file.h"
#include "ctxscope/ssh_command.h"
#include "ctxscope/units.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace ctxscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Job {
    std::string host;
    std::string card; // the final path
    std::string partial; // written while it runs
    pid_t pid = -1;
    int errFd = -1;
    int inFd = -1; // with --push: ssh's stdin, the bundle and then held open until ssh ends
    std::thread writer; // with --push: writes the bundle into inFd
    std::string pending; // stderr not yet ending in a newline
    std::string lastLine; // the last line it wrote on stderr: ssh's reason when it fails
    Clock::time_point start;
    bool exited = false;
    int status = 0;
};

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Writes all of `bytes` to fd; stops at an error (ssh ended: the host said why on stderr).
void writeAll(int fd, std::shared_ptr<const std::string> bytes)
{
    std::size_t done = 0;
    while (done < bytes->size()) {
        const ssize_t n = ::write(fd, bytes->data() + done, bytes->size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += static_cast<std::size_t>(n);
    }
}

// Starts the job's ssh with stdout into its partial card and stderr into a pipe, and with
// --push (`push` set) its stdin from a pipe that a thread fills with the bundle; an error
// message when it could not be started.
std::string start(Job& job, const std::vector<std::string>& argv, const ssh::PushBundle* push)
{
    const int out = ::open(job.partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0)
        return fmt::format("cannot write {}: {}", job.partial, std::strerror(errno));
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        ::close(out);
        return fmt::format("no pipe: {}", std::strerror(errno));
    }
    int inFds[2] = { -1, -1 };
    if (push && ::pipe2(inFds, O_CLOEXEC) != 0) {
        ::close(out);
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
        return fmt::format("no pipe: {}", std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (push)
        posix_spawn_file_actions_adddup2(&actions, inFds[0], 0);
    else
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out, 1);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // The interrupt watcher blocks SIGINT and SIGTERM in this process: ssh gets them back.
    sigset_t none;
    sigemptyset(&none);
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGPIPE); // ignored here while the bundle is written
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &stops);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int spawned = posix_spawnp(&job.pid, args[0], &actions, &attributes, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(out);
    ::close(pipeFds[1]);
    if (push)
        ::close(inFds[0]);
    if (spawned != 0) {
        ::close(pipeFds[0]);
        if (push)
            ::close(inFds[1]);
        return fmt::format("cannot run {}: {}", argv[0], std::strerror(spawned));
    }
    job.errFd = pipeFds[0];
    if (push) {
        job.inFd = inFds[1];
        job.writer = std::thread(writeAll, job.inFd, push->bytes);
    }
    job.start = Clock::now();
    return {};
}

// Reads what the job wrote on stderr and prints its whole lines, each after the host's name.
void drain(Job& job, bool toEnd)
{
    // To the end: after the process exited, whatever is left (non-blocking, so a helper that
    // kept the pipe open, such as an ssh control master, cannot hang us).
    if (toEnd)
        ::fcntl(job.errFd, F_SETFL, O_NONBLOCK);
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(job.errFd, buffer, sizeof buffer);
        if (n > 0) {
            job.pending.append(buffer, static_cast<std::size_t>(n));
            if (toEnd)
                continue;
            break;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || toEnd) {
            ::close(job.errFd);
            job.errFd = -1;
        }
        break;
    }
    std::size_t newline = 0;
    while ((newline = job.pending.find('\n')) != std::string::npos || (job.errFd < 0 && !job.pending.empty())) {
        std::string line = job.pending.substr(0, newline);
        job.pending.erase(0, newline == std::string::npos ? std::string::npos : newline + 1);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty())
            continue;
        fmt::print(stderr, "{}: {}\n", job.host, line);
        job.lastLine = std::move(line);
    }
}

// Whether the finished job's card is one (a remote that printed something else is a failure).
std::string checkCard(const Job& job)
{
    auto card = readMachineCard(job.partial);
    if (!card)
        return card.error().message;
    return card->kind == "survey" ? std::string() : std::string("the host sent a results file without a survey block");
}

std::string trim(std::string s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    std::size_t first = 0;
    while (first < s.size() && std::isspace(static_cast<unsigned char>(s[first])))
        ++first;
    return s.substr(first);
}

} // namespace

std::optional<std::string> hostProblem(const std::string& host)
{
    const auto problem = ssh::hostProblem(host);
    if (!problem)
        return std::nullopt;
    switch (*problem) {
    case ssh::HostProblem::Empty:
        return std::string("a host name is empty");
    case ssh::HostProblem::LooksLikeOption:
        return "the host '" + host + "' starts with '-': ssh would read it as an option";
    case ssh::HostProblem::BlankOrControl:
        break;
    }
    return "the host '" + host + "' holds a blank or a control character";
}

std::string cardFileFor(const std::string& host)
{
    std::string name = host;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '@' && c != '-')
            c = '_';
    if (name.front() == '.')
        name.front() = '_';
    return name + ".json";
}

std::vector<std::string> hostsFromText(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        line = trim(line);
        if (!line.empty() && line.front() != '#')
            out.push_back(line);
    }
    return out;
}

int surveyHosts(const HostsOptions& o)
{
    std::vector<std::string> hosts;
    for (const std::string& h : o.hosts) {
        if (auto problem = hostProblem(h))
            return badInput(*problem);
        if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) // a host is never surveyed twice at once
            hosts.push_back(h);
    }
    if (hosts.empty())
        return badInput("--hosts and --hosts-file name no host");
    std::error_code ec;
    std::filesystem::create_directories(o.outDir, ec);
    if (!std::filesystem::is_directory(o.outDir))
        return badInput("--out " + o.outDir + " is not a directory that can be made");
    for (std::size_t i = 0; i < hosts.size(); ++i)
        for (std::size_t j = i + 1; j < hosts.size(); ++j)
            if (cardFileFor(hosts[i]) == cardFileFor(hosts[j]))
                return badInput("the hosts '" + hosts[i] + "' and '" + hosts[j] + "' would write the same card "
                    + cardFileFor(hosts[i]));
    const char* env = std::getenv("CTXSCOPE_SSH_COMMAND");
    const std::string sshCommand = env ? env : "";
    const ssh::PushBundle* push = o.push ? &*o.push : nullptr;
    const std::string remote = push
        ? "sh -c "
            + ssh::shellQuote(ssh::pushScript(
                *push, fmt::format("survey --budget {} --json -", o.budgetSeconds), ssh::PushedStdin::Watched))
        : ssh::shellQuote(o.remoteCli) + fmt::format(" survey --budget {} --json -", o.budgetSeconds);
    // A host that refused the bundle closes the pipe it is written into: an error, not a signal.
    struct sigaction ignore { };
    struct sigaction previous { };
    ignore.sa_handler = SIG_IGN;
    if (push)
        ::sigaction(SIGPIPE, &ignore, &previous);
    const std::size_t parallel = o.parallel > 0 ? static_cast<std::size_t>(o.parallel) : hosts.size();
    fmt::print(stderr,
        "ctxscope-cli: surveying {} host{}, {} at a time, each within {}{} (Ctrl-C keeps the finished "
        "cards)\n",
        hosts.size(), hosts.size() == 1 ? "" : "s", std::min(parallel, hosts.size()),
        formatDuration(o.budgetSeconds * 1e9),
        push ? fmt::format(", pushing the {} bundle ({} bytes, sha256 {}) to a temporary directory on each", push->arch,
            push->bytes->size(), push->sha256.substr(0, 12))
             : std::string());
    InterruptScope interrupt;
    std::vector<Job> running;
    std::size_t next = 0;
    int succeeded = 0;
    int failed = 0;
    const auto finish = [&](Job& job) {
        if (job.writer.joinable())
            job.writer.join(); // ssh ended: the write is done or failed
        if (job.inFd >= 0)
            ::close(job.inFd);
        if (job.errFd >= 0)
            drain(job, true);
        std::string why;
        if (WIFEXITED(job.status) && WEXITSTATUS(job.status) == 0) {
            why = checkCard(job);
        } else if (interrupt.requested()) {
            why = "interrupted";
        } else {
            const int code = WIFEXITED(job.status) ? WEXITSTATUS(job.status) : 128 + WTERMSIG(job.status);
            why = job.lastLine.empty() ? fmt::format("exit {}", code) : fmt::format("{} (exit {})", job.lastLine, code);
        }
        if (why.empty() && std::rename(job.partial.c_str(), job.card.c_str()) != 0)
            why = fmt::format("cannot rename {} to {}: {}", job.partial, job.card, std::strerror(errno));
        if (why.empty()) {
            ++succeeded;
            fmt::print(
                stderr, "{}: done in {}: {}\n", job.host, formatDuration(secondsSince(job.start) * 1e9), job.card);
        } else {
            ++failed;
            std::remove(job.partial.c_str());
            fmt::print(stderr, "{}: failed: {}\n", job.host, why);
        }
    };
    while ((next < hosts.size() && !interrupt.requested()) || !running.empty()) {
        while (next < hosts.size() && running.size() < parallel && !interrupt.requested()) {
            Job job;
            job.host = hosts[next++];
            job.card = (std::filesystem::path(o.outDir) / cardFileFor(job.host)).string();
            job.partial = job.card + ".part";
            fmt::print(stderr, "{}: started\n", job.host);
            if (const std::string error = start(job, ssh::sshArguments(job.host, remote, sshCommand), push);
                !error.empty()) {
                ++failed;
                fmt::print(stderr, "{}: failed: {}\n", job.host, error);
                continue;
            }
            running.push_back(std::move(job));
        }
        if (interrupt.requested())
            for (Job& job : running)
                if (!job.exited)
                    ::kill(job.pid, SIGTERM);
        std::vector<pollfd> fds;
        for (const Job& job : running)
            if (job.errFd >= 0)
                fds.push_back({ job.errFd, POLLIN, 0 });
        ::poll(fds.data(), fds.size(), 200);
        for (Job& job : running)
            if (job.errFd >= 0) {
                pollfd one { job.errFd, POLLIN, 0 };
                if (::poll(&one, 1, 0) > 0)
                    drain(job, false);
            }
        for (auto it = running.begin(); it != running.end();) {
            if (!it->exited && ::waitpid(it->pid, &it->status, WNOHANG) == it->pid)
                it->exited = true;
            if (it->exited) {
                finish(*it);
                it = running.erase(it);
            } else {
                ++it;
            }
        }
    }
    if (push)
        ::sigaction(SIGPIPE, &previous, nullptr);
    const int notStarted = static_cast<int>(hosts.size() - next);
    fmt::print(stderr, "ctxscope-cli: {} of {} host{} surveyed{}{}\n", succeeded, hosts.size(),
        hosts.size() == 1 ? "" : "s", failed ? fmt::format(", {} failed", failed) : std::string(),
        notStarted ? fmt::format(", {} not started", notStarted) : std::string());
    if (interrupt.requested())
        return kInterrupted;
    return failed ? kMeasurementFailed : kOk;
}

} // namespace ctxscope::cli
