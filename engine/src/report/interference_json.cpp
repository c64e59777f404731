// SPDX-License-Identifier: MIT
#include "report/interference_json.h"

namespace ctxscope::report {

using nlohmann::json;

namespace {

double share(FieldReader& in, const char* key)
{
    const double v = in.number(key);
    if (in.ok() && !(v >= 0 && v <= 1))
        in.fail("field '" + in.where(key) + "' should be a fraction between 0 and 1");
    return v;
}

} // namespace

json interferenceToJson(const Interference& i)
{
    json cpus = json::array();
    for (const CpuInterference& c : i.cpus)
        cpus.push_back({ { "cpu", c.cpu }, { "other_share", c.otherShare }, { "steal_share", c.stealShare },
            { "irq_share", c.irqShare }, { "softirq_share", c.softirqShare }, { "irqs_per_s", c.irqsPerS },
            { "softirqs_per_s", c.softirqsPerS }, { "other_share_by_repetition", c.otherShareByRepetition },
            { "controller_share", c.controllerShare } });
    json tasks = json::array();
    for (const InterferingTask& t : i.topTasks)
        tasks.push_back({ { "pid", t.pid }, { "tid", t.tid }, { "comm", t.comm }, { "share", t.share },
            { "kernel_thread", t.kernelThread }, { "cpu", t.cpu } });
    json out { { "cpus", std::move(cpus) }, { "top_tasks", std::move(tasks) }, { "seconds", i.seconds },
        { "disturbed", i.disturbed() } };
    if (i.controllerPid > 0)
        out["controller"] = { { "pid", i.controllerPid }, { "comm", i.controllerComm } };
    return out;
}

Interference interferenceFromJson(FieldReader& in)
{
    Interference out;
    out.seconds = in.optNumber("seconds").value_or(0);
    for (const json& c : in.array("cpus")) {
        FieldReader cpu(c, in.where("cpus"));
        CpuInterference x;
        x.cpu = static_cast<int>(cpu.countUpTo("cpu", 65535));
        x.otherShare = share(cpu, "other_share");
        x.stealShare = share(cpu, "steal_share");
        x.irqShare = share(cpu, "irq_share");
        x.softirqShare = share(cpu, "softirq_share");
        x.irqsPerS = cpu.number("irqs_per_s");
        x.softirqsPerS = cpu.optNumber("softirqs_per_s").value_or(0);
        if (cpu.optNumber("controller_share")) // files before the controller was named apart have none
            x.controllerShare = share(cpu, "controller_share");
        if (const json* reps = cpu.optArray("other_share_by_repetition"))
            for (const json& r : *reps)
                x.otherShareByRepetition.push_back(r.is_number() ? r.get<double>() : 0);
        in.absorb(cpu);
        out.cpus.push_back(std::move(x));
    }
    if (const json* controller = in.optObject("controller")) {
        FieldReader c(*controller, in.where("controller"));
        out.controllerPid = static_cast<long>(c.countUpTo("pid", 1U << 30));
        out.controllerComm = c.string("comm");
        in.absorb(c);
    }
    for (const json& t : in.array("top_tasks")) {
        FieldReader task(t, in.where("top_tasks"));
        InterferingTask x;
        x.pid = static_cast<long>(task.countUpTo("pid", 1U << 30));
        x.tid = static_cast<long>(task.countUpTo("tid", 1U << 30));
        x.comm = task.string("comm");
        x.share = share(task, "share");
        x.kernelThread = task.optBoolean("kernel_thread").value_or(false);
        // Files of the first version of this object name no CPU.
        if (const auto cpu = task.optCount("cpu"); cpu && *cpu <= 65535)
            x.cpu = static_cast<int>(*cpu);
        in.absorb(task);
        out.topTasks.push_back(std::move(x));
    }
    return out;
}

} // namespace ctxscope::report
