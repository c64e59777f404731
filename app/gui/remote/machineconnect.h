// SPDX-License-Identifier: MIT
#pragma once

#include "machinelink.h"

#include "ctxscope/expected.h"
#include "ctxscope/topology.h"

namespace ctxscope::gui {

class RunController;

// Points `controller` at `link`'s machine, starts its worker and waits (running the event
// loop, so the window stays drawn) for the worker's hello or its failure, at most
// `timeoutMs`. Returns the machine's topology from the hello (a server's, read from the XML
// its worker sent), or the sentence the failure gave. For the command line (--remote), which
// needs the machine before it can check --cpus against it.
Expected<Topology> connectMachine(RunController& controller, const MachineLink& link, int timeoutMs);

} // namespace ctxscope::gui
