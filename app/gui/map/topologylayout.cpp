// SPDX-License-Identifier: MIT
#include "topologylayout.h"

#include "layouttree.h"

#include <QFontInfo>
#include <QFontMetricsF>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace ctxscope::gui {

using detail::LayoutItem;

namespace {

constexpr double kBaseFont = 13.0; // pixels; the layout is computed at this size, then zoomed
constexpr double kReadableFont = 12.0; // the richest detail whose zoomed text reaches this wins
constexpr double kMaxScale = 2.2; // a 2-PU machine should not become a wall of grey
// Nor a wall of text: labels at most this many times the application's type (lstopo keeps one
// type size and leaves the rest of the window empty).
constexpr double kMaxTypeRatio = 1.5;
constexpr std::size_t kMaxOptions = 24;
// Text smaller than this is noise, not a label: a level whose text would be smaller goes whole.
constexpr double kMinLabelPixels = 8.0;
// The plans tried, richest first: shorter words, then (only while the type is still under
// kMinLabelPixels) shorter titles, no titles, no PU numbers (the PU boxes shrink to squares,
// which gives the titles room again), and at last no text at all. PU numbers outrank titles:
// a PU is what one clicks and what --cpus and taskset name.
constexpr std::array<LabelPlan, 7> kPlans { {
    { LabelDetail::Full, TitleDetail::Long, true },
    { LabelDetail::Short, TitleDetail::Long, true },
    { LabelDetail::Compact, TitleDetail::Long, true },
    { LabelDetail::Compact, TitleDetail::Short, true },
    { LabelDetail::Compact, TitleDetail::None, true },
    { LabelDetail::Compact, TitleDetail::Short, false },
    { LabelDetail::Compact, TitleDetail::None, false },
} };
constexpr std::size_t kWordSteps = 3; // the plans that only trade words for size
// Aspect ratios (width / height) a parent asks its children for.
constexpr std::array<double, 13> kAspects { 0.125, 0.18, 0.25, 0.35, 0.5, 0.7, 1.0, 1.4, 2.0, 2.8, 4.0, 5.6, 8.0 };

// One way to lay out a subtree: its natural size, the number of columns of its grid of
// children, and the aspect ratio it asked its children for.
struct Option {
    double w = 0;
    double h = 0;
    int cols = 1;
    int aspect = -1;
    int ragged = 0; // grids with a half-empty last row on the way down: they look untidy
};

// How much zoom a tidy grid is worth against a ragged one.
constexpr double kRaggedPenalty = 0.92;

// Measuring a label is most of the layout's cost (HarfBuzz shapes each string; at 1024 PUs
// thousands of labels, three detail levels each). Labels of a kind differ only in their
// numbers ("Core L#7", "Core L#512"), so a label is measured as its shape: every digit replaced
// by the font's widest one. That is an upper bound of the real width (exact where digits are
// tabular, as in nearly every UI font), so the text always fits its box, and a machine's
// thousand PU labels are a handful of measurements, each shape measured once per layout.
class TextWidths {
public:
    explicit TextWidths(const QFont& regular)
        : m_regular(regular)
        , m_bold(boldOf(regular))
    {
    }
    double of(QString text, bool bold)
    {
        Face& face = bold ? m_bold : m_regular;
        for (QChar& ch : text)
            if (ch.isDigit())
                ch = face.widestDigit;
        if (const auto found = face.widths.find(text); found != face.widths.end())
            return found->second;
        const double width = face.metrics.horizontalAdvance(text);
        face.widths.emplace(std::move(text), width);
        return width;
    }
    double lineHeight() const { return m_regular.metrics.height(); }

private:
    struct Face {
        explicit Face(const QFont& font)
            : metrics(font)
        {
            double widest = -1;
            for (char16_t digit = u'0'; digit <= u'9'; ++digit)
                if (const double w = metrics.horizontalAdvance(QChar(digit)); w > widest) {
                    widest = w;
                    widestDigit = QChar(digit);
                }
        }
        QFontMetricsF metrics;
        QChar widestDigit = QLatin1Char('0');
        std::unordered_map<QString, double> widths;
    };
    static QFont boldOf(QFont font)
    {
        font.setBold(true);
        return font;
    }
    Face m_regular;
    Face m_bold;
};

struct Style {
    TextWidths* widths = nullptr;
    LabelPlan plan;
    double line = 0; // text line height
    double pad = 0; // inside a box, around its children
    double gap = 0; // between siblings
    double header = 0; // label strip at the top of a box
    QSizeF pu; // every PU box has the same size so grids line up
};

struct Frame {
    bool header = false;
    double side = 0; // left, right and bottom padding
    double top = 0; // header or padding above the children
    double gap = 0;
    double labelWidth = 0;
};

// Caches and cores with a single child collapse onto it like lstopo's stacked bars:
// only their label strip is added, no padding on the sides. `measure`: also the label's
// width (sizing needs it; placing a box of a known size does not).
Frame frameOf(const LayoutItem& item, const Style& style, const QString& label, bool root, bool measure = true)
{
    Frame f;
    if (root) {
        f.gap = 2 * style.gap;
        return f;
    }
    f.header = !label.isEmpty();
    const bool collapse = (item.kind == BoxKind::Cache || item.kind == BoxKind::Core) && item.children.size() == 1;
    f.side = collapse ? 0 : style.pad;
    f.top = f.header ? style.header : f.side;
    f.gap = style.gap;
    if (f.header && measure)
        f.labelWidth = style.widths->of(label, hasBoldLabel(item.kind)) + 2 * style.pad;
    return f;
}

class Packer {
public:
    Packer(const Topology& topology, Style style)
        : m_topology(topology)
        , m_style(std::move(style))
    {
    }

