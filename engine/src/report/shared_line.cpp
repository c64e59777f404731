// SPDX-License-Identifier: MIT
// Where a spin run's line lived: its sentence and its "line" object in a result.
#include "report/shared_line_json.h"

#include <fmt/core.h>

#include <algorithm>

namespace ctxscope {

std::string sharedLineText(const SharedLine& line, bool withCpu)
{
    std::string where;
    if (line.node) {
        where = fmt::format("line on node {}", *line.node);
        const auto& nodes = line.taskNodes;
        const bool known = !nodes.empty() && std::none_of(nodes.begin(), nodes.end(), [](int n) { return n < 0; });
        const auto local = std::count(nodes.begin(), nodes.end(), *line.node);
        if (known && local == static_cast<std::ptrdiff_t>(nodes.size()))
            where += nodes.size() > 1 ? " (both tasks' node)" : " (the task's node)";
        else if (known && local > 0)
            where
                += fmt::format(" (task {}'s node)", std::find(nodes.begin(), nodes.end(), *line.node) - nodes.begin());
        else if (known)
            where += " (neither task's node)";
    } else {
        where = "line's node unknown: " + line.nodeError;
    }
    where += fmt::format(", first touched by task {}", line.firstTask);
    return withCpu ? where + fmt::format(" on CPU {}", line.firstCpu) : where;
}

} // namespace ctxscope

namespace ctxscope::report {

nlohmann::json sharedLineToJson(const SharedLine& line)
{
    using json = nlohmann::json;
    const auto orNull = [](const std::optional<int>& v) { return v ? json(*v) : json(nullptr); };
    json j { { "first_task", line.firstTask }, { "first_cpu", line.firstCpu }, { "node", orNull(line.node) },
        { "node_at_touch", orNull(line.nodeAtTouch) }, { "task_nodes", line.taskNodes } };
    if (!line.nodeError.empty())
        j["node_error"] = line.nodeError;
    return j;
}

SharedLine sharedLineFromJson(FieldReader& in)
{
    SharedLine line;
    const auto small = [](double v) { return static_cast<int>(std::clamp(v, -1.0, 1e6)); };
    line.firstTask = small(in.number("first_task"));
    line.firstCpu = small(in.number("first_cpu"));
    if (const auto n = in.optNumber("node"))
        line.node = small(*n);
    if (const auto n = in.optNumber("node_at_touch"))
        line.nodeAtTouch = small(*n);
    line.nodeError = in.optString("node_error").value_or("");
    for (double n : numberList(in, "task_nodes"))
        line.taskNodes.push_back(small(n));
    return line;
}

} // namespace ctxscope::report
