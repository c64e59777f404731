// SPDX-License-Identifier: MIT
// Whether this test process holds a privilege, for tests that run both as root and as nobody.
#pragma once

#include <fstream>
#include <string>

namespace ctxscope::test {

// Effective capabilities from /proc (no libcap needed); CAP_SYS_NICE is bit 23.
inline bool hasSysNice()
{
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        if (key == "CapEff:") {
            std::string hex;
            in >> hex;
            return (std::stoull(hex, nullptr, 16) >> 23) & 1U;
        }
        in.ignore(1 << 16, '\n');
    }
    return false;
}

} // namespace ctxscope::test
