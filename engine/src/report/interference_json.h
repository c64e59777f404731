// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/interference.h"
#include "report/json_fields.h"

namespace ctxscope::report {

// The "interference" object of a result (docs/protocol.md): written whole, read back checked
// (shares are fractions in [0, 1]).
nlohmann::json interferenceToJson(const Interference& i);
Interference interferenceFromJson(FieldReader& in);

} // namespace ctxscope::report
