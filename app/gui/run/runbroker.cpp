// SPDX-License-Identifier: MIT
#include "runbroker.h"

namespace ctxscope::gui {

RunBroker::RunBroker(QObject* parent)
    : QObject(parent)
{
}

std::optional<quint64> RunBroker::start(const BenchSpec& spec, bool traced) const
{
    return m_starter ? m_starter(spec, traced) : std::nullopt;
}

void RunBroker::reportFinished(quint64 id, RunOutcome outcome, const QString& message)
{
    emit runFinished(id, outcome, message);
}

} // namespace ctxscope::gui
