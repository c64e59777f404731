// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include <cstdint>
#include <optional>
#include <string_view>

namespace ctxscope::protocol::detail {

// One line as a JSON object with a string "type", within the line limit.
Expected<nlohmann::json> parseObject(std::string_view line);
// The "id" of a message: a non-negative integer, or none.
std::optional<std::uint64_t> idOf(const nlohmann::json& message);

// The kinds of trace events on the wire (trace_events' "kinds"), in TraceEventKind's order:
// the tracepoints' names (traceEventName), the idle exit told apart from the idle entry.
const std::vector<std::string>& traceKindNames();

} // namespace ctxscope::protocol::detail
