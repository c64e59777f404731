// SPDX-License-Identifier: MIT
#include "switchratemeter.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTimer>

namespace ctxscope::gui {

SwitchRateMeter::SwitchRateMeter(QObject* parent, int intervalMs)
    : QObject(parent)
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(intervalMs);
    connect(m_timer, &QTimer::timeout, this, &SwitchRateMeter::sample);
}

void SwitchRateMeter::start()
{
    m_last.reset();
    m_clock.start();
    sample(); // the first reading is the baseline
    m_first = m_last;
    m_firstMs = m_lastMs;
    m_timer->start();
}

std::optional<double> SwitchRateMeter::stop()
{
    if (!m_timer->isActive())
        return std::nullopt;
    m_timer->stop();
    sample();
    if (!m_first || !m_last || *m_last < *m_first || m_lastMs <= m_firstMs)
        return std::nullopt;
    return static_cast<double>(*m_last - *m_first) * 1000.0 / static_cast<double>(m_lastMs - m_firstMs);
}

bool SwitchRateMeter::isActive() const { return m_timer->isActive(); }

std::optional<quint64> SwitchRateMeter::parseContextSwitches(const QByteArray& procStat)
{
    for (const QByteArray& line : procStat.split('\n')) {
        if (!line.startsWith("ctxt "))
            continue;
        bool ok = false;
        const quint64 value = line.mid(5).trimmed().toULongLong(&ok);
        return ok ? std::optional(value) : std::nullopt;
    }
    return std::nullopt;
}

void SwitchRateMeter::sample()
{
    QFile file(QStringLiteral("/proc/stat"));
    if (!file.open(QIODevice::ReadOnly))
        return;
    // /proc files report size 0: read until the end instead of trusting size().
    const auto count = parseContextSwitches(file.readAll());
    const qint64 now = m_clock.elapsed();
    if (count && m_last && *count >= *m_last && now > m_lastMs)
        emit rateAvailable(static_cast<double>(*count - *m_last) * 1000.0 / static_cast<double>(now - m_lastMs));
    m_last = count;
    m_lastMs = now;
}

} // namespace ctxscope::gui
