// SPDX-License-Identifier: MIT
#pragma once

namespace ctxscope::gui {

// How a run, sweep or matrix ended, as a value: a lesson tells a cancelled step from a
// failed one by this, never by comparing translated messages.
enum class RunOutcome { Succeeded, Failed, Cancelled };

} // namespace ctxscope::gui
