// SPDX-License-Identifier: MIT
#include "durationlogticker.h"

#include "durationticker.h"

#include <algorithm>
#include <cmath>

namespace ctxscope::gui {

QString DurationLogTicker::getTickLabel(double tick, const QLocale&, QChar, int) { return durationTickLabel(tick); }

QVector<double> DurationLogTicker::createTickVector(double tickStep, const QCPRange& range)
{
    const double lower = std::max(range.lower, 1e-3);
    const double upper = std::max(range.upper, lower * 1.0001);
    const double decades = std::log10(upper / lower);
    m_sparse = decades > 1.0;
    if (!m_sparse) {
        // Inside one decade the axis is nearly linear: nice linear steps read best.
        const double step = getTickStep(QCPRange(lower, upper));
        return QCPAxisTicker::createTickVector(step, QCPRange(lower, upper));
    }
    Q_UNUSED(tickStep)
    // The densest of 1-2-5, 1-3 and 1 per decade that keeps the tick count near what was
    // asked for (labels like "500 µs" need room); over very many decades, every n-th decade.
    const int wanted = std::max(tickCount(), 3) + 2;
    const int firstExponent = static_cast<int>(std::floor(std::log10(lower)));
    const int lastExponent = static_cast<int>(std::ceil(std::log10(upper)));
    const auto ticksFor = [&](std::initializer_list<double> mantissas, int everyDecades) {
        QVector<double> ticks;
        for (int exponent = firstExponent; exponent <= lastExponent; ++exponent) {
            if ((exponent - firstExponent) % everyDecades != 0)
                continue;
            for (double mantissa : mantissas) {
                const double tick = mantissa * std::pow(10.0, exponent);
                if (tick >= lower && tick <= upper)
                    ticks.append(tick);
            }
        }
        return ticks;
    };
    for (const auto& mantissas : { std::initializer_list<double> { 1, 2, 5 }, { 1, 3 }, { 1 } })
        if (const QVector<double> ticks = ticksFor(mantissas, 1); ticks.size() <= wanted && ticks.size() >= 2)
            return ticks;
    const int every = std::max(1, static_cast<int>(std::ceil(decades / wanted)));
    return ticksFor({ 1 }, every);
}

int DurationLogTicker::getSubTickCount(double tickStep)
{
    return m_sparse ? 0 : QCPAxisTicker::getSubTickCount(tickStep);
}

} // namespace ctxscope::gui
