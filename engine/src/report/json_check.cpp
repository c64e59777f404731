// SPDX-License-Identifier: MIT
#include "report/json_check.h"

#include <array>

namespace ctxscope::report {

namespace {

// The bytes the scan stops at; everything else (digits, most of a file) is skipped.
constexpr std::array<bool, 256> kInteresting = [] {
    std::array<bool, 256> table {};
    for (const char c : { '"', '[', ']', '{', '}' })
        table[static_cast<unsigned char>(c)] = true;
    return table;
}();

} // namespace

JsonProblem checkJsonText(std::string_view text, int maxDepth, std::size_t* where)
{
    const auto found = [where](JsonProblem problem, std::size_t at) {
        if (where)
            *where = at;
        return problem;
    };
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (inString) {
            i = text.find_first_of("\"\\", i);
            if (i == std::string_view::npos)
                break;
            if (text[i] == '\\')
                ++i; // the escaped character cannot end the string
            else
                inString = false;
            continue;
        }
        const char c = text[i];
        if (!kInteresting[static_cast<unsigned char>(c)])
            continue;
        switch (c) {
        case '"':
            inString = true;
            break;
        case '[':
        case '{':
            if (++depth > maxDepth)
                return found(JsonProblem::TooDeep, i);
            break;
        case ']':
        case '}':
            // One closer too many is the parser's to report, with its own words.
            if (--depth < 0)
                return found(JsonProblem::None, 0);
            break;
        default:
            break;
        }
    }
    if (inString || depth > 0)
        return found(JsonProblem::Unclosed, text.size());
    return found(JsonProblem::None, 0);
}

} // namespace ctxscope::report
