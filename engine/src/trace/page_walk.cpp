// SPDX-License-Identifier: MIT
#include "trace/page_walk.h"

#include <algorithm>
#include <charconv>

namespace ctxscope::trace {

namespace {

// The number after `key` in `line` ("offset:8;" -> 8), or -1.
long numberAfter(std::string_view line, std::string_view key)
{
    const auto at = line.find(key);
    if (at == std::string_view::npos)
        return -1;
    std::string_view rest = line.substr(at + key.size());
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
        rest.remove_prefix(1);
    long v = -1;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
    return error == std::errc() ? v : -1;
}

template <typename OnLine> void eachLine(std::string_view text, OnLine&& onLine)
{
    while (!text.empty()) {
        const auto end = text.find('\n');
        onLine(text.substr(0, end));
        if (end == std::string_view::npos)
            break;
        text.remove_prefix(end + 1);
    }
}

// header_page's "field: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;": the field's name.
std::string_view fieldName(std::string_view line)
{
    const auto field = line.find("field:");
    const auto semicolon = line.find(';');
    if (field == std::string_view::npos || semicolon == std::string_view::npos || semicolon < field)
        return {};
    std::string_view decl = line.substr(field + 6, semicolon - field - 6);
    const auto space = decl.find_last_of(" \t");
    return space == std::string_view::npos ? decl : decl.substr(space + 1);
}

} // namespace

std::optional<PageLayout> PageLayout::parse(std::string_view headerPage, std::string_view headerEvent)
{
    PageLayout l;
    long tsOffset = -1, tsSize = -1, commitOffset = -1, commitSize = -1, dataOffset = -1;
    eachLine(headerPage, [&](std::string_view line) {
        const std::string_view name = fieldName(line);
        if (name == "timestamp") {
            tsOffset = numberAfter(line, "offset:");
            tsSize = numberAfter(line, "size:");
        } else if (name == "commit") {
            commitOffset = numberAfter(line, "offset:");
            commitSize = numberAfter(line, "size:");
        } else if (name == "data") {
            dataOffset = numberAfter(line, "offset:");
        }
    });
    long typeLenBits = -1, timeDeltaBits = -1, arrayBits = -1;
    long padding = -1, timeExtend = -1, timeStamp = -1, dataMax = -1;
    // "\ttype_len    :    5 bits", "\tpadding     : type == 29", "\tdata max type_len  == 28"
    struct Key {
        std::string_view word; // the line's first
        std::string_view before; // what stands before the number
        long* into;
    };
    const Key keys[] = { { "type_len", ":", &typeLenBits }, { "time_delta", ":", &timeDeltaBits },
        { "array", ":", &arrayBits }, { "padding", "==", &padding }, { "time_extend", "==", &timeExtend },
        { "time_stamp", "==", &timeStamp }, { "data", "==", &dataMax } };
    eachLine(headerEvent, [&](std::string_view line) {
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        const auto word = line.substr(0, line.find_first_of(" \t:"));
        for (const Key& k : keys)
            if (word == k.word)
                *k.into = numberAfter(line, k.before);
    });
    const bool page = tsOffset >= 0 && tsSize == 8 && commitOffset >= 0 && (commitSize == 4 || commitSize == 8)
        && dataOffset >= tsOffset + 8 && dataOffset >= commitOffset + commitSize;
    const bool header = typeLenBits > 0 && timeDeltaBits > 0 && typeLenBits + timeDeltaBits == 32 && arrayBits == 32;
    const long types = header ? (1L << typeLenBits) : 0;
    const auto type = [&](long v) { return v > 0 && v < types; };
    if (!page || !header || !type(padding) || !type(timeExtend) || !type(timeStamp) || !type(dataMax)
        || dataMax >= padding || dataMax >= timeExtend || dataMax >= timeStamp)
        return std::nullopt;
    l.timestampOffset = static_cast<std::size_t>(tsOffset);
    l.commitOffset = static_cast<std::size_t>(commitOffset);
    l.commitSize = static_cast<std::size_t>(commitSize);
    l.dataOffset = static_cast<std::size_t>(dataOffset);
    l.typeLenBits = static_cast<unsigned>(typeLenBits);
    l.timeDeltaBits = static_cast<unsigned>(timeDeltaBits);
    l.padding = static_cast<unsigned>(padding);
    l.timeExtend = static_cast<unsigned>(timeExtend);
    l.timeStamp = static_cast<unsigned>(timeStamp);
    l.dataMax = static_cast<unsigned>(dataMax);
    return l;
}

} // namespace ctxscope::trace
