// SPDX-License-Identifier: MIT
#include "synthetic_check.h"

#include <cctype>
#include <charconv>
#include <string>

namespace ctxscope {

namespace {

bool validTypeChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

} // namespace

Status checkSyntheticDescription(std::string_view description)
{
    const std::string quoted = "'" + std::string(description.substr(0, 80)) + (description.size() > 80 ? "...'" : "'");
    if (description.size() > 4096)
        return makeError("synthetic description is too long (" + std::to_string(description.size()) + " characters)");
    int depth = 0;
    long product = 1;
    std::size_t pos = 0;
    while (pos < description.size()) {
        if (description[pos] == ' ' || description[pos] == '\t') {
            ++pos;
            continue;
        }
        std::size_t end = pos;
        int parens = 0;
        while (end < description.size() && (parens > 0 || (description[end] != ' ' && description[end] != '\t'))) {
            if (description[end] == '(')
                ++parens;
            else if (description[end] == ')' && --parens < 0)
                return makeError("synthetic description " + quoted + " has an unbalanced ')'");
            ++end;
        }
        if (parens != 0)
            return makeError("synthetic description " + quoted + " has an unclosed '('");
        std::string_view level = description.substr(pos, end - pos);
        pos = end;
        std::size_t attrs = level.find('(');
        std::string_view head = level.substr(0, attrs);
        std::size_t colon = head.find(':');
        std::string_view type = colon == std::string_view::npos ? std::string_view {} : head.substr(0, colon);
        std::string_view count = colon == std::string_view::npos ? head : head.substr(colon + 1);
        for (char c : type)
            if (!validTypeChar(c))
                return makeError("synthetic description " + quoted + ": '" + std::string(level) + "' is not a level");
        long n = 0;
        auto [p, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
        if (count.empty() || ec != std::errc() || p != count.data() + count.size() || n < 1)
            return makeError("synthetic description " + quoted + ": '" + std::string(level)
                + "' needs a positive count, as in core:4");
        if (++depth > kMaxSyntheticDepth)
            return makeError("synthetic description " + quoted + " has more than 32 levels");
        if (n > kMaxSyntheticPus || (product *= n) > kMaxSyntheticPus)
            return makeError("synthetic description " + quoted + " describes more than 8192 PUs");
    }
    if (depth == 0)
        return makeError("synthetic description is empty (try 'pack:2 core:4 pu:2')");
    return {};
}

} // namespace ctxscope
