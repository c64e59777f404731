// SPDX-License-Identifier: MIT
#include "apppalette.h"

namespace ctxscope::gui {

QPalette darkPalette()
{
    const QColor window(0x2b, 0x2d, 0x30), base(0x1c, 0x1d, 0x1f), text(0xec, 0xec, 0xec), dim(0x8c, 0x8c, 0x8c);
    QPalette p(window);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Button, QColor(0x3a, 0x3c, 0x40));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::Mid, QColor(0x6e, 0x70, 0x74));
    p.setColor(QPalette::Dark, QColor(0x15, 0x15, 0x16));
    p.setColor(QPalette::Light, QColor(0x50, 0x52, 0x56));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xb8));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, dim);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xee));
    for (QPalette::ColorRole role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
        p.setColor(QPalette::Disabled, role, dim);
    return p;
}

} // namespace ctxscope::gui
