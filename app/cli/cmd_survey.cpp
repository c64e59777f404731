// SPDX-License-Identifier: MIT
#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "progress_line.h"
#include "survey_hosts.h"

#include "ctxscope/machine_compare.h"
#include "ctxscope/results_file.h"
#include "ctxscope/survey.h"
#include "ctxscope/sysinfo.h"
#include "ctxscope/units.h"

#include <nlohmann/json.hpp>

#include <fmt/core.h>

namespace ctxscope::cli {

namespace {

struct SurveyOptions {
    double budget = kSurveySeconds;
    std::string json;
    bool plan = false;
    std::vector<std::string> hosts;
    std::string hostsFile;
    std::string out = ".";
    int parallel = 0;
    std::string remoteCli = "ctxscope-cli";
    CLI::Option* push = nullptr; // --push [FILE], given when its count is not 0
    std::string pushFile; // empty: this executable, when it is the bundle
};

// Every host of --hosts and --hosts-file, in that order; the error when the file cannot be read.
int onHosts(const SurveyOptions& o)
{
    HostsOptions h;
    h.hosts = o.hosts;
    if (!o.hostsFile.empty()) {
        auto text = readResultsText(o.hostsFile);
        if (!text)
            return badInput(text.error().message);
        for (std::string& host : hostsFromText(*text))
            h.hosts.push_back(std::move(host));
    }
    if (o.parallel < 0)
        return badInput("--parallel must be 1 or more (0: every host at once)");
    h.outDir = o.out;
    h.parallel = o.parallel;
    h.remoteCli = o.remoteCli;
    h.budgetSeconds = o.budget;
    if (o.push->count() > 0) {
        auto bundle = ssh::readPushBundle(o.pushFile);
        if (!bundle)
            return badInput(bundle.error().message);
        h.push = std::move(*bundle);
    }
    return surveyHosts(h);
}

std::string perWhat(const RunResult& r)
{
    if (r.perHandoffNs && r.bench == "spin")
        return formatDuration(*r.perHandoffNs) + " one-way";
    if (r.perSwitchNs)
        return formatDuration(*r.perSwitchNs) + " per switch";
    return "-";
}

void printSummary(const SurveyResult& s, const nlohmann::json& context)
{
    fmt::print("{:<32}{:<16}{:>12}  {}\n", "benchmark", "class", "median op", "per switch / hand-over");
    for (const RunResult& r : s.results) {
        const bool oneTask = r.placement.tasks <= 1;
        std::string name = oneTask ? r.bench : r.bench + " " + std::string(toString(r.mode));
        if (r.spec.wsBytes > 0)
            name += " W=" + formatBytes(r.spec.wsBytes);
        if (r.spec.conditioned())
            name += " " + conditionText(r.spec);
        fmt::print("{:<32}{:<16}{:>12}  {}\n", name, relationText(r.placement.relation, r.placement.kinds),
            formatDuration(r.stats.p50), perWhat(r));
    }
    fmt::print("\n");
    for (const std::string& line : surveyFigureLines(s))
        fmt::print("{}\n", line);
    fmt::print("\n");
    MachineCard card;
    card.hasContext = true;
    if (auto ctx = reportContextFromJson(context))
        card.context = std::move(*ctx);
    int mitigations = 0;
    int vulnerable = 0;
    for (const auto& [what, value] : contextFacts(card)) {
        if (what.starts_with("mitigation ")) {
            ++mitigations;
            vulnerable += value.starts_with("Vulnerable") ? 1 : 0;
            continue;
        }
        fmt::print("{:<16}{}\n", what, value);
    }
    fmt::print("{:<16}{} listed, {} vulnerable (sysinfo --json has each)\n", "mitigations", mitigations, vulnerable);
    fmt::print("\nSuite version {}: {} runs of {} x {} in {} (budget {}).\n", kSurveyVersion, s.results.size(),
        s.plan.repetitions, formatDuration(s.plan.minTimeSeconds * 1e9), formatDuration(s.seconds * 1e9),
        formatDuration(s.plan.budgetSeconds * 1e9));
    for (const SurveySkip& k : s.skipped)
        fmt::print("skipped: {}: {}\n", k.what, k.why);
}

int run(const SurveyOptions& o)
{
    if (Status budget = checkSurveyBudget(o.budget); !budget)
        return badInput(budget.error().message);
    if (!o.hosts.empty() || !o.hostsFile.empty()) {
        if (!o.json.empty() || o.plan)
            return badInput("--hosts writes one card per host into --out DIR: it takes neither --json nor --plan");
        return onHosts(o);
    }
    if (o.push->count() > 0)
        return badInput("--push copies the bundle to the hosts of --hosts or --hosts-file: name them");
    auto topology = Topology::loadLive();
    if (!topology)
        return badInput(topology.error().message);
    auto plan = planSurvey(*topology, o.budget);
    if (!plan)
        return badInput(plan.error().message);
    if (o.plan) {
        fmt::print("{} runs of {} x {}, about {} (budget {}):\n", plan->steps.size(), plan->repetitions,
            formatDuration(plan->minTimeSeconds * 1e9), formatDuration(plan->estimateSeconds * 1e9),
            formatDuration(plan->budgetSeconds * 1e9));
        for (const SurveyStep& s : plan->steps)
            fmt::print("  {}\n", s.label);
        if (!plan->wsNote.empty())
            fmt::print("{}\n", plan->wsNote);
        for (const SurveySkip& k : plan->skipped)
            fmt::print("skipped: {}: {}\n", k.what, k.why);
        return kOk;
    }
    fmt::print(stderr, "ctxscope-cli: survey of {} runs, about {} (budget {}; Ctrl-C keeps the finished runs)\n",
        plan->steps.size(), formatDuration(plan->estimateSeconds * 1e9), formatDuration(plan->budgetSeconds * 1e9));
    ProgressLine progress;
    InterruptScope interrupt;
    auto result = runSurvey(
        *plan, *topology,
        [&](const SurveyProgress& p) {
            if (p.finished)
                return; // the next step's report follows
            progress.update(fmt::format("[{}/{}] {}", p.step + 1, p.steps, p.label),
                p.estimateSeconds > 0 ? p.elapsedSeconds / p.estimateSeconds : 0);
        },
        interrupt.token());
    progress.clear();
    if (!result)
        return badInput(result.error().message);
    if (result->cancelled)
        fmt::print(
            stderr, "ctxscope-cli: interrupted; the card holds the {} runs that finished\n", result->results.size());
    const nlohmann::json context = makeContext(readSysInfo(), *topology, measurementClock());
    if (o.json != "-")
        printSummary(*result, context);
    if (!o.json.empty()) {
        nlohmann::json card = makeReport(context, result->results, false);
        card["survey"] = surveyToJson(*result);
        if (const int written = writeText(o.json, card.dump(2) + "\n"); written != kOk)
            return written;
    }
    if (result->cancelled)
        return kInterrupted;
    return result->results.empty() ? kMeasurementFailed : kOk;
}

} // namespace

Command addSurveyCommand(CLI::App& app)
{
    auto c = subcommand<SurveyOptions>(app, "survey",
        fmt::format("A machine card: a fixed suite (version {}) of syscall, vdso, the coroutine floor, futex and pipe "
                    "(thread and process) on one PU, on one representative pair of each relation class and unpinned, "
                    "futex on the farthest class with both CPUs kept awake (an A/B against the pair as is), spin's "
                    "one-way hand-over per class (its line in a fresh page first touched by a measuring task, "
                    "with the page's NUMA node), where tracing is allowed the hand-over's traced segments per class "
                    "(and the farthest kept awake), "
                    "and the working-set knee (futex on one PU, 4 KiB to twice the last-level cache), within a time "
                    "budget, with the machine's context",
            kSurveyVersion));
    SurveyOptions& o = *c.options;
    c.sub
        ->add_option("--budget", o.budget,
            fmt::format("Seconds the runs may take: shorter repetitions first, then runs left out (and listed as "
                        "skipped) ({} to {})",
                kSurveyMinSeconds, kSurveyMaxSeconds))
        ->capture_default_str();
    c.sub->add_option(
        "--json", o.json, "Write the card (a results file with a \"survey\" block) to FILE, or - for stdout");
    c.sub->add_flag("--plan", o.plan, "Print the runs the budget allows and what is skipped, without measuring");
    c.sub
        ->add_option("--hosts", o.hosts,
            "Survey these ssh destinations instead of this machine (comma-separated; aliases of ~/.ssh/config work): "
            "ssh -T -o BatchMode=yes, or $CTXSCOPE_SSH_COMMAND; one card per host in --out")
        ->delimiter(',');
    c.sub->add_option("--hosts-file", o.hostsFile, "Hosts to survey, one a line ('#' starts a comment line)");
    c.sub->add_option("--out", o.out, "Directory for the hosts' cards, HOST.json each")->capture_default_str();
    c.sub->add_option("--parallel", o.parallel, "Hosts surveyed at a time (0: all; each host measures only itself)")
        ->capture_default_str();
    auto* remoteCli = c.sub->add_option("--remote-cli", o.remoteCli, "The ctxscope-cli to run on the hosts");
    remoteCli->capture_default_str();
    o.push = c.sub
                 ->add_option("--push", o.pushFile,
                     "With --hosts: copy the portable bundle (this ctxscope-cli when it is the bundle, or FILE) over "
                     "the same ssh to a mktemp -d directory on each host, check its sha256, run it there and remove "
                     "it on every way out; a host of another architecture (uname -m) is refused")
                 ->expected(0, 1)
                 ->excludes(remoteCli);
    c.sub->footer("Compare cards with `ctxscope-cli compare A.json B.json`. Runs are never all pairs: one pair per "
                  "relation class (topology shows which).");
    return c.done(run);
}

} // namespace ctxscope::cli
