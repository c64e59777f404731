// SPDX-License-Identifier: MIT
#pragma once

namespace ctxscope::cli {

// Asks the kernel to SIGKILL this process when the thread that started it dies, so a worker
// whose controller (the GUI) crashed or was killed never runs on as an orphan. Returns false
// when the parent died before the request took effect: the caller should exit at once.
bool dieWithParent();

} // namespace ctxscope::cli
