// SPDX-License-Identifier: MIT
// A lean watch line's `rows` (watch_delta, protocol.md) read straight from its text: most of a
// lean line's bytes, which a document would first turn into thousands of small JSON values for
// the reader to take apart again. RowsText takes only the rows the worker writes (numbers,
// booleans, null, one-letter strings and arrays of them, no minus sign, no escape) and declines
// everything else, so that the line is then read whole, as a document, by the same rules with
// the same words for what is wrong with it: what this reader accepts, the document's reader
// reads to the same values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace ctxscope::protocol::detail {

// One value of a row as RowsText read it; arrays hold their elements as a run of nodes.
struct RowNode {
    enum class Kind : std::uint8_t { Null, Boolean, Unsigned, Float, Letter, Array };
    Kind kind = Kind::Null;
    bool boolean = false;
    char letter = 0;
    std::uint32_t first = 0; // an array's elements: nodes [first, first + count)
    std::uint32_t count = 0;
    std::uint64_t whole = 0; // Unsigned
    double number = 0; // Unsigned and Float
};

// A value of a row, asked what the row's reader asks of a JSON value (events_read.cpp reads a
// row through this and through a view of a document alike). Valid until the next row is read.
class RowView {
public:
    RowView(const std::vector<RowNode>& nodes, const RowNode& node)
        : m_nodes(&nodes)
        , m_node(&node)
    {
    }
    bool isArray() const { return m_node->kind == RowNode::Kind::Array; }
    std::size_t size() const { return isArray() ? m_node->count : 0; }
    RowView operator[](std::size_t i) const { return { *m_nodes, (*m_nodes)[m_node->first + i] }; }
    bool isNull() const { return m_node->kind == RowNode::Kind::Null; }
    bool isBoolean() const { return m_node->kind == RowNode::Kind::Boolean; }
    bool boolean() const { return m_node->boolean; }
    bool isNumber() const { return m_node->kind == RowNode::Kind::Unsigned || m_node->kind == RowNode::Kind::Float; }
    bool isUnsigned() const { return m_node->kind == RowNode::Kind::Unsigned; }
    double number() const { return m_node->number; }
    std::uint64_t unsignedValue() const { return m_node->whole; }
    // A string of one character: that character; any other value: none.
    std::optional<char> letter() const
    {
        return m_node->kind == RowNode::Kind::Letter ? std::optional<char>(m_node->letter) : std::nullopt;
    }

private:
    const std::vector<RowNode>* m_nodes;
    const RowNode* m_node;
};

// The rows of a `rows` array's text ('[' to its ']'), one at a time.
class RowsText {
public:
    explicit RowsText(std::string_view array);
    // The next row (an array), or none: at the array's end, or where the text is not what this
    // reader takes (declined() then says so). The view is valid until the next call.
    std::optional<RowView> next();
    bool declined() const { return m_declined; }

private:
    // A row's arrays nest at most this deep (the row, its sched block, the enqueue wait, its
    // bins); deeper is declined.
    static constexpr std::size_t kDepth = 4;
    bool value(std::size_t depth, RowNode& out);
    bool number(RowNode& out);
    bool word(std::string_view w);
    void skipSpace();
    void decline();

    std::string_view m_text;
    std::size_t m_at = 0;
    bool m_declined = false;
    bool m_done = false;
    std::vector<RowNode> m_nodes; // the current row's arrays' elements
    std::array<std::vector<RowNode>, kDepth> m_open; // the elements of the arrays being read
    RowNode m_row;
};

// Where the value of `key` in the object `line` is an array: [begin, end) of its text, from
// '[' to its ']'. None where the key is not at the object's top level, is there twice, or its
// value is not an array; and where a top-level key has an escape (which could spell `key`) or
// the text's strings and brackets do not close.
std::optional<std::pair<std::size_t, std::size_t>> topLevelArray(std::string_view line, std::string_view key);

} // namespace ctxscope::protocol::detail
