// SPDX-License-Identifier: MIT
// XML import and export: round trips, the good fixtures, and the malformed corpus.
#include "topology_test_support.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

using namespace ctxscope;
using ctxscope::test::classesOf;
using ctxscope::test::fixture;
using ctxscope::test::readAll;

namespace {

void expectSameModel(const Topology& a, const Topology& b, bool compareAffinity = true)
{
    EXPECT_EQ(a.root(), b.root());
    EXPECT_EQ(a.caches(), b.caches());
    EXPECT_EQ(a.numaNodes(), b.numaNodes());
    EXPECT_EQ(a.cpuKinds(), b.cpuKinds());
    EXPECT_EQ(a.packageCount(), b.packageCount());
    EXPECT_EQ(a.coreCount(), b.coreCount());
    ASSERT_EQ(a.pus().size(), b.pus().size());
    for (std::size_t i = 0; i < a.pus().size(); ++i) {
        PuInfo pa = a.pus()[i];
        PuInfo pb = b.pus()[i];
        if (!compareAffinity)
            pa.inAffinity = pb.inAffinity = true;
        EXPECT_EQ(pa, pb) << "PU P#" << pa.osIndex;
    }
}

// No child of this process, running or zombie, is left behind.
void expectNoChildren()
{
    errno = 0;
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
    EXPECT_EQ(errno, ECHILD);
}

} // namespace

TEST(TopologyXml, SyntheticExportLoadsBackAsTheSameModel)
{
    for (const char* description :
        { "pack:2 l3:2 core:4 pu:2", "pack:2 [numa] l3:2 l2:2 core:2 pu:2", "core:3 pu:1" }) {
        SCOPED_TRACE(description);
        auto synthetic = Topology::loadSynthetic(description);
        ASSERT_TRUE(synthetic.ok()) << synthetic.error().message;
        auto xml = synthetic->exportXml(false);
        ASSERT_TRUE(xml.ok()) << xml.error().message;
        auto loaded = Topology::loadXmlBuffer(*xml);
        ASSERT_TRUE(loaded.ok()) << loaded.error().message;
        EXPECT_EQ(loaded->source(), TopologySource::Xml);
        EXPECT_FALSE(loaded->isThisSystem());
        expectSameModel(*synthetic, *loaded);
    }
    expectNoChildren();
}

TEST(TopologyXml, EveryGoodFixtureRoundTrips)
{
    for (const auto& entry : std::filesystem::directory_iterator(fixture("good"))) {
        SCOPED_TRACE(entry.path().string());
        auto first = Topology::loadXmlFile(entry.path().string());
        ASSERT_TRUE(first.ok()) << first.error().message;
        auto xml = first->exportXml(false);
        ASSERT_TRUE(xml.ok()) << xml.error().message;
        auto second = Topology::loadXmlBuffer(*xml);
        ASSERT_TRUE(second.ok()) << second.error().message;
        expectSameModel(*first, *second);
    }
}

TEST(TopologyXml, LiveExportLoadsBackAsTheSameModel)
{
    test::LiveEnv env;
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok()) << live.error().message;
    for (bool anonymize : { false, true }) {
        auto xml = live->exportXml(anonymize);
        ASSERT_TRUE(xml.ok()) << xml.error().message;
        if (anonymize) {
            EXPECT_EQ(xml->find("HostName"), std::string::npos);
        }
        auto loaded = Topology::loadXmlBuffer(*xml);
        ASSERT_TRUE(loaded.ok()) << loaded.error().message;
        // The affinity mask is this process's, not the machine's: an XML has none.
        expectSameModel(*live, *loaded, false);
    }
}

TEST(TopologyXml, AnonymizedExportDropsHostNameAndSerialsOnly)
{
    std::string xml = readAll(fixture("good/two-packages-two-numa.xml"));
    const std::size_t machine = xml.find('>', xml.find("<object type=\"Machine\"")) + 1;
    ASSERT_NE(machine, std::string::npos);
    xml.insert(machine,
        "\n    <info name=\"HostName\" value=\"lab-pc-7\"/>"
        "\n    <info name=\"DMIProductSerial\" value=\"XYZ123\"/>"
        "\n    <info name=\"DMIProductUUID\" value=\"0000-1111\"/>"
        "\n    <info name=\"DMIBoardAssetTag\" value=\"A-42\"/>"
        "\n    <info name=\"CPUModel\" value=\"Teaching CPU\"/>");
    auto topo = Topology::loadXmlBuffer(xml);
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    auto plain = topo->exportXml(false);
    ASSERT_TRUE(plain.ok());
    EXPECT_NE(plain->find("lab-pc-7"), std::string::npos); // hwloc kept them, so the test means something
    auto anonymous = topo->exportXml(true);
    ASSERT_TRUE(anonymous.ok());
    for (const char* secret : { "lab-pc-7", "XYZ123", "0000-1111", "A-42" })
        EXPECT_EQ(anonymous->find(secret), std::string::npos) << secret;
    EXPECT_NE(anonymous->find("Teaching CPU"), std::string::npos);
    auto reloaded = Topology::loadXmlBuffer(*anonymous);
    ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
    expectSameModel(*topo, *reloaded);
}

