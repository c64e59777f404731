// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <istream>
#include <string>

namespace ctxscope::cli {

struct LineRead {
    std::size_t bytes = 0; // the line's whole length, without the newline
    bool end = false; // no line: the input ended
};

// std::getline that holds at most `limit` bytes: a longer line is read to its newline and
// dropped (`line` is left empty, `bytes` says how long it was), so a controller that sends
// gigabytes without a newline cannot make the worker hold them.
LineRead readBoundedLine(std::istream& in, std::string& line, std::size_t limit);

} // namespace ctxscope::cli
