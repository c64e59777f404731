// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QTextBrowser;

namespace ctxscope::gui {

// The explanation panel beside the plots: a lesson's question, its experiments with what
// each measured, and the conclusion the engine drew from those numbers. Hidden until a
// lesson starts; its close button (or View → Lesson panel) hides it again.
class LessonPanel : public QWidget {
    Q_OBJECT
public:
    explicit LessonPanel(QWidget* parent = nullptr);

    QTextBrowser* text() const { return m_text; } // LessonController writes the lesson's HTML here

signals:
    void closeClicked();

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyTextFont();

    QTextBrowser* m_text = nullptr;
};

} // namespace ctxscope::gui
