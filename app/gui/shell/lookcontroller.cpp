// SPDX-License-Identifier: MIT
#include "lookcontroller.h"

#include "apppalette.h"
#include "topologymapwidget.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QScreen>
#include <QSignalBlocker>
#include <QStyle>
#include <QTableView>

namespace ctxscope::gui {

LookController::LookController(QMainWindow& window, TopologyMapWidget& map, QTableView& table)
    : QObject(&window)
    , m_window(window)
    , m_map(map)
    , m_table(table)
{
}

void LookController::createActions(QMenu* view)
{
    m_presentationAction = view->addAction(tr("&Presentation mode"));
    m_presentationAction->setShortcut(QKeySequence(Qt::Key_F11));
    m_presentationAction->setCheckable(true);
    m_presentationAction->setToolTip(
        tr("Full screen, high contrast and large type for a projector (F11 again to leave)"));
    connect(m_presentationAction, &QAction::toggled, this, &LookController::setPresentationMode);
    m_dark = m_window.palette().color(QPalette::Window).lightness() < 128;
    m_darkAction = view->addAction(tr("&Dark palette"));
    m_darkAction->setCheckable(true);
    m_darkAction->setChecked(m_dark);
    connect(m_darkAction, &QAction::toggled, this, &LookController::setDarkPalette);
}

void LookController::setDarkPalette(bool dark)
{
    m_dark = dark;
    const QSignalBlocker quiet(m_darkAction);
    m_darkAction->setChecked(dark);
    applyPalette();
}

void LookController::applyPalette()
{
    // Fusion draws every widget from the palette; native styles may ignore parts of it. The
    // plots, the map and the lesson panel restyle on the PaletteChange that follows.
    QApplication::setStyle(QStringLiteral("Fusion"));
    QApplication::setPalette(m_presenting ? highContrastPalette(m_dark)
            : m_dark                      ? darkPalette()
                                          : QApplication::style()->standardPalette());
}

void LookController::setPresentationMode(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    const QSignalBlocker quiet(m_presentationAction);
    m_presentationAction->setChecked(on);
    constexpr double kLarger = 1.3;
    m_map.setTextScale(on ? kLarger : 1.0);
    QFont font = m_fontBefore;
    if (on) {
        m_fontBefore = QApplication::font();
        m_styleBefore = QApplication::style()->name();
        m_wasMaximized = m_window.isMaximized();
        font = scaledFont(m_fontBefore, kLarger);
        m_window.showFullScreen();
        // Without a window manager (a virtual display, a kiosk) full screen keeps the window's
        // size: take the screen's by hand, as a window manager would.
        if (const QScreen* screen = m_window.screen())
            m_window.setGeometry(screen->geometry());
    } else if (m_wasMaximized) {
        m_window.showMaximized();
    } else {
        m_window.showNormal();
    }
    // The controls give their room to the map, the plots and the lesson: what the room looks at.
    if (auto* dock = m_window.findChild<QDockWidget*>(QStringLiteral("runDock")))
        dock->setVisible(!on);
    m_table.setVisible(!on);
    QApplication::setFont(font);
    // Leaving gives back the style and palette as they were (the system's, or one chosen in
    // View) unless Dark palette was switched meanwhile. (The lesson row refits itself on the
    // splitter's Resize, see LessonController::eventFilter.)
    if (on) {
        m_paletteBefore = QApplication::palette();
        m_darkBefore = m_dark;
        applyPalette();
    } else if (m_dark == m_darkBefore) {
        QApplication::setStyle(m_styleBefore);
        QApplication::setPalette(m_paletteBefore);
    } else {
        applyPalette();
    }
    emit presentationChanged(on);
}

} // namespace ctxscope::gui