    const std::vector<Option>& optionsOf(const LayoutItem& item, bool root)
    {
        Shape& shape = shapeOf(item, root);
        if (shape.options.empty()) {
            if (item.kind == BoxKind::Pu && !root)
                shape.options.push_back(Option { m_style.pu.width(), m_style.pu.height(), 1, -1 });
            else
                shape.options = containerOptions(item, root);
        }
        return shape.options;
    }

    void place(const LayoutItem& item, const Option& option, const QRectF& rect, int parent, int depth, bool root,
        std::vector<LayoutBox>& out)
    {
        int self = parent;
        const QString label = root ? QString() : detail::itemLabel(item, m_style.plan);
        const Frame frame = frameOf(item, m_style, label, root, false);
        if (!root) {
            LayoutBox box;
            detail::describeBox(item, m_topology, box);
            box.rect = rect;
            box.label = label;
            box.parent = parent;
            box.depth = depth;
            if (item.kind == BoxKind::Pu && !label.isEmpty())
                box.labelRect = rect;
            else if (frame.header)
                box.labelRect = QRectF(rect.x() + m_style.pad, rect.y(), rect.width() - 2 * m_style.pad, frame.top);
            self = static_cast<int>(out.size());
            out.push_back(std::move(box));
            ++depth;
        }
        if (item.children.empty())
            return;
        const QRectF content = rect.adjusted(frame.side, frame.top, -frame.side, -frame.side);
        if (item.children.size() == 1 && frame.side == 0 && !root) {
            place(item.children.front(), pick(item.children.front(), option.aspect), content, self, depth, false, out);
            return;
        }
        const auto rows = flow(item, option);
        double y = content.y();
        for (const auto& row : rows) {
            double x = content.x();
            double rowHeight = 0;
            for (const auto& [child, opt] : row)
                rowHeight = std::max(rowHeight, opt.h);
            for (const auto& [child, opt] : row) {
                // Siblings in a row share its height so rows read as rows.
                place(*child, opt, QRectF(x, y, opt.w, rowHeight), self, depth, false, out);
                x += opt.w + frame.gap;
            }
            y += rowHeight + frame.gap;
        }
    }

private:
    using Row = std::vector<std::pair<const LayoutItem*, Option>>;

    // Subtrees alike in kind, label width and children's shapes (the 512 cores of a large
    // machine, its 32 L3s) lay out alike: their options and picks are worked out once.
    struct Shape {
        std::vector<Option> options; // empty until asked for
        std::array<int, kAspects.size()> picks; // index into options per aspect, -1 until asked
    };
    using ShapeKey = std::tuple<BoxKind, bool, double, std::vector<std::size_t>>;

