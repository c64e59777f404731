// SPDX-License-Identifier: MIT
#include "bytesticker.h"

#include <cmath>

namespace ctxscope::gui {

QString bytesTickLabel(double bytes)
{
    if (bytes <= kZeroBytesPosition)
        return QStringLiteral("0");
    static constexpr const char* kSuffixes[] = { "", "K", "M", "G", "T" };
    int unit = 0;
    while (bytes >= 1024 && unit < 4) {
        bytes /= 1024;
        ++unit;
    }
    return QString::number(bytes, 'g', 3) + QLatin1String(kSuffixes[unit]);
}

QVector<double> BytesLog2Ticker::createTickVector(double, const QCPRange& range)
{
    const double lower = std::max(range.lower, 1.0);
    const double upper = std::max(range.upper, lower * 2);
    const int first = static_cast<int>(std::ceil(std::log2(lower) - 1e-9));
    const int last = static_cast<int>(std::floor(std::log2(upper) + 1e-9));
    // Labels like "128K" need room: thin out to about tickCount() + 4 ticks.
    const int wanted = std::max(tickCount(), 3) + 4;
    const int every = std::max(1, static_cast<int>(std::ceil(static_cast<double>(last - first + 1) / wanted)));
    QVector<double> ticks;
    for (int e = first; e <= last; ++e)
        if (e % every == 0 || std::ldexp(1.0, e) == kZeroBytesPosition)
            ticks.append(std::ldexp(1.0, e));
    return ticks;
}

int BytesLog2Ticker::getSubTickCount(double) { return 0; }

QString BytesLog2Ticker::getTickLabel(double tick, const QLocale&, QChar, int) { return bytesTickLabel(tick); }

} // namespace ctxscope::gui
