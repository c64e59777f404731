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

// Whether the process that made an instance at `madeAt` (seconds since the epoch: the instance
// directory's change time, which tracefs sets when it is made) is gone: no such pid, or a process
// under that pid that started after the instance was made, kProcessStartSlackSeconds allowed
// (the pid was reused). A live process that started before it is its maker, whatever its name.
inline constexpr double kProcessStartSlackSeconds = 2;
bool ownerIsGone(long pid, double madeAt);

// When a live process started, in seconds since the epoch (/proc/stat's btime and its
// /proc/PID/stat start time: to a second); none when it cannot be read.
std::optional<double> processStartTime(long pid);

} // namespace ctxscope::trace
