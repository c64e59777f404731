// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <string_view>

namespace ctxscope::report {

// No file or message of ours nests deeper than a handful of levels.
inline constexpr int kMaxJsonDepth = 64;

enum class JsonProblem { None, Syntax, TooDeep };

// Reads JSON text once with nlohmann's SAX parser, building nothing: a broken file of any
// size or a bracket bomb is refused before a document is built (a document of 10 million
// nested arrays takes gigabytes). `where` receives the byte offset of a syntax error.
JsonProblem checkJsonText(std::string_view text, int maxDepth, std::size_t* where = nullptr);

} // namespace ctxscope::report
