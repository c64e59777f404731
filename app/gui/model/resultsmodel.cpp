// SPDX-License-Identifier: MIT
#include "resultsmodel.h"
#include "conditionpair.h"

#include "ctxscope/units.h"

#include <QStringList>

namespace ctxscope::gui {

namespace {

QString qs(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
QString duration(double ns) { return QString::fromStdString(formatDuration(ns)); }
QString perOp(double value) { return QString::number(value, 'f', 2); }

QString cpuList(const RunResult& r)
{
    if (r.placement.cpus.empty())
        return QObject::tr("unpinned");
    QStringList cpus;
    for (int cpu : r.placement.cpus)
        cpus << QString::number(cpu);
    return cpus.join(QLatin1Char(','));
}

// "38% other" with a warning sign when the run was disturbed, "quiet" below the naming
// threshold, "—" when /proc could not be read.
QString interferenceCell(const RunResult& r)
{
    if (!r.interference)
        return QStringLiteral("—");
    const Interference& i = *r.interference;
    const double other = i.maxOtherShare();
    const double steal = i.maxStealShare();
    const double window = i.maxControllerShare(); // this app's own, named apart from other tasks
    if (other <= kNameTasksShare && steal <= kNameTasksShare && window <= kNameTasksShare)
        return QObject::tr("quiet");
    const QString text = steal > std::max(other, window) ? QObject::tr("%1% steal").arg(100 * steal, 0, 'f', 0)
        : window > other                                 ? QObject::tr("%1% this window").arg(100 * window, 0, 'f', 0)
                                                         : QObject::tr("%1% other").arg(100 * other, 0, 'f', 0);
    return i.disturbed() ? QStringLiteral("⚠ ") + text : text;
}

// The run's interference in full: the line, each repetition, and the disturbed sentence.
QString interferenceTip(const RunResult& r)
{
    if (!r.interference)
        return QObject::tr("What else ran on the measured CPUs could not be read from /proc");
    const Interference& i = *r.interference;
    QStringList lines { QString::fromStdString(interferenceLine(i)).toHtmlEscaped() };
    for (const CpuInterference& c : i.cpus) {
        QStringList reps;
        for (double s : c.otherShareByRepetition)
            reps << QString::number(100 * s, 'f', 1) + QLatin1Char('%');
        lines << QObject::tr("P#%1: irq %2%, softirq %3%, %4 softirqs/s; other tasks by repetition: %5")
                     .arg(c.cpu)
                     .arg(100 * c.irqShare, 0, 'f', 1)
                     .arg(100 * c.softirqShare, 0, 'f', 1)
                     .arg(qRound(c.softirqsPerS))
                     .arg(reps.join(QStringLiteral(", ")));
    }
    if (const std::string d = disturbedWarning(i); !d.empty())
        lines << QStringLiteral("<b>") + QString::fromStdString(d).toHtmlEscaped() + QStringLiteral("</b>");
    lines << QObject::tr("Shares of each CPU's wall time over the %1 s of measured repetitions")
                 .arg(i.seconds, 0, 'f', 2);
    return QStringLiteral("<qt>") + lines.join(QStringLiteral("<br>"));
}

// The spread a person should look at: between repetitions when there are several.
double shownCv(const RunResult& r) { return r.repetitions >= 2 ? r.repetitionCv : r.stats.cv; }

} // namespace

ResultsModel::ResultsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ResultsModel::setResults(std::vector<ResultRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    std::erase_if(m_rows, [](const ResultRow& row) { return !row.result; });
    endResetModel();
}

void ResultsModel::addResult(ResultRow row)
{
    if (!row.result)
        return;
    const int at = static_cast<int>(m_rows.size());
    beginInsertRows({}, at, at);
    m_rows.push_back(std::move(row));
    endInsertRows();
}

int ResultsModel::rowOfRun(quint64 id) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return static_cast<int>(i);
    return -1;
}

int ResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ResultsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ResultsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ResultRow& row = m_rows[static_cast<std::size_t>(index.row())];
    if (index.column() == Machine) {
        const QString name = row.machine.isEmpty() ? tr("this machine") : row.machine;
        if (role == Qt::DisplayRole || role == SortRole)
            return name;
        if (role == Qt::ToolTipRole)
            return row.machine.isEmpty() ? tr("Measured on the session's own machine")
                                         : tr("Measured on %1").arg(row.machine);
        if (role == IdRole)
            return QVariant::fromValue(row.id);
        return {};
    }
    switch (role) {
    case Qt::DisplayRole:
        // A side of a condition's A/B says which: "futex · as is", "futex · keep-awake 1".
        if (const QString side = index.column() == Bench ? abSideName(row) : QString(); !side.isEmpty())
            return QString(display(*row.result, Bench).toString() + QStringLiteral(" · ") + side);
        return display(*row.result, index.column());
    case Qt::ToolTipRole:
        return toolTip(*row.result, index.column());
    case Qt::DecorationRole:
        return index.column() == Bench ? QVariant(row.color) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() >= Median && index.column() < Warnings ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                                                                     : QVariant(int(Qt::AlignLeft | Qt::AlignVCenter));
    case IdRole:
        return QVariant::fromValue(row.id);
    case SortRole:
        return sortValue(*row.result, index.column());
    default:
        return {};
    }
}

