// SPDX-License-Identifier: MIT
#include "lesson/verdict.h"

#include "lesson/lesson_util.h"

#include "ctxscope/stats.h"
#include "ctxscope/units.h"

#include <algorithm>
#include <cmath>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <iterator>
#include <vector>

namespace ctxscope::lesson {

namespace {

// splitmix64: a tiny generator whose sequence is the same with every standard library
// (std::uniform_int_distribution is not), so a verdict is the same on every build.
class Rng {
public:
    explicit Rng(std::uint64_t seed)
        : m_state(seed)
    {
    }
    std::size_t below(std::size_t n)
    {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return static_cast<std::size_t>((z ^ (z >> 31)) % n);
    }

private:
    std::uint64_t m_state;
};

double medianInPlace(std::vector<double>& v)
{
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double upper = v[mid];
    if (v.size() % 2 == 1)
        return upper;
    return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

double resampledMedian(std::span<const double> values, Rng& rng, std::vector<double>& buffer)
{
    buffer.resize(values.size());
    for (double& v : buffer)
        v = values[rng.below(values.size())];
    return medianInPlace(buffer);
}

// Every k-th sample so that at most kBootstrapSampleCap remain, spread over the whole run.
std::vector<double> thinned(const std::vector<double>& samples)
{
    if (samples.size() <= kBootstrapSampleCap)
        return samples;
    std::vector<double> out;
    out.reserve(kBootstrapSampleCap);
    for (std::size_t i = 0; i < kBootstrapSampleCap; ++i)
        out.push_back(samples[i * samples.size() / kBootstrapSampleCap]);
    return out;
}

std::string unitOf(const std::string& formatted) { return formatted.substr(formatted.find(' ') + 1); }

} // namespace

Spread spreadOf(const RunResult& r)
{
    Spread s { r.stats.p50, r.stats.p50, r.stats.p50, std::max(1, static_cast<int>(r.repetitionMedians.size())) };
    if (!r.repetitionMedians.empty()) {
        const auto [lo, hi] = std::minmax_element(r.repetitionMedians.begin(), r.repetitionMedians.end());
        s.low = *lo;
        s.high = *hi;
    }
    return s;
}

std::string formatSpread(const Spread& s)
{
    // The statistic is named: the caption beside it quotes means.
    if (s.runs < 2)
        return formatDuration(s.median) + " median (one run)";
    std::string low = formatDuration(s.low);
    const std::string high = formatDuration(s.high);
    // "5.3–5.41 µs", but "998 ns–1.02 µs" when the two need different units.
    if (unitOf(low) == unitOf(high))
        low = low.substr(0, low.find(' '));
    return fmt::format("{} median ({} runs: {}–{})", formatDuration(s.median), s.runs, low, high);
}

std::string withSpread(const RunResult& r) { return formatSpread(spreadOf(r)); }

double medianOf(std::span<const double> values)
{
    if (values.empty())
        return 0;
    std::vector<double> copy(values.begin(), values.end());
    return medianInPlace(copy);
}

Comparison bootstrapRatio(std::span<const double> a, std::span<const double> b)
{
    Comparison c;
    const double ma = medianOf(a);
    const double mb = medianOf(b);
    c.ratio = ma > 0 ? mb / ma : 1;
    c.low = c.high = c.ratio;
    if (a.size() < 2 || b.size() < 2 || ma <= 0) {
        c.verdict = verdictOf(c.low, c.high);
        return c;
    }
    Rng rng(kBootstrapSeed);
    std::vector<double> buffer;
    std::vector<double> ratios;
    ratios.reserve(kBootstrapRounds);
    for (int i = 0; i < kBootstrapRounds; ++i) {
        const double ra = resampledMedian(a, rng, buffer);
        const double rb = resampledMedian(b, rng, buffer);
        if (ra > 0)
            ratios.push_back(rb / ra);
    }
    std::sort(ratios.begin(), ratios.end());
    c.low = std::min(c.ratio, percentileOfSorted(ratios, 0.025));
    c.high = std::max(c.ratio, percentileOfSorted(ratios, 0.975));
    c.verdict = verdictOf(c.low, c.high);
    return c;
}

double studentT975(double df)
{
    // Two-sided 95% points of Student's t for 1 to 30 degrees of freedom; beyond, 1.96 + 2.4 / df
    // is within 0.002 of the true point. A fractional df (Welch's) is interpolated in 1 / df,
    // where t is nearly linear: taking the row below made 1.9999 jump from 4.30 to 12.7.
    static constexpr double kT[]
        = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
              2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
    constexpr double rows = static_cast<double>(std::size(kT));
    const auto at
        = [](double whole) { return whole <= rows ? kT[static_cast<std::size_t>(whole) - 1] : 1.96 + 2.4 / whole; };
    if (!(df > 1))
        return kT[0];
    const double below = std::floor(df);
    if (below == df)
        return at(df);
    const double f = (1 / below - 1 / df) / (1 / below - 1 / (below + 1));
    return at(below) + f * (at(below + 1) - at(below));
}

Comparison repetitionRatio(std::span<const double> a, std::span<const double> b)
{
    const bool positive = std::all_of(a.begin(), a.end(), [](double v) { return v > 0; })
        && std::all_of(b.begin(), b.end(), [](double v) { return v > 0; });
    if (a.size() < 2 || b.size() < 2 || !positive)
        return bootstrapRatio(a, b);
    struct Moments {
        double mean = 0;
        double variance = 0; // of the mean: s^2 / n
        double n = 0;
    };
    const auto moments = [](std::span<const double> values) {
        Moments m;
        m.n = static_cast<double>(values.size());
        for (double v : values)
            m.mean += std::log(v) / m.n;
        double squares = 0;
        for (double v : values)
            squares += (std::log(v) - m.mean) * (std::log(v) - m.mean);
        m.variance = squares / (m.n - 1) / m.n;
        return m;
    };
    const Moments ma = moments(a);
    const Moments mb = moments(b);
    Comparison c;
    c.ratio = medianOf(b) / medianOf(a);
    const double se2 = ma.variance + mb.variance;
    const double df = se2 > 0
        ? se2 * se2 / (ma.variance * ma.variance / (ma.n - 1) + mb.variance * mb.variance / (mb.n - 1))
        : ma.n + mb.n - 2;
    const double half = studentT975(df) * std::sqrt(se2);
    const double centre = mb.mean - ma.mean;
    c.low = std::min(c.ratio, std::exp(centre - half));
    c.high = std::max(c.ratio, std::exp(centre + half));
    c.verdict = verdictOf(c.low, c.high);
    return c;
}

Verdict verdictOf(double low, double high)
{
    if (low > kMattersRatio || high < 1 / kMattersRatio)
        return Verdict::Differs;
    if (low >= 1 / kMattersRatio && high <= kMattersRatio)
        return Verdict::Same;
    return Verdict::Unclear;
}

Comparison compare(const RunResult& a, const RunResult& b)
{
    Comparison c;
    if (a.stats.p50 <= 0)
        return c;
    c.ratio = b.stats.p50 / a.stats.p50;
    c.low = c.high = c.ratio;
    bool resampled = false;
    auto widen = [&](const Comparison& part) {
        c.low = std::min(c.low, part.low);
        c.high = std::max(c.high, part.high);
        resampled = true;
    };
    if (a.repetitionMedians.size() >= 2 && b.repetitionMedians.size() >= 2)
        widen(repetitionRatio(a.repetitionMedians, b.repetitionMedians));
    if (const auto x = thinned(a.samples), y = thinned(b.samples); x.size() >= 2 && y.size() >= 2)
        widen(bootstrapRatio(x, y));
    c.verdict = resampled ? verdictOf(c.low, c.high) : Verdict::Unclear;
    for (const RunResult* r : { &a, &b })
        if (wasDisturbed(*r) && c.disturbed.empty()) {
            c.disturbed = runName(*r);
            c.verdict = Verdict::Unclear; // never a conclusion from a disturbed run
        }
    return c;
}

bool wasDisturbed(const RunResult& r)
{
    return (r.interference && r.interference->disturbed()) || (r.trace && traceDisturbed(*r.trace));
}

std::string runName(const RunResult& r)
{
    return fmt::format("the {}{} run on {}", r.mode == BenchMode::Process ? "process " : "", r.bench, placementText(r));
}

std::string unclearWhy() { return "the runs vary too much to say"; }

std::string noConclusion(const Comparison& c, std::string_view question)
{
    return fmt::format("No conclusion on {}: {} was disturbed.", question, c.disturbed);
}

std::vector<std::string> disturbedNotes(const std::vector<RunResult>& results)
{
    std::vector<std::string> out;
    for (const RunResult& r : results) {
        if (!wasDisturbed(r))
            continue;
        std::vector<std::string> causes;
        if (r.interference && r.interference->disturbed())
            causes.push_back(interferenceCause(*r.interference));
        if (r.trace && traceDisturbed(*r.trace)) {
            if (std::string waited = waitedBehindCause(*r.trace); !waited.empty())
                causes.push_back("its trace says " + waited);
            else if (const auto fromTrace = traceInterference(*r.trace))
                causes.push_back("its trace says " + interferenceCause(*fromTrace));
        }
        out.push_back(capitalized(runName(r)) + " was disturbed: " + fmt::format("{}", fmt::join(causes, "; "))
            + ". Run the lesson again; no conclusion is drawn from that run.");
    }
    return out;
}

std::string formatComparison(const Comparison& c)
{
    if (c.low == c.high)
        return formatRatio(c.ratio) + " times";
    return fmt::format("{} times (95% interval {}–{})", formatRatio(c.ratio), formatRatio(c.low), formatRatio(c.high));
}

std::string formatRange(const Comparison& c)
{
    if (c.low == c.high)
        return "about " + formatRatio(c.ratio) + " times";
    return fmt::format("between {} and {} times", formatRatio(c.low), formatRatio(c.high));
}

std::string formatRatio(double x)
{
    // Two decimals below 10 ("1.00", "2.75"), whole numbers above ("133").
    return x < 10 ? fmt::format("{:.2f}", x) : fmt::format("{:.0f}", x);
}

LessonHeadline headlineOf(const Comparison& c, std::string figure, std::string same, std::string unclear)
{
    using Kind = LessonHeadline::Kind;
    if (!c.disturbed.empty()) {
        // One line without brackets: the run as "the spin run on CPUs 0,1", its relation left to
        // the conclusion's first sentence.
        std::string run = c.disturbed;
        if (const auto open = run.rfind(" ("); open != std::string::npos && run.ends_with(')'))
            run.erase(open);
        return { fmt::format("No conclusion: {} was disturbed", run), Kind::Disturbed, 0, 0 };
    }
    switch (c.verdict) {
    case Verdict::Differs:
        return { std::move(figure), Kind::Differs, c.low, c.high };
    case Verdict::Same:
        return { std::move(same), Kind::Same, c.low, c.high };
    case Verdict::Unclear:
        break;
    }
    return { std::move(unclear), Kind::Unclear, 0, 0 };
}

std::string relationPhrase(Relation relation)
{
    switch (relation) {
    case Relation::SamePu:
        return "on one PU";
    case Relation::Smt:
        return "on SMT siblings";
    case Relation::SharedL2:
        return "across CPUs sharing an L2";
    case Relation::SharedL3:
        return "across CPUs sharing an L3";
    case Relation::SamePackage:
        return "across CPUs of one package";
    case Relation::CrossPackage:
        return "across packages";
    case Relation::CrossNuma:
        return "across NUMA nodes";
    case Relation::Unpinned:
        break;
    }
    return "unpinned";
}

} // namespace ctxscope::lesson