    Shape& shapeOf(const LayoutItem& item, bool root)
    {
        if (const auto found = m_shapeOf.find(&item); found != m_shapeOf.end())
            return m_shapes[found->second];
        // Every PU box has the size of the widest PU label (Style::pu): theirs need no measuring.
        const bool sized = item.kind == BoxKind::Pu && !root;
        const QString label = root || sized ? QString() : detail::itemLabel(item, m_style.plan);
        const Frame frame = frameOf(item, m_style, label, root);
        ShapeKey key { item.kind, root, frame.header ? frame.labelWidth : -1.0, {} };
        std::get<3>(key).reserve(item.children.size());
        for (const LayoutItem& child : item.children) {
            shapeOf(child, false);
            std::get<3>(key).push_back(m_shapeOf.at(&child));
        }
        auto [at, added] = m_shapeIndex.emplace(std::move(key), m_shapes.size());
        if (added) {
            m_shapes.emplace_back();
            m_shapes.back().picks.fill(-1);
        }
        m_shapeOf.emplace(&item, at->second);
        return m_shapes[at->second];
    }

    const Option& pick(const LayoutItem& child, int aspect)
    {
        const auto& options = optionsOf(child, false);
        if (aspect < 0 || options.size() == 1)
            return options.front();
        int& memo = shapeOf(child, false).picks[static_cast<std::size_t>(aspect)];
        if (memo >= 0)
            return options[static_cast<std::size_t>(memo)];
        const double want = std::log(kAspects[static_cast<std::size_t>(aspect)]);
        std::size_t best = 0;
        double bestScore = std::numeric_limits<double>::max();
        for (std::size_t i = 0; i < options.size(); ++i) {
            const Option& o = options[i];
            const double score = std::abs(std::log(o.w / o.h) - want) + 0.15 * o.ragged;
            if (score < bestScore - 1e-9) {
                best = i;
                bestScore = score;
            }
        }
        memo = static_cast<int>(best);
        return options[best];
    }

    std::vector<Row> flow(const LayoutItem& item, const Option& option)
    {
        std::vector<Row> rows;
        for (std::size_t i = 0; i < item.children.size(); ++i) {
            if (i % static_cast<std::size_t>(option.cols) == 0)
                rows.emplace_back();
            rows.back().emplace_back(&item.children[i], pick(item.children[i], option.aspect));
        }
        return rows;
    }

    std::vector<Option> containerOptions(const LayoutItem& item, bool root)
    {
        const Frame frame = frameOf(item, m_style, root ? QString() : detail::itemLabel(item, m_style.plan), root);
        std::vector<Option> all;
        const int n = static_cast<int>(item.children.size());
        if (n == 0) {
            all.push_back(Option { std::max(frame.labelWidth, m_style.pu.width()), frame.top + frame.side, 1, -1 });
            return all;
        }
        // Children with one shape each (PUs, say) need not be asked for several aspects.
        const bool shapable = std::any_of(item.children.begin(), item.children.end(),
            [&](const LayoutItem& c) { return optionsOf(c, false).size() > 1; });
        const int aspects = shapable ? static_cast<int>(kAspects.size()) : 0;
        std::vector<const Option*> picks(item.children.size());
        for (int aspect = shapable ? 0 : -1; aspect < aspects; ++aspect) {
            int childRagged = 0;
            for (std::size_t i = 0; i < picks.size(); ++i) {
                picks[i] = &pick(item.children[i], aspect);
                childRagged = std::max(childRagged, picks[i]->ragged);
            }
            for (int cols = 1; cols <= n; ++cols) {
                // Columns that leave the last row as full as a smaller count would are no better.
                if (cols > 1 && (n + cols - 1) / cols == (n + cols - 2) / (cols - 1))
                    continue;
                double width = 0;
                double height = 0;
                for (std::size_t first = 0; first < picks.size(); first += static_cast<std::size_t>(cols)) {
                    const std::size_t last = std::min(picks.size(), first + static_cast<std::size_t>(cols));
                    double rowWidth = frame.gap * static_cast<double>(last - first - 1);
                    double rowHeight = 0;
                    for (std::size_t k = first; k < last; ++k) {
                        rowWidth += picks[k]->w;
                        rowHeight = std::max(rowHeight, picks[k]->h);
                    }
                    width = std::max(width, rowWidth);
                    height += rowHeight + (first > 0 ? frame.gap : 0);
                }
                all.push_back(Option { std::max(width + 2 * frame.side, frame.labelWidth),
                    height + frame.top + frame.side, cols, aspect, (n % cols == 0 ? 0 : 1) + childRagged });
            }
        }
        return paretoFront(std::move(all));
    }

