// SPDX-License-Identifier: MIT
#include "ctxscope/ssh_command.h"

#include <algorithm>
#include <cstdint>

namespace ctxscope::ssh {

namespace {

// Unicode's spaces (Zs, Zl, Zp, and the blanks TAB to CR and NEL) and controls (Cc): what a
// destination typed or pasted must not hold.
bool isBlankOrControl(std::uint32_t cp)
{
    return cp <= 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028
        || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

// The code points of UTF-8 text; a byte that starts no valid sequence stands for itself.
template <typename Visit> void forEachCodePoint(std::string_view text, Visit visit)
{
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const std::size_t length = lead < 0x80 ? 1
            : (lead >> 5) == 0x6               ? 2
            : (lead >> 4) == 0xe               ? 3
            : (lead >> 3) == 0x1e              ? 4
                                               : 1;
        std::uint32_t cp = length == 1 ? lead : lead & (0x7fu >> length);
        std::size_t used = 1;
        for (; used < length && i + used < text.size(); ++used) {
            const auto next = static_cast<unsigned char>(text[i + used]);
            if ((next & 0xc0) != 0x80)
                break;
            cp = (cp << 6) | (next & 0x3fu);
        }
        if (used != length) { // cut short: the lead byte alone
            cp = lead;
            used = 1;
        }
        visit(cp);
        i += used;
    }
}

bool isShellSafe(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

bool isBlank(std::string_view text)
{
    return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
}

} // namespace

std::optional<HostProblem> hostProblem(std::string_view host)
{
    if (isBlank(host))
        return HostProblem::Empty;
    if (host.front() == '-')
        return HostProblem::LooksLikeOption;
    bool blank = false;
    forEachCodePoint(host, [&](std::uint32_t cp) { blank = blank || isBlankOrControl(cp); });
    if (blank)
        return HostProblem::BlankOrControl;
    return std::nullopt;
}

std::string shellQuote(std::string_view word)
{
    if (!word.empty() && std::all_of(word.begin(), word.end(), isShellSafe))
        return std::string(word);
    std::string out = "'";
    for (const char c : word)
        out += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
    return out + "'";
}

std::vector<std::string> sshArguments(
    std::string_view host, std::string_view remoteCommand, std::string_view sshCommand)
{
    std::vector<std::string> out;
    if (isBlank(sshCommand))
        out.emplace_back("ssh");
    else
        out = { "/bin/sh", "-c", "exec " + std::string(sshCommand) + " \"$@\"", "CTXSCOPE_SSH_COMMAND" };
    const std::vector<std::string> options { "-T", "-o", "BatchMode=yes", "-o",
        "ServerAliveInterval=" + std::to_string(kServerAliveIntervalS), "-o",
        "ServerAliveCountMax=" + std::to_string(kServerAliveCountMax), "-o",
        "ConnectTimeout=" + std::to_string(kConnectTimeoutS), "--", std::string(host), std::string(remoteCommand) };
    out.insert(out.end(), options.begin(), options.end());
    return out;
}

} // namespace ctxscope::ssh
