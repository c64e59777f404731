// SPDX-License-Identifier: MIT
#pragma once

#include <QDockWidget>
#include <QList>

class QMainWindow;
class QSplitter;

namespace ctxscope::gui {

// The Programs dock (View → Programs). Docked, on either side, it is a page in the plots'
// place: the plots hide and the dock takes their width, so the map stays beside it with room
// to be read and clicked, and the watch's thread table and plot get the room of a view (docked
// beside the plots, a 1280x800 window gave it 460 pixels: 2 thread rows and a clipped plot).
// Floated or closed, the plots come back as they were. None of this touches the watch: the
// panel goes on watching whatever the dock does (ProgramsPanel).
class ProgramsDock : public QDockWidget {
    Q_OBJECT
public:
    // `plots` sits in a splitter row after the map, which keeps its place.
    ProgramsDock(QMainWindow& window, QWidget* panel, QWidget& plots);

    bool isPage() const { return m_page; } // docked and shown: in the plots' place

protected:
    bool eventFilter(QObject* watched, QEvent* event) override; // the window's width before the page

private:
    void fitSoon(); // once the window has laid the dock out
    void fit();
    void sharePage(); // the page's width, the map's and the lesson's, once the window fits

    QMainWindow& m_window;
    QWidget& m_plots;
    QSplitter* m_row = nullptr;
    QList<int> m_rowBefore; // the row's widths before the page took the plots' place
    bool m_page = false;
    bool m_mapCollapsible = true; // the row's map before the page made it stay
    int m_widthBefore = 0; // the window's, the last time the dock was hidden or floating
    bool m_pending = false;
};

} // namespace ctxscope::gui
