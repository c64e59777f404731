// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>

class QCustomPlot;
class QPalette;

namespace ctxscope::gui {

// The colour of the n-th run: Okabe-Ito hues (told apart by colour-blind viewers and on a
// washed-out projector), then the palette's text colour; yellow is left out, unreadable on white.
QColor runColor(int index, const QPalette& palette);

// Background, axes, grid, labels and legend from the widget palette (dark themes work),
// with fonts a little larger than the UI's for a projector.
void stylePlot(QCustomPlot& plot);

} // namespace ctxscope::gui
