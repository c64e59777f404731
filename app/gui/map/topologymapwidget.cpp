// SPDX-License-Identifier: MIT
#include "topologymapwidget.h"

#include "ctxscope/cache_check.h"
#include "ctxscope/topology_report.h"
#include "ctxscope/units.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QStringList>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <utility>

namespace ctxscope::gui {

TopologyMapWidget::TopologyMapWidget(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus); // + and - zoom the map (MapScrollArea) once it has focus
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void TopologyMapWidget::setTopology(const Topology& topology)
{
    m_topology = topology;
    m_selection.clear();
    m_pinTargets.clear(); // another machine's PUs
    m_highlight.reset();
    m_hoveredPu = -1;
    m_layoutValid = false;
    update();
    emitSelection();
}

const TopologyLayout& TopologyMapWidget::mapLayout() const
{
    const QSizeF available(size());
    if (!m_layoutValid || m_layout.available != available) {
        m_layout = m_topology ? layoutTopology(*m_topology, available, font(), m_textScale) : TopologyLayout {};
        m_layout.available = available;
        m_layoutValid = true;
    }
    return m_layout;
}

void TopologyMapWidget::setTextScale(double scale)
{
    m_textScale = scale;
    m_layoutValid = false;
    update();
}

Status TopologyMapWidget::checkAllowed(const std::vector<int>& osCpus) const
{
    if (!m_topology)
        return makeError("no topology is shown");
    for (int cpu : osCpus)
        if (const QString why = unavailableReason(*m_topology, cpu); !why.isEmpty())
            return makeError(why.toStdString());
    return {};
}

Status TopologyMapWidget::setSelection(const std::vector<int>& osCpus)
{
    if (Status allowed = checkAllowed(osCpus); !allowed)
        return allowed;
    m_selection.set(osCpus);
    update();
    emitSelection();
    return {};
}

void TopologyMapWidget::clearSelection()
{
    m_showsRun = false;
    m_selection.clear();
    update();
    emitSelection();
}

std::optional<Relation> TopologyMapWidget::selectionRelation() const
{
    return m_topology ? m_selection.relation(*m_topology) : std::nullopt;
}

QString TopologyMapWidget::selectionSummary() const
{
    if (!m_topology)
        return {};
    if (m_repin) // said where the placement is always said: a click now moves threads, not tasks
        return m_pinTargets.empty() ? tr("Re-pinning: click PUs for the threads")
                                    : tr("Re-pinning to P#%1").arg(QString::fromStdString(formatCpuList(m_pinTargets)));
    const QString summary = m_selection.summary(*m_topology);
    const auto placed = static_cast<int>(selection().size());
    // A run's (or a lesson step's) placement shown is no placement for the run panel's benchmark:
    // in a lesson the map said "· syscall runs 1 task, B unused" under the futex step's tasks.
    if (m_taskLimit <= 0 || placed <= m_taskLimit || m_showsRun)
        return summary;
    QStringList waiting;
    for (int task = m_taskLimit; task < placed; ++task)
        waiting << taskName(task);
    return tr("%1 · %2 runs %3, %4 unused")
        .arg(summary, m_limitedBench, tasksText(), waiting.join(QStringLiteral(", ")));
}

void TopologyMapWidget::showPlacement(const std::vector<int>& osCpus)
{
    const auto& placed = selection();
    if (osCpus.empty() || (placed.size() >= osCpus.size() && std::equal(osCpus.begin(), osCpus.end(), placed.begin())))
        return;
    m_showsRun = true;
    (void)setSelection(osCpus); // a run's PUs were allowed when it started
}

void TopologyMapWidget::setTaskLimit(int tasks, const QString& benchmark)
{
    if (tasks == m_taskLimit && benchmark == m_limitedBench)
        return;
    m_taskLimit = tasks;
    m_limitedBench = benchmark;
    emitSelection(); // the summary names the tasks it leaves waiting
}

QString TopologyMapWidget::fullNote() const
{
    return tr("%1 runs %2, all placed: click a task to take it off first").arg(m_limitedBench, tasksText());
}

QString TopologyMapWidget::tasksText() const
{
    return m_taskLimit == 1 ? tr("1 task") : tr("%1 tasks").arg(m_taskLimit);
}

void TopologyMapWidget::setHighlightedPair(std::optional<PuPair> pair)
{
    m_highlight = pair;
    update();
}

void TopologyMapWidget::emitSelection()
{
    const auto& cpus = m_selection.cpus();
    emit selectionChanged(QVector<int>(cpus.begin(), cpus.end()));
}

QSize TopologyMapWidget::sizeHint() const { return { 900, 560 }; }
QSize TopologyMapWidget::minimumSizeHint() const { return { 240, 160 }; }

void TopologyMapWidget::mousePressEvent(QMouseEvent* event)
{
    const int index = mapLayout().boxAt(event->position());
    if (event->button() != Qt::LeftButton || index < 0 || !m_topology)
        return QWidget::mousePressEvent(event);
    const LayoutBox& box = m_layout.boxes[static_cast<std::size_t>(index)];
    if (box.kind != BoxKind::Pu)
        return QWidget::mousePressEvent(event);
    if (!box.allowed) {
        // Say why at once: a click that does nothing silently looks like a bug on a projector.
        QToolTip::showText(event->globalPosition().toPoint(), unavailableReason(*m_topology, box.osIndex), this);
        return;
    }
    if (m_repin)
        return togglePinTarget(box.osIndex);
    const bool wasRun = std::exchange(m_showsRun, false); // the user's placement again, and its limit
    const bool another = event->modifiers().testFlag(Qt::ShiftModifier);
    const bool adds = another || m_selection.tasksOn(box.osIndex).empty();
    if (adds && m_taskLimit > 0 && static_cast<int>(selection().size()) >= m_taskLimit) {
        QToolTip::showText(event->globalPosition().toPoint(), fullNote(), this);
        if (wasRun)
            emitSelection(); // the map's line says the limit again
        return;
    }
    m_selection.click(box.osIndex, another);
    update();
    emitSelection();
}

void TopologyMapWidget::mouseMoveEvent(QMouseEvent* event)
{
    const int index = mapLayout().boxAt(event->position());
    const bool onPu = index >= 0 && m_layout.boxes[static_cast<std::size_t>(index)].kind == BoxKind::Pu;
    const int hovered = onPu ? m_layout.boxes[static_cast<std::size_t>(index)].osIndex : -1;
    if (onPu)
        setCursor(
            m_layout.boxes[static_cast<std::size_t>(index)].allowed ? Qt::PointingHandCursor : Qt::ForbiddenCursor);
    else
        unsetCursor();
    if (hovered != m_hoveredPu) {
        m_hoveredPu = hovered;
        update();
        emit puHovered(hovered);
    }
    QWidget::mouseMoveEvent(event);
}

void TopologyMapWidget::leaveEvent(QEvent* event)
{
    if (m_hoveredPu != -1) {
        m_hoveredPu = -1;
        update();
        emit puHovered(-1);
    }
    QWidget::leaveEvent(event);
}

void TopologyMapWidget::setHoveredPu(int pu)
{
    if (pu == m_hoveredPu)
        return;
    m_hoveredPu = pu;
    update();
}

bool TopologyMapWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange)
        m_layoutValid = false;
    return QWidget::event(event);
}

