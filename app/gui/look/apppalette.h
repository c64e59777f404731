// SPDX-License-Identifier: MIT
#pragma once

#include <QFont>
#include <QPalette>

namespace ctxscope::gui {

// A dark palette with the contrast of the light one (text on base above 12:1), for
// lecture halls that dim the lights; the plots and the map take their colours from it.
QPalette darkPalette();

// Presentation mode's palette for a projector that washes colours out: pure black on white
// (or white on black), grid and borders dark enough to survive (Mid on Base at least 7:1).
QPalette highContrastPalette(bool dark);

// The font `factor` times larger, whether it is sized in points or in pixels.
QFont scaledFont(QFont font, double factor);

// WCAG 2 contrast ratio of two colours: 1 (same luminance) to 21 (black on white).
double contrastRatio(const QColor& a, const QColor& b);

} // namespace ctxscope::gui
