// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>

namespace ctxscope {

// The first line of a small /proc or /sys file without its newline, or nullopt when it
// cannot be read (absent in a VM, or locked down).
std::optional<std::string> readFirstLine(const std::string& path);
// A whole small text file, or nullopt.
std::optional<std::string> readSmallFile(const std::string& path);
// The value after "key<spaces>: " in /proc/cpuinfo's first processor block, or "".
std::string cpuinfoField(const std::string& cpuinfo, const std::string& key);

} // namespace ctxscope
