// SPDX-License-Identifier: MIT
#include "programsdock.h"

#include <QMainWindow>
#include <QScreen>
#include <QSplitter>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace ctxscope::gui {

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
    connect(this, &QDockWidget::visibilityChanged, this, changed);
    connect(this, &QDockWidget::topLevelChanged, this, changed);
    connect(this, &QDockWidget::dockLocationChanged, this, changed);
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
    // The room the central area and the dock share: the map keeps three eighths of it (never
    // less than its boxes need, at 1280x800 about 350 pixels), the page takes the rest with
    // the plots' place; whatever else the row shows (the lesson panel) keeps its width.
    const int room = m_window.centralWidget()->width() + width();
    int kept = 0;
    if (m_row)
        for (int i = 1; i < m_row->count(); ++i)
            if (m_row->widget(i) != &m_plots && !m_row->widget(i)->isHidden())
                kept += m_row->widget(i)->width() + m_row->handleWidth();
    QWidget* map = m_row ? m_row->widget(0) : nullptr;
    const int mapWidth = map ? std::max(map->minimumSizeHint().width(), room * 3 / 8) : 0;
    m_plots.hide();
    constexpr int kMargins = 16; // the central area's and the dock's frames
    const int pageWidth = std::max(minimumSizeHint().width(), room - mapWidth - kept - kMargins);
    // Once the central area has taken in that the plots are gone (its least width shrinks).
    QTimer::singleShot(0, this, [this, pageWidth, mapWidth, widthBefore = m_window.width()] {
        if (!m_page)
            return;
        m_window.resizeDocks({ this }, { pageWidth }, Qt::Horizontal);
        // The map keeps its share of what the central area has left; the lesson beside it
        // takes the rest (left to the splitter, the map was the one folded to nothing).
        if (m_row && m_row->count() > 2) {
            QList<int> sizes = m_row->sizes();
            int total = 0;
            for (int size : sizes)
                total += size;
            int others = 0;
            for (int i = 1; i < m_row->count(); ++i)
                if (m_row->widget(i) != &m_plots && !m_row->widget(i)->isHidden())
                    others += std::max(m_row->widget(i)->minimumWidth(), m_row->widget(i)->minimumSizeHint().width());
            const int mapKept = std::max(0, std::min(mapWidth, total - others));
            int rest = total - mapKept;
            sizes[0] = mapKept;
            for (int i = 1; i < m_row->count(); ++i) {
                const bool takes = m_row->widget(i) != &m_plots && !m_row->widget(i)->isHidden();
                sizes[i] = takes ? std::exchange(rest, 0) : 0;
            }
            m_row->setSizes(sizes);
        }
        // A window the dock's arrival widened past its screen comes back within it (or to the
        // width it had, where that was already wider than the screen).
        const QScreen* screen = m_window.screen();
        if (screen && !m_window.isFullScreen() && !m_window.isMaximized()) {
            const int frame = m_window.frameGeometry().width() - m_window.width();
            const int most = screen->availableGeometry().width() - frame;
            if (m_window.width() > most && m_window.width() > widthBefore)
                m_window.resize(std::max({ most, widthBefore, m_window.minimumSizeHint().width() }), m_window.height());
        }
    });
}

} // namespace ctxscope::gui
