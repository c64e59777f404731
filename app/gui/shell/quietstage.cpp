// SPDX-License-Identifier: MIT
#include "quietstage.h"

#include "liveplot.h"
#include "lookcontroller.h"

#include <QAction>
#include <QMenu>
#include <QSettings>
#include <QSignalBlocker>

namespace ctxscope::gui {

QuietStage::QuietStage(LivePlot& plot, LookController& look)
    : QObject(&look)
    , m_plot(plot)
    , m_look(look)
{
    connect(&m_look, &LookController::presentationChanged, this, &QuietStage::apply);
    apply();
}

QString QuietStage::key(bool presenting)
{
    return presenting ? QStringLiteral("view/quietStagePresenting") : QStringLiteral("view/quietStage");
}

bool QuietStage::isOn() const
{
    const bool presenting = m_look.isPresenting();
    return QSettings().value(key(presenting), presenting).toBool();
}

void QuietStage::createAction(QMenu* view)
{
    m_action = view->addAction(tr("&Quiet stage (draw between repetitions)"));
    m_action->setCheckable(true);
    m_action->setToolTip(tr("While a repetition measures, draw nothing: the live plot shows each repetition once it "
                            "has ended, so the window takes no CPU time from the run. On by default in "
                            "presentation mode."));
    connect(m_action, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue(key(m_look.isPresenting()), on);
        apply();
    });
    apply();
}

void QuietStage::apply()
{
    const bool on = isOn();
    m_plot.setQuietStage(on);
    if (m_action) {
        const QSignalBlocker quiet(m_action);
        m_action->setChecked(on);
    }
}

} // namespace ctxscope::gui
