// SPDX-License-Identifier: MIT
#pragma once

#include "test_paths.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace ctxscope::test {

// A recorded /proc text from tests/fixtures/procfs/ (an empty one fails the test).
inline std::string procfsFixture(const std::string& name)
{
    std::ifstream in(std::string(ctxscope::test::fixturesDir()) + "/procfs/" + name);
    std::stringstream s;
    s << in.rdbuf();
    EXPECT_FALSE(s.str().empty()) << name;
    return s.str();
}

} // namespace ctxscope::test
