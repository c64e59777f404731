// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace ctxscope::testing {

// Files made with ctxscope-cli on the development machine (tests/fixtures/results/README.md).
inline QString resultsFixture(const char* name)
{
    return QStringLiteral(CTXSCOPE_FIXTURES_DIR "/results/") + QString::fromLatin1(name);
}

} // namespace ctxscope::testing
