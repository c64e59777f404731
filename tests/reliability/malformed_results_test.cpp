// SPDX-License-Identifier: MIT
// Malformed results files: truncated at any point, a wrong type in any field, huge numbers,
// a newer format, absurd nesting, 100 MB files made here in a temporary directory. Each is
// refused with a one-line message, quickly, with bounded memory, never a crash.
#include "ctxscope/results_file.h"
#include "ctxscope/runner.h"
#include "ctxscope/sysinfo.h"

#include "background_run.h"
#include "bounded_call.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>

using namespace ctxscope;
using nlohmann::json;

namespace {

// A real results file: a short run on this machine, with or without its samples.
const json& goodReport(bool withSamples = true)
{
    static const RunResult result = [] {
        BenchSpec s = test::longRun("futex", BenchMode::Thread);
        s.iterations = 500;
        s.repetitions = 2;
        auto r = runBenchmark(s, test::liveTopology());
        EXPECT_TRUE(r.ok()) << r.error().message;
        return r ? *r : RunResult {};
    }();
    static const json context = makeContext(readSysInfo(), test::liveTopology(), measurementClock());
    static const json with = makeReport(context, { result }, true);
    static const json without = makeReport(context, { result }, false);
    return withSamples ? with : without;
}

// Refused, with a one-line message that names something, within 2 s.
void expectRefused(const std::string& text, const std::string& needle = {})
{
    const auto started = std::chrono::steady_clock::now();
    auto f = readResults(text);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::string shown = text.size() > 200 ? text.substr(0, 200) + "..." : text;
    ASSERT_FALSE(f.ok()) << "accepted: " << shown;
    EXPECT_GT(f.error().message.size(), 10U) << shown;
    EXPECT_EQ(f.error().message.find('\n'), std::string::npos) << f.error().message;
    EXPECT_NE(f.error().message.find(needle), std::string::npos) << f.error().message;
    EXPECT_LT(seconds, 2.0) << shown;
}

// ThreadSanitizer checks every memory access and keeps shadow memory several times the size
// of what the program touches: its builds get wider bounds (the tsan preset; GCC's macro).
#ifdef __SANITIZE_THREAD__
constexpr double kSanitizerFactor = 6;
#else
constexpr double kSanitizerFactor = 1;
#endif

std::string tempDir()
{
    char name[] = "/tmp/ctxscope-malformed-XXXXXX";
    const char* dir = ::mkdtemp(name);
    EXPECT_NE(dir, nullptr);
    return dir ? dir : "/tmp";
}

} // namespace

TEST(MalformedResults, TheGoodFileReadsBack)
{
    auto f = readResults(goodReport().dump(2));
    ASSERT_TRUE(f.ok()) << f.error().message;
    ASSERT_EQ(f->results.size(), 1U);
    EXPECT_FALSE(f->results[0].samples.empty());
}

TEST(MalformedResults, TruncatedAnywhereIsRefused)
{
    const std::string text = goodReport().dump(2);
    const std::size_t end = text.find_last_not_of(" \n");
    for (std::size_t cut = 0; cut < end; cut += std::max<std::size_t>(1, end / 400))
        expectRefused(text.substr(0, cut));
    expectRefused(text.substr(0, end)); // only the last brace missing
}

TEST(MalformedResults, AWrongTypeInAnyFieldIsAMessageNeverACrash)
{
    const json replacements[] = { "text", 3.5, -1, true, nullptr, json::array(), json::object(), 1e308,
        std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::int64_t>::min(), json::array({ "x", 1 }) };
    const json good = goodReport(false);
    int refused = 0;
    int tried = 0;
    const auto tryAll = [&](const json::json_pointer& where) {
        for (const auto& [key, value] : good.at(where).items()) {
            for (const json& wrong : replacements) {
                json bad = good;
                bad.at(where)[key] = wrong;
                ++tried;
                auto f = readResults(bad.dump()); // an exception or a crash fails the test
                if (!f.ok()) {
                    ++refused;
                    EXPECT_EQ(f.error().message.find('\n'), std::string::npos) << f.error().message;
                    EXPECT_FALSE(f.error().message.empty());
                }
            }
        }
    };
    tryAll(json::json_pointer("/benchmarks/0"));
    tryAll(json::json_pointer("/benchmarks/0/stats"));
    tryAll(json::json_pointer("/benchmarks/0/observed"));
    tryAll(json::json_pointer("/context"));
    tryAll(json::json_pointer("/context/ctxscope"));
    tryAll(json::json_pointer("/context/ctxscope/sysinfo"));
    std::printf(
        "%d wrong-typed fields: %d refused with a message, the rest read or ignored as optional\n", tried, refused);
}

