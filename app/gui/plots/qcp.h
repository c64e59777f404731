// SPDX-License-Identifier: MIT
#pragma once

// QCustomPlot through this header only: qcustomplot.h uses the `foreach` keyword in two
// templates (plottableAt/itemAt), and this project builds with QT_NO_FOREACH. A range-for
// stands in while the header is read; the keyword stays unavailable to our own code.
#include <QtGlobal>

#if defined(foreach)
#include <qcustomplot.h>
#else
#define foreach(variable, container) for (variable : container)
#include <qcustomplot.h>
#undef foreach
#endif
