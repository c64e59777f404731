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

InterruptScope::InterruptScope()
{
    const sigset_t set = stopSignals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    // The watcher sleeps until a signal comes: it never polls (a thread waking 20 times a
    // second showed in a watch's cost, and it would wake on the CPUs a run measures). The
    // scope's end wakes it with a SIGTERM of its own, sent to that thread only.
    m_watcher = std::thread([this, set] {
        for (;;) {
            const int taken = sigwaitinfo(&set, nullptr);
            if (m_done.load())
                return;
            if (taken > 0) {
                m_source.request_stop();
                return;
            }
        }
    });
}

InterruptScope::~InterruptScope()
{
    m_done.store(true);
    pthread_kill(m_watcher.native_handle(), SIGTERM);
    m_watcher.join();
    const sigset_t set = stopSignals();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

} // namespace ctxscope::cli
