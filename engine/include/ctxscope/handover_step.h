// SPDX-License-Identifier: MIT
// The names of what takes a hand-over's switch-in's place when the wakee's CPU was busy: one
// definition for the cutter that names them (handover.cpp), the lessons that explain them and the
// app's breakdown bar that places them.
#pragma once

#include <string>
#include <string_view>

namespace ctxscope {

// The wakee's CPU at the wake-up, when it ran another task: the wake-up preempted that task
// ("preempting X": the switch from X to the wakee) or the task kept the CPU ("waiting behind X":
// a wait in the run queue, never a switch).
enum class BusyWay { None, Preempting, WaitingBehind };

struct BusyStep {
    BusyWay way = BusyWay::None;
    std::string_view task; // X; empty with BusyWay::None
};

// "preempting cc1plus", "waiting behind cc1plus".
std::string busyStepName(BusyWay way, std::string_view task);
// The way and the task of a step's name; BusyWay::None for any other step.
BusyStep busyStepOf(std::string_view stepName);
// The place a step takes in a hand-over: "switch-in" for a busy step, else its own name.
std::string_view stepPlace(std::string_view stepName);
// Where a step comes in a hand-over (wake call, yield call, sleep call, IPI sent, woken without
// IPI, idle exit, switch-in, waker runs on, return to user, in user space), by its place: the
// order of a table of steps. A step of another name comes last.
int stepRank(std::string_view stepName);

} // namespace ctxscope
