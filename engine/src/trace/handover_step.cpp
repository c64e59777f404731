// SPDX-License-Identifier: MIT
#include "ctxscope/handover_step.h"

#include <iterator>

namespace ctxscope {

namespace {

constexpr std::string_view kPreempting = "preempting ";
constexpr std::string_view kWaitingBehind = "waiting behind ";

// The steps in the order a hand-over takes them (the table's order).
constexpr std::string_view kStepOrder[] = { "wake call", "yield call", "sleep call", "IPI sent", "woken without IPI",
    "idle exit", "switch-in", "waker runs on", "return to user", "in user space" };

} // namespace

std::string busyStepName(BusyWay way, std::string_view task)
{
    switch (way) {
    case BusyWay::Preempting:
        return std::string(kPreempting).append(task);
    case BusyWay::WaitingBehind:
        return std::string(kWaitingBehind).append(task);
    case BusyWay::None:
        break;
    }
    return std::string(task);
}

BusyStep busyStepOf(std::string_view stepName)
{
    if (stepName.starts_with(kPreempting))
        return { BusyWay::Preempting, stepName.substr(kPreempting.size()) };
    if (stepName.starts_with(kWaitingBehind))
        return { BusyWay::WaitingBehind, stepName.substr(kWaitingBehind.size()) };
    return {};
}

std::string_view stepPlace(std::string_view stepName)
{
    return busyStepOf(stepName).way == BusyWay::None ? stepName : std::string_view("switch-in");
}

int stepRank(std::string_view stepName)
{
    const std::string_view place = stepPlace(stepName);
    for (int i = 0; i < static_cast<int>(std::size(kStepOrder)); ++i)
        if (place == kStepOrder[i])
            return i;
    return static_cast<int>(std::size(kStepOrder));
}

} // namespace ctxscope
