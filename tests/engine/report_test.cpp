// SPDX-License-Identifier: MIT
#include "ctxscope/csv.h"
#include "ctxscope/results_file.h"
#include "sample_result.h"

#include <gtest/gtest.h>

using namespace ctxscope;
using nlohmann::json;
using test::sampleResult;

TEST(Report, ResultRoundTripsThroughJson)
{
    const RunResult in = sampleResult();
    const json j = resultToJson(in, true);
    EXPECT_EQ(j.at("name"), "futex/process/same-pu");
    EXPECT_EQ(j.at("real_time"), 2501);
    EXPECT_EQ(j.at("time_unit"), "ns");
    auto out = resultFromJson(json::parse(j.dump()));
    ASSERT_TRUE(out.ok()) << out.error().message;
    EXPECT_EQ(out->bench, in.bench);
    EXPECT_EQ(out->mode, in.mode);
    EXPECT_EQ(out->placement.cpus, in.placement.cpus);
    EXPECT_EQ(out->placement.relation, in.placement.relation);
    EXPECT_DOUBLE_EQ(out->stats.p99, in.stats.p99);
    EXPECT_DOUBLE_EQ(*out->perSwitchNs, *in.perSwitchNs);
    EXPECT_DOUBLE_EQ(out->observed.voluntaryPerOp, in.observed.voluntaryPerOp);
    EXPECT_EQ(out->observed.perfCheckOps, in.observed.perfCheckOps);
    EXPECT_DOUBLE_EQ(out->observed.perfCheckNsPerOp, in.observed.perfCheckNsPerOp);
    EXPECT_EQ(out->samples, in.samples);
    EXPECT_EQ(out->histogram.size(), 2U);
    EXPECT_EQ(out->warnings, in.warnings);
}

TEST(Report, ReaderIgnoresUnknownFieldsAndNamesMissingOnes)
{
    json j = resultToJson(sampleResult());
    j["some_future_field"] = { 1, 2, 3 };
    EXPECT_TRUE(resultFromJson(j).ok());

    json missing = j;
    missing.erase("bench");
    auto r = resultFromJson(missing);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("'bench'"), std::string::npos) << r.error().message;

    json wrongType = j;
    wrongType["stats"]["p50"] = "fast";
    r = resultFromJson(wrongType);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("stats.p50"), std::string::npos) << r.error().message;

    json badMode = j;
    badMode["mode"] = "fiber";
    r = resultFromJson(badMode);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("fiber"), std::string::npos);
}

TEST(Report, FileReaderRejectsWhatIsNotAResultsFile)
{
    const auto expectError = [](std::string_view text, std::string_view needle) {
        auto f = readResults(text);
        ASSERT_FALSE(f.ok()) << text;
        EXPECT_NE(f.error().message.find(needle), std::string::npos) << f.error().message;
    };
    expectError("", "not valid JSON");
    expectError("{\"context\": {}, \"benchmarks\": [", "not valid JSON");
    expectError("[1,2]", "not a JSON object");
    expectError("{\"benchmarks\": []}", "'context'");
    expectError("{\"context\": {}, \"benchmarks\": []}", "no ctxscope results");
    expectError("{\"context\": {}, \"benchmarks\": [42]}", "benchmarks[0]");
    expectError("{\"context\": {\"ctxscope\": {\"format_version\": 99}}, \"benchmarks\": []}", "format version 99");

    json good = makeReport(json { { "host_name", "lab-3" } }, { sampleResult() }, false);
    auto f = readResults(good.dump());
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ(f->context.hostName, "lab-3");
    ASSERT_EQ(f->results.size(), 1U);
    EXPECT_TRUE(f->results[0].samples.empty()); // not written without samples
}

TEST(Report, TheContextNamesTheMachinesCpuKernelAndHypervisor)
{
    const json context { { "host_name", "srv1" },
        { "ctxscope",
            { { "sysinfo",
                { { "cpu_model", "AMD EPYC 7B13" }, { "kernel", "6.1.0-18-amd64" }, { "hypervisor", true },
                    { "hypervisor_vendor", "KVM" } } } } } };
    auto read = reportContextFromJson(context);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->cpuModel, "AMD EPYC 7B13");
    EXPECT_EQ(read->kernel, "6.1.0-18-amd64");
    EXPECT_TRUE(read->hypervisor);
    EXPECT_EQ(read->hypervisorVendor, "KVM");
}

TEST(Report, AnOlderFilesHypervisorSignatureReadsAsItsName)
{
    // Files written before hypervisorName hold CPUID's signature; the title says "KVM", not that.
    for (const auto& [signature, name] :
        { std::pair { "KVMKVMKVM", "KVM" }, std::pair { "Microsoft Hv", "Hyper-V" } }) {
        const json context { { "ctxscope",
            { { "sysinfo", { { "hypervisor", true }, { "hypervisor_vendor", signature } } } } } };
        auto read = reportContextFromJson(context);
        ASSERT_TRUE(read.ok()) << read.error().message;
        EXPECT_EQ(read->hypervisorVendor, name);
    }
}

TEST(Report, CsvHasContextHeaderAndOneQuotedRowPerResult)
{
    const std::string csv = resultsToCsv(json { { "host_name", "lab-3" }, { "num_cpus", 2 } }, { sampleResult() });
    EXPECT_NE(csv.find("# host_name: lab-3\n"), std::string::npos);
    EXPECT_NE(csv.find("# num_cpus: 2\n"), std::string::npos);
    EXPECT_NE(csv.find("\nname,bench,op,mode,cpus,relation"), std::string::npos);
    EXPECT_NE(csv.find("futex/process/same-pu,futex,"), std::string::npos);
    EXPECT_NE(csv.find(",2501,"), std::string::npos); // the median, in C-locale notation
    EXPECT_NE(csv.find("\"The spread is high, \"\"CV\"\" 6%.\""), std::string::npos); // RFC 4180 quoting
    const std::string samples = samplesToCsv({ sampleResult() });
    EXPECT_NE(samples.find("futex/process/same-pu,2,1,2499.5\n"), std::string::npos);
}
