// SPDX-License-Identifier: MIT
// Worker protocol garbage: random bytes, mangled commands, huge numbers, absurd nesting and
// over-long lines. The parser refuses each with a message; the real worker answers each with
// an error line within 2 s, keeps its memory bounded and still works afterwards.
#include "ctxscope/protocol.h"

#include "bounded_call.h"
#include "seed.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <poll.h>
#include <random>
#include <sys/wait.h>

using namespace ctxscope;
using namespace ctxscope::protocol;

namespace {

const std::string kRun
    = R"({"type":"run","id":7,"spec":{"bench":"futex","mode":"thread","cpus":[0,0],"iterations":100}})";

// Lines no worker may accept.
std::vector<std::string> garbageLines(std::mt19937& random)
{
    std::vector<std::string> out = {
        "",
        "\x01\x02\x03",
        std::string("{\"type\":\"run\",\0\"id\":1}", 22),
        "\xff\xfe{\"type\":\"cancel\",\"id\":1}",
        "{\"type\":\"\xc3\x28\"}", // invalid UTF-8
        R"({"type":"run","id":18446744073709551616,"spec":{"bench":"futex"}})",
        R"({"type":"run","id":1e999,"spec":{"bench":"futex"}})",
        R"({"type":"run","id":1,"spec":{"bench":"futex","cpus":[1e300,0]}})",
        R"({"type":"run","id":1,"spec":{"bench":"futex","cpus":[99999999999999999999,0]}})",
        R"({"type":"run","id":1,"spec":{"bench":"futex","iterations":-5}})",
        R"({"type":"run","id":1,"spec":{"bench":"futex","min_time":"long"}})",
        R"({"type":"cancel","id":"7"})",
        R"({"type":["run"]})",
        std::string(kMaxLineBytes / 2, '['),
        "{\"type\":\"run\",\"id\":1,\"spec\":" + std::string(100'000, '{'),
        std::string(kMaxLineBytes + 10, 'x'),
    };
    // Every prefix of a good command is broken JSON.
    for (std::size_t cut = 1; cut < kRun.size(); cut += 3)
        out.push_back(kRun.substr(0, cut));
    std::uniform_int_distribution<int> byte(1, 255);
    for (int i = 0; i < 200; ++i) {
        std::string line(static_cast<std::size_t>(byte(random)), ' ');
        for (char& c : line) {
            c = static_cast<char>(byte(random));
            if (c == '\n')
                c = ' ';
        }
        out.push_back(line);
    }
    return out;
}

} // namespace

TEST(MalformedProtocol, TheParserRefusesGarbageWithAMessage)
{
    std::mt19937 random(test::seed());
    for (const std::string& line : garbageLines(random)) {
        const auto started = std::chrono::steady_clock::now();
        auto cmd = parseCommand(line);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        ASSERT_FALSE(cmd.ok()) << line.substr(0, 200);
        EXPECT_FALSE(cmd.error().message.empty());
        EXPECT_EQ(cmd.error().message.find('\n'), std::string::npos);
        EXPECT_LT(seconds, 2.0);
    }
    // Mangled good commands: parsed or refused, never a crash or an exception.
    const std::string goodLines[] = { kRun, R"({"type":"watch","id":6,"pid":1234,"interval":0.5,"duration":10})",
        R"({"type":"pin","id":7,"tid":1240,"cpus":[0,1]})", R"({"type":"processes","id":5,"seconds":1})" };
    for (int i = 0; i < 8000; ++i) {
        std::string line = goodLines[static_cast<std::size_t>(i) % std::size(goodLines)];
        std::uniform_int_distribution<std::size_t> at(0, line.size() - 1);
        std::uniform_int_distribution<int> byte(0, 255);
        for (int flips = 1 + i % 4; flips > 0; --flips)
            line[at(random)] = static_cast<char>(byte(random));
        if (auto cmd = parseCommand(line); !cmd) {
            EXPECT_FALSE(cmd.error().message.empty());
        }
    }
}

namespace {

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
            ::execl(CTXSCOPE_CLI_PATH, "ctxscope-cli", "worker", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        m_in = in[1];
        m_out = out[0];
    }
    ~WorkerProcess()
    {
        if (m_in >= 0)
            ::close(m_in);
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
        if (m_out >= 0)
            ::close(m_out);
    }
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

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
    void closeInput()
    {
        ::close(m_in);
        m_in = -1;
    }
    int wait()
    {
        int status = 0;
        ::waitpid(m_pid, &status, 0);
        m_pid = -1;
        return status;
    }

private:
    pid_t m_pid = -1;
    int m_in = -1;
    int m_out = -1;
    std::string m_buffer;
};

} // namespace

TEST(MalformedProtocol, TheWorkerAnswersEveryGarbageLineAndStaysUsable)
{
    std::mt19937 random(test::seed());
    WorkerProcess worker;
    const auto hello = worker.receive(std::chrono::seconds(30));
    ASSERT_TRUE(hello.has_value());
    ASSERT_NE(hello->find("\"hello\""), std::string::npos) << *hello;
    const long helloKiB = worker.peakResidentKiB();
    double slowest = 0;
    int answered = 0;
    for (const std::string& line : garbageLines(random)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue; // blank lines are allowed between messages
        const auto started = std::chrono::steady_clock::now();
        ASSERT_TRUE(worker.send(line));
        const auto reply = worker.receive(std::chrono::seconds(2));
        slowest = std::max(slowest, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        ASSERT_TRUE(reply.has_value()) << "no answer within 2 s to: " << line.substr(0, 200);
        auto m = parseMessage(*reply);
        ASSERT_TRUE(m.ok()) << *reply;
        ASSERT_EQ(m->type, "error") << *reply;
        EXPECT_FALSE(m->body.value("message", std::string()).empty());
        ++answered;
    }
    // A line of 80 MiB: refused with the length it had, without being held (the peak below
    // stays within a few MiB of what the garbage lines cost).
    const std::size_t huge = std::size_t { 80 } << 20;
    ASSERT_TRUE(worker.send(std::string(huge, 'x')));
    const auto tooLong = worker.receive(std::chrono::seconds(60));
    ASSERT_TRUE(tooLong.has_value()) << "no answer to an 80 MiB line";
    EXPECT_NE(tooLong->find(longLineMessage(huge)), std::string::npos) << *tooLong;
    // Still a working worker: a cancel of nothing, then the end of input ends it cleanly.
    ASSERT_TRUE(worker.send(R"({"type":"cancel","id":99})"));
    const auto afterwards = worker.receive(std::chrono::seconds(2));
    ASSERT_TRUE(afterwards.has_value());
    const long peakKiB = worker.peakResidentKiB();
    std::printf(
        "worker: %d garbage lines answered with an error, slowest %.3f s; peak memory %ld MiB (%ld MiB after hello)\n",
        answered, slowest, peakKiB >> 10, helloKiB >> 10);
    // The longest line held is about 1 MiB: a few copies of it, not a runaway (and not the
    // 80 MiB line).
    EXPECT_LT(peakKiB - helloKiB, 64L << 10);
    worker.closeInput();
    bool bye = false;
    while (auto line = worker.receive(std::chrono::seconds(5)))
        bye = bye || line->find("\"bye\"") != std::string::npos;
    EXPECT_TRUE(bye);
    const int status = worker.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}
