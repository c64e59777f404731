// SPDX-License-Identifier: MIT
#include "runner/driver.h"

#include <algorithm>
#include <cmath>
#include <exception>

namespace ctxscope::run {

namespace {
// How often the runner wakes while tasks run: sample batches, progress, dead children.
constexpr long kPollNs = 20'000'000;
} // namespace

Driver::Driver(ControlBlock& block, bench::Kernel& kernel, TaskGroup& group, const ClockInfo& clock,
    const RunCallbacks& callbacks, const BenchSpec& spec)
    : m_block(block)
    , m_kernel(kernel)
    , m_group(group)
    , m_clock(clock)
    , m_callbacks(callbacks)
    , m_spec(spec)
{
}

Status Driver::stopped()
{
    // Whoever set the stop word (a failing task, a dead peer, the caller) also needs every
    // blocked task woken; interrupt() is idempotent.
    requestStop(m_block.control());
    m_kernel.interrupt();
    return makeError("stopped");
}

Status Driver::waitForStart()
{
    progress("starting", 0);
    return waitAll(false, 0);
}

Status Driver::waitAll(bool record, int repetition)
{
    Control& ctl = m_block.control();
    for (;;) {
        const std::uint32_t done = atom(ctl.done).load(std::memory_order_acquire);
        if (static_cast<int>(done) >= m_block.tasks())
            break;
        if (stopRequested(ctl))
            return stopped();
        if (std::string death = m_group.checkDeaths(); !death.empty()) {
            m_death = std::move(death);
            return stopped();
        }
        const timespec poll { 0, kPollNs };
        sys::futexWait(&ctl.done, done, false, &poll);
        if (record)
            drain(repetition);
        progress(record ? "measuring" : "calibrating", repetition);
        if (!m_callbackError.empty())
            return stopped();
    }
    if (record)
        drain(repetition);
    return m_callbackError.empty() ? Status {} : stopped();
}

void Driver::drain(int repetition)
{
    const std::uint64_t published = atom(m_block.control().published).load(std::memory_order_acquire);
    const std::size_t first = m_repetition.size();
    if (published <= first)
        return;
    const std::uint64_t* ticks = m_block.samples();
    const std::uint64_t lastSample = m_expectedSamples - 1;
    const std::uint64_t tailOps = m_phaseOps - lastSample * m_chunk; // the last sample may be shorter
    Measurement& m = m_measurement;
    for (std::uint64_t i = first; i < published; ++i) {
        const std::uint64_t ops = i == lastSample ? tailOps : m_chunk;
        const double ns = static_cast<double>(ticks[i]) * m_clock.nsPerTick / static_cast<double>(ops);
        m_repetition.push_back(ns);
        m.running.add(ns);
        m.histogram.add(ns);
        if (m.raw.size() < m_spec.rawSampleCap)
            m.raw.push_back(ns);
    }
    if (!m_callbacks.samples || !m_callbackError.empty())
        return;
    try {
        m_callbacks.samples(SampleBatch {
            repetition, first, std::span<const double>(m_repetition.data() + first, m_repetition.size() - first) });
    } catch (const std::exception& e) {
        m_callbackError = e.what();
    } catch (...) {
        m_callbackError = "unknown exception";
    }
}

void Driver::progress(std::string_view stage, int repetition)
{
    if (!m_callbacks.progress || !m_callbackError.empty())
        return;
    const int reps = m_spec.repetitions;
    double fraction = 0;
    if (stage == "measuring" && m_expectedSamples > 0)
        fraction
            = (repetition + static_cast<double>(m_repetition.size()) / static_cast<double>(m_expectedSamples)) / reps;
    m_lastFraction = std::max(m_lastFraction, std::min(1.0, fraction));
    try {
        m_callbacks.progress(Progress { stage, repetition, reps, m_lastFraction });
    } catch (const std::exception& e) {
        m_callbackError = e.what();
    } catch (...) {
        m_callbackError = "unknown exception";
    }
}

Expected<double> Driver::phase(std::uint64_t ops, std::uint64_t chunk, bool record, int repetition, bool check)
{
    Control& ctl = m_block.control();
    m_phaseOps = ops;
    m_chunk = std::max<std::uint64_t>(1, chunk);
    m_expectedSamples = (ops + m_chunk - 1) / m_chunk;
    m_repetition.clear();
    if (record)
        m_repetition.reserve(m_expectedSamples);
    atom(ctl.done).store(0, std::memory_order_relaxed);
    atom(ctl.published).store(0, std::memory_order_relaxed);
    ctl.phaseOps = ops;
    ctl.phaseChunk = m_chunk;
    ctl.phaseKind = static_cast<std::uint32_t>(PhaseKind::Run);
    ctl.phaseRecord = record ? 1 : 0;
    ctl.phaseCheck = check ? 1 : 0;
    atom(ctl.command).fetch_add(1, std::memory_order_acq_rel);
    sys::futexWake(&ctl.command, sys::kWakeAll, false);
    if (Status s = waitAll(record, repetition); !s)
        return s.error();
    if (record) {
        std::vector<double> sorted = m_repetition;
        std::sort(sorted.begin(), sorted.end());
        m_measurement.repetitionMedians.push_back(percentileOfSorted(sorted, 0.5));
    }
    return static_cast<double>(m_block.slot(0).phaseTicks) * m_clock.nsPerTick;
}

void Driver::finishTasks()
{
    Control& ctl = m_block.control();
    ctl.phaseKind = static_cast<std::uint32_t>(PhaseKind::Finish);
    atom(ctl.command).fetch_add(1, std::memory_order_acq_rel);
    sys::futexWake(&ctl.command, sys::kWakeAll, false);
}

} // namespace ctxscope::run

