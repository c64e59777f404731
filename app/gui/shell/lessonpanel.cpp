// SPDX-License-Identifier: MIT
#include "lessonpanel.h"

#include "apppalette.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace ctxscope::gui {

LessonPanel::LessonPanel(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("lessonPanel"));
    setMinimumWidth(240); // narrower, a sentence breaks every other word
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* header = new QHBoxLayout;
    auto* title = new QLabel(tr("<b>Lesson</b>"), this);
    auto* close = new QToolButton(this);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setAutoRaise(true);
    close->setToolTip(tr("Hide the lesson panel (View → Lesson panel shows it again)"));
    connect(close, &QToolButton::clicked, this, &LessonPanel::closeClicked);
    header->addWidget(title, 1);
    header->addWidget(close);
    layout->addLayout(header);
    m_text = new QTextBrowser(this);
    applyTextFont();
    m_text->setPlaceholderText(
        tr("Choose a lesson in the Lessons menu: it runs a few experiments on the machine runs go to "
           "and concludes from what they measured."));
    layout->addWidget(m_text, 1);
}

void LessonPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    // Presentation mode enlarges the application font: follow it once the change has spread.
    if (event->type() == QEvent::FontChange)
        QTimer::singleShot(0, this, &LessonPanel::applyTextFont);
}

void LessonPanel::applyTextFont()
{
    // A little larger than the UI: the class reads it from the back of the room.
    m_text->setFont(scaledFont(font(), 1.15));
}

} // namespace ctxscope::gui
