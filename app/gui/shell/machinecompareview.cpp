// SPDX-License-Identifier: MIT
#include "machinecompareview.h"

#include "compareplot.h"
#include "machinewsplot.h"

#include "ctxscope/units.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace ctxscope::gui {

namespace {

constexpr int kMaxFigureColumnWidth = 280; // px: two machines and the figures' names fit 1280

QTableWidgetItem* cellItem(const QString& text)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return item;
}

QTableWidget* readOnlyTable(QWidget* parent)
{
    auto* table = new QTableWidget(parent);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->setVisible(false);
    table->setWordWrap(false);
    table->setAlternatingRowColors(true);
    return table;
}

// Empties a table and gives it these columns and as many rows.
void reshape(QTableWidget& table, const QStringList& header, std::size_t rows)
{
    table.clear();
    table.setColumnCount(static_cast<int>(header.size()));
    table.setHorizontalHeaderLabels(header);
    table.setRowCount(static_cast<int>(rows));
}

// A row of a per-machine table: its leading cells, then one value per machine.
struct PerMachineRow {
    QStringList leading;
    const std::vector<std::string>* values;
};

// The causes' and the survey figures' tables: `leading` columns, then one per machine; a long
// value (a CPU model, an idle-state list, a spin line's placement) is whole in its tooltip.
// Without a comparison, empty.
void fillPerMachine(QTableWidget& table, QStringList header, const MachineComparison* comparison,
    const std::vector<PerMachineRow>& rows)
{
    if (!comparison) {
        reshape(table, {}, 0);
        return;
    }
    const auto leading = static_cast<int>(header.size());
    for (const std::string& label : comparison->labels)
        header << QString::fromStdString(label);
    reshape(table, header, rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const int y = static_cast<int>(r);
        for (int x = 0; x < rows[r].leading.size(); ++x)
            table.setItem(y, x, cellItem(rows[r].leading[x]));
        for (std::size_t m = 0; m < rows[r].values->size(); ++m) {
            QTableWidgetItem* value = cellItem(QString::fromStdString((*rows[r].values)[m]));
            value->setToolTip(value->text());
            table.setItem(y, leading + static_cast<int>(m), value);
        }
    }
    table.resizeColumnsToContents();
}

} // namespace

MachineCompareView::MachineCompareView(QWidget* parent)
    : QWidget(parent)
    , m_plot(new ComparePlot(this))
    , m_wsPlot(new MachineWsPlot(this))
    , m_plots(new QTabWidget(this))
    , m_verdicts(readOnlyTable(this))
    , m_causes(readOnlyTable(this))
    , m_figures(readOnlyTable(this))
    , m_tables(new QTabWidget(this))
    , m_articles(new QCheckBox(tr("With the articles' figures"), this))
    , m_baseline(new QComboBox(this))
    , m_add(new QPushButton(tr("Add cards…"), this))
    , m_hint(new QLabel(this))
    , m_progress(new QLabel(this))
{
    m_verdicts->setObjectName(QStringLiteral("machineVerdicts"));
    m_causes->setObjectName(QStringLiteral("machineCauses"));
    m_figures->setObjectName(QStringLiteral("machineFigures"));
    m_tables->setDocumentMode(true);
    m_tables->addTab(m_verdicts, tr("Ratios and verdicts"));
    m_tables->addTab(m_figures, tr("Survey figures"));
    m_tables->setTabToolTip(1,
        tr("Survey cards of version 2 or later: the working-set knee, where each spin line lives and who touched "
           "it first, and the medians of one traced futex hand-over per class, cut into segments"));
    m_articles->setToolTip(tr("Adds the published figures of the articles ctxscope grew from as read-only cards: "
                              "tsuna's 2010-2013 Xeons and the 2022 table (compare --with-articles)"));
    m_add->setToolTip(tr("Machine cards (ctxscope-cli survey --json) or results files of run, sweep, matrix and "
                         "lesson"));
    m_baseline->setToolTip(tr("The machine the others are divided by"));
    m_baseline->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_hint->setWordWrap(true);
    m_hint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setVisible(false);
    m_plot->setEmptyHint(tr("Two machine cards or more are compared here: Add cards… (ctxscope-cli survey --json, or "
                            "results files),\nthe Machine toolbar's Survey, or With the articles' figures."));

    auto* top = new QHBoxLayout;
    top->addWidget(m_add);
    top->addWidget(m_articles);
    top->addStretch(1);
    top->addWidget(new QLabel(tr("Baseline:"), this));
    top->addWidget(m_baseline);

    m_causesBox = new QWidget(this);
    auto* causesLayout = new QVBoxLayout(m_causesBox);
    causesLayout->setContentsMargins(0, 0, 0, 0);
    auto* causesTitle = new QLabel(tr("<b>Possible causes</b>: the context facts that differ"), m_causesBox);
    causesLayout->addWidget(causesTitle);
    causesLayout->addWidget(m_causes, 1);
    causesLayout->addWidget(m_hint);

    m_plots->setDocumentMode(true);
    m_plots->addTab(m_plot, tr("Per relation class"));
    m_plots->addTab(m_wsPlot, tr("Working set"));
    m_plots->setTabToolTip(1,
        tr("The survey's futex round trip on one PU against the working set each task touches, one curve per "
           "machine, with each machine's knee"));

    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(m_tables);
    bottom->addWidget(m_causesBox);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_plots);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // The plot's share whatever the tables' size hints ask: its log axis and its label need the
    // height (at 1280x800 the tables' hints left it too short to write "median time per op").
    m_plot->setMinimumHeight(320);
    m_wsPlot->setMinimumHeight(320);
    split->setSizes({ 600, 400 });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_progress);
    layout->addWidget(split, 1);

    connect(m_add, &QPushButton::clicked, this, &MachineCompareView::addCardsRequested);
    connect(m_articles, &QCheckBox::toggled, this, &MachineCompareView::refresh);
    connect(m_baseline, &QComboBox::currentIndexChanged, this, &MachineCompareView::refresh);
    refresh();
}

