// SPDX-License-Identifier: MIT
#include "report/json_check.h"

namespace ctxscope::report {

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
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i; // the escaped character cannot end the string
            else if (c == '"')
                inString = false;
            continue;
        }
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
