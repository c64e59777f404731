// SPDX-License-Identifier: MIT
// Worker protocol garbage: random bytes, mangled commands, huge numbers, absurd nesting and
// over-long lines. The parser refuses each with a message; the real worker answers each with
// an error line within 2 s, keeps its memory bounded and still works afterwards.
#include "ctxscope/protocol.h"

#include "bounded_call.h"
#include "seed.h"
#include "worker_process.h"

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

TEST(MalformedProtocol, TheWorkerAnswersEveryGarbageLineAndStaysUsable)
{
    std::mt19937 random(test::seed());
    test::WorkerProcess worker;
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
