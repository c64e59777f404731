// SPDX-License-Identifier: MIT
// A small parser of hwloc's synthetic syntax that only measures a description (levels,
// counts, balanced brackets) so that hwloc never sees one that would exhaust memory or crash.
#include "synthetic_check.h"

#include <cctype>
#include <charconv>
#include <string>

namespace ctxscope {

namespace {

bool isTypeChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One item: "core:4", "4", "pu:2(indexes=0,2,1,3)", "[numa]", "[numa:2(memory=1GB)]".
struct Item {
    std::string_view type;
    long count = 1;
    bool memory = false; // an attached memory object in brackets, not a level
};

Expected<Item> parseItem(std::string_view text, const std::string& quoted)
{
    const auto bad = [&](const std::string& why) {
        return makeError("synthetic description " + quoted + ": '" + std::string(text) + "' " + why);
    };
    Item item;
    std::string_view body = text;
    if (body.front() == '[') {
        if (body.back() != ']')
            return bad("has an unclosed '['");
        item.memory = true;
        body = body.substr(1, body.size() - 2);
    }
    body = body.substr(0, body.find('(')); // attributes are hwloc's to judge
    const std::size_t colon = body.find(':');
    item.type = colon == std::string_view::npos ? (item.memory ? body : std::string_view {}) : body.substr(0, colon);
    for (char c : item.type)
        if (!isTypeChar(c))
            return bad("is not a level (expected e.g. core:4)");
    if (item.memory && item.type.empty())
        return bad("names no memory type (expected e.g. [numa])");
    if (colon == std::string_view::npos && item.memory)
        return item;
    const std::string_view count = colon == std::string_view::npos ? body : body.substr(colon + 1);
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), item.count);
    if (count.empty() || ec == std::errc::result_out_of_range)
        return bad(count.empty() ? "needs a positive count, as in core:4" : "has an absurd count");
    if (ec != std::errc() || end != count.data() + count.size() || item.count < 1)
        return bad("needs a positive count, as in core:4");
    return item;
}

} // namespace

Status checkSyntheticDescription(std::string_view description)
{
    const std::string quoted = "'" + std::string(description.substr(0, 80)) + (description.size() > 80 ? "...'" : "'");
    if (description.size() > kMaxSyntheticLength)
        return makeError("synthetic description is too long (" + std::to_string(description.size())
            + " characters, limit " + std::to_string(kMaxSyntheticLength) + ")");
    int depth = 0;
    long product = 1; // objects at the current level
    std::size_t pos = 0;
    while (pos < description.size()) {
        if (isSpace(description[pos])) {
            ++pos;
            continue;
        }
        // An item ends at a space outside parentheses and brackets.
        std::size_t end = pos;
        int parens = 0;
        int brackets = 0;
        for (; end < description.size() && (parens > 0 || brackets > 0 || !isSpace(description[end])); ++end) {
            const char c = description[end];
            parens += c == '(' ? 1 : c == ')' ? -1 : 0;
            brackets += c == '[' ? 1 : c == ']' ? -1 : 0;
            if (parens < 0 || brackets < 0)
                return makeError(std::string("synthetic description ") + quoted + " has an unbalanced '"
                    + (parens < 0 ? ')' : ']') + "'");
        }
        if (parens != 0 || brackets != 0)
            return makeError(std::string("synthetic description ") + quoted + " has an unclosed '"
                + (parens != 0 ? '(' : '[') + "'");
        auto item = parseItem(description.substr(pos, end - pos), quoted);
        if (!item)
            return item.error();
        pos = end;
        // Memory objects hang beside a level: they do not deepen it or multiply the PUs below.
        if (!item->memory && ++depth > kMaxSyntheticDepth)
            return makeError(
                "synthetic description " + quoted + " has more than " + std::to_string(kMaxSyntheticDepth) + " levels");
        if (item->count > kMaxSyntheticPus || product * item->count > kMaxSyntheticPus)
            return makeError("synthetic description " + quoted + " describes more than "
                + std::to_string(kMaxSyntheticPus) + (item->memory ? " memory objects" : " PUs"));
        if (!item->memory)
            product *= item->count;
    }
    if (depth == 0)
        return makeError("synthetic description is empty (try 'pack:2 core:4 pu:2')");
    return {};
}

} // namespace ctxscope
