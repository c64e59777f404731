// SPDX-License-Identifier: MIT
#include "protocol/rows_text.h"

#include <charconv>
#include <system_error>

namespace ctxscope::protocol::detail {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

} // namespace

RowsText::RowsText(std::string_view array)
    : m_text(array)
{
    skipSpace();
    if (m_at >= m_text.size() || m_text[m_at] != '[') {
        decline();
        return;
    }
    ++m_at;
    skipSpace();
    if (m_at < m_text.size() && m_text[m_at] == ']') {
        ++m_at;
        skipSpace();
        m_done = true;
        if (m_at != m_text.size())
            decline();
    }
}

std::optional<RowView> RowsText::next()
{
    if (m_done || m_declined)
        return std::nullopt;
    m_nodes.clear();
    skipSpace();
    if (m_at >= m_text.size() || m_text[m_at] != '[' || !value(0, m_row)) {
        decline();
        return std::nullopt;
    }
    skipSpace();
    if (m_at < m_text.size() && m_text[m_at] == ',') {
        ++m_at;
    } else if (m_at < m_text.size() && m_text[m_at] == ']') {
        ++m_at;
        skipSpace();
        m_done = true;
        if (m_at != m_text.size()) {
            decline();
            return std::nullopt;
        }
    } else {
        decline();
        return std::nullopt;
    }
    return RowView(m_nodes, m_row);
}

bool RowsText::value(std::size_t depth, RowNode& out)
{
    skipSpace();
    if (m_at >= m_text.size())
        return false;
    out = RowNode {};
    switch (m_text[m_at]) {
    case '[': {
        if (depth >= kDepth)
            return false;
        ++m_at;
        std::vector<RowNode>& elements = m_open[depth];
        elements.clear();
        skipSpace();
        if (m_at < m_text.size() && m_text[m_at] == ']') {
            ++m_at;
        } else {
            for (;;) {
                RowNode element;
                if (!value(depth + 1, element))
                    return false;
                elements.push_back(element);
                skipSpace();
                if (m_at >= m_text.size())
                    return false;
                const char c = m_text[m_at++];
                if (c == ']')
                    break;
                if (c != ',')
                    return false;
            }
        }
        out.kind = RowNode::Kind::Array;
        out.first = static_cast<std::uint32_t>(m_nodes.size());
        out.count = static_cast<std::uint32_t>(elements.size());
        m_nodes.insert(m_nodes.end(), elements.begin(), elements.end());
        return true;
    }
    case '"': {
        // One printable ASCII character and no escape: a thread's state letter.
        if (m_at + 2 >= m_text.size() || m_text[m_at + 2] != '"')
            return false;
        const char c = m_text[m_at + 1];
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
            return false;
        out.kind = RowNode::Kind::Letter;
        out.letter = c;
        m_at += 3;
        return true;
    }
    case 't':
        out.kind = RowNode::Kind::Boolean;
        out.boolean = true;
        return word("true");
    case 'f':
        out.kind = RowNode::Kind::Boolean;
        return word("false");
    case 'n':
        return word("null");
    default:
        return isDigit(m_text[m_at]) && number(out); // a minus sign is declined
    }
}

// A JSON number as nlohmann reads it: digits alone are an unsigned integer (declined past 64
// bits, which it would read as a float), with a fraction or an exponent a double, correctly
// rounded by both from_chars and the strtod it uses (one out of from_chars' range is declined:
// nlohmann refuses one that overflows).
bool RowsText::number(RowNode& out)
{
    const std::size_t begin = m_at;
    const auto digits = [&] {
        const std::size_t from = m_at;
        while (m_at < m_text.size() && isDigit(m_text[m_at]))
            ++m_at;
        return m_at > from;
    };
    if (m_text[m_at] == '0')
        ++m_at; // a digit after it is not this number's, nor a row's
    else
        digits();
    bool integer = true;
    if (m_at < m_text.size() && m_text[m_at] == '.') {
        ++m_at;
        integer = false;
        if (!digits())
            return false;
    }
    if (m_at < m_text.size() && (m_text[m_at] == 'e' || m_text[m_at] == 'E')) {
        ++m_at;
        integer = false;
        if (m_at < m_text.size() && (m_text[m_at] == '+' || m_text[m_at] == '-'))
            ++m_at;
        if (!digits())
            return false;
    }
    const char* first = m_text.data() + begin;
    const char* last = m_text.data() + m_at;
    if (integer) {
        const auto [end, error] = std::from_chars(first, last, out.whole);
        if (error != std::errc() || end != last)
            return false;
        out.kind = RowNode::Kind::Unsigned;
        out.number = static_cast<double>(out.whole);
        return true;
    }
    const auto [end, error] = std::from_chars(first, last, out.number);
    if (error != std::errc() || end != last)
        return false;
    out.kind = RowNode::Kind::Float;
    return true;
}

bool RowsText::word(std::string_view w)
{
    if (m_text.substr(m_at, w.size()) != w)
        return false;
    m_at += w.size();
    return true;
}

void RowsText::skipSpace()
{
    while (m_at < m_text.size() && isSpace(m_text[m_at]))
        ++m_at;
}

void RowsText::decline() { m_declined = true; }

std::optional<std::pair<std::size_t, std::size_t>> topLevelArray(std::string_view line, std::string_view key)
{
    std::optional<std::size_t> begin;
    std::optional<std::size_t> end;
    int depth = 0;
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == '"') {
            const std::size_t from = i + 1;
            bool escaped = false;
            std::size_t j = from;
            for (;;) {
                j = line.find_first_of("\"\\", j);
                if (j == std::string_view::npos)
                    return std::nullopt;
                if (line[j] == '"')
                    break;
                escaped = true;
                j += 2; // the escaped character cannot end the string
            }
            i = j + 1;
            if (depth != 1)
                continue;
            std::size_t k = i;
            while (k < line.size() && isSpace(line[k]))
                ++k;
            if (k >= line.size() || line[k] != ':')
                continue; // a value, not a key
            if (escaped)
                return std::nullopt;
            if (line.substr(from, j - from) != key)
                continue;
            if (begin)
                return std::nullopt; // twice
            ++k;
            while (k < line.size() && isSpace(line[k]))
                ++k;
            if (k >= line.size() || line[k] != '[')
                return std::nullopt;
            begin = k;
            i = k;
            continue;
        }
        if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            if (--depth < 0)
                return std::nullopt;
            if (begin && !end && depth == 1) {
                if (c != ']')
                    return std::nullopt;
                end = i + 1;
            }
        }
        ++i;
    }
    if (!begin || !end || depth != 0)
        return std::nullopt;
    return std::make_pair(*begin, *end);
}

} // namespace ctxscope::protocol::detail