TEST(MalformedResults, HugeNumbersAreRefusedByName)
{
    const json good = goodReport(false);
    const auto with = [&](const char* pointer, const json& value) {
        json bad = good;
        bad[json::json_pointer(pointer)] = value;
        return bad.dump();
    };
    expectRefused(with("/benchmarks/0/cpus", json::array({ 1e12, 0 })), "cpus");
    expectRefused(with("/benchmarks/0/cpus", json::array({ 4'000'000'000LL, 0 })), "cpus");
    expectRefused(with("/benchmarks/0/tasks", 1e300), "tasks");
    expectRefused(with("/benchmarks/0/tasks", std::numeric_limits<std::uint64_t>::max()), "tasks");
    expectRefused(with("/benchmarks/0/repetitions", std::numeric_limits<std::uint64_t>::max()), "repetitions");
    expectRefused(with("/benchmarks/0/ws_bytes", -4096), "ws_bytes");
    expectRefused(with("/benchmarks/0/ws_bytes", 1e300), "ws_bytes");
    expectRefused(with("/benchmarks/0/total_samples", 1e300), "total_samples");
    expectRefused(with("/benchmarks/0/observed/perf_migrations", -1), "perf_migrations");
    expectRefused(with("/context/num_cpus", 1e300), "num_cpus");
    // Numbers beyond a double: nlohmann reads them as infinity or refuses the text.
    std::string text = good.dump();
    const std::string key = "\"iterations\":";
    const std::size_t at = text.find(key) + key.size();
    text.replace(at, text.find_first_of(",}", at) - at, "1e999");
    expectRefused(text);
}

TEST(MalformedResults, ANewerFormatVersionIsNamed)
{
    json bad = goodReport();
    bad["context"]["ctxscope"]["format_version"] = kReportFormatVersion + 1;
    expectRefused(bad.dump(), "format version " + std::to_string(kReportFormatVersion + 1));
    bad["context"]["ctxscope"]["format_version"] = "1";
    expectRefused(bad.dump(), "format_version");
}

TEST(MalformedResults, AbsurdNestingIsRefusedBeforeParsing)
{
    expectRefused(std::string(10'000'000, '['), "nested");
    expectRefused(std::string(1'000'000, '[') + std::string(1'000'000, ']'), "nested");
    expectRefused("{\"context\":{},\"benchmarks\":[" + std::string(100'000, '{') + "}]}");
}

TEST(MalformedResults, HundredMegabyteFilesAreRefusedQuicklyWithBoundedMemory)
{
    const std::string dir = tempDir();
    constexpr std::size_t kSize = 100U << 20;
    struct BigFile {
        const char* what;
        std::string path;
        double maxGrowthPerByte; // resident memory growth allowed, per byte of file
    };
    std::vector<BigFile> files;
    const auto write
        = [&](const char* what, const char* name, double growth, const std::function<void(std::ofstream&)>& fill) {
              const std::string path = dir + "/" + name;
              std::ofstream out(path, std::ios::binary);
              fill(out);
              files.push_back({ what, path, growth });
          };
    // A results file whose samples array runs to 100 MB and then stops at `end`.
    const auto samplesEndingIn = [](const char* end) {
        return [end](std::ofstream& out) {
            std::string head = goodReport().dump();
            head.erase(head.find("\"samples\":[") + 11);
            out << head;
            const std::string sample = "1234.5678901234,";
            for (std::size_t n = head.size(); n < kSize; n += sample.size())
                out << sample;
            out << end;
        };
    };
    // A saved file cut short: it ends mid-number.
    write("a truncated 100 MB results file", "truncated.json", 1.5, samplesEndingIn("1234.5"));
    // The same cut just after an entry's closing brace: only the brackets show it is short.
    write("a 100 MB results file cut after a '}'", "cut-after-brace.json", 1.5, samplesEndingIn("1234.5]}"));
    write("100 MB of opening brackets", "brackets.json", 1.5, [&](std::ofstream& out) {
        const std::string chunk(1 << 20, '[');
        for (std::size_t n = 0; n < kSize; n += chunk.size())
            out << chunk;
    });
    write("100 MB of binary noise", "noise.bin", 1.5, [&](std::ofstream& out) {
        std::string chunk(1 << 20, '\0');
        for (std::size_t i = 0; i < chunk.size(); ++i)
            chunk[i] = static_cast<char>((i * 2654435761U) >> 13);
        for (std::size_t n = 0; n < kSize; n += chunk.size())
            out << chunk;
    });
    write("a 300 MB sparse file", "sparse.json", 0.01, [&](std::ofstream&) {});
    std::filesystem::resize_file(files.back().path, 300U << 20);

    for (const BigFile& f : files) {
        const auto size = std::filesystem::file_size(f.path);
        const auto r = test::boundedCall([&] {
            auto read = readResultsFile(f.path);
            return read ? std::string() : read.error().message;
        });
        std::printf("%s: refused in %.2f s (%.2f s of CPU), resident memory +%ld MiB: %s\n", f.what, r.seconds,
            r.cpuSeconds, r.rssGrowthKiB >> 10, r.message.c_str());
        EXPECT_TRUE(r.exitedNormally) << f.what << ": signal " << r.signal;
        EXPECT_FALSE(r.accepted) << f.what;
        EXPECT_NE(r.message.find(f.path), std::string::npos) << r.message;
        // CPU time, not wall time: a CI machine busy with other jobs must not fail this.
        EXPECT_LT(r.cpuSeconds, 2.0 * kSanitizerFactor) << f.what;
        EXPECT_LT(static_cast<double>(r.rssGrowthKiB) * 1024,
            kSanitizerFactor * (f.maxGrowthPerByte * static_cast<double>(size) + (64 << 20)))
            << f.what;
    }
    std::filesystem::remove_all(dir);
}
