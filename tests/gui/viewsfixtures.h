// SPDX-License-Identifier: MIT
#pragma once

#include "test_paths.h"

#include <QString>

namespace ctxscope::testing {

// Files made with ctxscope-cli on the development machine (tests/fixtures/results/README.md).
inline QString resultsFixture(const char* name)
{
    return QString::fromUtf8(ctxscope::test::fixturesDir()) + QStringLiteral("/results/") + QString::fromLatin1(name);
}

} // namespace ctxscope::testing
