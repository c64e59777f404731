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
#include <QMenu>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTimer>

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
        m_fontBefore = font = QApplication::font();
        m_wasMaximized = isMaximized();
        if (font.pointSizeF() > 0)
            font.setPointSizeF(font.pointSizeF() * kLarger);
        else // a font sized in pixels
            font.setPixelSize(qRound(font.pixelSize() * kLarger));
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
    // Leaving gives back the palette as it was (the system's, or one chosen in View) unless
    // Dark palette was switched meanwhile.
    if (on) {
        m_paletteBefore = QApplication::palette();
        m_darkBefore = m_dark;
        applyPalette();
    } else if (m_dark == m_darkBefore) {
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
    // The splitter lays out a child it is shown only after this returns: size it then. About
    // 30% of the row for the explanation; the plots keep at least kPlots pixels, and where the
    // map would leave them less it folds away (its splitter handle brings it back).
    QTimer::singleShot(0, this, [this] {
        constexpr int kPlots = 450;
        const int total = m_topSplitter->width();
        const int lesson = std::max(m_lessonPanel->minimumWidth(), total * 3 / 10);
        const int mapRoom = m_sizesBeforeLesson.value(0);
        const int mapMin = m_tabs->minimumSizeHint().width();
        int map = std::min(mapRoom, total / 4);
        if (total - std::max(map, mapMin) - lesson < kPlots)
            map = total - mapMin - lesson >= kPlots ? mapMin : 0;
        m_topSplitter->setSizes({ map, std::max(0, total - map - lesson), lesson });
    });
}

} // namespace ctxscope::gui