TEST(TopologyXml, TwoPackagesTwoNumaNodesGiveCrossNuma)
{
    auto topo = Topology::loadXmlFile(fixture("good/two-packages-two-numa.xml"));
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_EQ(topo->packageCount(), 2);
    ASSERT_EQ(topo->numaNodes().size(), 2U);
    EXPECT_EQ(*relationOf(*topo, 0, 16), Relation::CrossNuma);
    EXPECT_EQ(*relationOf(*topo, 0, 2), Relation::SharedL2);
    EXPECT_EQ(classesOf(representativePairs(*topo)),
        (std::set<Relation> { Relation::SamePu, Relation::Smt, Relation::SharedL2, Relation::SharedL3,
            Relation::SamePackage, Relation::CrossNuma }));
    EXPECT_NE(topo->origin().find("two-packages-two-numa.xml"), std::string::npos);
}

TEST(TopologyXml, DisallowedPusAreKeptGreyedAndRefused)
{
    auto topo = Topology::loadXmlFile(fixture("good/disallowed-cpus.xml"));
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    ASSERT_EQ(topo->pus().size(), 8U); // kept, not hidden
    for (const auto& pu : topo->pus())
        EXPECT_EQ(pu.allowed, pu.osIndex < 4) << "P#" << pu.osIndex;
    EXPECT_EQ(topo->allowedPus(), (std::vector<int> { 0, 1, 2, 3 }));
    auto refused = checkPuUsable(*topo, 5);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message.rfind("CPU 5 is outside the allowed set 0-3", 0), 0U) << refused.error().message;
    EXPECT_TRUE(checkPuUsable(*topo, 3).ok());
    // Representative pairs only use allowed PUs.
    for (const auto& p : representativePairs(*topo, 4)) {
        EXPECT_LT(p.a, 4);
        EXPECT_LT(p.b, 4);
    }
}

TEST(TopologyXml, SmtSiblingsNumberedApart)
{
    auto topo = Topology::loadXmlFile(fixture("good/smt-siblings-apart.xml"));
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_EQ(*relationOf(*topo, 0, 4), Relation::Smt);
    EXPECT_EQ(*relationOf(*topo, 0, 1), Relation::SharedL3);
    EXPECT_EQ(topo->findPu(4)->core, topo->findPu(0)->core);
}

TEST(TopologyXml, EveryMalformedInputIsRefusedWithAMessage)
{
    int cases = 0;
    for (const auto& entry : std::filesystem::directory_iterator(fixture("bad"))) {
        const std::string path = entry.path().string();
        SCOPED_TRACE(path);
        ++cases;
        Expected<Topology> topo = [&] {
            if (entry.path().extension() != ".synthetic")
                return Topology::loadXmlFile(path);
            std::string description = readAll(path);
            while (!description.empty() && description.back() == '\n')
                description.pop_back();
            return Topology::loadSynthetic(description);
        }();
        ASSERT_FALSE(topo.ok()) << "accepted";
        const std::string& message = topo.error().message;
        EXPECT_GT(message.size(), 10U);
        EXPECT_EQ(message.find('\n'), std::string::npos) << message; // one line for the CLI
        expectNoChildren();
    }
    EXPECT_GE(cases, 15);
}

TEST(TopologyXml, MalformedBuffersAreRefusedToo)
{
    for (const std::string& xml :
        { std::string(), std::string("<topology"), std::string("\0<topology>", 11), std::string(1 << 20, '<') }) {
        auto topo = Topology::loadXmlBuffer(xml);
        EXPECT_FALSE(topo.ok());
    }
    expectNoChildren();
}

