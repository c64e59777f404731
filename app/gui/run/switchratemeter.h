// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QObject>

#include <optional>

class QTimer;

namespace ctxscope::gui {

// The system-wide context switches per second, from the `ctxt` line of /proc/stat (the
// number vmstat's cs column shows). Reading a counter is not measuring: the GUI may do it.
class SwitchRateMeter : public QObject {
    Q_OBJECT
public:
    explicit SwitchRateMeter(QObject* parent = nullptr, int intervalMs = 500);

    void start();
    // Stops sampling; returns the mean rate since start(), when it could be read.
    std::optional<double> stop();
    bool isActive() const;

    // The ctxt counter in the text of /proc/stat, or nothing when it has none.
    static std::optional<quint64> parseContextSwitches(const QByteArray& procStat);

signals:
    void rateAvailable(double switchesPerSecond);

private:
    void sample();
    QTimer* m_timer = nullptr;
    std::optional<quint64> m_first;
    qint64 m_firstMs = 0;
    std::optional<quint64> m_last;
    QElapsedTimer m_clock; // monotonic, unlike the wall clock
    qint64 m_lastMs = 0;
};

} // namespace ctxscope::gui
