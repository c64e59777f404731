// SPDX-License-Identifier: MIT
#include "loadedfile.h"

#include "runlabel.h"

#include "ctxscope/report_parts.h"

#include <QFile>
#include <QFileInfo>

namespace ctxscope::gui {

namespace {
// Larger than any results file the CLI writes with its samples; the engine's reader has
// its own limit too.
constexpr qint64 kMaxDocumentBytes = qint64 { 256 } << 20;
} // namespace

Expected<std::shared_ptr<const SweepCurves>> sweepFromDocument(const nlohmann::json& doc, const QString& origin)
{
    if (!doc.is_object() || !doc.contains("sweep"))
        return std::shared_ptr<const SweepCurves> {};
    auto caches = sweepCachesFromJson(doc["sweep"]);
    if (!caches)
        return caches.error();
    auto sweep = std::make_shared<SweepCurves>();
    sweep->caches = std::move(*caches);
    const nlohmann::json& entries = doc.contains("benchmarks") ? doc["benchmarks"] : nlohmann::json::array();
    if (!entries.is_array())
        return makeError("'benchmarks' should be an array");
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (!entries[i].is_object() || !entries[i].contains("ws_bytes"))
            continue;
        auto point = workingSetPointFromJson(entries[i]);
        if (!point)
            return makeError("benchmarks[" + std::to_string(i) + "]: " + point.error().message);
        sweep->points.push_back(std::move(*point));
    }
    if (sweep->points.empty())
        return makeError("the sweep has no working-set points");
    sweep->label = runLabel(sweep->points.front().roundTripRun);
    if (!origin.isEmpty())
        sweep->label += QStringLiteral(" · ") + origin;
    return std::shared_ptr<const SweepCurves>(std::move(sweep));
}

Expected<LoadedFile> parseResultsDocument(const std::string& text, const QString& name)
{
    const auto fail = [&](const std::string& message) { return makeError(name.toStdString() + ": " + message); };
    // Checked before this function builds a document of its own (to tell a session from results);
    // readResults repeats the check, a linear scan, as it stands alone for the CLI.
    if (const Status checked = checkJsonDocument(text, "results file"); !checked)
        return fail(checked.error().message);
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_object() && doc.contains("ctxscope_session")) {
        LoadedFile session;
        session.name = name;
        session.session = true;
        return session;
    }
    auto results = readResults(text);
    if (!results)
        return fail(results.error().message);
    LoadedFile file;
    file.name = name;
    file.results = std::move(*results);
    auto sweep = sweepFromDocument(doc, name);
    if (!sweep)
        return fail(sweep.error().message);
    file.sweep = std::move(*sweep);
    if (doc.contains("matrix")) {
        auto matrix = matrixFromJson(doc["matrix"]);
        if (!matrix)
            return fail(matrix.error().message);
        matrix->runs = file.results.results;
        file.matrix = std::make_shared<const MatrixResult>(std::move(*matrix));
    }
    return file;
}

Expected<LoadedFile> loadResultsDocument(const QString& path)
{
    QFile in(path);
    if (in.size() > kMaxDocumentBytes)
        return makeError(path.toStdString() + ": too large for a results file");
    if (!in.open(QIODevice::ReadOnly))
        return makeError(path.toStdString() + ": " + in.errorString().toStdString());
    const QByteArray bytes = in.readAll();
    return parseResultsDocument(bytes.toStdString(), QFileInfo(path).fileName());
}

} // namespace ctxscope::gui
