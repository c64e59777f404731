// SPDX-License-Identifier: MIT
#include "durationticker.h"

#include <cmath>

namespace ctxscope::gui {

QString durationTickLabel(double ns)
{
    const double magnitude = std::fabs(ns);
    if (magnitude == 0)
        return QStringLiteral("0");
    struct Unit {
        double scale;
        const char16_t* name;
    };
    static constexpr Unit kUnits[] = { { 1e9, u"s" }, { 1e6, u"ms" }, { 1e3, u"µs" }, { 1, u"ns" } };
    for (const Unit& unit : kUnits)
        if (magnitude >= unit.scale || unit.scale == 1)
            return QString::number(ns / unit.scale, 'g', 4) + QLatin1Char(' ') + QString::fromUtf16(unit.name);
    return {};
}

QString DurationTicker::getTickLabel(double tick, const QLocale&, QChar, int) { return durationTickLabel(tick); }

} // namespace ctxscope::gui
