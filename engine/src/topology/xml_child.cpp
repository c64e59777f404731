// SPDX-License-Identifier: MIT
// Debian's libhwloc 2.9 crashes on some malformed XML (a missing complete_cpuset, deep nesting
// with its own parser, ...). Every XML is therefore loaded once in a throw-away child process
// with resource limits before this process loads it.
#include "topology_impl.h"
#include "xml_import.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ctxscope {

namespace {

constexpr rlim_t kChildCpuSeconds = 2;
constexpr rlim_t kChildAddressSpace = rlim_t { 1 } << 30;
constexpr rlim_t kChildStack = rlim_t { 8 } << 20;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr auto kChildWallLimit = std::chrono::seconds(20); // sanitizers slow the child down
#else
constexpr auto kChildWallLimit = std::chrono::seconds(5);
#endif
constexpr std::size_t kMaxCaptured = 4096;

enum ChildExit : int {
    kParsed = 0,
    kInitFailed = 10,
    kSetFailed = 11,
    kLoadFailed = 12,
    kNoPus = 13,
    kTooManyPus = 14
};

class Fd {
public:
    explicit Fd(int fd = -1)
        : m_fd(fd)
    {
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    int get() const { return m_fd; }
    void reset()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    int m_fd;
};

// A forked child that is killed and reaped on every path out of the parent's scope, so
// no zombie and no stray process outlives the call.
class Child {
public:
    explicit Child(pid_t pid)
        : m_pid(pid)
    {
    }
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    ~Child()
    {
        if (m_pid <= 0)
            return;
        ::kill(m_pid, SIGKILL);
        while (::waitpid(m_pid, &m_status, 0) < 0 && errno == EINTR) { }
    }
    // True once the child has ended and been reaped; status() is then its wait status,
    // or -1 when it was reaped elsewhere (SIGCHLD ignored).
    bool poll()
    {
        const pid_t r = ::waitpid(m_pid, &m_status, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR))
            return false;
        if (r < 0)
            m_status = -1;
        m_pid = 0;
        return true;
    }
    int status() const { return m_status; }

private:
    pid_t m_pid;
    int m_status = 0;
};

[[noreturn]] void loadAndExit(const std::string& xml, int outFd)
{
    ::dup2(outFd, STDOUT_FILENO);
    ::dup2(outFd, STDERR_FILENO);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    // Sanitizers reserve terabytes of address space; only limit it in normal builds.
    const rlimit as { kChildAddressSpace, kChildAddressSpace };
    ::setrlimit(RLIMIT_AS, &as);
#endif
    // Die of the signal itself: crash handlers inherited from the parent (a sanitizer's,
    // a desktop's crash reporter) must not run, report or linger for hwloc's crash.
    for (int sig : { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU })
        ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const rlimit cpu { kChildCpuSeconds, kChildCpuSeconds + 1 };
    ::setrlimit(RLIMIT_CPU, &cpu);
    // hwloc's own XML parser recurses per nesting level: with an unlimited stack a deep
    // file would eat memory instead of failing.
    rlimit stack {};
    if (::getrlimit(RLIMIT_STACK, &stack) == 0 && (stack.rlim_cur == RLIM_INFINITY || stack.rlim_cur > kChildStack)) {
        stack.rlim_cur = kChildStack;
        ::setrlimit(RLIMIT_STACK, &stack);
    }
    const rlimit core { 0, 0 };
    ::setrlimit(RLIMIT_CORE, &core);
    auto handle = initHandle();
    if (!handle)
        ::_exit(kInitFailed);
    hwloc_topology_t t = handle->release(); // never destroyed: _exit frees everything
    if (setXmlBuffer(t, xml) != 0)
        ::_exit(kSetFailed);
    if (hwloc_topology_load(t) != 0)
        ::_exit(kLoadFailed);
    const int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    ::_exit(pus <= 0 ? kNoPus : pus > kMaxPus ? kTooManyPus : kParsed);
}

void drain(int fd, std::string& out, bool& eof)
{
    char buffer[1024];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n > 0) {
            out.append(
                buffer, std::min(static_cast<std::size_t>(n), kMaxCaptured - std::min(kMaxCaptured, out.size())));
            continue;
        }
        if (n == 0)
            eof = true;
        if (n == 0 || errno != EINTR)
            return;
    }
}

