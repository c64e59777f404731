// SPDX-License-Identifier: MIT
#pragma once

#include "topologymapwidget.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;

namespace ctxscope::gui {

class ElidedLine;
class MapScrollArea;

// The map with its toolbar (a relation-class chooser that highlights the class's representative
// pair and can make it the selection), under the toolbar a line with a caption of the labels
// hidden at this size and the zoom buttons, then the map (MapScrollArea) and a line naming the
// selection.
class TopologyMapPanel : public QWidget {
    Q_OBJECT
public:
    explicit TopologyMapPanel(QWidget* parent = nullptr);

    void setTopology(const Topology& topology);
    TopologyMapWidget* map() const { return m_map; }
    MapScrollArea* mapView() const { return m_view; }
    // The caption: text() as much as fits its width, the tooltip whole.
    QLabel* labelsNote() const;
    QComboBox* relationChooser() const { return m_relations; }
    QPushButton* usePairButton() const { return m_usePair; }
    // The placement in one line (ElidedLine): never wraps, so a click never moves the map.
    QLabel* summaryLabel() const;
    // On a hybrid machine, the legend of the kinds' shading ("P-core", "E-core") beside the
    // caption; hidden on a machine with one kind.
    QLabel* kindLegend() const { return m_legend; }

    // Runs off (a topology not this machine's): with nothing placed, the summary line says why
    // instead of asking for a click. Empty: runs on.
    void setRunsDisabled(const QString& why);

    // Selects a class in the chooser (highlighting its pair); false if the topology has none.
    bool chooseRelation(Relation relation);
    // Makes the highlighted pair the selection.
    void useHighlightedPair();

protected:
    void changeEvent(QEvent* event) override;

private:
    void applySummaryFont();
    void relationChosen(int index);
    void updateSummary();
    void updateLegend();

    TopologyMapWidget* m_map = nullptr;
    MapScrollArea* m_view = nullptr;
    ElidedLine* m_note = nullptr;
    QComboBox* m_relations = nullptr;
    QPushButton* m_usePair = nullptr;
    QPushButton* m_clear = nullptr;
    ElidedLine* m_summary = nullptr;
    QLabel* m_legend = nullptr;
    std::vector<PuPair> m_pairs; // the chooser's entries after its placeholder
    QString m_runsDisabled;
};

} // namespace ctxscope::gui
