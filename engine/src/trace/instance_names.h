// SPDX-License-Identifier: MIT
// The names of ctxscope's ftrace instances: "ctxscope-PID-N", so that an instance whose
// process died (kill -9) can be told from a live one and removed.
#pragma once

#include <optional>
#include <string>

namespace ctxscope::trace {

// A new name for this process's next instance.
std::string newInstanceName();

// The pid in a ctxscope instance name, or nullopt for any other name.
std::optional<long> instanceOwner(const std::string& name);

// Whether the process that made an instance is gone: no such pid, or the pid now belongs to
// a program that is neither ctxscope nor this same program.
bool ownerIsGone(long pid);

} // namespace ctxscope::trace
