// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"

#include <gtest/gtest.h>

#include <string>

namespace ctxscope::testing {

inline Topology synthetic(const std::string& description)
{
    auto topo = Topology::loadSynthetic(description);
    EXPECT_TRUE(topo.ok()) << description << ": " << (topo ? std::string() : topo.error().message);
    return std::move(*topo);
}

// A synthetic topology whose cgroup cpuset (hwloc's allowed set, the root object's
// allowed_cpuset attribute in XML) is narrowed to the hex mask given, e.g. "0x000000ff".
inline Topology withAllowedCpuset(const std::string& description, const std::string& mask)
{
    auto xml = synthetic(description).exportXml(false);
    EXPECT_TRUE(xml.ok());
    std::string text = *xml;
    const std::string attr = "allowed_cpuset=\"";
    const auto at = text.find(attr); // the Machine object comes first and is the only one carrying it
    EXPECT_NE(at, std::string::npos);
    const auto end = text.find('"', at + attr.size());
    text.replace(at + attr.size(), end - at - attr.size(), mask);
    auto topo = Topology::loadXmlBuffer(text);
    EXPECT_TRUE(topo.ok()) << (topo ? std::string() : topo.error().message);
    return std::move(*topo);
}

} // namespace ctxscope::testing
