// SPDX-License-Identifier: MIT
#include "ctxscope/value_json.h"

#include "report/json_fields.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace ctxscope {

using nlohmann::json;
using report::FieldReader;

Expected<WorkingSetPoint> workingSetPointFromJson(const json& entry)
{
    auto run = resultFromJson(entry);
    if (!run)
        return run.error();
    FieldReader in(entry, "");
    WorkingSetPoint p;
    p.wsBytes = in.count("ws_bytes");
    p.roundTrip = report::quartilesFrom(in, "round_trip_quartiles");
    p.touch = report::quartilesFrom(in, "touch_quartiles");
    p.switchCostNs = in.optNumber("switch_ns");
    p.switchCostLowNs = in.optNumber("switch_ns_low");
    p.switchCostHighNs = in.optNumber("switch_ns_high");
    p.costNotPositive = entry.is_object() && entry.value("cost_not_positive", false);
    if (!in.ok())
        return makeError("result '" + benchmarkName(*run) + "': " + in.error());
    p.tasks = run->placement.tasks;
    p.switchesPerOp = run->switchesPerOp;
    p.roundTripRun = std::move(*run);
    return p;
}

Expected<std::vector<CacheInfo>> sweepCachesFromJson(const json& sweep)
{
    FieldReader in(sweep, "sweep");
    const json& caches = in.array("caches");
    if (!in.ok())
        return makeError(in.error());
    std::vector<CacheInfo> out;
    for (std::size_t i = 0; i < caches.size(); ++i) {
        FieldReader c(caches[i], fmt::format("sweep.caches[{}]", i));
        CacheInfo info;
        info.level = static_cast<int>(c.count("level"));
        info.size = c.count("size");
        info.lineSize = static_cast<int>(c.optNumber("line_size").value_or(0));
        const json& pus = c.array("pus");
        for (const json& pu : pus)
            if (pu.is_number_integer() && pu.get<int>() >= 0)
                info.pus.push_back(pu.get<int>());
            else
                c.fail(c.where("pus") + " should hold CPU numbers");
        if (!c.ok())
            return makeError(c.error());
        out.push_back(std::move(info));
    }
    return out;
}

Expected<MatrixCell> matrixCellFromJson(const json& entry, const std::string& path)
{
    FieldReader c(entry, path);
    const json& cpus = c.array("cpus");
    MatrixCell cell;
    const std::string relation = c.string("relation");
    cell.medianNs = c.number("median_ns");
    cell.perSwitchNs = c.optNumber("per_switch_ns");
    cell.measured = c.boolean("measured");
    if (!c.ok())
        return makeError(c.error());
    if (cpus.size() != 2 || !cpus[0].is_number_integer() || !cpus[1].is_number_integer())
        return makeError(c.where("cpus") + " should be two CPU numbers");
    cell.a = cpus[0].get<int>();
    cell.b = cpus[1].get<int>();
    auto rel = relationFromString(relation);
    if (!rel)
        return makeError(c.where("relation") + ": unknown relation class '" + relation + "'");
    cell.relation = *rel;
    return cell;
}

Expected<MatrixResult> matrixFromJson(const json& matrix)
{
    FieldReader in(matrix, "matrix");
    MatrixResult m;
    m.bench = in.string("bench");
    const std::string mode = in.string("mode");
    const std::string fill = in.string("fill");
    const json& pus = in.array("pus");
    const json& cells = in.array("cells");
    if (!in.ok())
        return makeError(in.error());
    if (!findBenchmark(m.bench))
        return makeError("matrix.bench: unknown benchmark '" + m.bench + "'");
    auto parsedMode = benchModeFromString(mode);
    if (!parsedMode)
        return makeError("matrix.mode should be thread or process, not '" + mode + "'");
    m.mode = *parsedMode;
    if (fill != "classes" && fill != "all-pairs")
        return makeError("matrix.fill should be classes or all-pairs, not '" + fill + "'");
    m.matrixMode = fill == "classes" ? MatrixMode::Classes : MatrixMode::AllPairs;
    for (const json& pu : pus) {
        if (!pu.is_number_integer() || pu.get<int>() < 0)
            return makeError("matrix.pus should hold CPU numbers");
        m.pus.push_back(pu.get<int>());
    }
    for (std::size_t i = 0; i < cells.size(); ++i) {
        auto cell = matrixCellFromJson(cells[i], fmt::format("matrix.cells[{}]", i));
        if (!cell)
            return cell.error();
        m.cells.push_back(*cell);
    }
    if (const json* failures = matrix.is_object() && matrix.contains("failures") ? &matrix["failures"] : nullptr)
        for (const json& f : *failures)
            if (f.is_string())
                m.failures.push_back(f.get<std::string>());
    return m;
}

} // namespace ctxscope
