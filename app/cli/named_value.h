// SPDX-License-Identifier: MIT
// Options whose value is one of a few names (--mode, --policy, --relation) bound straight to
// the engine's enums through CLI11's CheckedTransformer.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace ctxscope::cli {

// Maps a name to its value with CheckedTransformer. Only the names are taken (that
// transformer would also take the enum's number), and the error names what was given and
// what is known ("unknown relation 'bogus' (known: same-pu, smt, ...)") where
// CheckedTransformer's own shows the numbers ("Check bogus value in {process->1,thread->0}
// OR {1,0} FAILED").
template <typename E>
CLI::Validator namedValue(const std::string& what, const std::vector<std::pair<std::string, E>>& names)
{
    std::vector<std::string> known;
    for (const auto& n : names)
        known.push_back(n.first);
    const std::string list = fmt::format("{}", fmt::join(known, ", "));
    auto check = [what, known, list, mapping = CLI::CheckedTransformer(names)](std::string& value) {
        if (std::find(known.begin(), known.end(), value) == known.end())
            return fmt::format("unknown {} '{}' (known: {})", what, value, list);
        return mapping(value);
    };
    return CLI::Validator(check, fmt::format("{{{}}}", fmt::join(known, ",")));
}

} // namespace ctxscope::cli
