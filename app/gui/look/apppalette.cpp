// SPDX-License-Identifier: MIT
#include "apppalette.h"

#include <algorithm>
#include <cmath>

namespace ctxscope::gui {

namespace {

// The roles every palette here sets; the rest Qt derives from Window.
struct Colors {
    QColor window, base, alternate, text, button, mid, dark, light, highlight, highlightedText, placeholder, link;
};

QPalette makePalette(const Colors& c)
{
    QPalette p(c.window);
    p.setColor(QPalette::Window, c.window);
    p.setColor(QPalette::WindowText, c.text);
    p.setColor(QPalette::Base, c.base);
    p.setColor(QPalette::AlternateBase, c.alternate);
    p.setColor(QPalette::Text, c.text);
    p.setColor(QPalette::BrightText, c.text);
    p.setColor(QPalette::Button, c.button);
    p.setColor(QPalette::ButtonText, c.text);
    p.setColor(QPalette::Mid, c.mid);
    p.setColor(QPalette::Dark, c.dark);
    p.setColor(QPalette::Light, c.light);
    p.setColor(QPalette::Highlight, c.highlight);
    p.setColor(QPalette::HighlightedText, c.highlightedText);
    p.setColor(QPalette::ToolTipBase, c.base);
    p.setColor(QPalette::ToolTipText, c.text);
    p.setColor(QPalette::PlaceholderText, c.placeholder);
    p.setColor(QPalette::Link, c.link);
    for (QPalette::ColorRole role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
        p.setColor(QPalette::Disabled, role, c.placeholder);
    return p;
}

double luminance(const QColor& color)
{
    const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF());
}

} // namespace

QPalette darkPalette()
{
    const QColor text(0xec, 0xec, 0xec);
    QPalette p = makePalette({ .window = QColor(0x2b, 0x2d, 0x30),
        .base = QColor(0x1c, 0x1d, 0x1f),
        .alternate = QColor(0x2b, 0x2d, 0x30),
        .text = text,
        .button = QColor(0x3a, 0x3c, 0x40),
        .mid = QColor(0x6e, 0x70, 0x74),
        .dark = QColor(0x15, 0x15, 0x16),
        .light = QColor(0x50, 0x52, 0x56),
        .highlight = QColor(0x3d, 0x7a, 0xb8),
        .highlightedText = Qt::white,
        .placeholder = QColor(0x8c, 0x8c, 0x8c),
        .link = QColor(0x6c, 0xb4, 0xee) });
    p.setColor(QPalette::BrightText, Qt::white);
    return p;
}

QPalette highContrastPalette(bool dark)
{
    if (dark)
        return makePalette({ .window = Qt::black,
            .base = Qt::black,
            .alternate = QColor(0x1a, 0x1a, 0x1a),
            .text = Qt::white,
            .button = QColor(0x1a, 0x1a, 0x1a),
            .mid = QColor(0xb4, 0xb4, 0xb4),
            .dark = QColor(0xd0, 0xd0, 0xd0),
            .light = QColor(0x40, 0x40, 0x40),
            .highlight = QColor(0xff, 0xd4, 0x00),
            .highlightedText = Qt::black,
            .placeholder = QColor(0xb4, 0xb4, 0xb4),
            .link = QColor(0x8c, 0xc8, 0xff) });
    return makePalette({ .window = Qt::white,
        .base = Qt::white,
        .alternate = QColor(0xf0, 0xf0, 0xf0),
        .text = Qt::black,
        .button = QColor(0xf0, 0xf0, 0xf0),
        .mid = QColor(0x4a, 0x4a, 0x4a),
        .dark = QColor(0x20, 0x20, 0x20),
        .light = Qt::white,
        .highlight = QColor(0x00, 0x46, 0xad),
        .highlightedText = Qt::white,
        .placeholder = QColor(0x4a, 0x4a, 0x4a),
        .link = QColor(0x00, 0x00, 0xcc) });
}

QFont scaledFont(QFont font, double factor)
{
    if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * factor);
    else
        font.setPixelSize(std::max(1, qRound(font.pixelSize() * factor)));
    return font;
}

double contrastRatio(const QColor& a, const QColor& b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace ctxscope::gui
