// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/traced_run.h"
#include "report/json_fields.h"

namespace ctxscope::report {

// The "trace" object of a result and of a survey's traced segment: written by traceSummaryToJson
// (ctxscope/traced_run.h, public: the survey's JSON writes it; defined in trace_json.cpp), read
// back checked here, so a controller and a results file get the segments the CLI printed.
TraceSummary traceSummaryFromJson(FieldReader& in);

} // namespace ctxscope::report
