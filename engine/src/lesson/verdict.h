// SPDX-License-Identifier: MIT
// The one comparison every lesson makes: is one measured cost really different from another?
//
// A lesson must not call a difference real because two point estimates differ, nor call it
// noise because some range overlaps another. The verdict here is a 95% confidence interval
// of the ratio of two medians from a seeded (so deterministic) percentile bootstrap, and a
// stated threshold for "matters": a ratio beyond 1.10 either way (kMattersRatio).
//
// * Differs: the whole interval lies beyond the threshold (the difference matters).
// * Same:    the whole interval lies within it (any difference is under 10%).
// * Unclear: the interval straddles the threshold (the runs vary too much to say).
//
// The interval is the envelope of two bootstraps: one over the repetition medians (each
// repetition is an independent run, so this catches run-to-run drift) and one over the raw
// samples (catching a bimodal or long-tailed run that a few medians hide). Everything is a
// pure function of the values, so a lesson's conclusion is a pure function of its results.
// Any lesson (also new ones, e.g. spin-or-sleep) should compare through compare() and quote
// figures through withSpread() and formatComparison().
#pragma once

#include "ctxscope/lesson.h"
#include "ctxscope/result.h"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ctxscope::lesson {

// A difference matters when the ratio of the medians is beyond 1.10 (or below 1 / 1.10).
inline constexpr double kMattersRatio = 1.10;
// 95% percentile intervals from this many resamples; the seed is fixed.
inline constexpr int kBootstrapRounds = 1000;
inline constexpr std::uint64_t kBootstrapSeed = 0x5eed'c7a5'c0feULL;
// Raw samples are thinned to at most this many (evenly over time, so every repetition keeps
// its share) before resampling: enough for a median, cheap enough for every lesson.
inline constexpr std::size_t kBootstrapSampleCap = 400;

// A result's headline and how far it moved between repetitions.
struct Spread {
    double median = 0; // the run's median over every sample (stats.p50)
    double low = 0; // lowest and highest repetition median (both the median with one run)
    double high = 0;
    int runs = 0; // repetitions
};
Spread spreadOf(const RunResult& r);
// "5.35 µs median (3 runs: 5.3–5.41 µs)"; "5.35 µs median (one run)" with a single repetition.
std::string formatSpread(const Spread& s);
std::string withSpread(const RunResult& r);

enum class Verdict { Same, Differs, Unclear };

struct Comparison {
    double ratio = 1; // median(b) / median(a)
    double low = 1; // 95% interval of the ratio
    double high = 1;
    Verdict verdict = Verdict::Unclear;
    // Not "": a side ran disturbed (RunResult::interference), so the verdict is Unclear and this
    // names that run ("the futex run on CPUs 0,1 (same-package)"). The cause is the conclusion's
    // first sentence (disturbedNotes), not repeated in the middle of a comparison.
    std::string disturbed;
};

// The median of the values (0 when empty); sorts a copy.
double medianOf(std::span<const double> values);
// Percentile-bootstrap 95% interval of median(b) / median(a). With fewer than two values on
// either side there is no spread to resample: the interval is the point.
Comparison bootstrapRatio(std::span<const double> a, std::span<const double> b);
// The run-to-run interval of median(b) / median(a) over repetition medians: Welch's t interval
// of the difference of their mean logs (so a ratio, never below 0), widened to hold the ratio of
// the medians. A run has 3 to 5 repetitions, and a percentile bootstrap over three values is
// about their range: on planted runs that drift apart it held the true ratio 32 times in 40 where
// a 95% interval should hold it 38 (tests/engine/verdict_planted_test.cpp). With fewer than two
// values, or one not positive, on either side: bootstrapRatio's.
Comparison repetitionRatio(std::span<const double> a, std::span<const double> b);
// Student's t at 97.5% for `df` degrees of freedom (a fractional df interpolated in 1 / df).
double studentT975(double df);
// The verdict for an interval (the threshold applied to low and high).
Verdict verdictOf(double low, double high);
// b against a: ratio of the headline medians, interval the envelope of repetitionRatio over
// the repetition medians and the bootstrap over samples. With less than two repetitions and samples on a
// side, the verdict is Unclear: one number has no spread to judge it by. A disturbed side
// (other tasks or steal above kDisturbedShare) makes it Unclear too, and says so.
Comparison compare(const RunResult& a, const RunResult& b);
// "2.74 times (95% interval 2.60–2.90)"; "133 times (95% interval 120–140)". Only the figure:
// a disturbed comparison is no figure to quote (see noConclusion).
std::string formatComparison(const Comparison& c);
// "between 0.95 and 1.22 times": the interval alone, for an Unclear verdict, which quotes no
// point ratio (its figure is not a finding; the range is why nothing is concluded).
std::string formatRange(const Comparison& c);
// "2.74", "133": a ratio as formatComparison quotes it.
std::string formatRatio(double ratio);
// The headline of a comparison a lesson's conclusion turns on: `figure` ("Across packages: 2.74×
// slower than on one PU") when it differs; `same` or `unclear` in words otherwise; "No
// conclusion: <run> was disturbed." for a disturbed side. The interval is c's.
LessonHeadline headlineOf(const Comparison& c, std::string figure, std::string same, std::string unclear);
// "on one PU", "across packages": where a pair of tasks ran, for a headline.
// A headline's most bytes (UTF-8): one line across a projector at the verdict card's type size.
inline constexpr std::size_t kHeadlineBytes = 72;

std::string relationPhrase(Relation relation);
// Which run this is, for a sentence: "the futex run on CPUs 0,1 (same-package)"; "the process
// pipe run on ..." when it ran as processes.
std::string runName(const RunResult& r);
// Why an undisturbed verdict is Unclear, as the start of "... whether X by 10% or more": "the runs
// vary too much to say". (A disturbed comparison says noConclusion instead.)
std::string unclearWhy();
// The sentence in place of a disturbed comparison, with no ratio in it: "No conclusion on
// whether placement matters: the futex run on CPUs 0,1 (same-package) was disturbed."
std::string noConclusion(const Comparison& c, std::string_view question);
// One sentence per disturbed result, for the start of a lesson's conclusion: "The spin run on
// CPUs 0,1 (shared-l3) was disturbed: other tasks took 48.9% of CPU 1, busiest cc1plus (PID
// 25812). Run the lesson again; no conclusion is drawn from that run."
std::vector<std::string> disturbedNotes(const std::vector<RunResult>& results);
// Whether the run was disturbed (RunResult::interference above kDisturbedShare).
bool wasDisturbed(const RunResult& r);

} // namespace ctxscope::lesson
