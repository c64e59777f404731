// SPDX-License-Identifier: MIT
#include "elidedline.h"

#include <QEvent>

namespace ctxscope::gui {

ElidedLine::ElidedLine(QWidget* parent)
    : QLabel(parent)
{
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    setTextFormat(Qt::PlainText);
}

void ElidedLine::setFullText(const QString& text)
{
    m_full = text;
    fit();
}

QSize ElidedLine::sizeHint() const
{
    const QMargins m = contentsMargins();
    return { 0, fontMetrics().height() + m.top() + m.bottom() + 2 * margin() };
}

QSize ElidedLine::minimumSizeHint() const { return sizeHint(); }

void ElidedLine::resizeEvent(QResizeEvent* event)
{
    QLabel::resizeEvent(event);
    fit();
}

void ElidedLine::changeEvent(QEvent* event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        updateGeometry(); // presentation mode: a taller line
        fit();
    }
}

void ElidedLine::fit()
{
    const int room = contentsRect().width() - 2 * margin();
    setText(room > 0 ? fontMetrics().elidedText(m_full, Qt::ElideRight, room) : QString());
}

} // namespace ctxscope::gui
