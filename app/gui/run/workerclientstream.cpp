// SPDX-License-Identifier: MIT
// WorkerClient: one line of the worker stream into signals. The engine parses each line
// into a typed event (protocol::parseEvent); this file only routes them.
#include "workerclient.h"

#include "ctxscope/events.h"
#include "ctxscope/protocol.h"

namespace ctxscope::gui {

namespace {

QString preview(const QByteArray& line)
{
    constexpr qsizetype kShown = 80;
    const QString text = QString::fromUtf8(line.left(kShown));
    return line.size() > kShown ? text + QStringLiteral("…") : text;
}

} // namespace

void WorkerClient::handleLine(const QByteArray& line)
{
    if (line.trimmed().isEmpty())
        return;
    auto parsed = protocol::parseEvent(std::string_view(line.constData(), static_cast<std::size_t>(line.size())));
    if (const auto* unreadable = std::get_if<protocol::EventError>(&parsed)) {
        handleUnreadable(*unreadable, line);
        return;
    }
    protocol::Event& event = std::get<protocol::Event>(parsed);
    const std::optional<std::uint64_t> id = protocol::commandIdOf(event);
    if (id && m_abandoned.count(*id)) {
        // The worker answers the cancel with "cancelled", or with an error if the run had
        // ended (its result may come first): that answer is its last word on the run.
        if (std::holds_alternative<protocol::CancelledEvent>(event)
            || std::holds_alternative<protocol::ErrorEvent>(event))
            m_abandoned.erase(*id);
        return;
    }
    if (id && handlePinAnswer(event, *id))
        return;
    const bool forCurrentRun = id && m_running && *id == *m_running;
    if (auto* hello = std::get_if<protocol::HelloEvent>(&event)) {
        const QString description
            = tr("ctxscope-cli %1, pid %2").arg(QString::fromStdString(hello->ctxscopeVersion)).arg(hello->pid);
        if (hello->pid != 0)
            m_workerPid = hello->pid;
        if (hello->context.is_object()) {
            m_context = std::move(hello->context);
            m_hostName = QString::fromStdString(hello->hostName);
        }
        // Saved results name a server as the user named it, beside the host name it reports.
        if (m_link.isRemote() && m_context.is_object())
            m_context["machine"] = m_link.destination.toStdString();
        m_topologyXml = std::move(hello->topologyXml);
        m_tracing = std::move(hello->tracing);
        m_bpf = std::move(hello->bpf);
        handleHello(description, hello->protocol);
    } else if (!forCurrentRun) {
        if (const auto* error = std::get_if<protocol::ErrorEvent>(&event))
            emit protocolError(tr("The worker reported: %1").arg(QString::fromStdString(error->message)));
        // other messages about no run of ours (a late progress line, a bye): nothing to do
    } else if (const auto* p = std::get_if<protocol::ProgressEvent>(&event)) {
        emit progress(
            *id, QString::fromStdString(p->stage), p->repetition.value_or(0), p->repetitions.value_or(0), p->fraction);
    } else if (const auto* samples = std::get_if<protocol::SamplesEvent>(&event)) {
        emit samplesAvailable(*id, samples->repetition, samples->first,
            QVector<double>(samples->nsPerOp.begin(), samples->nsPerOp.end()));
    } else if (auto* result = std::get_if<protocol::ResultEvent>(&event)) {
        if (result->asIs) { // the first side of an A/B: the run goes on
            emit asIsResultAvailable(*id, std::make_shared<const RunResult>(std::move(result->result)));
            return;
        }
        endRun();
        if (result->ab)
            emit conditionAbAvailable(*id, std::make_shared<const ConditionAb>(std::move(*result->ab)));
        emit resultAvailable(*id, std::make_shared<const RunResult>(std::move(result->result)));
    } else if (const auto* error = std::get_if<protocol::ErrorEvent>(&event)) {
        endRun();
        emit runFailed(*id, QString::fromStdString(error->message));
    } else if (std::holds_alternative<protocol::CancelledEvent>(event)) {
        endRun();
        emit runCancelled(*id);
    } else {
        handleJobEvent(event); // a sweep's, a matrix's or a lesson's
    }
}

void WorkerClient::handleUnreadable(const protocol::EventError& unreadable, const QByteArray& line)
{
    using Kind = protocol::EventError::Kind;
    const QString why = QString::fromStdString(unreadable.message);
    if (unreadable.kind == Kind::NotAMessage) {
        const QString text = tr("The worker sent a line that is not a message (%1): %2").arg(why, preview(line));
        emit protocolError(text);
        // A line too long to read during a run may have been its result: waiting on could
        // wait for ever. The run is failed here, and the worker told to stop measuring it.
        if (m_running && line.size() > static_cast<qsizetype>(protocol::kMaxLineBytes)) {
            const quint64 id = *m_running;
            send(protocol::commandLine(protocol::CancelCommand { id }));
            m_abandoned.insert(id);
            endRun();
            emit runFailed(id, text);
        }
        return;
    }
    // A lean watch's line lost leaves its threads out of step: the next sample brings them all.
    if (unreadable.type == "watch_delta" && unreadable.id && m_running == unreadable.id)
        focusWatch(*unreadable.id, m_watchFocus, true);
    if (unreadable.id && m_abandoned.count(*unreadable.id))
        return;
    const QString type = QString::fromStdString(unreadable.type);
    if (unreadable.kind == Kind::UnknownType) {
        emit protocolError(tr("The worker sent a message of unknown type '%1'.").arg(type));
        return;
    }
    if (!unreadable.lost.empty()) {
        // What a command yields could not be read: waiting for it would wait for ever.
        if (unreadable.id && m_running && *unreadable.id == *m_running) {
            const quint64 id = *m_running;
            endRun();
            emit runFailed(
                id, tr("The worker's %1 could not be read: %2").arg(QString::fromStdString(unreadable.lost), why));
        }
        return;
    }
    emit protocolError(tr("The worker sent a malformed '%1' message (%2): %3").arg(type, why, preview(line)));
}

} // namespace ctxscope::gui