    // Keeps the layouts no tidier-or-equal layout beats in both width and height, then
    // thins them out evenly when there are too many to try at the next level up.
    static std::vector<Option> paretoFront(std::vector<Option> all)
    {
        std::sort(all.begin(), all.end(), [](const Option& a, const Option& b) {
            return std::tie(a.ragged, a.w, a.h) < std::tie(b.ragged, b.w, b.h);
        });
        std::vector<Option> front;
        for (const Option& o : all) {
            const bool beaten = std::any_of(
                front.begin(), front.end(), [&](const Option& f) { return f.w <= o.w + 1e-9 && f.h <= o.h + 1e-9; });
            if (!beaten)
                front.push_back(o);
        }
        if (front.size() <= kMaxOptions)
            return front;
        std::sort(front.begin(), front.end(), [](const Option& a, const Option& b) { return a.w < b.w; });
        std::vector<Option> thinned;
        for (std::size_t i = 0; i < kMaxOptions; ++i)
            thinned.push_back(front[i * (front.size() - 1) / (kMaxOptions - 1)]);
        return thinned;
    }

    const Topology& m_topology;
    Style m_style;
    std::deque<Shape> m_shapes; // a deque: references stay valid while recursion adds shapes
    std::map<ShapeKey, std::size_t> m_shapeIndex;
    std::unordered_map<const LayoutItem*, std::size_t> m_shapeOf;
};

QFont baseFont(QFont font)
{
    font.setPixelSize(static_cast<int>(kBaseFont));
    return font;
}

Style makeStyle(const Topology& topology, TextWidths& widths, const LabelPlan& plan)
{
    Style s;
    s.widths = &widths;
    s.plan = plan;
    s.line = widths.lineHeight();
    const bool compact = plan.detail == LabelDetail::Compact;
    s.pad = std::round(s.line * (compact ? 0.25 : 0.4));
    s.gap = std::round(s.line * (compact ? 0.2 : 0.3));
    s.header = std::round(s.line * 1.25);
    if (!plan.puNumbers) {
        // A bare square smaller than a line, so the titles keep their room longer; still a
        // target a click finds.
        s.pu = QSizeF(std::round(0.8 * s.line), std::round(0.8 * s.line));
        return s;
    }
    double widest = 0;
    // A PU's label is text and its two indices: labels whose indices have as many digits have
    // one shape (TextWidths), so one PU of each digit count stands for the rest.
    const auto digits = [](int n) { return static_cast<int>(QString::number(n).size()); };
    std::set<std::pair<int, int>> shapes;
    for (const PuInfo& pu : topology.pus()) {
        if (!shapes.emplace(digits(pu.osIndex), digits(pu.logicalIndex)).second)
            continue;
        TopoNode node;
        node.kind = NodeKind::Pu;
        node.osIndex = pu.osIndex;
        node.logicalIndex = pu.logicalIndex;
        const LayoutItem item { BoxKind::Pu, &node, nullptr, {}, {}, false };
        widest = std::max(widest, widths.of(detail::itemLabel(item, plan), false));
    }
    // Wide enough for the label and a task letter beside it, tall enough to hit on a touchpad.
    s.pu = QSizeF(std::max(widest + 2 * s.pad + s.line * (compact ? 0.3 : 1.0), 2.2 * s.line),
        std::round(s.line * (compact ? 1.5 : 1.8)));
    return s;
}

void zoomToFit(TopologyLayout& layout, const QSizeF& natural)
{
    const double s = layout.scale;
    const double dx = std::round((layout.available.width() - natural.width() * s) / 2);
    const double dy = std::round((layout.available.height() - natural.height() * s) / 2);
    // Rounding both edges with one monotonic function keeps children inside parents and
    // siblings apart, and puts the 1-pixel borders on whole pixels.
    const auto snap = [&](const QRectF& r) {
        if (r.isNull())
            return r;
        const double left = std::round(dx + r.left() * s);
        const double top = std::round(dy + r.top() * s);
        return QRectF(left, top, std::round(dx + r.right() * s) - left, std::round(dy + r.bottom() * s) - top);
    };
    for (LayoutBox& box : layout.boxes) {
        box.rect = snap(box.rect);
        box.labelRect = snap(box.labelRect);
    }
    layout.bounds = snap(QRectF(QPointF(0, 0), natural));
    layout.fontPixels = kBaseFont * s;
}

// The option that shows the tree largest in `available`, and its zoom.
std::pair<const Option*, double> fit(const std::vector<Option>& options, const QSizeF& available, double maxScale)
{
    const Option* chosen = &options.front();
    double scale = 0;
    double bestScore = 0;
    const double wantAspect = std::log(available.width() / std::max(1.0, available.height()));
    for (const Option& o : options) {
        const double s = std::min({ available.width() / o.w, available.height() / o.h, maxScale });
        const double score = s * std::pow(kRaggedPenalty, o.ragged);
        // Small machines reach the zoom cap in several shapes: take the one shaped like the window.
        const bool tie = std::abs(score - bestScore) < 1e-9
            && std::abs(std::log(o.w / o.h) - wantAspect) < std::abs(std::log(chosen->w / chosen->h) - wantAspect);
        if (score > bestScore + 1e-9 || tie) {
            bestScore = score;
            scale = s;
            chosen = &o;
        }
    }
    return { chosen, scale };
}

} // namespace

