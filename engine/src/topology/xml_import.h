// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <cstddef>
#include <string>
#include <string_view>

struct hwloc_topology;

namespace ctxscope {

inline constexpr std::size_t kMaxXmlBytes = 64U << 20;

// Reads a topology XML file, refusing missing, unreadable, empty and oversized files.
Expected<std::string> readXmlFile(const std::string& path);
// Cheap checks on the bytes before any parser sees them: size, binary data, a <topology>
// element, and no more PU objects than ctxscope handles.
Status precheckXml(std::string_view xml);
// Loads the XML with hwloc in a forked child limited in CPU time, memory and wall time, so a
// file that crashes or hangs libhwloc becomes an error message in this process. The child's
// stdout and stderr are captured: a file hwloc complains about is refused with its complaint,
// so that loading it again in this process prints nothing. The child is always reaped.
Status validateXmlInChild(const std::string& xml);
// hwloc_topology_set_xmlbuffer() with the length hwloc expects: the text and its ending NUL
// (hwloc's own parser reads the buffer as a C string).
int setXmlBuffer(hwloc_topology* topology, const std::string& xml);
// Removes the host name, serial numbers and UUIDs (hwloc <info> attributes) from an export.
std::string anonymizeXml(std::string xml);

} // namespace ctxscope
