// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/topology.h"

#include <gtest/gtest.h>

#include <memory>

namespace ctxscope::test {

// A suite of tests on this machine's topology, loaded once per suite (hwloc takes a while
// to read it). Tests use only what it reports (allowedPus(), its caches), never a shape.
class LiveTopologyTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        auto t = Topology::loadLive();
        ASSERT_TRUE(t.ok()) << t.error().message;
        s_topology = std::make_unique<Topology>(std::move(*t));
    }
    static void TearDownTestSuite() { s_topology.reset(); }

    static inline std::unique_ptr<Topology> s_topology;
};

} // namespace ctxscope::test