bool hasBoldLabel(BoxKind kind) { return kind == BoxKind::Package || kind == BoxKind::Numa; }

TopologyLayout layoutTopology(const Topology& topology, const QSizeF& available, const QFont& font, double textScale)
{
    const double maxFont = kMaxTypeRatio * QFontInfo(font).pixelSize() * textScale;
    const double maxScale = std::min(kMaxScale * textScale, maxFont / kBaseFont);
    const double readable = kReadableFont * textScale;
    const double minFont = kMinLabelPixels * textScale;
    const LayoutItem tree = detail::buildLayoutTree(topology);
    TopologyLayout best;
    best.available = available;
    best.fontPixels = -1;
    QSizeF bestNatural;
    TextWidths widths(baseFont(font));
    for (std::size_t step = 0; step < kPlans.size(); ++step) {
        const LabelPlan& plan = kPlans[step];
        Packer packer(topology, makeStyle(topology, widths, plan));
        const auto [chosen, fitted] = fit(packer.optionsOf(tree, true), available, maxScale);
        // Text is drawn at whole pixel sizes: zoom to one, never above, so a label measured at
        // kBaseFont still fits its box once drawn (rounding 19.5 up to 20 pixels would not).
        const double scale = kBaseFont * fitted >= 1 ? std::floor(kBaseFont * fitted) / kBaseFont : fitted;
        // The first steps trade words for size: the richest reaching `readable` wins, else the
        // largest type among them. Past them levels go, each step taken only while the type is
        // still below kMinLabelPixels; the last (no labels at all) whatever its size.
        const bool tradesWords = step < kWordSteps;
        if (!tradesWords || kBaseFont * scale > best.fontPixels) {
            TopologyLayout layout;
            layout.available = available;
            layout.detail = plan.detail;
            layout.titles = plan.titles;
            layout.puNumbers = plan.puNumbers;
            layout.scale = scale;
            layout.fontPixels = kBaseFont * scale;
            packer.place(tree, *chosen, QRectF(0, 0, chosen->w, chosen->h), -1, 0, true, layout.boxes);
            best = std::move(layout);
            bestNatural = QSizeF(chosen->w, chosen->h);
        }
        const bool enough = tradesWords
            ? best.fontPixels >= readable || (step + 1 == kWordSteps && best.fontPixels >= minFont)
            : best.fontPixels >= minFont;
        if (enough)
            break;
    }
    zoomToFit(best, bestNatural);
    return best;
}

int TopologyLayout::puBox(int osIndex) const
{
    for (std::size_t i = 0; i < boxes.size(); ++i)
        if (boxes[i].kind == BoxKind::Pu && boxes[i].osIndex == osIndex)
            return static_cast<int>(i);
    return -1;
}

int TopologyLayout::boxAt(const QPointF& point) const
{
    // Children come after their parents, so the last hit is the innermost.
    for (std::size_t i = boxes.size(); i-- > 0;)
        if (boxes[i].rect.contains(point))
            return static_cast<int>(i);
    return -1;
}

} // namespace ctxscope::gui
