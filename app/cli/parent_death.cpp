// SPDX-License-Identifier: MIT
#include "parent_death.h"

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace ctxscope::cli {

bool dieWithParent()
{
    // The parent may die between our start and the prctl; then no signal will ever come, but
    // we have been reparented, which getppid() shows. SIGKILL, not SIGTERM: nothing of ours
    // needs a clean exit, and the benchmark children have their own death signal.
    const pid_t parent = ::getppid();
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        return true; // not fatal: the end of stdin still ends the worker
    return ::getppid() == parent;
}

} // namespace ctxscope::cli