TEST(TopologyXml, MoreThan8192PusAreRefusedBeforeParsing)
{
    std::string xml = "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n<object type=\"Machine\">\n";
    for (int i = 0; i <= 8192; ++i)
        xml += "<object type=\"PU\" os_index=\"" + std::to_string(i) + "\"/>\n";
    xml += "</object>\n</topology>\n";
    auto topo = Topology::loadXmlBuffer(xml);
    ASSERT_FALSE(topo.ok());
    EXPECT_NE(topo.error().message.find("more than 8192 PUs"), std::string::npos) << topo.error().message;
}

TEST(TopologyXml, MissingAndUnreadableFilesAreNamed)
{
    auto missing = Topology::loadXmlFile("/nonexistent/topology.xml");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message, "/nonexistent/topology.xml: No such file or directory");
    auto directory = Topology::loadXmlFile(fixture("good"));
    ASSERT_FALSE(directory.ok());
    EXPECT_NE(directory.error().message.find("not a regular file"), std::string::npos);
}

// libhwloc's own XML parser (used when the libxml2 plugin is missing or HWLOC_LIBXML_IMPORT=0)
// recurses once per nesting level and overflows the stack on deep files. The crash must stay
// in the checker child. Runs in a fresh process: hwloc reads that variable once per process.
TEST(TopologyXmlDeathTest, HwlocCrashingInTheCheckerIsAnErrorHere)
{
    // "threadsafe" re-executes this binary for the statement, with the environment set here.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    test::ScopedEnv ownParser("HWLOC_LIBXML_IMPORT", "0");
    // ASan's strict_string_checks makes every strtoul() hwloc's parser calls scan the rest of
    // the 2 MB buffer: the checker would hit its CPU limit before the stack overflows.
    const char* asan = std::getenv("ASAN_OPTIONS");
    const std::string asanOptions = std::string(asan ? asan : "") + ":strict_string_checks=0";
    test::ScopedEnv lenientStrings("ASAN_OPTIONS", asanOptions.c_str());
    std::string xml = "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n<object type=\"Machine\" cpuset=\"0x1\" "
                      "complete_cpuset=\"0x1\" allowed_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
                      "allowed_nodeset=\"0x1\">\n";
    constexpr int kDepth = 40000; // about twice what overflows the 8 MiB stack the checker gets
    for (int i = 0; i < kDepth; ++i)
        xml += "<object type=\"Group\" cpuset=\"0x1\" complete_cpuset=\"0x1\">";
    xml += "<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\"/>";
    for (int i = 0; i < kDepth; ++i)
        xml += "</object>";
    xml += "</object>\n</topology>\n";
    EXPECT_EXIT(
        {
            auto topo = Topology::loadXmlBuffer(xml);
            std::fprintf(stderr, "%s\n", topo.ok() ? "accepted" : topo.error().message.c_str());
            std::_Exit(topo.ok() ? 1 : 0);
        },
        ::testing::ExitedWithCode(0), "hwloc crashed reading the XML topology");
}

// hwloc's own parser reads the buffer as a C string: it must get the ending NUL too.
TEST(TopologyXmlDeathTest, HwlocOwnParserReadsBuffersAndFiles)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    test::ScopedEnv ownParser("HWLOC_LIBXML_IMPORT", "0");
    std::string xml = readAll(fixture("good/two-packages-two-numa.xml"));
    while (!xml.empty() && (xml.back() == '\n' || xml.back() == ' '))
        xml.pop_back(); // ends right after </topology>
    EXPECT_EXIT(
        {
            auto buffer = Topology::loadXmlBuffer(std::string_view(xml));
            auto file = Topology::loadXmlFile(fixture("good/vm-2cpu-live.xml"));
            const bool ok = buffer.ok() && buffer->pus().size() == 32 && file.ok() && file->pus().size() == 2;
            std::fprintf(stderr, "%s: %s / %s\n", ok ? "loaded" : "refused",
                buffer.ok() ? "ok" : buffer.error().message.c_str(), file.ok() ? "ok" : file.error().message.c_str());
            std::_Exit(ok ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "loaded");
}

TEST(TopologyXml, BufferWithoutTrailingNewlineLoads)
{
    std::string xml = readAll(fixture("good/two-packages-two-numa.xml"));
    while (!xml.empty() && xml.back() == '\n')
        xml.pop_back();
    // A view into a larger string: nothing after the view may be read as XML.
    const std::string padded = xml + "<garbage>";
    auto topo = Topology::loadXmlBuffer(std::string_view(padded).substr(0, xml.size()));
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_EQ(topo->pus().size(), 32U);
}
