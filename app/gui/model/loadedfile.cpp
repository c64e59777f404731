// SPDX-License-Identifier: MIT
#include "loadedfile.h"

#include "runlabel.h"

#include "ctxscope/results_file.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <iterator>

namespace ctxscope::gui {

namespace {
// Larger than any results file the CLI writes with its samples; the engine's reader has
// its own limit too.
constexpr qint64 kMaxDocumentBytes = qint64 { 256 } << 20;
// More than a session of 2^20 samples per run for hundreds of runs could hold.
constexpr qint64 kMaxSessionBytes = qint64 { 1 } << 30;
// How often the reader says how far it is: often enough for a smooth bar, rarely enough to
// cost nothing next to the parse.
constexpr std::size_t kProgressStep = std::size_t { 1 } << 20;

// The parser's input, one byte at a time, telling `progress` how far it has read every MiB.
class CountingIterator {
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    CountingIterator(const std::string& text, std::size_t at, ReadProgress* progress)
        : m_text(&text)
        , m_at(at)
        , m_progress(progress)
    {
    }
    reference operator*() const { return (*m_text)[m_at]; }
    CountingIterator& operator++()
    {
        if (++m_at % kProgressStep == 0 && m_progress)
            m_progress->parsed.store(static_cast<qint64>(m_at), std::memory_order_relaxed);
        return *this;
    }
    CountingIterator operator++(int)
    {
        CountingIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const CountingIterator& other) const { return m_at == other.m_at; }

private:
    const std::string* m_text;
    std::size_t m_at;
    ReadProgress* m_progress;
};
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

namespace {

struct Cancelled { };

// What readResults checks of a whole document, for one parsed here already.
Expected<ResultsFile> resultsFromDocument(const nlohmann::json& doc)
{
    if (!doc.is_object())
        return makeError("the document is not a JSON object");
    for (const auto& [key, object] : { std::pair { "context", true }, std::pair { "benchmarks", false } }) {
        const auto it = doc.find(key);
        if (it == doc.end() || it->is_null())
            return makeError(std::string("missing field '") + key + "'");
        if (object ? !it->is_object() : !it->is_array())
            return makeError(std::string("field '") + key + "' should be " + (object ? "an object" : "an array"));
    }
    auto context = reportContextFromJson(doc["context"]);
    if (!context)
        return context.error();
    auto results = resultsFromJson(doc["benchmarks"]);
    if (!results)
        return results.error();
    if (results->empty())
        return makeError("the file holds no ctxscope results");
    return ResultsFile { std::move(*context), std::move(*results) };
}

Expected<nlohmann::json> parseOnce(
    const std::string& text, DocumentKind kind, const CancelFlag* cancel, ReadProgress* progress)
{
    const bool session = kind == DocumentKind::Session;
    if (const Status checked = checkJsonDocument(text, session ? "session file" : "results file"); !checked)
        return checked.error();
    nlohmann::json doc;
    if (!cancel && !progress) {
        doc = nlohmann::json::parse(text, nullptr, false);
    } else {
        try {
            // Polled at every value: a cancelled parse stops within microseconds.
            doc = nlohmann::json::parse(
                CountingIterator(text, 0, progress), CountingIterator(text, text.size(), progress),
                [cancel](int, nlohmann::json::parse_event_t, nlohmann::json&) {
                    if (cancel && cancel->load(std::memory_order_relaxed))
                        throw Cancelled {};
                    return true;
                },
                false);
        } catch (const Cancelled&) {
            return makeError(kCancelled);
        }
    }
    if (progress)
        progress->parsed.store(static_cast<qint64>(text.size()));
    if (doc.is_discarded())
        return makeError(session ? "not valid JSON (truncated or not a session file)"
                                 : "not valid JSON (truncated or not a results file)");
    return doc;
}

} // namespace

Expected<OpenedDocument> parseDocument(
    const std::string& text, const QString& name, DocumentKind kind, const CancelFlag* cancel, ReadProgress* progress)
{
    const auto fail = [&](const std::string& message) {
        return message == kCancelled ? makeError(message) : makeError(name.toStdString() + ": " + message);
    };
    auto parsed = parseOnce(text, kind, cancel, progress);
    if (!parsed)
        return fail(parsed.error().message);
    const nlohmann::json& doc = *parsed;
    OpenedDocument out;
    out.file.name = name;
    if (kind == DocumentKind::Session || (doc.is_object() && doc.contains("ctxscope_session"))) {
        out.file.session = true;
        if (kind == DocumentKind::Compared)
            return out;
        auto session = sessionFromDocument(doc);
        if (!session)
            return fail(session.error().message);
        out.session = std::move(*session);
        return out;
    }
    auto results = resultsFromDocument(doc);
    if (!results)
        return fail(results.error().message);
    out.file.results = std::move(*results);
    auto sweep = sweepFromDocument(doc, name);
    if (!sweep)
        return fail(sweep.error().message);
    out.file.sweep = std::move(*sweep);
    if (doc.contains("matrix")) {
        auto matrix = matrixFromJson(doc["matrix"]);
        if (!matrix)
            return fail(matrix.error().message);
        matrix->runs = out.file.results.results;
        out.file.matrix = std::make_shared<const MatrixResult>(std::move(*matrix));
    }
    return out;
}

Expected<OpenedDocument> readDocument(
    const QString& path, DocumentKind kind, const CancelFlag* cancel, ReadProgress* progress)
{
    const QFileInfo info(path);
    // Not a FIFO or a device (read for ever).
    if (info.exists() && !info.isFile())
        return makeError(path.toStdString() + ": not a regular file");
    // "Open results" also opens sessions, which may be larger than a results file can be.
    const qint64 limit = kind == DocumentKind::Compared ? kMaxDocumentBytes : kMaxSessionBytes;
    if (info.size() > limit)
        return makeError(path.toStdString() + ": " + std::to_string(info.size() >> 20) + " MiB is larger than a "
            + (kind == DocumentKind::Session ? "session file can be (1024 MiB)" : "results file can be (256 MiB)"));
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly))
        return makeError(path.toStdString() + ": " + in.errorString().toStdString());
    // Read once into the one buffer the pre-scan and the parse both read, a slice at a time
    // so that Cancel answers and the bar moves while a large file comes off the disk.
    const qint64 size = in.size();
    if (progress)
        progress->total.store(size);
    std::string text(static_cast<std::size_t>(size), '\0');
    for (qint64 at = 0; at < size;) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return makeError(kCancelled);
        const qint64 slice = std::min<qint64>(size - at, 16 * static_cast<qint64>(kProgressStep));
        if (in.read(text.data() + at, slice) != slice)
            return makeError(path.toStdString() + ": could not be read in one piece (did it change while being read?)");
        at += slice;
        if (progress)
            progress->read.store(at, std::memory_order_relaxed);
    }
    if (kind == DocumentKind::Results && in.size() > kMaxDocumentBytes
        && text.find("\"ctxscope_session\"") == std::string::npos)
        return makeError(path.toStdString() + ": " + std::to_string(in.size() >> 20)
            + " MiB is larger than a results file can be (256 MiB)");
    auto opened = parseDocument(text, info.fileName(), kind, cancel, progress);
    if (opened)
        opened->path = path;
    return opened;
}

Expected<LoadedFile> loadResultsDocument(const QString& path)
{
    auto opened = readDocument(path, DocumentKind::Compared);
    if (!opened)
        return opened.error();
    return std::move(opened->file);
}

} // namespace ctxscope::gui