QColor TopologyMapWidget::taskColor(int task)
{
    // Okabe-Ito: tells apart for colour-blind viewers and survives a washed-out projector.
    static const std::array<QColor, 7> colors { QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00),
        QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7), QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
        QColor(0xF0, 0xE4, 0x42) };
    return colors[static_cast<std::size_t>(task) % colors.size()];
}

} // namespace ctxscope::gui

namespace ctxscope::gui {

namespace {

QString cpuList(const std::vector<int>& cpus) { return QString::fromStdString(formatCpuList(cpus)); }

QString sizeText(std::uint64_t bytes) { return QString::fromStdString(formatCacheSize(bytes)); }

// What hwloc says of a kind of core: "\nIntelAtom, up to 3500 MHz, hwloc's efficiency rank 0 (...)".
QString kindDetails(const CpuKind& kind)
{
    QStringList facts;
    if (!kind.coreType.empty())
        facts << QString::fromStdString(kind.coreType);
    if (kind.frequencyMaxMhz > 0)
        facts << QObject::tr("up to %1 MHz").arg(kind.frequencyMaxMhz);
    if (kind.efficiency >= 0)
        facts << QObject::tr("hwloc's efficiency rank %1 (higher: more performant)").arg(kind.efficiency);
    return facts.isEmpty() ? QString() : QLatin1Char('\n') + facts.join(QStringLiteral(", "));
}

// The name of a box whatever its label shows at the current detail level.
QString fullName(const LayoutBox& box)
{
    switch (box.kind) {
    case BoxKind::Core:
        return QStringLiteral("Core L#%1").arg(box.logicalIndex);
    case BoxKind::Numa:
        return QStringLiteral("NUMA P#%1").arg(box.osIndex);
    case BoxKind::Cache:
        return (box.cacheLevel == 1 ? QStringLiteral("L1d") : QStringLiteral("L%1").arg(box.cacheLevel))
            + QStringLiteral(" L#%1 (%2)").arg(box.logicalIndex).arg(sizeText(box.cacheSize));
    case BoxKind::Package:
        return QStringLiteral("Package L#%1").arg(box.logicalIndex);
    case BoxKind::Die:
        return QStringLiteral("Die L#%1").arg(box.logicalIndex);
    case BoxKind::Group:
        return QStringLiteral("Group L#%1").arg(box.logicalIndex);
    case BoxKind::Pu:
        break;
    }
    return QStringLiteral("PU P#%1").arg(box.osIndex);
}

} // namespace

QString TopologyMapWidget::toolTipAt(const QPointF& pos) const
{
    const int index = mapLayout().boxAt(pos);
    if (index < 0 || !m_topology)
        return {};
    const LayoutBox& box = m_layout.boxes[static_cast<std::size_t>(index)];
    return box.kind == BoxKind::Pu ? puToolTip(box) : containerToolTip(box);
}

QString TopologyMapWidget::puToolTip(const LayoutBox& box) const
{
    if (const QString why = unavailableReason(*m_topology, box.osIndex); !why.isEmpty())
        return why;
    QString text = tr("PU P#%1 (L#%2)").arg(box.osIndex).arg(box.logicalIndex);
    if (const CpuKind* kind = m_topology->kindOfPu(box.osIndex))
        text += QStringLiteral(", ") + QString::fromStdString(kind->name);
    // Name the boxes around it, innermost first, as lstopo's text output lists them.
    for (int p = box.parent; p >= 0; p = m_layout.boxes[static_cast<std::size_t>(p)].parent)
        text += QStringLiteral(" · ") + fullName(m_layout.boxes[static_cast<std::size_t>(p)]);
    const std::vector<int> tasks = m_selection.tasksOn(box.osIndex);
    if (m_repin)
        text += QLatin1Char('\n')
            + (std::binary_search(m_pinTargets.begin(), m_pinTargets.end(), box.osIndex)
                    ? tr("A re-pin target. Click to drop it")
                    : tr("Click to pin the selected threads here too"));
    else if (tasks.empty() && m_taskLimit > 0 && static_cast<int>(selection().size()) >= m_taskLimit)
        text += QLatin1Char('\n') + fullNote();
    else if (tasks.empty())
        text += QLatin1Char('\n')
            + tr("Click to place task %1 here").arg(taskName(static_cast<int>(selection().size())));
    else
        text += QLatin1Char('\n')
            + tr("Task %1 runs here. Click to remove it; Shift+click to add task %2 too")
                  .arg(taskName(tasks.back()), taskName(static_cast<int>(selection().size())));
    return text + markersToolTip(box.osIndex);
}

QString TopologyMapWidget::containerToolTip(const LayoutBox& box) const
{
    const QString pus = (box.pus.size() == 1 ? tr("1 PU") : tr("%1 PUs").arg(box.pus.size())) + QStringLiteral(": P#")
        + cpuList(box.pus);
    switch (box.kind) {
    case BoxKind::Cache: {
        const QString name = box.cacheLevel == 1 ? QStringLiteral("L1d") : QStringLiteral("L%1").arg(box.cacheLevel);
        QString text = tr("%1 cache L#%2: %3").arg(name).arg(box.logicalIndex).arg(sizeText(box.cacheSize));
        if (box.cacheLineSize > 0)
            text += tr(", %1-byte lines").arg(box.cacheLineSize);
        text += QLatin1Char('\n')
            + (box.pus.size() == 1 ? tr("Private to P#%1").arg(box.pus.front()) : tr("Shared by %1").arg(pus));
        // A size the machine misreports (a VM's host L3 shown per vCPU) is said where it is shown.
        if (const CacheCheck check = checkCaches(*m_topology); !check.plausible(box.cacheLevel))
            text += QLatin1Char('\n') + QString::fromStdString(check.sentence());
        return text;
    }
    case BoxKind::Numa:
        return tr("NUMA node P#%1: %2 of local memory\n%3")
            .arg(box.osIndex)
            .arg(QString::fromStdString(formatCacheSize(box.memory)), pus);
    case BoxKind::Core:
        if (const CpuKind* kind = box.pus.empty() ? nullptr : m_topology->kindOfPu(box.pus.front()))
            return tr("%1 L#%2\n%3").arg(QString::fromStdString(kind->name)).arg(box.logicalIndex).arg(pus)
                + kindDetails(*kind);
        return tr("Core L#%1\n%2").arg(box.logicalIndex).arg(pus);
    case BoxKind::Package:
    case BoxKind::Die:
    case BoxKind::Group:
    case BoxKind::Pu:
        break;
    }
    return fullName(box) + QLatin1Char('\n') + pus;
}

QString TopologyMapWidget::labelsNote() const
{
    if (!m_topology)
        return {};
    const TopologyLayout& layout = mapLayout();
    // Short enough for the caption's line beside the zoom buttons in the default window's map
    // pane (about 250 pixels); the caption's tooltip says how to zoom.
    const QString how = tr("hover or zoom");
    if (!layout.puNumbers)
        return layout.titles == TitleDetail::None ? tr("Labels hidden: %1").arg(how)
                                                  : tr("PU numbers hidden: %1").arg(how);
    switch (layout.titles) {
    case TitleDetail::None:
        return tr("Titles hidden: %1").arg(how);
    case TitleDetail::Short:
        return tr("Titles shortened: %1").arg(how);
    case TitleDetail::Long:
        break;
    }
    return {};
}

} // namespace ctxscope::gui
