// SPDX-License-Identifier: MIT
#include "bounded_line.h"

namespace ctxscope::cli {

LineRead readBoundedLine(std::istream& in, std::string& line, std::size_t limit)
{
    line.clear();
    LineRead read;
    std::streambuf* buf = in.rdbuf();
    bool any = false;
    for (;;) {
        const auto c = buf->sbumpc();
        if (c == std::char_traits<char>::eof()) {
            in.setstate(std::ios::eofbit);
            read.end = !any;
            break;
        }
        any = true;
        if (c == '\n')
            break;
        ++read.bytes;
        if (read.bytes <= limit)
            line.push_back(static_cast<char>(c));
        else if (!line.empty())
            line.clear(); // over the limit: drop what was held, count the rest
    }
    if (read.bytes > limit)
        line.clear();
    return read;
}

} // namespace ctxscope::cli
