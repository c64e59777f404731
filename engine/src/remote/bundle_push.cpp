// SPDX-License-Identifier: MIT
#include "ctxscope/bundle_push.h"

#include "ctxscope/version.h"

#include <fmt/core.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

namespace ctxscope::ssh {

namespace {

constexpr std::array<std::uint32_t, 64> kRound { 0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
    0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
    0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c,
    0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2 };

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(std::array<std::uint32_t, 8>& h, const unsigned char* block)
{
    std::array<std::uint32_t, 64> w {};
    for (std::size_t i = 0; i < 16; ++i)
        w[i] = std::uint32_t { block[4 * i] } << 24 | std::uint32_t { block[4 * i + 1] } << 16
            | std::uint32_t { block[4 * i + 2] } << 8 | std::uint32_t { block[4 * i + 3] };
    for (std::size_t i = 16; i < 64; ++i) {
        const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<std::uint32_t, 8> v = h;
    for (std::size_t i = 0; i < 64; ++i) {
        const std::uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
        const std::uint32_t choose = (v[4] & v[5]) ^ (~v[4] & v[6]);
        const std::uint32_t t1 = v[7] + s1 + choose + kRound[i] + w[i];
        const std::uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
        const std::uint32_t majority = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
        v = { t1 + s0 + majority, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6] };
    }
    for (std::size_t i = 0; i < 8; ++i)
        h[i] += v[i];
}

// The architecture an ELF file is for, as `uname -m` prints it; empty when it is no ELF
// executable of a kind the bundle is built for.
std::string elfArch(const std::string& bytes)
{
    if (bytes.size() < 20
        || std::memcmp(bytes.data(),
               "\x7f"
               "ELF",
               4)
            != 0)
        return {};
    const auto machine = static_cast<unsigned>(static_cast<unsigned char>(bytes[18]))
        | static_cast<unsigned>(static_cast<unsigned char>(bytes[19])) << 8; // e_machine, little-endian
    switch (machine) {
    case 62:
        return "x86_64";
    case 183:
        return "aarch64";
    default:
        return {};
    }
}

} // namespace

std::string sha256Hex(const std::string& data)
{
    std::array<std::uint32_t, 8> h { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19 };
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
    const std::size_t whole = data.size() / 64 * 64;
    for (std::size_t at = 0; at < whole; at += 64)
        compress(h, bytes + at);
    // The tail, a 1 bit, zeros, and the length in bits: one or two blocks.
    std::array<unsigned char, 128> tail {};
    const std::size_t rest = data.size() - whole;
    std::memcpy(tail.data(), bytes + whole, rest);
    tail[rest] = 0x80;
    const std::size_t blocks = rest + 9 <= 64 ? 1 : 2;
    const std::uint64_t bits = std::uint64_t { data.size() } * 8;
    for (std::size_t i = 0; i < 8; ++i)
        tail[blocks * 64 - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
    for (std::size_t b = 0; b < blocks; ++b)
        compress(h, tail.data() + 64 * b);
    std::string out;
    for (const std::uint32_t word : h)
        out += fmt::format("{:08x}", word);
    return out;
}

Expected<PushBundle> readPushBundle(const std::string& path)
{
    std::string file = path;
    if (file.empty()) {
        if (std::strlen(kBuildNote) == 0)
            return makeError("--push needs the bundle's path here (this ctxscope-cli is not the portable "
                             "bundle): --push build/bundle/ctxscope-cli-VERSION-linux-x86_64");
        file = "/proc/self/exe";
    }
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return makeError("cannot read the bundle " + file + ": " + std::strerror(errno));
    auto bytes = std::make_shared<std::string>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad())
        return makeError("cannot read the bundle " + file + ": " + std::strerror(errno));
    PushBundle bundle;
    bundle.arch = elfArch(*bytes);
    if (bundle.arch.empty())
        return makeError(
            file + " is not an x86-64 or arm64 executable (build the bundle with ./packaging/dev.sh bundle)");
    bundle.sha256 = sha256Hex(*bytes);
    bundle.bytes = std::move(bytes);
    return bundle;
}

std::string pushScript(const PushBundle& bundle, const std::string& arguments, PushedStdin stdinUse)
{
    // Its stdin is the bundle, then either nothing until the local side closes it (the end,
    // Ctrl-C, or the connection dropped), when a watcher (cat, on fd 3 since sh gives a
    // background job /dev/null as stdin) stops the CLI; or the commands the CLI itself reads
    // (the worker), which ends at their end. The watcher writes nowhere, so that it cannot hold
    // the session open. A temporary folder mounted noexec (hardened servers) cannot run it:
    // then it moves to a private folder in $HOME, removed the same way.
    constexpr const char* kWatched = R"(exec 3<&0
"$d/ctxscope-cli" {args} </dev/null 3<&- &
p=$!
(cat <&3 >/dev/null; kill $p) >/dev/null 2>&1 &
w=$!
wait $p
r=$?
kill $w 2>/dev/null
exit $r
)";
    constexpr const char* kPassed = R"("$d/ctxscope-cli" {args}
exit $?
)";
    const std::string run
        = fmt::format(fmt::runtime(stdinUse == PushedStdin::Watched ? kWatched : kPassed), fmt::arg("args", arguments));
    return fmt::format(R"(a=$(uname -m)
if [ "$a" != {arch} ]; then echo "this host is $a and the bundle is for {arch}: not pushed there" >&2; exit 3; fi
command -v sha256sum >/dev/null 2>&1 || {{ echo "this host has no sha256sum to check the bundle: not pushed there" >&2; exit 3; }}
e=
d=$(mktemp -d "${{TMPDIR:-/tmp}}/ctxscope-push.XXXXXX") || exit 3
trap 'rm -rf "$d" ${{e:+"$e"}}' EXIT
trap 'exit 130' HUP INT TERM PIPE
head -c {size} >"$d/ctxscope-cli"
echo "{sha}  $d/ctxscope-cli" | sha256sum -c --status || {{ echo "the bundle arrived damaged (its sha256 differs): not run" >&2; exit 3; }}
chmod 700 "$d/ctxscope-cli"
if ! "$d/ctxscope-cli" --version >/dev/null 2>&1 </dev/null; then
  e=$(mktemp -d "$HOME/.ctxscope-push.XXXXXX") && mv "$d/ctxscope-cli" "$e/" && rm -rf "$d" && d=$e
  "$d/ctxscope-cli" --version >/dev/null 2>&1 </dev/null || {{ echo "the bundle cannot run from ${{TMPDIR:-/tmp}} or $HOME here (mounted noexec?): not run" >&2; exit 3; }}
fi
{run})",
        fmt::arg("arch", bundle.arch), fmt::arg("size", bundle.bytes->size()), fmt::arg("sha", bundle.sha256),
        fmt::arg("run", run));
}

} // namespace ctxscope::ssh