void MachineCompareView::setCards(std::vector<MachineCardEntry> cards)
{
    m_cards = std::move(cards);
    refresh();
}

void MachineCompareView::setProgress(const QString& text)
{
    m_progress->setText(text);
    m_progress->setVisible(!text.isEmpty());
}

int MachineCompareView::verdictColumn(std::size_t machine) const
{
    if (!m_comparison || machine >= m_comparison->labels.size() || machine == m_comparison->baseline)
        return -1;
    // benchmark, class, then per machine its median, and after the baseline's its ratio and verdict.
    int column = 2;
    for (std::size_t m = 0; m < machine; ++m)
        column += m == m_comparison->baseline ? 1 : 3;
    return column + 2;
}

void MachineCompareView::refresh()
{
    const int baseline = std::max(0, m_baseline->currentIndex());
    auto compared = compareCards(m_cards, m_articles->isChecked(), static_cast<std::size_t>(baseline));
    if (!compared && baseline > 0) // the baseline chosen is gone (the articles unchecked)
        compared = compareCards(m_cards, m_articles->isChecked(), 0);
    m_comparison = compared ? std::make_shared<const MachineComparison>(std::move(*compared)) : nullptr;
    {
        const QSignalBlocker quiet(m_baseline);
        m_baseline->clear();
        if (m_comparison) {
            for (const std::string& label : m_comparison->labels)
                m_baseline->addItem(QString::fromStdString(label));
            m_baseline->setCurrentIndex(static_cast<int>(m_comparison->baseline));
        }
        m_baseline->setEnabled(m_comparison != nullptr);
    }
    m_plot->setComparison(m_comparison);
    std::vector<std::optional<std::uint64_t>> knees;
    if (m_comparison)
        for (std::size_t m = 0; m < m_comparison->labels.size(); ++m)
            knees.push_back(m < m_cards.size() ? m_cards[m].card->kneeBytes : std::nullopt);
    m_wsPlot->setComparison(m_comparison.get(), knees);
    m_plots->setTabEnabled(1, m_wsPlot->hasCurves());
    if (!m_wsPlot->hasCurves())
        m_plots->setCurrentIndex(0);
    fillVerdicts();
    fillCauses();
    fillFigures();
    QStringList notes;
    if (!m_comparison)
        notes << (m_cards.empty()
                ? tr("No machine cards yet: add cards (ctxscope-cli survey --json, or results files), or survey this "
                     "machine from the Machine toolbar.")
                : QString::fromStdString(compared.error().message));
    else {
        for (const std::string& cause : m_comparison->causes)
            notes << QString::fromStdString(cause);
        for (const std::string& note : m_comparison->notes)
            notes << QString::fromStdString(note);
    }
    m_hint->setText(notes.join(QLatin1Char('\n')));
    m_hint->setVisible(!notes.isEmpty());
    // The same context everywhere and nothing to note: the tables take the width.
    m_causesBox->setVisible(m_causes->rowCount() > 0 || !notes.isEmpty());
}

