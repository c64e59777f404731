// SPDX-License-Identifier: MIT
// The "line" object of a spin result (SharedLine), written and read back checked.
#pragma once

#include "ctxscope/result.h"
#include "report/json_fields.h"

#include <nlohmann/json.hpp>

namespace ctxscope::report {

nlohmann::json sharedLineToJson(const SharedLine& line);
SharedLine sharedLineFromJson(FieldReader& in);

} // namespace ctxscope::report
