// SPDX-License-Identifier: MIT
// The ssh policy that survey --hosts and the app's servers share (ctxscope/ssh_command.h).
#include "ctxscope/ssh_command.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ctxscope::ssh {
namespace {

TEST(SshCommand, RunsTheSystemClientInBatchModeWithKeepAlivesAndATimeOut)
{
    const std::vector<std::string> expected { "ssh", "-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=3", "-o",
        "ServerAliveCountMax=4", "-o", "ConnectTimeout=15", "--", "lab-3", "ctxscope-cli worker" };
    EXPECT_EQ(sshArguments("lab-3", "ctxscope-cli worker", ""), expected);
    EXPECT_EQ(sshArguments("lab-3", "ctxscope-cli worker", " \t"), expected) << "a blank command is plain ssh";
}

TEST(SshCommand, AUsersSshCommandIsSplitByTheShellAndExecsWithOurWordsAfterIt)
{
    const std::vector<std::string> words = sshArguments("me@lab", "cli survey", "ssh -F '/a b/config'");
    ASSERT_GE(words.size(), 5u);
    EXPECT_EQ(words[0], "/bin/sh");
    EXPECT_EQ(words[1], "-c");
    EXPECT_EQ(words[2], "exec ssh -F '/a b/config' \"$@\"");
    EXPECT_EQ(words[3], "CTXSCOPE_SSH_COMMAND");
    EXPECT_EQ(words[4], "-T");
    EXPECT_EQ(words.back(), "cli survey");
    EXPECT_EQ(words[words.size() - 2], "me@lab");
    EXPECT_EQ(words[words.size() - 3], "--") << "the host can never be read as an option";
}

TEST(SshCommand, QuotesAWordOnlyWhenTheShellWouldChangeIt)
{
    EXPECT_EQ(shellQuote("ctxscope-cli"), "ctxscope-cli");
    EXPECT_EQ(shellQuote("/usr/local/bin/ctxscope-cli"), "/usr/local/bin/ctxscope-cli");
    EXPECT_EQ(shellQuote(""), "''");
    EXPECT_EQ(shellQuote("a b"), "'a b'");
    EXPECT_EQ(shellQuote("it's;rm"), "'it'\\''s;rm'");
    EXPECT_EQ(shellQuote("$(reboot)"), "'$(reboot)'");
    EXPECT_EQ(shellQuote(std::string("a\0b", 3)), std::string("'a\0b'", 5)) << "a NUL is not a safe character";
    EXPECT_EQ(shellQuote("caf\xc3\xa9"), "'caf\xc3\xa9'") << "only ASCII letters are left bare";
}

TEST(SshCommand, RefusesDestinationsSshWouldMisreadOrThatHoldBlanks)
{
    EXPECT_FALSE(hostProblem("lab-3"));
    EXPECT_FALSE(hostProblem("me@10.0.0.7"));
    EXPECT_FALSE(hostProblem("ssh://me@lab-3:2222"));
    EXPECT_FALSE(hostProblem("caf\xc3\xa9")) << "a letter beyond ASCII is not a blank";
    EXPECT_EQ(hostProblem(""), HostProblem::Empty);
    EXPECT_EQ(hostProblem("  \t"), HostProblem::Empty);
    EXPECT_EQ(hostProblem("-oProxyCommand=sh"), HostProblem::LooksLikeOption);
    EXPECT_EQ(hostProblem("lab-3 rm"), HostProblem::BlankOrControl);
    EXPECT_EQ(hostProblem("lab\n3"), HostProblem::BlankOrControl);
    EXPECT_EQ(hostProblem("lab\x7f"), HostProblem::BlankOrControl);
    EXPECT_EQ(hostProblem("lab\xc2\xa0"
                          "3"),
        HostProblem::BlankOrControl)
        << "a no-break space (U+00A0)";
    EXPECT_EQ(hostProblem("lab\xc2\x85"), HostProblem::BlankOrControl) << "NEL, a C1 control";
    EXPECT_EQ(hostProblem("lab\xe2\x80\x83"
                          "3"),
        HostProblem::BlankOrControl)
        << "an em space (U+2003)";
    EXPECT_EQ(hostProblem("lab\xe3\x80\x80"), HostProblem::BlankOrControl) << "the ideographic space (U+3000)";
    EXPECT_FALSE(hostProblem("lab\xe2\x80\x8b")) << "U+200B is a format character, not a space";
}

} // namespace
} // namespace ctxscope::ssh
