// SPDX-License-Identifier: MIT
// survey --hosts --push: the portable bundle copied over the same ssh to a private directory on
// each host, checked and run there, and removed on every exit path.
#pragma once

#include "ctxscope/expected.h"

#include <memory>
#include <string>

namespace ctxscope::cli {

struct PushBundle {
    std::shared_ptr<const std::string> bytes; // the whole file, shared by the hosts' writers
    std::string sha256; // lower-case hex
    std::string arch; // as `uname -m` names it: x86_64, aarch64
};

// The SHA-256 of `data` in lower-case hex (FIPS 180-4).
std::string sha256Hex(const std::string& data);
// The bundle at `path` (empty: this executable, when it is the bundle), read whole: its
// digest and the architecture its ELF header names; an error sentence when it is none.
Expected<PushBundle> readPushBundle(const std::string& path);
// The POSIX sh script, to run as `sh -c SCRIPT` on the host, that refuses a host of another
// architecture, reads the bundle from stdin into a mktemp -d directory, checks its digest, runs
// `survey --budget B --json -` with it, stops it when stdin closes, and removes the directory
// on every way out.
std::string pushScript(const PushBundle& bundle, double budgetSeconds);

} // namespace ctxscope::cli
