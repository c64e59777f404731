// SPDX-License-Identifier: MIT
// How ctxscope reaches another machine: the system's OpenSSH client, never a library or a
// transport of its own, so ProxyJump, ControlMaster, agents and keys work as the user set them
// up for `ssh`. The one copy of that policy, for `survey --hosts` (the CLI) and the app's servers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctxscope::ssh {

// Seconds between ssh's keep-alive probes and how many may go unanswered: a connection that
// stops answering is noticed within interval x (count + 1) (the first probe goes out after one
// quiet interval).
inline constexpr int kServerAliveIntervalS = 3;
inline constexpr int kServerAliveCountMax = 4;
// A host that never answers (a firewall dropping packets) fails after this, not after the
// kernel's two minutes of TCP retries.
inline constexpr int kConnectTimeoutS = 15;

// Why a destination cannot be handed to ssh. Each front end says it in its own words.
enum class HostProblem {
    Empty, // nothing but blanks
    LooksLikeOption, // starts with '-': ssh would read it as an option (-oProxyCommand=...)
    BlankOrControl, // a space (any Unicode space) or a control character inside
};

// The problem with `host` (UTF-8) as ssh's destination; none when it can be one.
std::optional<HostProblem> hostProblem(std::string_view host);

// `word` quoted for a POSIX shell when it needs it: the remote command reaches the server's
// login shell as one string.
std::string shellQuote(std::string_view word);

// The program and its arguments that run `remoteCommand` on `host`:
//   ssh -T -o BatchMode=yes -o ServerAliveInterval=3 -o ServerAliveCountMax=4 -o ConnectTimeout=15
//       -- HOST REMOTE-COMMAND
// BatchMode: a password prompt fails at once instead of waiting on a terminal nobody watches.
// `sshCommand` is $CTXSCOPE_SSH_COMMAND; when it is not blank the client is started as git
// starts GIT_SSH_COMMAND: `/bin/sh -c 'exec SSHCOMMAND "$@"' CTXSCOPE_SSH_COMMAND ARGS...`, so
// the shell splits the user's words and ours follow untouched ($0 names the shell in its own
// messages). `exec`: the shell becomes the ssh client (dash does not exec the last command of
// -c by itself), so the process that is started, killed and waited for is ssh, not a shell
// whose death would leave ssh connected and the command on the server running.
std::vector<std::string> sshArguments(
    std::string_view host, std::string_view remoteCommand, std::string_view sshCommand);

} // namespace ctxscope::ssh
