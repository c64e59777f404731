// SPDX-License-Identifier: MIT
#include "interrupt.h"

#include <csignal>
#include <ctime>
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
    m_watcher = std::thread([this, set] {
        const timespec tick { 0, 50'000'000 };
        while (!m_done.load()) {
            if (sigtimedwait(&set, nullptr, &tick) > 0) {
                m_source.request_stop();
                return;
            }
        }
    });
}

InterruptScope::~InterruptScope()
{
    m_done.store(true);
    m_watcher.join();
    const sigset_t set = stopSignals();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

} // namespace ctxscope::cli
