// SPDX-License-Identifier: MIT
#pragma once

#include "machinelink.h"

#include <QString>

namespace ctxscope::gui {

// Why a worker reached over ssh ended, as one sentence that names the machine and says what
// to do, read from ssh's exit status (255: ssh itself failed; 127: the remote shell found no
// such command) and the last lines it wrote to stderr. Empty when neither says anything
// recognised: the caller then reports the exit code with those lines.
QString explainRemoteExit(const MachineLink& link, int exitCode, const QString& stderrText);

// The last non-empty line of a stderr text, for messages that quote what ssh said.
QString lastLine(const QString& text);

} // namespace ctxscope::gui
