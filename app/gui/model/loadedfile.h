// SPDX-License-Identifier: MIT
#pragma once

#include "plotdata.h"
#include "sessionfile.h"
#include "workingsetdata.h"

#include "ctxscope/expected.h"
#include "ctxscope/matrix.h"
#include "ctxscope/results_file.h"

#include <QString>

#include <atomic>
#include <memory>
#include <optional>

namespace ctxscope::gui {

// A results file as the app opens it: the runs and the machine they came from, plus the
// working-set sweep (`ctxscope-cli sweep --json`) or the matrix (`matrix --json`) it holds.
struct LoadedFile {
    QString name; // the file name, for legends
    bool session = false; // a saved session (OpenedDocument::session holds it when asked for)
    ResultsFile results; // for a sweep: the round trip of every point
    std::shared_ptr<const SweepCurves> sweep;
    std::shared_ptr<const MatrixResult> matrix;
};

// What a file is opened as: results (a session found there is read as one), a session, or
// another machine's results to compare with (a session there is named, not read).
enum class DocumentKind { Results, Session, Compared };

struct OpenedDocument {
    QString path; // as given to readDocument, for messages
    LoadedFile file;
    std::optional<Session> session; // when file.session and the kind reads sessions
    // One per session run, when prepared (DocumentReader does, on its thread).
    std::vector<std::shared_ptr<const PreparedTrace>> traces;
};

// Set from another thread to stop a parse early; the parse then fails with kCancelled.
using CancelFlag = std::atomic<bool>;
inline constexpr const char* kCancelled = "cancelled";

// How far a read has got, written by the reading thread and read by the GUI's: the bytes of
// the file read, then the bytes the parser has gone through.
struct ReadProgress {
    std::atomic<qint64> total { 0 };
    std::atomic<qint64> read { 0 };
    std::atomic<qint64> parsed { 0 };
};

// Reads a file once into one buffer, pre-scans it (checkJsonDocument: a bracket bomb is
// refused before any document is built) and parses it once. Malformed files are refused
// with a message naming the file and the problem. Safe to call off the GUI thread.
Expected<OpenedDocument> readDocument(
    const QString& path, DocumentKind kind, const CancelFlag* cancel = nullptr, ReadProgress* progress = nullptr);
Expected<OpenedDocument> parseDocument(const std::string& text, const QString& name, DocumentKind kind,
    const CancelFlag* cancel = nullptr, ReadProgress* progress = nullptr);

// Reads a file of the CLI or of "Save results" (readDocument as results).
Expected<LoadedFile> loadResultsDocument(const QString& path);

// The sweep part of a document, when it has one ("sweep" and working-set entries).
Expected<std::shared_ptr<const SweepCurves>> sweepFromDocument(const nlohmann::json& doc, const QString& origin);

} // namespace ctxscope::gui
