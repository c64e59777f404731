// SPDX-License-Identifier: MIT
#include "ctxscope/handover_step.h"

namespace ctxscope {

namespace {

constexpr std::string_view kPreempting = "preempting ";
constexpr std::string_view kWaitingBehind = "waiting behind ";

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

} // namespace ctxscope
