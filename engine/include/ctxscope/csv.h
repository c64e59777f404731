// SPDX-License-Identifier: MIT
// Results as CSV, for spreadsheets and R.
#pragma once

#include "ctxscope/result.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace ctxscope {

// CSV in the C locale: '#' lines with the context, a header, one row per result.
std::string resultsToCsv(const nlohmann::json& context, const std::vector<RunResult>& results);
// A field as RFC 4180 writes it: quoted (with doubled quotes) when it holds a comma, a quote or a
// line break, else as it is.
std::string csvField(const std::string& field);
// One row per sample: name, repetition order, index, ns per op.
std::string samplesToCsv(const std::vector<RunResult>& results);

} // namespace ctxscope
