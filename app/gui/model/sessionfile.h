// SPDX-License-Identifier: MIT
#pragma once

#include "comparedata.h"
#include "machinecards.h"
#include "timelinedata.h"
#include "workingsetdata.h"

#include "ctxscope/expected.h"
#include "ctxscope/matrix.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <memory>
#include <string>
#include <vector>

namespace ctxscope::gui {

// A lesson as the session keeps it (LessonSession fills it as its experiments run): which
// lesson, each experiment with what it measured, and the conclusion drawn from them.
struct LessonRecord {
    std::string id;
    struct Step {
        std::string label;
        std::string outcome; // empty until it ran
    };
    std::vector<Step> steps;
    std::vector<std::string> conclusion; // empty until every step was tried
    bool finished = false;
};

// Another machine measured in the same session (a server over ssh, named as the user named
// it): its topology and context block as its worker's hello gave them, and the runs measured
// there.
struct SessionMachine {
    std::string name;
    std::string topologyXml;
    nlohmann::json context = nlohmann::json::object();
    std::vector<RunResult> runs;
};

// Everything a session shows, as one JSON file: the machine (topology XML, system info and
// the worker's context block), the runs with their samples, the working-set sweeps, the
// matrices and the results files opened for comparison.
struct Session {
    std::string topologyXml;
    nlohmann::json context = nlohmann::json::object(); // Google Benchmark's context block
    nlohmann::json sysinfo = nlohmann::json::object();
    std::vector<RunResult> runs;
    std::vector<std::shared_ptr<const SweepCurves>> sweeps;
    struct Matrix {
        std::shared_ptr<const MatrixResult> matrix;
        QString origin;
    };
    std::vector<Matrix> matrices;
    std::vector<CompareSource> compared; // other machines' files (this session is not one)
    // Their context blocks, kept whole so they are written back as read.
    std::vector<nlohmann::json> comparedContexts;
    // Written only when there is one: files of sessions without lessons stay as they were,
    // and files saved before lessons were kept load with none.
    std::vector<LessonRecord> lessons;
    // The other machines' runs (the session's own machine is the one above). Written only
    // when there is one, like the lessons.
    std::vector<SessionMachine> machines;
    // The traced runs' events, one entry per run in the file's order (this machine's runs, then
    // each machine's): null for a run without. Each holds at most kSessionTraceEvents, the last
    // (a reopened session shows the end of each traced run's timeline). Written only when one has.
    std::vector<std::shared_ptr<const TraceWindow>> traceWindows;
    // The machine cards of File → Compare machines… (opened, or surveyed through the worker),
    // each saved whole with its label. Written only when there is one.
    std::vector<MachineCardEntry> machineCards;
};

inline constexpr std::size_t kSessionTraceEvents = 100'000;

inline constexpr int kSessionFormatVersion = 1;

nlohmann::json sessionToJson(const Session& session);
// Refuses a malformed file with a message naming the problem (the field and its entry).
Expected<Session> sessionFromJson(const std::string& text);
// The same from a document already parsed (and pre-scanned by checkJsonDocument).
Expected<Session> sessionFromDocument(const nlohmann::json& doc);

} // namespace ctxscope::gui
