// SPDX-License-Identifier: MIT
// Reading, pre-checking and anonymizing hwloc XML; the parse itself is in xml_child.cpp.
#include "xml_import.h"

#include "topology_impl.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace ctxscope {

Expected<std::string> readXmlFile(const std::string& path)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0)
        return makeError(path + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        return makeError(path + ": not a regular file");
    if (st.st_size == 0)
        return makeError(path + ": the file is empty");
    if (static_cast<std::size_t>(st.st_size) > kMaxXmlBytes)
        return makeError(path + ": " + std::to_string(st.st_size >> 20) + " MiB is too large for a topology (limit "
            + std::to_string(kMaxXmlBytes >> 20) + " MiB)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(path + ": cannot be opened for reading (" + std::strerror(errno) + ")");
    std::string data(static_cast<std::size_t>(st.st_size), '\0');
    in.read(data.data(), st.st_size);
    if (in.gcount() != st.st_size)
        return makeError(path + ": could not read the whole file");
    return data;
}

int setXmlBuffer(hwloc_topology* topology, const std::string& xml)
{
    return hwloc_topology_set_xmlbuffer(topology, xml.c_str(), static_cast<int>(xml.size() + 1));
}

Status precheckXml(std::string_view xml)
{
    if (xml.empty())
        return makeError("the XML topology is empty");
    if (xml.size() > kMaxXmlBytes)
        return makeError("the XML topology is larger than " + std::to_string(kMaxXmlBytes >> 20) + " MiB");
    if (xml.find('\0') != std::string_view::npos)
        return makeError("this is binary data, not an hwloc XML topology");
    if (xml.find("<topology") == std::string_view::npos)
        return makeError("this is not an hwloc topology (no <topology> element)");
    // Count PU objects before parsing: a huge file must not cost a long parse to be refused.
    // hwloc writes type="PU"; the child checks the real count after parsing anyway.
    long pus = 0;
    for (std::size_t at = xml.find("type=\"PU\""); at != std::string_view::npos; at = xml.find("type=\"PU\"", at + 1))
        if (++pus > kMaxPus)
            return makeError("the XML topology has more than " + std::to_string(kMaxPus) + " PUs; refused");
    return {};
}

std::string anonymizeXml(std::string xml)
{
    // hwloc <info> names that identify a host or a machine (DMI serials, asset tags, UUIDs).
    static constexpr std::array kPrivate { "HostName", "Serial", "UUID", "Asset", "DMIProductName", "DMIBoardName",
        "DMIChassis", "DMISys", "DMIBios", "DMIProductVersion", "DMIBoardVersion" };
    std::size_t pos = 0;
    while ((pos = xml.find("<info name=\"", pos)) != std::string::npos) {
        const std::size_t nameStart = pos + 12;
        const std::size_t nameEnd = xml.find('"', nameStart);
        const std::size_t end = xml.find("/>", pos);
        if (nameEnd == std::string::npos || end == std::string::npos)
            break;
        const std::string name = xml.substr(nameStart, nameEnd - nameStart);
        bool drop = false;
        for (const char* key : kPrivate)
            drop = drop || name.find(key) != std::string::npos;
        if (drop) {
            std::size_t lineStart = xml.rfind('\n', pos);
            lineStart = lineStart == std::string::npos ? pos : lineStart;
            xml.erase(lineStart, end + 2 - lineStart);
            pos = lineStart;
        } else {
            pos = end;
        }
    }
    return xml;
}

} // namespace ctxscope