QVariant ResultsModel::display(const RunResult& r, int column) const
{
    switch (column) {
    case Bench:
        // A traced run followed: its figures are this row's untraced ones, the trace explains them.
        return r.trace ? tr("%1 · traced").arg(QString::fromStdString(r.bench)) : QString::fromStdString(r.bench);
    case Mode:
        return qs(toString(r.mode));
    case Cpus:
        return cpuList(r);
    case Relation:
        return qs(toString(r.placement.relation));
    case Median:
        return duration(r.stats.p50);
    case PerSwitch:
        if (!r.perSwitchNs || r.switchesPerOp <= 0)
            return tr("— (no switch)");
        return tr("%1 (÷%2)").arg(duration(*r.perSwitchNs)).arg(r.switchesPerOp, 0, 'g', 3);
    case Min:
        return duration(r.stats.min);
    case P99:
        return duration(r.stats.p99);
    case Cv:
        return QString(QString::number(100 * shownCv(r), 'f', shownCv(r) < 0.1 ? 2 : 1) + QLatin1Char('%'));
    case Voluntary:
        return perOp(r.observed.voluntaryPerOp);
    case Involuntary:
        return perOp(r.observed.involuntaryPerOp);
    case Migrations:
        return QString::number(r.observed.migrations);
    case Interference:
        return interferenceCell(r);
    case Warnings:
        if (r.warnings.empty())
            return tr("none");
        return QStringLiteral("⚠ %1 — %2").arg(r.warnings.size()).arg(QString::fromStdString(r.warnings.front()));
    default:
        return {};
    }
}

QVariant ResultsModel::sortValue(const RunResult& r, int column) const
{
    switch (column) {
    case Median:
        return r.stats.p50;
    case PerSwitch:
        return r.perSwitchNs.value_or(0);
    case Min:
        return r.stats.min;
    case P99:
        return r.stats.p99;
    case Cv:
        return shownCv(r);
    case Voluntary:
        return r.observed.voluntaryPerOp;
    case Involuntary:
        return r.observed.involuntaryPerOp;
    case Migrations:
        return QVariant::fromValue(r.observed.migrations);
    case Interference:
        return r.interference ? std::max(r.interference->maxOtherShare(), r.interference->maxStealShare()) : -1.0;
    case Warnings:
        return static_cast<int>(r.warnings.size());
    default:
        return display(r, column);
    }
}

QVariant ResultsModel::toolTip(const RunResult& r, int column) const
{
    switch (column) {
    case Bench:
        if (r.trace)
            return tr("One op: %1.\nTraced: a run of %2 ops followed with the scheduler's events recorded (%3 per op "
                      "against %4 untraced); the figures of this row are the untraced run's. The Timeline tab shows "
                      "the trace.")
                .arg(QString::fromStdString(r.op))
                .arg(r.trace->ops)
                .arg(duration(r.trace->nsPerOp), duration(r.trace->untracedNsPerOp));
        return tr("One op: %1").arg(QString::fromStdString(r.op));
    case Cpus:
        return r.observed.cpusSeen.empty()
            ? QVariant()
            : tr("The tasks were seen running on P#%1").arg(QString::fromStdString(formatCpuList(r.observed.cpusSeen)));
    case PerSwitch:
        return r.switchesPerOp > 0
            ? tr("The median op divided by the %1 context switches one op holds by construction").arg(r.switchesPerOp)
            : tr("One op of %1 holds no context switch").arg(QString::fromStdString(r.bench));
    case Median:
        return tr("Median time per op over %1 samples of %2 ops").arg(r.totalSamples).arg(r.opsPerSample);
    case Cv:
        return r.repetitions >= 2 ? tr("CV of the %1 repetition medians (all samples: %2%)")
                                        .arg(r.repetitions)
                                        .arg(100 * r.stats.cv, 0, 'f', 1)
                                  : tr("CV of the samples of the single repetition");
    case Voluntary:
    case Involuntary:
        return tr("Context switches per op the kernel counted (getrusage), voluntary / involuntary; "
                  "perf counted %1 per op")
            .arg(r.observed.perfSwitchesPerOp ? perOp(*r.observed.perfSwitchesPerOp)
                                              : QString::fromStdString(r.observed.perfStatus));
    case Migrations:
        return tr("Moves of a task to another CPU during the measured repetitions");
    case Interference:
        return interferenceTip(r);
    case Warnings: {
        QStringList lines;
        for (const std::string& w : r.warnings)
            lines << QStringLiteral("• ") + QString::fromStdString(w).toHtmlEscaped();
        return lines.isEmpty() ? QVariant() : QVariant(QStringLiteral("<qt>") + lines.join(QStringLiteral("<br>")));
    }
    default:
        return {};
    }
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    // Rows are numbered from 1 in the order they were measured or opened: the legends' "#3".
    if (orientation == Qt::Vertical)
        return role == Qt::DisplayRole && section >= 0 && section < rowCount() ? QVariant(section + 1) : QVariant();
    if (section < 0 || section >= ColumnCount)
        return {};
    static const char* const kTitles[] = { QT_TR_NOOP("Bench"), QT_TR_NOOP("Mode"), QT_TR_NOOP("CPUs"),
        QT_TR_NOOP("Relation"), QT_TR_NOOP("Median"), QT_TR_NOOP("Per switch"), QT_TR_NOOP("Min"), QT_TR_NOOP("p99"),
        QT_TR_NOOP("CV"), QT_TR_NOOP("Vol./op"), QT_TR_NOOP("Invol./op"), QT_TR_NOOP("Migr."),
        QT_TR_NOOP("Interference"), QT_TR_NOOP("Warnings"), QT_TR_NOOP("Machine") };
    if (role == Qt::DisplayRole)
        return tr(kTitles[section]);
    if (role == Qt::ToolTipRole && section == Cv)
        return tr("Coefficient of variation: of the repetition medians, or of the samples with one repetition");
    if (role == Qt::ToolTipRole && section == Interference)
        return tr("What else ran on the measured CPUs: the largest share of one CPU's time that other tasks (or "
                  "the hypervisor, steal) took; ⚠ above 10%: the run was disturbed");
    return {};
}

} // namespace ctxscope::gui
