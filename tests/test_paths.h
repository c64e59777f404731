// SPDX-License-Identifier: MIT
// Where a test finds the checkout's fixtures and docs and the built ctxscope-cli and app. Kept out
// of the test targets' compile definitions: an absolute path there made every object of the
// target, and its precompiled header, miss ccache in another checkout (HACKING.md, Build times).
// Each test target's generated <target>_paths.cpp (ctxscope_test_paths in tests/CMakeLists.txt)
// defines the ones it names. Plain C strings: safe to use in a child between fork and exec.
#pragma once

namespace ctxscope::test {

const char* fixturesDir(); // tests/fixtures
const char* docsDir(); // docs
const char* cliPath(); // the built ctxscope-cli
const char* appPath(); // the built ctxscope (the app)

} // namespace ctxscope::test
