// SPDX-License-Identifier: MIT
#pragma once

#include <QPalette>

namespace ctxscope::gui {

// A dark palette with the contrast of the light one (text on base above 12:1), for
// lecture halls that dim the lights; the plots and the map take their colours from it.
QPalette darkPalette();

} // namespace ctxscope::gui
