// SPDX-License-Identifier: MIT
// RunController: one line of the worker stream into signals. The engine parses the
// messages (protocol::parseMessage, resultFromJson); this file only routes them.
#include "runcontroller.h"

#include "ctxscope/protocol.h"
#include "ctxscope/report.h"

namespace ctxscope::gui {

namespace {

QString preview(const QByteArray& line)
{
    constexpr qsizetype kShown = 80;
    const QString text = QString::fromUtf8(line.left(kShown));
    return line.size() > kShown ? text + QStringLiteral("…") : text;
}

} // namespace

void RunController::handleLine(const QByteArray& line)
{
    if (line.trimmed().isEmpty())
        return;
    auto message = protocol::parseMessage(std::string_view(line.constData(), static_cast<std::size_t>(line.size())));
    if (!message) {
        const QString why = tr("The worker sent a line that is not a message (%1): %2")
                                .arg(QString::fromStdString(message.error().message), preview(line));
        emit protocolError(why);
        // A line too long to read during a run may have been its result: waiting on could
        // wait for ever. The run is failed here, and the worker told to stop measuring it.
        if (m_running && line.size() > static_cast<qsizetype>(protocol::kMaxLineBytes)) {
            const quint64 id = *m_running;
            send(protocol::commandLine(protocol::CancelCommand { id }));
            m_abandoned.insert(id);
            endRun();
            emit runFailed(id, why);
        }
        return;
    }
    const std::string& type = message->type;
    const nlohmann::json& body = message->body;
    if (message->id && m_abandoned.count(*message->id)) {
        // The worker answers the cancel with "cancelled", or with an error if the run had
        // ended (its result may come first): that answer is its last word on the run.
        if (type == "cancelled" || type == "error")
            m_abandoned.erase(*message->id);
        return;
    }
    const bool forCurrentRun = message->id && m_running && *message->id == *m_running;
    try {
        if (type == "hello") {
            const QString description
                = tr("ctxscope-cli %1, pid %2")
                      .arg(QString::fromStdString(body.value("ctxscope_version", std::string("?"))))
                      .arg(body.value("pid", 0L));
            m_workerPid = body.value("pid", m_workerPid);
            if (auto context = body.find("context"); context != body.end() && context->is_object())
                m_context = *context;
            handleHello(description, body.value("protocol", 0));
        } else if (type == "progress") {
            if (forCurrentRun)
                emit progress(*message->id, QString::fromStdString(body.value("stage", std::string())),
                    body.value("repetition", 0), body.value("repetitions", 0), body.value("fraction", 0.0));
        } else if (type == "samples") {
            if (forCurrentRun) {
                const auto values = body.at("ns_per_op").get<std::vector<double>>();
                emit samplesAvailable(*message->id, body.value("repetition", 0), body.value("first", quint64 { 0 }),
                    QVector<double>(values.begin(), values.end()));
            }
        } else if (type == "result") {
            if (!forCurrentRun)
                return;
            const quint64 id = *message->id;
            auto result = resultFromJson(body.at("result"));
            endRun();
            if (result)
                emit resultAvailable(id, std::make_shared<const RunResult>(std::move(*result)));
            else
                emit runFailed(id,
                    tr("The worker's result could not be read: %1")
                        .arg(QString::fromStdString(result.error().message)));
        } else if (type == "error") {
            const QString text = QString::fromStdString(body.value("message", std::string("(no message)")));
            if (forCurrentRun) {
                const quint64 id = *message->id;
                endRun();
                emit runFailed(id, text);
            } else {
                emit protocolError(tr("The worker reported: %1").arg(text));
            }
        } else if (type == "cancelled") {
            if (forCurrentRun) {
                const quint64 id = *message->id;
                endRun();
                emit runCancelled(id);
            }
        } else if (handleJobMessage(type, forCurrentRun, body)) {
            // a sweep's or a matrix's message
        } else if (type != "bye") {
            emit protocolError(tr("The worker sent a message of unknown type '%1'.").arg(QString::fromStdString(type)));
        }
    } catch (const nlohmann::json::exception& e) {
        emit protocolError(tr("The worker sent a malformed '%1' message (%2): %3")
                               .arg(QString::fromStdString(type), QString::fromUtf8(e.what()), preview(line)));
    }
}

} // namespace ctxscope::gui
