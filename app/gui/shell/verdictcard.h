// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/lesson.h"

#include <QFrame>

#include <optional>

class QLabel;
class QTextBrowser;
class QToolButton;

namespace ctxscope::gui {

struct LessonRecord;

// The lesson's verdict for a room, across the top of the window in presentation mode: the
// conclusion's headline in one line of large type ("Across CPUs sharing an L3: 8.40× slower
// than on one PU"), its 95% interval as a badge under it, and the whole conclusion and the
// experiments folded below (Details). A lesson that draws no one comparison, or is still
// measuring, shows its question, and the badge says how far it got.
class VerdictCard : public QFrame {
    Q_OBJECT
public:
    explicit VerdictCard(QWidget* parent = nullptr);

    // A lesson without a headline (none drawn, or reopened from a file) shows its question.
    void setLesson(const LessonRecord& lesson, const std::optional<LessonHeadline>& headline);
    QLabel* headline() const { return m_headline; }
    QLabel* badge() const { return m_badge; }
    QToolButton* detailsButton() const { return m_toggle; }
    QTextBrowser* details() const { return m_details; }

    // The headline's pixel size for a window this high: at least 28 (a projector's 800 lines
    // read from the back of a room), larger on a taller screen.
    static int headlinePixels(int windowHeight);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void fitType();
    void restyleBadge();

    QLabel* m_headline = nullptr;
    QLabel* m_badge = nullptr;
    QToolButton* m_toggle = nullptr;
    QTextBrowser* m_details = nullptr;
    bool m_badgeCaution = false; // amber: no conclusion, or one the runs cannot carry
};

} // namespace ctxscope::gui
