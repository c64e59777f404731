// SPDX-License-Identifier: MIT
#include "programsdock.h"

#include <QCoreApplication>
#include <QLayout>
#include <QMainWindow>
#include <QScreen>
#include <QSplitter>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace ctxscope::gui {

namespace {

int leastWidth(const QWidget& w) { return std::max(w.minimumWidth(), w.minimumSizeHint().width()); }

} // namespace

ProgramsDock::ProgramsDock(QMainWindow& window, QWidget* panel, QWidget& plots)
    : QDockWidget(tr("Programs"), &window)
    , m_window(window)
    , m_plots(plots)
    , m_row(qobject_cast<QSplitter*>(plots.parentWidget()))
{
    setObjectName(QStringLiteral("programsDock"));
    setWidget(panel);
    const auto changed = [this] {
        // The row as the user left it, before the dock's arrival squeezes it.
        if (!m_page && m_rowBefore.isEmpty() && m_row)
            m_rowBefore = m_row->sizes();
        // Docked, the plots go now, before the window lays the dock out: for that moment the
        // row's least width held the plots, the lesson and the map beside the dock, and the
        // window grew past a 1280 screen to make room (and stayed so).
        if (isVisible() && !isFloating())
            m_plots.hide();
        fitSoon();
    };
    // The window's width while the dock is no page: the width to come back to where the dock's
    // arrival widened it (the layout grows it as the dock shows, before any signal says so).
    m_window.installEventFilter(this);
    connect(this, &QDockWidget::visibilityChanged, this, changed);
    connect(this, &QDockWidget::topLevelChanged, this, changed);
    connect(this, &QDockWidget::dockLocationChanged, this, changed);
}

bool ProgramsDock::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == &m_window && event->type() == QEvent::Resize && (isHidden() || isFloating()))
        m_widthBefore = m_window.width();
    return QDockWidget::eventFilter(watched, event);
}

void ProgramsDock::fitSoon()
{
    if (std::exchange(m_pending, true))
        return;
    QTimer::singleShot(0, this, &ProgramsDock::fit);
}

void ProgramsDock::fit()
{
    m_pending = false;
    // isHidden, not isVisible: opened before the window shows, the dock is a page already.
    const bool page = !isHidden() && !isFloating();
    if (page == m_page) {
        if (!page) {
            m_rowBefore.clear();
            m_plots.show(); // hidden above for a dock that then was not a page
        }
        return;
    }
    m_page = page;
    if (!page) {
        m_plots.show();
        if (m_row && m_row->count() > 0)
            m_row->setCollapsible(0, m_mapCollapsible);
        // Once the dock's room is the central area's again: in a row still narrow the plots
        // would be squeezed shut.
        QTimer::singleShot(0, this, [this, sizes = std::exchange(m_rowBefore, {})]() mutable {
            if (m_page || !m_row || sizes.isEmpty())
                return;
            // Squeezed shut when the dock arrived, the plots get what the others leave.
            const int plots = static_cast<int>(m_row->indexOf(&m_plots));
            const int least = m_plots.minimumSizeHint().width();
            if (plots >= 0 && plots < sizes.size() && sizes[plots] < least) {
                int others = 0;
                for (int i = 0; i < sizes.size(); ++i)
                    others += i == plots ? 0 : sizes[i];
                sizes[plots] = std::max(least, m_row->width() - others);
            }
            m_row->setSizes(sizes);
        });
        return;
    }
    if (m_rowBefore.isEmpty() && m_row)
        m_rowBefore = m_row->sizes();
    m_plots.hide();
    // While the page is there the map may be squeezed to its least width, never folded: the
    // window shrinking back within its screen folded it first (the splitter's first widget).
    if (m_row && m_row->count() > 0) {
        m_mapCollapsible = m_row->isCollapsible(0);
        m_row->setCollapsible(0, false);
    }
    // Once the central area has taken in that the plots are gone (its least width shrinks).
    QTimer::singleShot(0, this, [this] {
        if (!m_page)
            return;
        // The dock arrived before the plots went, so the window may have grown past its screen
        // to hold both: it comes back within it (or to the width it had, where that was already
        // wider) first, its least width taken again without the plots, and the page's room is
        // reckoned in the window that stays.
        const QScreen* screen = m_window.screen();
        if (screen && !m_window.isFullScreen() && !m_window.isMaximized()) {
            // The main window's layout keeps the central area's least width from before the
            // plots went until told: from the row up.
            for (QWidget* w = m_row; w && w != &m_window; w = w->parentWidget()) {
                w->updateGeometry();
                if (w->layout())
                    w->layout()->invalidate();
            }
            m_window.layout()->invalidate();
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            m_window.layout()->activate();
            const int frame = m_window.frameGeometry().width() - m_window.width();
            const int most = screen->availableGeometry().width() - frame;
            if (m_window.width() > most && m_window.width() > m_widthBefore)
                m_window.resize(
                    std::max({ most, m_widthBefore, m_window.minimumSizeHint().width() }), m_window.height());
        }
        QTimer::singleShot(0, this, &ProgramsDock::sharePage);
    });
}

void ProgramsDock::sharePage()
{
    if (!m_page)
        return;
    // The room the central area and the dock share. What else the row shows (the lesson panel)
    // gives way to its least width; the map keeps three eighths of what is left (never less
    // than its boxes need), the page takes the rest, in the plots' place. (Beside a lesson at
    // 1280, the lesson keeping its width left the page its least: 239 pixels.)
    const int room = m_window.centralWidget()->width() + width();
    int others = 0;
    if (m_row)
        for (int i = 1; i < m_row->count(); ++i)
            if (m_row->widget(i) != &m_plots && !m_row->widget(i)->isHidden())
                others += leastWidth(*m_row->widget(i)) + m_row->handleWidth();
    QWidget* map = m_row ? m_row->widget(0) : nullptr;
    constexpr int kMargins = 16; // the central area's and the dock's frames
    const int left = room - others - kMargins;
    const int mapWidth = map ? std::max(leastWidth(*map), left * 3 / 8) : 0;
    m_window.resizeDocks({ this }, { std::max(leastWidth(*this), left - mapWidth) }, Qt::Horizontal);
    if (!m_row || m_row->count() <= 2)
        return;
    // The map keeps its share of what the central area has left; the lesson beside it takes the
    // rest (left to the splitter, the map was the one folded to nothing).
    QList<int> sizes = m_row->sizes();
    int total = 0;
    for (int size : sizes)
        total += size;
    int othersLeast = 0;
    for (int i = 1; i < m_row->count(); ++i)
        if (m_row->widget(i) != &m_plots && !m_row->widget(i)->isHidden())
            othersLeast += leastWidth(*m_row->widget(i));
    int rest = total - std::max(0, std::min(mapWidth, total - othersLeast));
    sizes[0] = total - rest;
    for (int i = 1; i < m_row->count(); ++i) {
        const bool takes = m_row->widget(i) != &m_plots && !m_row->widget(i)->isHidden();
        sizes[i] = takes ? std::exchange(rest, 0) : 0;
    }
    m_row->setSizes(sizes);
}

} // namespace ctxscope::gui
