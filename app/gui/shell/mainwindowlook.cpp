// SPDX-License-Identifier: MIT
// MainWindow: how it looks — light, dark and high-contrast palettes, presentation mode,
// the lesson panel and the View menu that switches them.
#include "mainwindow.h"

#include "apppalette.h"
#include "lessonpanel.h"
#include "plotsview.h"
#include "topologymappanel.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QEvent>
#include <QMenu>

#include <QSignalBlocker>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <algorithm>

namespace ctxscope::gui {

void MainWindow::createViewActions(QMenu* view)
{
    m_presentationAction = view->addAction(tr("&Presentation mode"));
    m_presentationAction->setShortcut(QKeySequence(Qt::Key_F11));
    m_presentationAction->setCheckable(true);
    m_presentationAction->setToolTip(
        tr("Full screen, high contrast and large type for a projector (F11 again to leave)"));
    connect(m_presentationAction, &QAction::toggled, this, &MainWindow::setPresentationMode);
    m_dark = palette().color(QPalette::Window).lightness() < 128;
    m_darkAction = view->addAction(tr("&Dark palette"));
    m_darkAction->setCheckable(true);
    m_darkAction->setChecked(m_dark);
    connect(m_darkAction, &QAction::toggled, this, &MainWindow::setDarkPalette);
    m_lessonPanelAction = view->addAction(tr("&Lesson panel"));
    m_lessonPanelAction->setCheckable(true);
    m_lessonPanelAction->setToolTip(tr("The lesson's experiments and conclusion beside the plots"));
    connect(m_lessonPanelAction, &QAction::toggled, this, &MainWindow::showLessonPanel);
    connect(m_lessonPanel, &LessonPanel::closeClicked, this, [this] { showLessonPanel(false); });
    view->addSeparator();
    for (const QString& name : PlotsView::viewNames())
        view->addAction(tr("Show %1").arg(name), this, [this, name] { m_plots->showView(name); });
}

void MainWindow::setDarkPalette(bool dark)
{
    m_dark = dark;
    const QSignalBlocker quiet(m_darkAction);
    m_darkAction->setChecked(dark);
    applyPalette();
}

void MainWindow::applyPalette()
{
    // Fusion draws every widget from the palette; native styles may ignore parts of it. The
    // plots, the map and the lesson panel restyle on the PaletteChange that follows.
    QApplication::setStyle(QStringLiteral("Fusion"));
    QApplication::setPalette(m_presenting ? highContrastPalette(m_dark)
            : m_dark                      ? darkPalette()
                                          : QApplication::style()->standardPalette());
}

void MainWindow::setPresentationMode(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    const QSignalBlocker quiet(m_presentationAction);
    m_presentationAction->setChecked(on);
    constexpr double kLarger = 1.3;
    m_mapPanel->map()->setTextScale(on ? kLarger : 1.0);
    QFont font = m_fontBefore;
    if (on) {
        m_fontBefore = QApplication::font();
        m_styleBefore = QApplication::style()->name();
        m_wasMaximized = isMaximized();
        font = scaledFont(m_fontBefore, kLarger);
        showFullScreen();
    } else if (m_wasMaximized) {
        showMaximized();
    } else {
        showNormal();
    }
    // The controls give their room to the map, the plots and the lesson: what the room looks at.
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("runDock")))
        dock->setVisible(!on);
    m_table->setVisible(!on);
    QApplication::setFont(font);
    // Leaving gives back the style and palette as they were (the system's, or one chosen in
    // View) unless Dark palette was switched meanwhile. (The lesson row refits itself on the
    // splitter's Resize, see eventFilter.)
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
}

void MainWindow::showLessonPanel(bool show)
{
    {
        const QSignalBlocker quiet(m_lessonPanelAction);
        m_lessonPanelAction->setChecked(show);
    }
    if (show == !m_lessonPanel->isHidden())
        return;
    if (!show) {
        m_lessonPanel->hide();
        if (!m_sizesBeforeLesson.isEmpty())
            m_topSplitter->setSizes(m_sizesBeforeLesson); // the map comes back as it was
        return;
    }
    m_sizesBeforeLesson = m_topSplitter->sizes();
    m_lessonPanel->show();
    // The splitter lays out a child it is shown only after this returns: size it then.
    QTimer::singleShot(0, this, &MainWindow::fitLessonRow);
}

void MainWindow::fitLessonRow()
{
    if (m_lessonPanel->isHidden())
        return;
    // The explanation gets about 30% of the row and the plots at least 45% (450 pixels at the
    // least): they are what the room reads. The map takes what is left, up to the width it had,
    // or folds away where that is less than it needs (its splitter handle brings it back).
    const int total = m_topSplitter->width();
    const int lesson = std::max(m_lessonPanel->minimumWidth(), total * 3 / 10);
    const int plots = std::max(450, total * 45 / 100);
    const int left = total - lesson - plots;
    const int mapMin = m_tabs->minimumSizeHint().width();
    const int map = left < mapMin ? 0 : std::min(left, std::max(mapMin, m_sizesBeforeLesson.value(0)));
    m_topSplitter->setSizes({ map, std::max(0, total - map - lesson), lesson });
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    // A new window width (full screen, a resize) while a lesson is open: fit the row again
    // once the splitter has laid out its children.
    if (watched == m_topSplitter && event->type() == QEvent::Resize && !m_lessonPanel->isHidden())
        QTimer::singleShot(0, this, &MainWindow::fitLessonRow);
    return QMainWindow::eventFilter(watched, event);
}

} // namespace ctxscope::gui
