// SPDX-License-Identifier: MIT
#pragma once

#include "qcp.h"

namespace ctxscope::gui {

// Logarithmic axis in nanoseconds: 1-2-5 ticks per decade when the range spans a few
// decades, powers of ten when it spans many, and linear steps inside one decade (where a
// plain log ticker would leave the axis without a single label).
class DurationLogTicker : public QCPAxisTicker {
protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;

private:
    bool m_sparse = false; // ticks not evenly spaced: no sub ticks between them
};

} // namespace ctxscope::gui
