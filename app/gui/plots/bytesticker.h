// SPDX-License-Identifier: MIT
#pragma once

#include "qcp.h"
#include "workingsetdata.h"

namespace ctxscope::gui {

// "0", "4K", "64K", "1M", "2G": a tick label for bytes in powers of 1024.
QString bytesTickLabel(double bytes);

// A log2 axis in bytes: a tick at every power of two (every second or fourth when the range
// spans many), labelled with K/M/G; the tick at kZeroBytesPosition reads "0".
class BytesLog2Ticker : public QCPAxisTicker {
protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

} // namespace ctxscope::gui
