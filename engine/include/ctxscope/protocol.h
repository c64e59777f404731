// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/bench.h"
#include "ctxscope/expected.h"
#include "ctxscope/report.h"
#include "ctxscope/runner.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

// The worker stream: newline-delimited JSON between a controller (the GUI) and
// `ctxscope-cli worker`. Every message is one JSON object on one line with a "type".
//
//   worker -> controller: hello, progress, samples, result, error, cancelled, bye
//   controller -> worker: run, cancel, quit
//
// A malformed or unknown message gets an error reply; the worker never exits because of one.
namespace ctxscope::protocol {

inline constexpr int kVersion = 1;
inline constexpr std::size_t kMaxLineBytes = 1U << 20;

struct RunCommand {
    std::uint64_t id = 0;
    BenchSpec spec;
};
struct CancelCommand {
    std::uint64_t id = 0;
};
struct QuitCommand { };
using Command = std::variant<RunCommand, CancelCommand, QuitCommand>;

// BenchSpec <-> JSON {"bench": "futex", "mode": "thread", "cpus": [0, 0], ...}. Only shape
// is checked here; ranges and CPUs are checked by the runner (checkSpec).
nlohmann::json specToJson(const BenchSpec& spec);
Expected<BenchSpec> specFromJson(const nlohmann::json& j);

Expected<Command> parseCommand(std::string_view line);
std::string commandLine(const Command& command); // one line, no newline

// Worker messages, each one line without the newline.
std::string helloLine(const Topology& topology, const SysInfo& sys, const ClockInfo& clock);
std::string progressLine(std::uint64_t id, const Progress& progress);
std::string samplesLine(std::uint64_t id, const SampleBatch& batch);
// Within kMaxLineBytes: when the raw samples would not fit they are left out (they were
// streamed) and "samples_omitted" says how many.
std::string resultLine(std::uint64_t id, const RunResult& result);
std::string errorLine(std::optional<std::uint64_t> id, std::string_view message);
std::string cancelledLine(std::uint64_t id);
std::string byeLine();

// A worker message as the controller reads it.
struct Message {
    std::string type;
    std::optional<std::uint64_t> id;
    nlohmann::json body; // the whole object
};
Expected<Message> parseMessage(std::string_view line);

} // namespace ctxscope::protocol
