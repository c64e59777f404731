// SPDX-License-Identifier: MIT
#include "lessonsession.h"

#include "runbroker.h"
#include "sessionstore.h"

#include "ctxscope/units.h"

#include <QTimer>

namespace ctxscope::gui {

namespace {
QString qs(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
} // namespace

LessonSession::LessonSession(
    RunBroker& runs, SessionStore& store, const LessonInfo& info, std::vector<LessonStep> steps, QObject* parent)
    : QObject(parent)
    , m_runs(runs)
    , m_store(store)
    , m_info(info)
    , m_steps(std::move(steps))
    , m_outcomes(m_steps.size())
{
    connect(&m_runs, &RunBroker::runFinished, this, &LessonSession::runFinished);
}

void LessonSession::start()
{
    m_stored = m_store.addLesson(record());
    QTimer::singleShot(0, this, &LessonSession::next);
}

LessonRecord LessonSession::record() const
{
    LessonRecord r { std::string(m_info.id), {}, m_conclusion, m_finished };
    for (std::size_t i = 0; i < m_steps.size(); ++i)
        r.steps.push_back({ m_steps[i].label, m_outcomes[i].toStdString() });
    return r;
}

void LessonSession::changedNow()
{
    // A Clear meanwhile took the record away: the lesson goes on, shown but no longer kept.
    if (m_stored && *m_stored < m_store.lessons().size() && m_store.lessons()[*m_stored].id == m_info.id)
        m_store.replaceLesson(*m_stored, record());
    emit changed();
}

void LessonSession::next()
{
    if (m_finished)
        return;
    if (m_next >= m_steps.size()) {
        m_conclusion = concludeLesson(m_info.id, m_results);
        m_headline = lessonHeadline(m_info.id, m_results);
        finish(true);
        return;
    }
    const LessonStep& step = m_steps[m_next];
    m_outcomes[m_next] = tr("running…");
    changedNow();
    // A lesson that always traces (inside-a-switch) traces its traceable steps where it may.
    m_waiting = m_runs.start(step.spec, m_info.traces && step.traceable);
    if (!m_waiting) {
        m_outcomes[m_next] = tr("could not start (the status bar says why)");
        finish(false);
    }
}

void LessonSession::runFinished(quint64 id, RunOutcome outcome, const QString& message)
{
    if (m_finished || m_waiting != id)
        return;
    m_waiting.reset();
    const std::size_t step = m_next++;
    if (outcome == RunOutcome::Succeeded) {
        if (const ResultRow* row = m_store.run(id)) {
            const RunResult& r = *row->result;
            m_results.push_back(r);
            m_outcomes[step] = tr("median %1 per op").arg(QString::fromStdString(formatDuration(r.stats.p50)));
        }
    } else if (outcome == RunOutcome::Cancelled) {
        m_outcomes[step] = tr("cancelled");
        finish(false);
        return;
    } else {
        m_outcomes[step] = tr("failed: %1").arg(message);
    }
    changedNow();
    next();
}

void LessonSession::finish(bool completed)
{
    m_finished = true;
    changedNow();
    emit finished(completed);
}

QString LessonSession::html() const { return lessonHtml(record()); }

QString lessonHtml(const LessonRecord& lesson)
{
    const LessonInfo* info = findLesson(lesson.id);
    const QString question = info ? qs(info->question) : qs(lesson.id);
    const QString experiments = info ? qs(info->experiments) : QString();
    // The conclusion first, once there is one: it is what the class came for.
    QString out = QStringLiteral("<p style='font-size:large'><b>%1</b> <i>(%2)</i></p>")
                      .arg(question.toHtmlEscaped(),
                          LessonSession::tr("lesson %1: %2").arg(qs(lesson.id), experiments).toHtmlEscaped());
    if (!lesson.conclusion.empty()) {
        out += QStringLiteral("<ul>");
        for (const std::string& sentence : lesson.conclusion)
            out += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(sentence).toHtmlEscaped());
        out += QStringLiteral("</ul>");
    } else if (lesson.finished) {
        out += QStringLiteral("<p>%1</p>").arg(LessonSession::tr("The lesson stopped before its conclusion."));
    }
    out += QStringLiteral("<p>%1</p><ol>").arg(LessonSession::tr("Experiments:"));
    for (const LessonRecord::Step& step : lesson.steps) {
        const QString outcome
            = step.outcome.empty() ? LessonSession::tr("waiting") : QString::fromStdString(step.outcome);
        out += QStringLiteral("<li>%1 — <b>%2</b></li>")
                   .arg(QString::fromStdString(step.label).toHtmlEscaped(), outcome.toHtmlEscaped());
    }
    return out + QStringLiteral("</ol>");
}

} // namespace ctxscope::gui
