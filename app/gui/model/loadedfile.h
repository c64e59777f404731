// SPDX-License-Identifier: MIT
#pragma once

#include "workingsetdata.h"

#include "ctxscope/expected.h"
#include "ctxscope/matrix.h"
#include "ctxscope/report.h"

#include <QString>

#include <memory>
#include <optional>

namespace ctxscope::gui {

// A results file as the app opens it: the runs and the machine they came from, plus the
// working-set sweep (`ctxscope-cli sweep --json`) or the matrix (`matrix --json`) it holds.
struct LoadedFile {
    QString name; // the file name, for legends
    bool session = false; // a saved session: read it with sessionFromJson instead
    ResultsFile results; // for a sweep: the round trip of every point
    std::shared_ptr<const SweepCurves> sweep;
    std::shared_ptr<const MatrixResult> matrix;
};

// Reads a file of the CLI or of "Save results". Malformed files are refused with a message
// naming the file and the problem.
Expected<LoadedFile> loadResultsDocument(const QString& path);
// The same from text already read (the name is used in messages and legends).
Expected<LoadedFile> parseResultsDocument(const std::string& text, const QString& name);

// The sweep part of a document, when it has one ("sweep" and working-set entries).
Expected<std::shared_ptr<const SweepCurves>> sweepFromDocument(const nlohmann::json& doc, const QString& origin);

} // namespace ctxscope::gui
