// SPDX-License-Identifier: MIT
#include "output.h"

#include "commands.h"

#include <fmt/core.h>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ctxscope::cli {

void OutputOptions::addTo(CLI::App* sub)
{
    sub->add_option("--json", json, "Write results as JSON (Google Benchmark's shape) to FILE, or - for stdout");
    sub->add_option("--csv", csv, "Write results as CSV (C locale, '#' context lines) to FILE, or - for stdout");
    sub->add_flag("--samples", samples, "Include every kept sample: in the JSON, and as one CSV row per sample");
}

int writeText(const std::string& where, const std::string& text)
{
    if (where == "-") {
        fmt::print("{}", text);
        return kOk;
    }
    std::ofstream out(where, std::ios::binary);
    if (!out || !(out << text) || !out.flush())
        return badInput("cannot write " + where);
    return kOk;
}

int writeOutputs(const OutputOptions& o, const nlohmann::json& document, const std::string& csv)
{
    if (!o.json.empty())
        if (int s = writeText(o.json, document.dump(2) + "\n"); s != kOk)
            return s;
    if (!o.csv.empty())
        if (int s = writeText(o.csv, csv); s != kOk)
            return s;
    return kOk;
}

} // namespace ctxscope::cli
