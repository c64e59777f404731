// SPDX-License-Identifier: MIT
#include "runcoordinator.h"

namespace ctxscope::gui {

RunCoordinator::RunCoordinator(QObject* parent)
    : QObject(parent)
{
}

std::optional<quint64> RunCoordinator::start(const BenchSpec& spec, bool traced) const
{
    return m_starter ? m_starter(spec, traced) : std::nullopt;
}

void RunCoordinator::reportFinished(quint64 id, RunOutcome outcome, const QString& message)
{
    emit runFinished(id, outcome, message);
}

} // namespace ctxscope::gui
