// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/events.h"
#include "ctxscope/expected.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

namespace ctxscope::protocol::detail {

// One line as a JSON object with a string "type", within the line limit.
Expected<nlohmann::json> parseObject(std::string_view line);
// parseEvent without its shortcut for a lean watch's rows (rows_text.h): the line as one
// document. What parseEvent answers wherever the shortcut declines; the tests hold the two alike.
std::variant<Event, EventError> parseEventWhole(std::string_view line);
// How many lines parseEvent has read by that shortcut on the calling thread: the tests' check
// that the lines the worker writes take it.
std::uint64_t leanLinesRead();
// The "id" of a message: a non-negative integer, or none.
std::optional<std::uint64_t> idOf(const nlohmann::json& message);

// The kinds of trace events on the wire (trace_events' "kinds"), in TraceEventKind's order:
// the tracepoints' names (traceEventName), the idle exit told apart from the idle entry.
const std::vector<std::string>& traceKindNames();

} // namespace ctxscope::protocol::detail
