// SPDX-License-Identifier: MIT
#include "interrupt.h"

#include <csignal>
#include <pthread.h>

namespace ctxscope::cli {

namespace {

sigset_t stopSignals()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

} // namespace

InterruptWatcher::InterruptWatcher()
{
    const sigset_t set = stopSignals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    m_thread = std::thread([this, set] {
        for (;;) {
            int sig = 0;
            if (sigwait(&set, &sig) != 0 || m_leaving.load())
                return;
            m_interrupted.store(true);
            m_source.request_stop();
        }
    });
}

InterruptWatcher::~InterruptWatcher()
{
    m_leaving.store(true);
    pthread_kill(m_thread.native_handle(), SIGTERM);
    m_thread.join();
    // Signals that arrived meanwhile stay pending and blocked; the process is about to end.
}

} // namespace ctxscope::cli
