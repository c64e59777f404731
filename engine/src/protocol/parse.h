// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace ctxscope::protocol::detail {

// One line as a JSON object with a string "type", within the line limit.
Expected<nlohmann::json> parseObject(std::string_view line);
// The "id" of a message: a non-negative integer, or none.
std::optional<std::uint64_t> idOf(const nlohmann::json& message);

} // namespace ctxscope::protocol::detail
