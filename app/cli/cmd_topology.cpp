// SPDX-License-Identifier: MIT
#include "commands.h"

#include "ctxscope/cache_check.h"
#include "ctxscope/topology_report.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace ctxscope::cli {

namespace {

struct TopologyOptions {
    std::string xmlFile;
    std::string synthetic;
    std::string format = "text";
    bool anonymize = false;
};

Expected<Topology> loadRequested(const TopologyOptions& o)
{
    if (!o.xmlFile.empty())
        return Topology::loadXmlFile(o.xmlFile);
    if (!o.synthetic.empty())
        return Topology::loadSynthetic(o.synthetic);
    return Topology::loadLive();
}

int run(const TopologyOptions& o)
{
    if (o.anonymize && o.format != "xml")
        return badInput("--anonymize only applies to --format xml");
    auto topology = loadRequested(o);
    if (!topology)
        return badInput(topology.error().message);
    if (o.format == "json") {
        fmt::print("{}\n", topologyToJson(*topology).dump(2));
    } else if (o.format == "xml") {
        auto xml = topology->exportXml(o.anonymize);
        if (!xml)
            return badInput(xml.error().message);
        fmt::print("{}", *xml);
    } else {
        fmt::print("{}", describeTopology(*topology));
        // The map marks cache sizes: say when they cannot be trusted.
        if (const std::string caches = checkCaches(*topology).sentence(); !caches.empty())
            fmt::print("\nwarning: {}\n", caches);
    }
    return kOk;
}

} // namespace

Command addTopologyCommand(CLI::App& app)
{
    auto options = std::make_shared<TopologyOptions>();
    CLI::App* sub
        = app.add_subcommand("topology", "Show the CPU topology (this machine, an hwloc XML file or a synthetic one)");
    auto* xml = sub->add_option(
        "--xml", options->xmlFile, "Read an hwloc XML export (lstopo --of xml, or --format xml here)");
    sub->add_option("--synthetic", options->synthetic, "A synthetic machine, e.g. 'pack:2 l3:2 core:4 pu:2'")
        ->excludes(xml);
    sub->add_option("--format", options->format, "text (like lstopo-no-graphics), json or xml")
        ->check(CLI::IsMember({ "text", "json", "xml" }))
        ->capture_default_str();
    sub->add_flag("--anonymize", options->anonymize, "With --format xml: drop host name and serial numbers");
    return { sub, [options] { return run(*options); } };
}

} // namespace ctxscope::cli