void MachineCompareView::fillVerdicts()
{
    if (!m_comparison) {
        reshape(*m_verdicts, {}, 0);
        return;
    }
    const MachineComparison& c = *m_comparison;
    QStringList header { tr("benchmark"), tr("class") };
    for (std::size_t m = 0; m < c.labels.size(); ++m) {
        header << QString::fromStdString(c.labels[m]);
        if (m != c.baseline)
            header << tr("÷ %1 (95%)").arg(QString::fromStdString(c.labels[c.baseline])) << tr("verdict");
    }
    reshape(*m_verdicts, header, c.rows.size());
    QFont bold = m_verdicts->font();
    bold.setBold(true);
    for (std::size_t r = 0; r < c.rows.size(); ++r) {
        const MachineRow& row = c.rows[r];
        const int y = static_cast<int>(r);
        int x = 0;
        m_verdicts->setItem(y, x++, cellItem(QString::fromStdString(machineRowName(row))));
        m_verdicts->setItem(y, x++, cellItem(QString::fromStdString(relationText(row.relation, row.kinds))));
        for (std::size_t m = 0; m < row.cells.size(); ++m) {
            const MachineCell& cell = row.cells[m];
            m_verdicts->setItem(y, x++,
                cellItem(cell.medianNs ? QString::fromStdString(formatDuration(*cell.medianNs)) : tr("absent")));
            if (m == c.baseline)
                continue;
            m_verdicts->setItem(y, x++, cellItem(QString::fromStdString(machineRatioText(cell))));
            QTableWidgetItem* verdict
                = cellItem(cell.ratio ? QString::fromStdString(std::string(toString(cell.verdict))) : QString());
            verdict->setToolTip(QString::fromStdString(machineVerdictWhy(cell)));
            if (cell.ratio && cell.verdict == MachineVerdict::Matters)
                verdict->setFont(bold);
            m_verdicts->setItem(y, x++, verdict);
        }
    }
    m_verdicts->resizeColumnsToContents();
}

void MachineCompareView::fillCauses()
{
    std::vector<PerMachineRow> rows;
    if (m_comparison)
        for (const ContextDifference& diff : m_comparison->differences)
            rows.push_back({ { QString::fromStdString(diff.what) }, &diff.values });
    fillPerMachine(*m_causes, { tr("what") }, m_comparison.get(), rows);
}

void MachineCompareView::fillFigures()
{
    const bool any = m_comparison && !m_comparison->figures.empty();
    m_tables->setTabEnabled(1, any);
    m_tables->setTabText(1, any ? tr("Survey figures (%1)").arg(m_comparison->figures.size()) : tr("Survey figures"));
    if (!any) {
        reshape(*m_figures, {}, 0);
        m_tables->setCurrentIndex(0);
        return;
    }
    // A traced segment's value carries its verdict against the baseline, as the bars' rows do,
    // and its tooltip says why.
    std::vector<std::vector<std::string>> shown;
    shown.reserve(m_comparison->figures.size());
    for (const MachineFigure& f : m_comparison->figures) {
        shown.emplace_back();
        for (std::size_t m = 0; m < f.values.size(); ++m)
            shown.back().push_back(figureValueText(f, m));
    }
    std::vector<PerMachineRow> rows;
    for (std::size_t i = 0; i < m_comparison->figures.size(); ++i) {
        const MachineFigure& f = m_comparison->figures[i];
        rows.push_back(
            { { QString::fromStdString(f.what),
                  f.relation ? QString::fromStdString(std::string(toString(*f.relation))) : QStringLiteral("-") },
                &shown[i] });
    }
    fillPerMachine(*m_figures, { tr("survey figure"), tr("class") }, m_comparison.get(), rows);
    for (std::size_t i = 0; i < m_comparison->figures.size(); ++i) {
        const MachineFigure& f = m_comparison->figures[i];
        for (std::size_t m = 0; m < f.whys.size(); ++m)
            if (QTableWidgetItem* item = m_figures->item(static_cast<int>(i), 2 + static_cast<int>(m));
                item && !f.whys[m].empty())
                item->setToolTip(item->text() + QLatin1Char('\n') + QString::fromStdString(f.whys[m]));
    }
    // A spin line's sentence would push the next machine out of view: it elides, whole in its tooltip.
    for (int column = 2; column < m_figures->columnCount(); ++column)
        m_figures->setColumnWidth(column, std::min(m_figures->columnWidth(column), kMaxFigureColumnWidth));
}

} // namespace ctxscope::gui
