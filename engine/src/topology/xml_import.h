// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <string>
#include <string_view>

namespace ctxscope {

inline constexpr std::size_t kMaxXmlBytes = 64U << 20;

// Reads a topology XML file, refusing missing, unreadable, empty and oversized files.
Expected<std::string> readXmlFile(const std::string& path);
// Loads the XML with hwloc in a forked child limited in CPU time and memory, so that a file
// that crashes or hangs libhwloc becomes an error message in this process.
Status validateXmlInChild(std::string_view xml);
// Removes the host name, serial numbers and UUIDs (hwloc <info> attributes) from an export.
std::string anonymizeXml(std::string xml);

} // namespace ctxscope
