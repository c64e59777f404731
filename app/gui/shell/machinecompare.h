// SPDX-License-Identifier: MIT
#pragma once

#include "ctxscope/expected.h"
#include "ctxscope/survey.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <optional>

class QAction;
class QMainWindow;
class QMenu;
class QToolBar;
class QWidget;

namespace ctxscope::gui {

class MachineCompareView;
class RunMenu;
class SessionStore;

// Machines side by side in the app: File → Compare machines… (machine cards or results files,
// as `ctxscope-cli compare` takes them, drawn in a window of their own: MachineCompareView),
// and the Machine toolbar's "Survey this machine" ("Survey this server" when runs go to a
// server over ssh), which runs the survey through the worker; its card joins the session
// store (StreamRouter), which owns every card, and so the comparison.
class MachineCompare : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QMainWindow* window;
        SessionStore* store;
        RunMenu* launcher;
    };
    explicit MachineCompare(const Parts& parts);

    void createActions(QMenu* file); // Compare machines…
    void createToolBarActions(QToolBar* machineBar); // Survey this machine / server

    // Reads the cards (all or none join the store) and shows the window.
    Status openCards(const QStringList& paths);
    void showWindow();
    // The window the comparison is drawn in (a top-level window of the main window's).
    QWidget* window() const { return m_window; }
    MachineCompareView* view() const { return m_view; }

    // What the toolbar's action does: the survey of the machine runs go to, within the budget.
    std::optional<quint64> survey();
    QAction* surveyAction() const { return m_survey; }
    void setSurveyBudget(double seconds) { m_budget = seconds; } // kSurveySeconds unless set
    double surveyBudget() const { return m_budget; }
    // The action's text (machine or server) and state, as the machine runs go to changes.
    void updateSurveyAction();

private:
    void chooseCards();
    void surveyProgress(quint64 id, const QString& stage, double fraction);
    void surveyEnded(quint64 id);

    Parts m_parts;
    QWidget* m_window = nullptr;
    MachineCompareView* m_view = nullptr;
    QAction* m_survey = nullptr;
    double m_budget = kSurveySeconds;
    std::optional<quint64> m_surveyId;
    QString m_surveyed; // the machine the survey under way measures
};

} // namespace ctxscope::gui
