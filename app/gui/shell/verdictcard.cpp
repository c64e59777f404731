// SPDX-License-Identifier: MIT
#include "verdictcard.h"

#include "lessonsession.h"
#include "sessionfile.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace ctxscope::gui {

namespace {

QString ratio(double x) { return QString::number(x, 'f', x < 10 ? 2 : 0); }

// "95% interval 8.21–8.63×", or in words where no interval is quoted.
QString badgeText(const LessonHeadline& h)
{
    switch (h.kind) {
    case LessonHeadline::Kind::Differs:
    case LessonHeadline::Kind::Same:
        return VerdictCard::tr("95% interval %1–%2×").arg(ratio(h.low), ratio(h.high));
    case LessonHeadline::Kind::Unclear:
        return VerdictCard::tr("no conclusion: run it longer");
    case LessonHeadline::Kind::Disturbed:
        return VerdictCard::tr("no conclusion: run it again");
    }
    return {};
}

} // namespace

VerdictCard::VerdictCard(QWidget* parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("verdictCard"));
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 6, 12, 6);
    auto* row = new QHBoxLayout;
    m_headline = new QLabel(this);
    m_headline->setWordWrap(true); // on a narrow window a second line, never a scroll bar
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_badge = new QLabel(this);
    m_badge->setToolTip(tr("Where the true ratio lies with 95% confidence: a bootstrap over the repetitions and "
                           "the samples (docs/measurement.md)"));
    m_toggle = new QToolButton(this);
    m_toggle->setText(tr("Details"));
    m_toggle->setCheckable(true);
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toggle->setArrowType(Qt::DownArrow);
    m_toggle->setToolTip(tr("The whole conclusion and what each experiment measured"));
    // The headline has the window's whole width to itself: one line at 1280 pixels.
    layout->addWidget(m_headline);
    row->addWidget(m_badge);
    row->addWidget(m_toggle);
    row->addStretch(1);
    layout->addLayout(row);
    m_details = new QTextBrowser(this);
    m_details->hide();
    layout->addWidget(m_details);
    connect(m_toggle, &QToolButton::toggled, this, [this](bool open) {
        m_toggle->setArrowType(open ? Qt::UpArrow : Qt::DownArrow);
        m_details->setVisible(open);
    });
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    fitType();
}

int VerdictCard::headlinePixels(int windowHeight) { return std::max(28, windowHeight / 28); }

void VerdictCard::setLesson(const LessonRecord& lesson, const std::optional<LessonHeadline>& headline)
{
    const LessonInfo* info = findLesson(lesson.id);
    const QString question = info ? QString::fromUtf8(info->question.data(), qsizetype(info->question.size()))
                                  : QString::fromStdString(lesson.id);
    m_details->setHtml(lessonHtml(lesson));
    if (headline) {
        m_headline->setText(QString::fromStdString(headline->text));
        m_badge->setText(badgeText(*headline));
        const auto kind = headline->kind;
        m_badgeCaution = kind == LessonHeadline::Kind::Unclear || kind == LessonHeadline::Kind::Disturbed;
    } else {
        m_headline->setText(question);
        std::size_t done = 0;
        for (const LessonRecord::Step& step : lesson.steps)
            if (!step.outcome.empty() && step.outcome != "running…")
                ++done;
        m_badge->setText(!lesson.finished   ? tr("measuring: %1 of %2 done").arg(done).arg(lesson.steps.size())
                : lesson.conclusion.empty() ? tr("stopped before its conclusion")
                                            : tr("conclusion in the details"));
        m_badgeCaution = lesson.finished && lesson.conclusion.empty();
    }
    restyleBadge();
}

void VerdictCard::fitType()
{
    QFont font = m_headline->font();
    font.setBold(true);
    font.setPixelSize(headlinePixels(window()->height()));
    m_headline->setFont(font);
    QFont small = font;
    small.setBold(false);
    small.setPixelSize(std::max(18, font.pixelSize() * 2 / 3));
    m_badge->setFont(small);
    m_toggle->setFont(small);
    // A quarter of the window, scrolled beyond: the plot keeps the rest (at two fifths the
    // timeline's lanes were squeezed to slivers at 800 pixels).
    m_details->setMaximumHeight(window()->height() / 4);
}

void VerdictCard::restyleBadge()
{
    // A tinted pill with no outline: a coloured 2-pixel frame read as a text field with the focus.
    const QColor tint = m_badgeCaution ? QColor(0xff, 0xc1, 0x07) : palette().color(QPalette::Highlight);
    const QColor base = palette().color(QPalette::Window);
    constexpr double kTint = 0.22;
    const auto mix = [&](int a, int b) { return static_cast<int>(a * (1 - kTint) + b * kTint); };
    const QColor fill(mix(base.red(), tint.red()), mix(base.green(), tint.green()), mix(base.blue(), tint.blue()));
    m_badge->setStyleSheet(
        QStringLiteral("border:none;border-radius:12px;padding:3px 12px;background:%1;").arg(fill.name()));
}

void VerdictCard::resizeEvent(QResizeEvent* event)
{
    QFrame::resizeEvent(event);
    if (m_headline->font().pixelSize() != headlinePixels(window()->height()))
        fitType();
}

void VerdictCard::changeEvent(QEvent* event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        restyleBadge();
}

} // namespace ctxscope::gui
