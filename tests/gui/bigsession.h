// SPDX-License-Identifier: MIT
// A session as the app saves one, its runs carrying 2^19 samples each, `bytes` in all: for the
// test that opens one (openfile_test.cpp) and the benchmark that times it (tests/perf).
// Written as text from one run's JSON: building the whole document would take longer than
// what either is about.
#pragma once

#include "sessionfile.h"
#include "testresults.h"

#include "ctxscope/results_file.h"

#include <QFile>
#include <QString>

#include <string>

namespace ctxscope::testing {

// Writes the session to `path`; the number of runs in it, or 0 when it could not be written.
inline std::size_t writeBigSession(const QString& path, std::size_t bytes)
{
    RunResult r = *futexResult();
    r.samples.resize(std::size_t { 1 } << 19);
    for (std::size_t i = 0; i < r.samples.size(); ++i)
        r.samples[i] = 8000.0 + static_cast<double>((i * 7919) % 1000) + 0.25;
    r.totalSamples = r.samples.size();
    const std::string one = resultToJson(r, true).dump();
    const std::size_t runs = bytes / one.size() + 1;
    std::string text = gui::sessionToJson(gui::Session {}).dump();
    const std::string empty = "\"benchmarks\":[]";
    const std::size_t at = text.find(empty);
    if (at == std::string::npos)
        return 0;
    std::string all = "\"benchmarks\":[";
    all.reserve(runs * (one.size() + 1) + 16);
    for (std::size_t i = 0; i < runs; ++i)
        all += (i ? "," : "") + one;
    text.replace(at, empty.size(), all + "]");
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly)
        || out.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size()))
        return 0;
    return runs;
}

} // namespace ctxscope::testing
