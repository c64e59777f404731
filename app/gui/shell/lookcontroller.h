// SPDX-License-Identifier: MIT
#pragma once

#include <QFont>
#include <QObject>
#include <QPalette>
#include <QString>

class QAction;
class QMainWindow;
class QMenu;
class QTableView;

namespace ctxscope::gui {

class TopologyMapWidget;

// How the app looks: light, dark and high-contrast palettes and presentation mode (F11:
// full screen, the high-contrast palette, fonts x1.3 on plots, map and lesson, the run panel
// and results table hidden; everything comes back as it was when it is switched off).
class LookController : public QObject {
    Q_OBJECT
public:
    LookController(QMainWindow& window, TopologyMapWidget& map, QTableView& table);

    void createActions(QMenu* view); // Presentation mode and Dark palette
    void setPresentationMode(bool on);
    bool isPresenting() const { return m_presenting; }
    // Light or dark colours for the whole app, plots included (in presentation mode, the
    // high-contrast palette of that brightness).
    void setDarkPalette(bool dark);

signals:
    // After the window, fonts and palette changed: the lesson turns into its verdict card, the
    // status bar drops what only a developer reads.
    void presentationChanged(bool on);

private:
    void applyPalette();

    QMainWindow& m_window;
    TopologyMapWidget& m_map;
    QTableView& m_table;
    QAction* m_presentationAction = nullptr;
    QAction* m_darkAction = nullptr;
    bool m_presenting = false;
    bool m_dark = false;
    // What presentation mode gives back when it ends.
    QFont m_fontBefore;
    bool m_wasMaximized = false;
    bool m_darkBefore = false;
    QPalette m_paletteBefore;
    QString m_styleBefore;
};

} // namespace ctxscope::gui
