// SPDX-License-Identifier: MIT
#pragma once

#include "machinecards.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTabWidget;
class QTableWidget;

namespace ctxscope::gui {

class ComparePlot;
class MachineWsPlot;

// File → Compare machines…: the session's machine cards side by side, as `ctxscope-cli
// compare` sets them (the engine's compareMachines: the same matching, ratios, intervals and
// verdicts). The bars (ComparePlot: one series per machine, a group per benchmark and relation
// class, the 95% interval of each ratio to the baseline), the table of verdicts (matters,
// the same, unclear), the survey figures that are not ratios (the knee, the spin line, the
// traced segments) and the context differences that can explain a difference. "With the
// articles' figures" adds the built-in reference cards (compare --with-articles).
class MachineCompareView : public QWidget {
    Q_OBJECT
public:
    explicit MachineCompareView(QWidget* parent = nullptr);

    void setCards(std::vector<MachineCardEntry> cards);
    // What a survey under way is doing ("" when none runs): shown above the plot.
    void setProgress(const QString& text);
    // The comparison drawn; null with fewer than two cards.
    const MachineComparison* comparison() const { return m_comparison.get(); }

    ComparePlot* plot() const { return m_plot; }
    // The survey's working-set points as curves, one per machine, with each knee: a tab beside
    // the bars, enabled when a card has them.
    MachineWsPlot* wsPlot() const { return m_wsPlot; }
    QTabWidget* plots() const { return m_plots; }
    // One row per row of the comparison: benchmark, class, each machine's median and, for each
    // machine after the baseline, its ratio with the 95% interval and its verdict.
    QTableWidget* verdicts() const { return m_verdicts; }
    // One row per survey figure of version 2 cards (the working-set knee, the spin line's node
    // and first toucher, the traced segments per class), one column per machine: a tab beside
    // the verdicts, enabled when a card has figures.
    QTableWidget* figures() const { return m_figures; }
    QTabWidget* tables() const { return m_tables; }
    // One row per context fact that differs: the possible causes.
    QTableWidget* causes() const { return m_causes; }
    QCheckBox* articlesCheck() const { return m_articles; }
    QComboBox* baselineBox() const { return m_baseline; }
    QPushButton* addButton() const { return m_add; }
    // The verdict column of machine `machine` (none for the baseline): -1 when it has none.
    int verdictColumn(std::size_t machine) const;

signals:
    void addCardsRequested();

private:
    void refresh();
    void fillVerdicts();
    void fillCauses();
    void fillFigures();

    std::vector<MachineCardEntry> m_cards;
    std::shared_ptr<const MachineComparison> m_comparison;
    ComparePlot* m_plot = nullptr;
    MachineWsPlot* m_wsPlot = nullptr;
    QTabWidget* m_plots = nullptr;
    QWidget* m_causesBox = nullptr;
    QTableWidget* m_verdicts = nullptr;
    QTableWidget* m_causes = nullptr;
    QTableWidget* m_figures = nullptr;
    QTabWidget* m_tables = nullptr;
    QCheckBox* m_articles = nullptr;
    QComboBox* m_baseline = nullptr;
    QPushButton* m_add = nullptr;
    QLabel* m_hint = nullptr; // why nothing is compared, the notes
    QLabel* m_progress = nullptr;
};

} // namespace ctxscope::gui
