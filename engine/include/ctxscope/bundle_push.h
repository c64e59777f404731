// SPDX-License-Identifier: MIT
// The portable bundle pushed over ssh (survey --hosts --push, the app's "copy it for this
// session"): copied over the same connection to a private directory on the host, checked and run
// there, and removed on every exit path.
#pragma once

#include "ctxscope/expected.h"

#include <memory>
#include <string>

namespace ctxscope::ssh {

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
// What the pushed CLI does with the connection's stdin once the bundle is read from it.
enum class PushedStdin {
    Watched, // nothing more comes: the CLI is stopped when stdin closes (survey)
    Passed, // the CLI reads it (the worker's commands); it ends when stdin closes
};

// The POSIX sh script, to run as `sh -c SCRIPT` on the host, that refuses a host of another
// architecture (exit 3 and one sentence), reads the bundle from stdin into a mktemp -d
// directory, checks its digest, runs `ctxscope-cli ARGUMENTS` with it (ARGUMENTS as the shell
// reads them), and removes the directory on every way out: the end, an error, a signal, and
// stdin closing (the local side ended, was interrupted or lost the connection).
std::string pushScript(const PushBundle& bundle, const std::string& arguments, PushedStdin stdinUse);

} // namespace ctxscope::ssh
