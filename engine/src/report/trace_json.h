// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/traced_run.h"
#include "report/json_fields.h"

namespace ctxscope::report {

// The "trace" object of a result (traceSummaryToJson writes it): read back checked, so a
// controller and a results file get the segments the CLI printed.
TraceSummary traceSummaryFromJson(FieldReader& in);

} // namespace ctxscope::report
