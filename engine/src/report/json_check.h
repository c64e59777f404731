// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string_view>

namespace ctxscope::report {

// No file or message of ours nests deeper than a handful of levels.
inline constexpr int kMaxJsonDepth = 64;

enum class JsonProblem { None, Unclosed, TooDeep };

// A pass over JSON text that only follows strings and brackets, at memchr-like speed, before
// nlohmann builds a document: a truncated file (the usual damage) is refused without parsing
// 100 MB first, and a bracket bomb before it becomes gigabytes of nested arrays. Every other
// syntax error is left to the parser. `where` receives the byte offset of the problem.
JsonProblem checkJsonText(std::string_view text, int maxDepth, std::size_t* where = nullptr);

} // namespace ctxscope::report
