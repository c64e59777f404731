// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"

#include <nlohmann/json.hpp>

#include <array>

#include <cstdint>
#include <optional>
#include <string_view>

namespace ctxscope::protocol::detail {

// One line as a JSON object with a string "type", within the line limit.
Expected<nlohmann::json> parseObject(std::string_view line);
// The "id" of a message: a non-negative integer, or none.
std::optional<std::uint64_t> idOf(const nlohmann::json& message);

// The kinds of trace events on the wire (trace_events' "kinds"), in TraceEventKind's order:
// the tracepoints' names, the idle exit told apart from the idle entry.
inline constexpr std::array<const char*, 15> kTraceKindNames = { "sched_waking", "sched_wakeup", "sched_wakeup_new",
    "sched_switch", "sched_migrate_task", "sched_wake_idle_without_ipi", "ipi_send_cpu", "cpu_idle", "cpu_idle_exit",
    "irq_handler_entry", "irq_handler_exit", "softirq_entry", "softirq_exit", "sys_enter", "sys_exit" };

} // namespace ctxscope::protocol::detail
