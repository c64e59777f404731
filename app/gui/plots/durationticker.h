// SPDX-License-Identifier: MIT
#pragma once

#include "qcp.h"

namespace ctxscope::gui {

// "850 ns", "8.5 µs", "1.2 ms": a tick label with the unit chosen per value.
QString durationTickLabel(double ns);

// Linear axis in nanoseconds, labelled with units.
class DurationTicker : public QCPAxisTicker {
protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

} // namespace ctxscope::gui
