// SPDX-License-Identifier: MIT
#pragma once

#include "programwatch.h"

#include <QWidget>

class QCustomPlot;
class QLabel;

namespace ctxscope::gui {

// A watched thread's wake-up latencies (a traced watch): the share of its wake-ups in each log2
// bin of the wait from runnable to running (bcc's runqlat bins), one series per epoch (since the
// watch began, then after each re-pin of it: before and after on one plot), with each epoch's p50
// and p99 bins, and under the plot its top wakers and preemptors.
class WakeupPlot : public QWidget {
    Q_OBJECT
public:
    explicit WakeupPlot(QWidget* parent = nullptr);

    // The thread's epochs (nullptr or empty: none yet), named "1234 ping".
    void setThread(const std::vector<WakeupEpoch>* epochs, const QString& thread);
    QCustomPlot* plot() const { return m_plot; }
    QString peersText() const; // the wakers and preemptors line
    void restyle();

private:
    QCustomPlot* m_plot = nullptr;
    QLabel* m_peers = nullptr;
    std::vector<WakeupEpoch> m_epochs;
    QString m_thread;
    void rebuild();
};

} // namespace ctxscope::gui
