// SPDX-License-Identifier: MIT
// Machines side by side: the results of several files (survey cards, or the results files of
// run, sweep, matrix and lesson) as one table of benchmark x relation class, one column per
// machine. Rows are matched by benchmark, mode, relation class (and working set, and on hybrid
// machines the kinds of core, Placement::kinds), never by CPU
// numbers. Each machine after the baseline gets the ratio of its median to the baseline's with
// the lessons' 95% interval and verdict (lesson/verdict.h: matters, the same, unclear), and the
// context facts that differ between the files (kernel, microcode, mitigations, SMT, governor,
// idle states, VM, ...) are listed as what can explain a difference.
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/placement.h"
#include "ctxscope/result.h"
#include "ctxscope/results_file.h"
#include "ctxscope/survey.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctxscope {

// One machine's file, as compare reads it.
struct MachineCard {
    std::string path;
    std::string label; // the column's name: the file's name without its directory and ".json"
    std::string kind; // "survey", "matrix", "lesson", "sweep" or "run"
    bool hasContext = false; // false: a lesson file without a "context" block
    ReportContext context;
    std::vector<RunResult> results;
    // A reference card (the articles' published figures): where they come from.
    std::string source;
    // A survey card's suite version (0: not a survey card) and, from version 2, its figures
    // beside the runs: the working-set knee and the traced segments per class.
    int surveyVersion = 0;
    bool hasKnee = false; // the survey measured the knee (some working set ran)
    std::optional<std::uint64_t> kneeBytes;
    std::uint64_t largestWsBytes = 0; // the largest working set it measured
    std::vector<SurveyTrace> traces;
};

// Reads a card from JSON text; `path` names it in errors and gives its label. A survey block of
// version 1 or later is read (the figures of version 2; version 1 has none of them). A file of another
// kind (a session, a trace, any other JSON) is refused with a sentence saying what it is not.
Expected<MachineCard> machineCardFromText(std::string_view text, const std::string& path);
Expected<MachineCard> readMachineCard(const std::string& path);

// The articles' published figures as read-only cards (kind "article tsuna" or "article 2022"),
// each with its source and method: tsuna's 2010-2013 Xeons (syscall; futex between processes
// unpinned; processes and threads on one PU) and the 2022 table (Xeon Platinum 8269CY, E5-2682
// v4, Platinum 8163, a 4-thread 8269CY cloud instance, Kunpeng 920: syscall, futex processes and
// threads, unpinned and on CPU 0). A futex figure is a round trip: twice the published ns per
// switch. `set` is "tsuna", "2022" or "all"; anything else gives none.
std::vector<MachineCard> articleCards(std::string_view set = "all");

enum class MachineVerdict { Matters, Same, Unclear };
// "matters", "the same", "unclear": the lessons' words.
std::string_view toString(MachineVerdict verdict);

// One machine's figure in a row, and against the baseline.
struct MachineCell {
    std::optional<double> medianNs; // none: the machine has no such run (the class is absent)
    // Against the baseline (none for the baseline itself and when either side is absent).
    std::optional<double> ratio; // median / baseline median
    double low = 0; // 95% interval of the ratio
    double high = 0;
    MachineVerdict verdict = MachineVerdict::Unclear;
    std::string disturbed; // not "": which side ran disturbed, so the verdict is unclear
};

struct MachineRow {
    std::string bench;
    BenchMode mode = BenchMode::Thread;
    Relation relation = Relation::SamePu;
    std::uint64_t wsBytes = 0;
    std::string kinds; // a hybrid machine's kinds of core ("P↔E"; Placement::kinds), "" elsewhere
    std::string condition; // conditionText of the runs ("keep-awake 0,1"); "" as is: rows match by it too
    std::string op; // what one op is, from the first machine that ran it
    std::vector<MachineCell> cells; // one per machine, in the cards' order
};

// A context fact whose value is not the same on every machine.
struct ContextDifference {
    std::string what; // "kernel", "mitigation spectre_v2", "idle states", ...
    std::vector<std::string> values; // one per machine; "unknown" where the file does not say
};

// A survey figure beside the table, one text value per machine (in the cards' order): the
// working-set knee, where each class's spin line lived (context for the spin rows), and each
// class's traced hand-over segments (one figure per segment). Matched by class, never by CPU.
struct MachineFigure {
    std::string what; // "working-set knee", "spin line", "segment IPI sent"
    std::optional<Relation> relation; // none for a machine-wide figure (the knee)
    std::vector<std::string> values; // "absent" where a card lacks it, "not in suite version 1"
    // A traced segment's verdict against the baseline's, one per machine ("" for the baseline,
    // the other figures and where a side was not traced): "matters" where the two medians are
    // more than 10% apart and the larger lies beyond the smaller one's p90, or a step one side
    // took in at least 10% of its hand-overs and the other never; else "unclear" (one traced
    // run a side: its median has no interval; a way under kRareSegmentShare of a side's
    // hand-overs took has too few). `whys`: the sentence that says which.
    std::vector<std::string> verdicts;
    std::vector<std::string> whys;
};

struct MachineComparison {
    std::vector<std::string> labels; // one per machine
    std::size_t baseline = 0;
    std::vector<MachineRow> rows;
    std::vector<MachineFigure> figures; // empty unless a card is a survey of version 2 or later
    std::vector<ContextDifference> differences;
    // Sentences: where a futex thread row matters and both machines traced that class (survey
    // step 6), the step of the hand-over that moved most, and when it is the idle exit, the idle
    // states left: "an idle-exit difference".
    std::vector<std::string> causes;
    std::vector<std::string> notes; // sentences: a file holding several runs of a row, no context
};

// The cards' table against cards[baseline]. Cards must be at least two and baseline < size.
Expected<MachineComparison> compareMachines(const std::vector<MachineCard>& cards, std::size_t baseline);

// The context facts compareMachines weighs, in order, as (what, value) pairs: CPU, microcode,
// kernel, one per mitigation, SMT, governor, idle states, idle governor, cpu_dma_latency, haltpoll, VM,
// clock source, build.
std::vector<std::pair<std::string, std::string>> contextFacts(const MachineCard& card);

// A row's benchmark as the table names it: "futex thread", "futex process W=64 KiB".
std::string machineRowName(const MachineRow& row);
// A cell against the baseline: "2.01 (1.98-2.04)" (ratio and 95% interval), "-" for the
// baseline, "absent" where the machine has no such run.
std::string machineRatioText(const MachineCell& cell);
// Why a cell's verdict is what it is, in a sentence: the interval against the 10% threshold, a
// disturbed side named, a published figure without spread. "" for the baseline and an absent side.
std::string machineVerdictWhy(const MachineCell& cell);
// A survey figure's value on machine m as the tables show it: with its verdict where it has one,
// "3.06 ms · matters".
std::string figureValueText(const MachineFigure& figure, std::size_t m);

enum class CompareFormat { Text, Markdown, Csv, Json };
std::optional<CompareFormat> compareFormatFromString(std::string_view text);
std::string formatMachineComparison(const MachineComparison& c, CompareFormat format);
nlohmann::json toJson(const MachineComparison& c);

} // namespace ctxscope
