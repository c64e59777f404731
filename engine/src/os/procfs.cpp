// SPDX-License-Identifier: MIT
#include "os/procfs.h"

#include <fstream>
#include <sstream>

namespace ctxscope {

std::optional<std::string> readFirstLine(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line))
        return std::nullopt;
    return line;
}

std::optional<std::string> readSmallFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return std::nullopt;
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string cpuinfoField(const std::string& cpuinfo, const std::string& key)
{
    std::istringstream in(cpuinfo);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty())
            break; // end of the first processor block
        if (line.compare(0, key.size(), key) != 0)
            continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos || line.find_first_not_of(" \t", key.size()) != colon)
            continue;
        const auto start = line.find_first_not_of(' ', colon + 1);
        return start == std::string::npos ? std::string() : line.substr(start);
    }
    return {};
}

} // namespace ctxscope