// The first line of hwloc's (or libxml2's) complaint that says something, without the
// banner stars and the file name prefix.
std::string firstComplaint(const std::string& output)
{
    std::size_t pos = 0;
    while (pos < output.size()) {
        std::size_t end = output.find('\n', pos);
        end = end == std::string::npos ? output.size() : end;
        std::string_view line(output.data() + pos, end - pos);
        pos = end + 1;
        while (!line.empty() && (line.front() == '*' || line.front() == ' '))
            line.remove_prefix(1);
        while (!line.empty() && (line.back() == '*' || line.back() == ' ' || line.back() == '\r'))
            line.remove_suffix(1);
        bool hasLetter = false;
        for (char c : line)
            hasLetter = hasLetter || std::isalpha(static_cast<unsigned char>(c)) != 0;
        if (!hasLetter)
            continue;
        if (line.rfind("xmlbuffer:", 0) == 0)
            line.remove_prefix(10);
        while (!line.empty() && line.front() == ' ')
            line.remove_prefix(1);
        return std::string(line.substr(0, 200));
    }
    return {};
}

Status verdict(int status, const std::string& output)
{
    const std::string said = firstComplaint(output);
    const std::string because = said.empty() ? std::string() : ": " + said;
    if (status == -1)
        return makeError("the XML checker's result was lost (SIGCHLD is ignored in this process)");
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        if (sig == SIGXCPU || sig == SIGKILL) // the soft, then the hard CPU limit
            return makeError("hwloc needed more than " + std::to_string(kChildCpuSeconds)
                + " s of CPU time to read the XML topology; refused");
        return makeError(std::string("hwloc crashed reading the XML topology (") + strsignal(sig)
            + "); the file is malformed" + (said.empty() ? std::string() : " (hwloc said: " + said + ")"));
    }
    switch (WEXITSTATUS(status)) {
    case kParsed:
        if (!said.empty())
            return makeError("hwloc reports a problem in the XML topology" + because);
        return {};
    case kNoPus:
        return makeError("the XML topology has no processing units (PU objects)");
    case kTooManyPus:
        return makeError("the XML topology has more than " + std::to_string(kMaxPus) + " PUs; refused");
    case kSetFailed:
    case kLoadFailed:
        return makeError("hwloc could not parse the XML topology"
            + (said.empty() ? " (malformed or not an hwloc export)" : because));
    case kInitFailed:
        return makeError("the XML checker could not start hwloc");
    default: // e.g. a sanitizer's report of a crash, or an allocation failure under the limit
        return makeError("hwloc failed reading the XML topology (checker exit " + std::to_string(WEXITSTATUS(status))
            + "); the file is malformed");
    }
}

} // namespace

Status validateXmlInChild(const std::string& xml)
{
    // Keep hwloc's components (plugins) loaded in this process while forking, so the child
    // does not dlopen anything: that is not safe after fork() in a threaded process.
    auto keepComponents = initHandle();
    if (!keepComponents)
        return keepComponents.error();
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return makeError(std::string("could not start the XML checker: ") + std::strerror(errno));
    Fd readEnd(fds[0]);
    Fd writeEnd(fds[1]);
    // Output this process has buffered would be copied into the child, and come back through
    // the pipe as hwloc's complaint if anything there flushes it (TSan's _exit does).
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0)
        return makeError(std::string("could not start the XML checker: ") + std::strerror(errno));
    if (pid == 0)
        loadAndExit(xml, writeEnd.get());
    Child child(pid);
    writeEnd.reset();
    ::fcntl(readEnd.get(), F_SETFL, O_NONBLOCK);

    // Wait for the child's exit, not for end of file: a process forked meanwhile by another
    // thread may hold the pipe open.
    const auto deadline = std::chrono::steady_clock::now() + kChildWallLimit;
    std::string output;
    bool eof = false;
    for (;;) {
        if (eof) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        } else {
            pollfd p { readEnd.get(), POLLIN, 0 };
            ::poll(&p, 1, 10);
        }
        drain(readEnd.get(), output, eof);
        if (child.poll())
            break;
        if (std::chrono::steady_clock::now() > deadline)
            return makeError("hwloc took longer than "
                + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kChildWallLimit).count())
                + " s to read the XML topology; refused");
    }
    drain(readEnd.get(), output, eof);
    return verdict(child.status(), output);
}

} // namespace ctxscope
