// SPDX-License-Identifier: MIT
// Writing a recording that holds nothing (a watch that ended before its first read) is a
// sentence, never a file laid out from a page size of zero.
#include "ctxscope/trace.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

using namespace ctxscope;

TEST(TraceExport, AnEmptyRecordingIsRefusedWithASentenceAndWritesNoFile)
{
    for (const char* extension : { ".dat", ".txt" }) {
        const std::string path = "/tmp/ctxscope-empty-" + std::to_string(getpid()) + extension;
        const Status written = writeTraceFile(RawTrace {}, path, { "nothing" });
        ASSERT_FALSE(written.ok()) << extension;
        EXPECT_EQ(written.error().message, "nothing was recorded, so there is no trace to write");
        EXPECT_FALSE(std::filesystem::exists(path)) << path;
    }
}
