// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

class QAction;
class QMenu;

namespace ctxscope::gui {

class LivePlot;
class LookController;

// View → Quiet stage: while a repetition measures, the app draws nothing (the live plot draws
// each repetition once it has ended, the progress shows only which repetition runs), so the
// window takes next to no CPU from the run it shows. One setting for the desk and one for
// presentation mode, kept in QSettings: off at the desk, on in presentation mode until changed.
class QuietStage : public QObject {
    Q_OBJECT
public:
    QuietStage(LivePlot& plot, LookController& look);

    void createAction(QMenu* view);
    bool isOn() const;
    QAction* action() const { return m_action; }

private:
    void apply(); // the setting of the current mode, onto the plot and the action
    static QString key(bool presenting);

    LivePlot& m_plot;
    LookController& m_look;
    QAction* m_action = nullptr;
};

} // namespace ctxscope::gui