namespace ctxscope {

std::uint64_t autoOpsPerSample(double nsPerOp, double clockReadNs)
{
    if (!(nsPerOp > 0) || !(clockReadNs > 0))
        return 1;
    const double need = 100 * clockReadNs / nsPerOp;
    std::uint64_t k = 1;
    for (std::uint64_t decade = 1; static_cast<double>(k) < need; decade *= 10)
        for (const std::uint64_t step : { std::uint64_t { 1 }, std::uint64_t { 2 }, std::uint64_t { 5 } })
            if (static_cast<double>(k) < need)
                k = step * decade;
    return k;
}

} // namespace ctxscope

namespace ctxscope::run {

Expected<Measurement> measure(
    Driver& driver, const BenchSpec& spec, const ClockInfo& clock, bool holdsSwitches, const RepetitionHooks& hooks)
{
    const bool fixed = spec.iterations.has_value();
    // Calibration: grow the op count at most 10x per step until a phase lasts a tenth of
    // the minimum time (with fixed iterations: a tenth of them, or 10 ms). The time an op
    // takes is the lesser of the last two phases': on a busy machine one phase that waited
    // behind another task for a slice (milliseconds, against a last phase of 2 ms for a
    // minimum of 0.02 s) would otherwise cut the measured ops to half or less of that time.
    const double targetNs = fixed ? 1e7 : spec.minTimeSeconds * 1e8;
    const std::uint64_t fixedWarm = fixed ? std::max<std::uint64_t>(1, *spec.iterations / 10) : 0;
    double perOp = 0;
    double perOpBefore = 0; // the phase before the last one's time per op
    std::uint64_t n = 1;
    for (;;) {
        // Samples of about 1 ms keep a stop request answered quickly even for ops that never
        // block.
        const std::uint64_t chunk
            = perOp > 0 ? std::clamp<std::uint64_t>(static_cast<std::uint64_t>(1e6 / perOp), 1, n) : 1;
        auto t = driver.phase(n, chunk, false, 0);
        if (!t)
            return t.error();
        perOpBefore = perOp;
        perOp = *t / static_cast<double>(n);
        if (*t >= targetNs || (fixed && n >= fixedWarm))
            break;
        const double grow = *t > 0 ? 1.4 * targetNs / *t : 10;
        std::uint64_t next = static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) * std::min(10.0, grow)));
        next = std::max(next, n + 1);
        n = fixed ? std::min(next, fixedWarm) : next;
    }
    if (perOpBefore > 0)
        perOp = std::min(perOp, perOpBefore);

    Measurement& m = driver.measurement();
    m.iterations = fixed ? *spec.iterations
                         : std::max<std::uint64_t>(1,
                             static_cast<std::uint64_t>(std::ceil(spec.minTimeSeconds * 1e9 / std::max(perOp, 1e-3))));
    // A kernel switch (an op that holds switches and costs at least 20 clock reads) is timed
    // alone, K = 1: its latency distribution is the point, and the read is 1-5% of it. Every
    // other op (user-space switches included) takes the smallest K that makes the clock read
    // < 1% of a sample.
    const bool latency = holdsSwitches && perOp >= 20 * clock.readCostNs;
    if (spec.opsPerSample > 0)
        m.opsPerSample = spec.opsPerSample;
    else
        m.opsPerSample = latency ? 1 : autoOpsPerSample(perOp, clock.readCostNs);
    m.opsPerSample = std::min(m.opsPerSample, m.iterations);
    if ((m.iterations + m.opsPerSample - 1) / m.opsPerSample > kSampleCapacity) {
        m.iterations = kSampleCapacity * m.opsPerSample;
        m.notes.push_back("Each repetition was shortened to " + std::to_string(m.iterations)
            + " ops, the most the sample buffer holds at K = " + std::to_string(m.opsPerSample) + ".");
    }
    m.repetitions = spec.repetitions;
    const std::optional<HandoffCount> before = driver.kernel().handoffs();
    if (hooks.before)
        hooks.before();
    for (int rep = 0; rep < spec.repetitions; ++rep) {
        if (auto t = driver.phase(m.iterations, m.opsPerSample, true, rep); !t)
            return t.error();
        if (hooks.after)
            hooks.after(rep + 1 == spec.repetitions);
    }
    if (const std::optional<HandoffCount> after = driver.kernel().handoffs(); before && after)
        m.handoffs = HandoffCount { after->total - before->total, after->slept - before->slept };
    // The perf counters get a phase of their own, after the measured ones (see task.cpp).
    m.checkOps = std::min(m.iterations, std::max<std::uint64_t>(2000, m.iterations / 4));
    auto checked = driver.phase(m.checkOps, m.opsPerSample, false, 0, true);
    if (!checked)
        return checked.error();
    m.checkNs = *checked;
    return std::move(m);
}

} // namespace ctxscope::run
