// SPDX-License-Identifier: MIT
// The bundle pushed over ssh (ctxscope/bundle_push.h): its digest, and the host's script run
// here with /bin/sh as the remote shell would run it, on a stand-in "bundle" (a shell script,
// so that what it received is visible).
#include "ctxscope/bundle_push.h"
#include "ctxscope/ssh_command.h"

#include <gtest/gtest.h>

#include <sys/utsname.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>

namespace ctxscope::ssh {
namespace {

namespace fs = std::filesystem;

TEST(BundlePush, Sha256MatchesTheStandardsTestVectors)
{
    EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        << "two blocks";
    EXPECT_EQ(sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(BundlePush, ReadsAnExecutablesArchitectureAndRefusesAnythingElse)
{
    utsname host {};
    ASSERT_EQ(::uname(&host), 0);
    const auto self = readPushBundle("/bin/true"); // small: this test binary is hundreds of MB under ASan
    ASSERT_TRUE(self) << self.error().message;
    EXPECT_EQ(self->arch, host.machine);
    EXPECT_EQ(self->sha256.size(), 64u);
    const auto text = readPushBundle("/etc/hostname");
    ASSERT_FALSE(text);
    EXPECT_NE(text.error().message.find("is not an x86-64 or arm64 executable"), std::string::npos)
        << text.error().message;
    EXPECT_FALSE(readPushBundle("/nonexistent/ctxscope-cli"));
}

// The script run by /bin/sh with `input` on its stdin in a private TMPDIR; what it printed.
struct Ran {
    int exitCode = -1;
    std::string out;
    std::string err;
    bool leftSomething = true; // anything left in TMPDIR afterwards
};

class PushScript : public ::testing::Test {
protected:
    void SetUp() override
    {
        char pattern[] = "/tmp/ctxscope-pushscript-XXXXXX";
        ASSERT_NE(::mkdtemp(pattern), nullptr);
        m_dir = pattern;
        fs::create_directory(m_dir / "tmp");
    }
    void TearDown() override { fs::remove_all(m_dir); }

    Ran run(const std::string& script, const std::string& input)
    {
        {
            std::ofstream(m_dir / "in", std::ios::binary) << input;
        }
        const std::string command = "TMPDIR=" + shellQuote((m_dir / "tmp").string()) + " /bin/sh -c "
            + shellQuote(script) + " <" + shellQuote((m_dir / "in").string()) + " >"
            + shellQuote((m_dir / "out").string()) + " 2>" + shellQuote((m_dir / "err").string());
        const int status = std::system(command.c_str());
        Ran ran;
        ran.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        auto slurp = [](const fs::path& p) {
            std::ifstream in(p, std::ios::binary);
            return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        };
        ran.out = slurp(m_dir / "out");
        ran.err = slurp(m_dir / "err");
        ran.leftSomething = !fs::is_empty(m_dir / "tmp");
        return ran;
    }

    // A stand-in for the CLI: answers --version, else says its arguments and echoes its stdin.
    static PushBundle standIn(const std::string& arch)
    {
        auto bytes = std::make_shared<std::string>("#!/bin/sh\n[ \"$1\" = --version ] && exit 0\necho \"args: "
                                                   "$*\"\necho \"from $(dirname \"$0\")\" >&2\ncat\n");
        return PushBundle { bytes, sha256Hex(*bytes), arch };
    }

    static std::string hostArch()
    {
        utsname host {};
        ::uname(&host);
        return host.machine;
    }

    fs::path m_dir;
};

TEST_F(PushScript, PassesTheRestOfStdinToTheCliAndLeavesNothing)
{
    const PushBundle bundle = standIn(hostArch());
    const Ran ran = run(pushScript(bundle, "worker --quiet", PushedStdin::Passed), *bundle.bytes + "hello\nquit\n");
    EXPECT_EQ(ran.exitCode, 0) << ran.err;
    EXPECT_EQ(ran.out, "args: worker --quiet\nhello\nquit\n") << "the commands after the bundle reach the CLI whole";
    EXPECT_NE(ran.err.find((m_dir / "tmp" / "ctxscope-push.").string()), std::string::npos)
        << "it ran from a private directory in TMPDIR: " << ran.err;
    EXPECT_FALSE(ran.leftSomething) << "the directory is removed when the CLI ends";
}

TEST_F(PushScript, WatchedStdinGivesTheCliNothingAndStopsItWhenStdinCloses)
{
    auto bytes = std::make_shared<std::string>("#!/bin/sh\n[ \"$1\" = --version ] && exit 0\nexec sleep 30\n");
    const PushBundle bundle { bytes, sha256Hex(*bytes), hostArch() };
    const auto start = std::chrono::steady_clock::now();
    const Ran ran = run(pushScript(bundle, "survey", PushedStdin::Watched), *bundle.bytes);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20))
        << "the CLI was stopped when stdin closed, not left to its 30 s";
    EXPECT_NE(ran.exitCode, 0);
    EXPECT_FALSE(ran.leftSomething);
}

TEST_F(PushScript, RefusesAnotherArchitectureAndADamagedCopyInOneSentence)
{
    const PushBundle other = standIn(hostArch() == "aarch64" ? "x86_64" : "aarch64");
    const Ran refused = run(pushScript(other, "worker", PushedStdin::Passed), *other.bytes);
    EXPECT_EQ(refused.exitCode, 3);
    EXPECT_EQ(
        refused.err, "this host is " + hostArch() + " and the bundle is for " + other.arch + ": not pushed there\n");
    EXPECT_EQ(refused.out, "");

    const PushBundle bundle = standIn(hostArch());
    std::string damaged = *bundle.bytes;
    damaged[3] ^= 1;
    const Ran bad = run(pushScript(bundle, "worker", PushedStdin::Passed), damaged);
    EXPECT_EQ(bad.exitCode, 3);
    EXPECT_EQ(bad.err, "the bundle arrived damaged (its sha256 differs): not run\n");
    EXPECT_EQ(bad.out, "") << "a damaged copy never runs";
    EXPECT_FALSE(bad.leftSomething);
}

} // namespace
} // namespace ctxscope::ssh
