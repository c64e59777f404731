// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/placement.h"
#include "ctxscope/topology.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>

namespace ctxscope::test {

inline std::string fixture(const std::string& relative)
{
    return std::string(ctxscope::test::fixturesDir()) + "/topology/" + relative;
}

// Sets (or, with nullptr, unsets) an environment variable for one scope and restores it.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value)
        : m_name(name)
    {
        if (const char* old = std::getenv(name))
            m_old = old;
        if (value)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
    ~ScopedEnv()
    {
        if (m_old)
            ::setenv(m_name.c_str(), m_old->c_str(), 1);
        else
            ::unsetenv(m_name.c_str());
    }

private:
    std::string m_name;
    std::optional<std::string> m_old;
};

// The tests of loadLive() must see this machine even when a developer has set one of these.
struct LiveEnv {
    ScopedEnv xml { "HWLOC_XMLFILE", nullptr };
    ScopedEnv synthetic { "HWLOC_SYNTHETIC", nullptr };
    ScopedEnv fsroot { "HWLOC_FSROOT", nullptr };
    ScopedEnv thisSystem { "HWLOC_THISSYSTEM", nullptr };
};

// A synthetic topology (hwloc's description), failing the test that asks for a bad one.
inline Topology synthetic(const char* description)
{
    auto t = Topology::loadSynthetic(description);
    EXPECT_TRUE(t.ok()) << description << ": " << (t.ok() ? "" : t.error().message);
    return std::move(*t);
}

// A whole file as bytes ("" when it cannot be read).
inline std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::set<Relation> classesOf(const std::vector<PuPair>& pairs)
{
    std::set<Relation> out;
    for (const auto& p : pairs)
        out.insert(p.relation);
    return out;
}

} // namespace ctxscope::test
