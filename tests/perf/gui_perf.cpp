// SPDX-License-Identifier: MIT
// How fast the desktop app's own parts are, on Qt's offscreen platform (software raster
// painting, what a screen without GPU acceleration costs): the topology map's layout and
// paint for 2, 64, 512 and 1024 PUs (synthetic), 1,000 moving thread markers on it, the heatmap of an all-pairs matrix
// of 512 PUs (set and drawn, and redrawn), the live plot's replot with 1e5 and 1e6 points (with QCustomPlot's adaptive
// sampling, as the app draws them, and without), the stream throughput from a worker through WorkerClient into the
// live plot, and the memory the live plot keeps per 1e6 samples. Links the GUI library like tests/gui; prints a table
// and with `--json FILE` writes the figures. Goals: map < 16 ms at 1024 PUs, heatmap < 50 ms at 512 PUs, >= 30
// replots/s at 1e5 points, >= 30 frames/s with 1,000 thread markers moving on the map. Exit status 0 when they hold, 1
// when not, 2 when it could not run. The scheduler's timeline: < 16 ms a frame for 10^6 events on 64 lanes.
#include "heatmapplot.h"
#include "liveplot.h"
#include "qcp.h"
#include "timelineview.h"
#include "topologymapwidget.h"
#include "workerclient.h"

#include "ctxscope/clock.h"
#include "ctxscope/placement.h"
#include "ctxscope/protocol.h"
#include "ctxscope/sysinfo.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QStandardPaths>
#include <QTemporaryFile>
#include <QTimer>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <malloc.h>
#include <optional>
#include <random>
#include <unistd.h>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

constexpr int kStreamBatch = 2500; // what a futex round trip of ~8 us gives in the worker's 20 ms batches

double medianMs(int times, const std::function<void()>& work)
{
    std::vector<double> ms;
    for (int i = 0; i < times; ++i) {
        QElapsedTimer t;
        t.start();
        work();
        ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// Samples like a futex round trip's: ~8 us with a long tail of scheduler outliers.
QVector<double> fakeSamples(qsizetype n)
{
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> body(std::log(8000.0), 0.08);
    std::exponential_distribution<double> tail(1.0 / 200000);
    std::uniform_real_distribution<double> coin(0, 1);
    QVector<double> v(n);
    for (double& x : v)
        x = body(rng) + (coin(rng) < 0.01 ? tail(rng) : 0);
    return v;
}

// Adds the samples in stream-sized batches, then lets the plot's throttled redraw run once
// (it sets the axis ranges to the data, as during a run).
void feed(LivePlot& plot, quint64 id, const QVector<double>& samples)
{
    for (qsizetype i = 0; i < samples.size(); i += kStreamBatch)
        plot.addSamples(id, samples.mid(i, std::min<qsizetype>(kStreamBatch, samples.size() - i)));
    const int before = plot.redrawCount();
    QElapsedTimer waited;
    waited.start();
    while (plot.redrawCount() == before && waited.elapsed() < 5000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
}

double residentBytes()
{
    std::ifstream statm("/proc/self/statm");
    double size = 0, resident = 0;
    statm >> size >> resident;
    return resident * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

nlohmann::json mapFigures(const std::string& description, int pus)
{
    auto topology = Topology::loadSynthetic(description);
    if (!topology)
        return { { "error", topology.error().message } };
    TopologyMapWidget map;
    map.setTopology(*topology);
    const QSize sizes[] = { QSize(1200, 700), QSize(1201, 700) }; // a new size: a new layout
    QImage image(sizes[1], QImage::Format_ARGB32_Premultiplied);
    map.resize(sizes[0]);
    map.render(&image); // warm-up: fonts, caches
    const double layout = medianMs(21, [&] { (void)layoutTopology(*topology, QSizeF(sizes[0]), map.font()); });
    const double paint = medianMs(21, [&] { map.render(&image); });
    int flip = 0;
    const double both = medianMs(21, [&] {
        map.resize(sizes[++flip % 2]);
        map.render(&image);
    });
    fmt::print("  map {:>4} PUs ({:<24}) layout {:7.2f} ms, paint {:7.2f} ms, layout + paint {:7.2f} ms\n", pus,
        description, layout, paint, both);
    return { { "pus", pus }, { "synthetic", description }, { "layout_ms", layout }, { "paint_ms", paint },
        { "layout_paint_ms", both } };
}

// A watched program of 1,000 threads on the map (Programs): each frame the markers move (every
// thread on a new PU, as samples at 2 Hz move them) and the map is painted; the goal is 30
// frames per second, < 33 ms per frame.
nlohmann::json markerFigures(const std::string& description, int pus, int threads)
{
    auto topology = Topology::loadSynthetic(description);
    if (!topology)
        return { { "error", topology.error().message } };
    TopologyMapWidget map;
    map.setTopology(*topology);
    map.resize(QSize(1200, 700));
    QImage image(QSize(1200, 700), QImage::Format_ARGB32_Premultiplied);
    map.render(&image);
    int frame = 0;
    const double ms = medianMs(21, [&] {
        std::vector<TopologyMapWidget::ThreadMarker> markers;
        markers.reserve(static_cast<std::size_t>(threads));
        ++frame;
        for (int t = 0; t < threads; ++t)
            markers.push_back(
                { (t * 7 + frame) % pus, QString::number(100000 + t), QStringLiteral("worker"), t < 4, 100000L + t });
        map.setThreadMarkers(std::move(markers));
        map.render(&image);
    });
    fmt::print("  map {:>4} PUs with {} thread markers moving: {:7.2f} ms a frame ({:.0f} frames/s)\n", pus, threads,
        ms, 1000.0 / ms);
    return { { "pus", pus }, { "synthetic", description }, { "threads", threads }, { "frame_ms", ms } };
}

// An all-pairs matrix of every PU of the synthetic topology, values by relation class with a
// spread inside each (as measured ones have), drawn as the app draws a matrix file.
nlohmann::json heatmapFigures(const std::string& description)
{
    auto topology = Topology::loadSynthetic(description);
    if (!topology)
        return { { "error", topology.error().message } };
    auto matrix = std::make_shared<MatrixResult>();
    matrix->bench = "spin";
    matrix->matrixMode = MatrixMode::AllPairs;
    matrix->pus = topology->allowedPus();
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> spread(0.9, 1.1);
    for (std::size_t i = 0; i < matrix->pus.size(); ++i)
        for (std::size_t j = i; j < matrix->pus.size(); ++j) {
            const int a = matrix->pus[i], b = matrix->pus[j];
            const Relation relation = *relationOf(*topology, a, b);
            const double ns = 80.0 * (1 + static_cast<int>(relation)) * spread(rng);
            matrix->cells.push_back(
                MatrixCell { a, b, relation, ns, std::nullopt, true, ns / 2 }); // spin: one-way is half
        }
    const std::shared_ptr<const MatrixResult> shown = matrix;
    HeatmapPlot heat;
    heat.resize(1000, 800);
    heat.show();
    heat.setMatrix(shown);
    heat.plot()->replot(QCustomPlot::rpImmediateRefresh); // warm-up
    const double setAndDraw = medianMs(11, [&] {
        heat.setMatrix(shown);
        heat.plot()->replot(QCustomPlot::rpImmediateRefresh);
    });
    const double redraw = medianMs(11, [&] { heat.plot()->replot(QCustomPlot::rpImmediateRefresh); });
    const int pus = static_cast<int>(matrix->pus.size());
    fmt::print("  heatmap {:>4} PUs ({} cells, all pairs): set and draw {:7.2f} ms, redraw {:7.2f} ms\n", pus,
        pus * pus, setAndDraw, redraw);
    return { { "pus", pus }, { "synthetic", description }, { "set_and_draw_ms", setAndDraw }, { "redraw_ms", redraw } };
}

// A 4.5 px disc like the live plot's, pre-rendered: what drawing scatters as pixmaps would give.
QPixmap discPixmap()
{
    QPixmap disc(6, 6);
    disc.fill(Qt::transparent);
    QPainter p(&disc);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(31, 119, 180, 80));
    p.drawEllipse(QRectF(0.75, 0.75, 4.5, 4.5));
    return disc;
}

nlohmann::json replotFigures(qsizetype points)
{
    LivePlot plot;
    plot.resize(1000, 500);
    plot.show();
    plot.beginRun(1, QStringLiteral("futex"), QColor(31, 119, 180));
    feed(plot, 1, fakeSamples(points));
    QCustomPlot* qcp = plot.plot();
    QCPGraph* graph = plot.samplesGraph(1);
    const auto replot = [qcp] { qcp->replot(QCustomPlot::rpImmediateRefresh); };
    replot(); // warm-up
    const double adaptive = medianMs(11, replot);
    const QCPScatterStyle style = graph->scatterStyle();
    graph->setScatterStyle(QCPScatterStyle(discPixmap()));
    const double pixmap = medianMs(5, replot);
    graph->setScatterStyle(style);
    graph->setAdaptiveSampling(false);
    const double plain = medianMs(3, replot);
    fmt::print("  live plot {:>8} points: replot {:7.2f} ms ({:6.1f} per s) with adaptive sampling; {:8.2f} ms "
               "without; {:7.2f} ms with pixmap scatters\n",
        points, adaptive, 1000 / adaptive, plain, pixmap);
    return { { "points", points }, { "replot_ms", adaptive }, { "replots_per_s", 1000 / adaptive },
        { "replot_ms_without_adaptive_sampling", plain }, { "replot_ms_pixmap_scatters", pixmap } };
}

nlohmann::json memoryFigures()
{
    const QVector<double> samples = fakeSamples(1'000'000);
    LivePlot plot;
    plot.beginRun(1, QStringLiteral("futex"), QColor(31, 119, 180));
    ::malloc_trim(0); // what the earlier figures freed leaves now, not while the samples are stored
    const double before = residentBytes();
    feed(plot, 1, samples);
    const double perMillion = residentBytes() - before;
    fmt::print("  live plot memory: {:.1f} MiB per 1e6 samples ({:.1f} bytes per sample)\n", perMillion / (1 << 20),
        perMillion / 1e6);
    return { { "live_plot_bytes_per_1e6_samples", perMillion } };
}

// A stand-in worker replays a recorded stream (hello, then sample batches for run 1) as fast
// as the pipe takes it; WorkerClient parses it and the live plot stores and redraws it, as
// in the app. The figure is samples per second through that path.
nlohmann::json streamFigures(qsizetype total, bool withPlot)
{
    auto topology = Topology::loadLive();
    if (!topology)
        return { { "error", topology.error().message } };
    QTemporaryFile file;
    if (!file.open())
        return { { "error", "could not create a temporary file" } };
    {
        std::ofstream out(file.fileName().toStdString());
        out << protocol::helloLine(*topology, readSysInfo(), measurementClock()) << '\n';
        const QVector<double> samples = fakeSamples(total);
        for (qsizetype i = 0; i < total; i += kStreamBatch) {
            const auto n = static_cast<std::size_t>(std::min<qsizetype>(kStreamBatch, total - i));
            const SampleBatch batch { 0, static_cast<std::uint64_t>(i),
                std::span<const double>(samples.constData() + i, n) };
            for (const std::string& line : protocol::samplesLines(1, batch))
                out << line << '\n';
        }
    }
    WorkerClient controller;
    controller.setWorkerCommand(QStringLiteral("/bin/sh"),
        { QStringLiteral("-c"), QStringLiteral(R"(head -n 1 "$0"; read -r run; tail -n +2 "$0"; read -r quit)"),
            file.fileName() });
    LivePlot plot;
    plot.resize(1000, 500);
    plot.show();
    plot.beginRun(1, QStringLiteral("futex"), QColor(31, 119, 180));
    qsizetype received = 0;
    QElapsedTimer clock;
    double seconds = 0;
    QObject::connect(
        &controller, &WorkerClient::samplesAvailable, &plot, [&](quint64 id, int, quint64, const QVector<double>& ns) {
            if (received == 0)
                clock.start();
            if (withPlot)
                plot.addSamples(id, ns);
            received += ns.size();
            if (received >= total) {
                seconds = static_cast<double>(clock.nsecsElapsed()) / 1e9;
                QApplication::quit();
            }
        });
    QTimer::singleShot(120'000, qApp, &QApplication::quit);
    BenchSpec spec;
    spec.bench = "futex";
    controller.start(spec);
    QApplication::exec();
    if (received < total || seconds <= 0)
        return { { "error", fmt::format("only {} of {} samples arrived", received, total) } };
    const double rate = static_cast<double>(total - kStreamBatch) / seconds; // from the first batch's arrival
    fmt::print("  stream worker -> WorkerClient{}: {:.3g} samples/s ({} samples in batches of {}, {} redraws)\n",
        withPlot ? " -> live plot" : " (parsing only)", rate, total, kStreamBatch, plot.redrawCount());
    return { { "samples_per_s", rate }, { "samples", total }, { "batch", kStreamBatch },
        { "redraws", plot.redrawCount() } };
}

// The scheduler's timeline: 10^6 events on 64 lanes (a synthetic day at the office: 400
// tasks handing over between PUs, idle between, interrupts), drawn whole, at a 100th of the
// span and at one hand-over; ms per frame. Goal: < 16 ms at every zoom.
nlohmann::json timelineFigures(const std::string& pngPrefix)
{
    auto topology = Topology::loadSynthetic("pack:2 l3:2 core:8 pu:2");
    if (!topology)
        return { { "error", topology.error().message } };
    std::mt19937 random(11);
    std::uniform_int_distribution<int> pu(0, 63);
    std::uniform_int_distribution<std::int32_t> task(1, 400);
    std::uniform_int_distribution<std::uint64_t> gap(500, 4'000);
    std::vector<TraceEvent> events;
    events.reserve(1'000'000);
    std::vector<std::int32_t> running(64, 0);
    std::uint64_t ns = 1'000'000'000;
    while (events.size() + 3 <= 1'000'000) {
        ns += gap(random) / 16;
        const int from = pu(random);
        const int to = pu(random);
        const std::int32_t wakee = task(random);
        events.push_back({ ns, from, running[static_cast<std::size_t>(from)], wakee, to, 0, TraceEventKind::Waking });
        events.push_back({ ns + 1'500, to, running[static_cast<std::size_t>(to)], wakee, -1,
            running[static_cast<std::size_t>(to)] == 0 ? 0 : 1, TraceEventKind::Switch });
        running[static_cast<std::size_t>(to)] = wakee;
        events.push_back({ ns + 1'600, to, 0, -1, -1, 33,
            (events.size() / 3) % 2 == 0 ? TraceEventKind::IrqEntry : TraceEventKind::IrqExit });
    }
    std::sort(events.begin(), events.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.ns < b.ns; });
    QElapsedTimer built;
    built.start();
    auto data = std::make_shared<const TimelineData>(TimelineData::build(events, {}));
    const double buildMs = static_cast<double>(built.nsecsElapsed()) / 1e6;
    TimelineView view;
    view.resize(1200, 700);
    view.setData(data, timelineLanes(*topology));
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    view.render(&image); // warm-up
    nlohmann::json frames = nlohmann::json::array();
    const std::uint64_t begin = data->beginNs();
    const std::uint64_t span = data->endNs() - begin;
    struct Zoom {
        const char* name;
        std::uint64_t from;
        std::uint64_t to;
    };
    const Zoom zooms[]
        = { { "whole", begin, begin + span }, { "1/100", begin + span / 2, begin + span / 2 + span / 100 },
              { "hand-over", begin + span / 2, begin + span / 2 + 20'000 } };
    double worst = 0;
    for (const Zoom& z : zooms) {
        view.showSpan(z.from, z.to);
        int pan = 0;
        const double ms = medianMs(15, [&] {
            const std::uint64_t shift = static_cast<std::uint64_t>(++pan % 3) * (z.to - z.from) / 50;
            view.showSpan(z.from + shift, z.to + shift);
            view.render(&image);
        });
        worst = std::max(worst, ms);
        fmt::print(
            "  timeline, 1e6 events on 64 lanes, {:<9} ({:>12} ns): {:7.2f} ms a frame\n", z.name, z.to - z.from, ms);
        frames.push_back({ { "zoom", z.name }, { "span_ns", z.to - z.from }, { "frame_ms", ms } });
        if (!pngPrefix.empty())
            image.save(QString::fromStdString(pngPrefix + "-" + std::to_string(frames.size()) + ".png"));
    }
    fmt::print("  timeline built from 1e6 events in {:.0f} ms\n", buildMs);
    return { { "events", events.size() }, { "lanes", 64 }, { "build_ms", buildMs }, { "frames", frames },
        { "worst_frame_ms", worst } };
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("perf_gui"));
    QStandardPaths::setTestModeEnabled(true);
    std::optional<std::string> jsonPath;
    std::string timelinePng;
    const QStringList args = QApplication::arguments();
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args[i] == QStringLiteral("--json") && i + 1 < args.size())
            jsonPath = args[++i].toStdString();
        else if (args[i] == QStringLiteral("--timeline-png") && i + 1 < args.size())
            timelinePng = args[++i].toStdString(); // PREFIX-1.png ... : the timeline's frames, to look at
        else {
            fmt::print(stderr, "usage: perf_gui [--json FILE] [--timeline-png PREFIX]\n");
            return 2;
        }
    }
    fmt::print("GUI speed on the {} platform:\n", QApplication::platformName().toStdString());
    nlohmann::json report;
    report["platform"] = QApplication::platformName().toStdString();
    report["map"] = { mapFigures("pack:1 core:1 pu:2", 2), mapFigures("pack:2 l3:2 core:8 pu:2", 64),
        mapFigures("pack:4 l3:4 core:16 pu:2", 512), mapFigures("pack:2 numa:2 l3:8 core:16 pu:2", 1024) };
    report["markers"] = { markerFigures("pack:2 l3:2 core:8 pu:2", 64, 1000),
        markerFigures("pack:2 numa:2 l3:8 core:16 pu:2", 1024, 1000) };
    report["heatmap"] = heatmapFigures("pack:4 l3:4 core:16 pu:2");
    report["replot"] = { replotFigures(100'000), replotFigures(1'000'000) };
    report["memory"] = memoryFigures();
    report["stream"] = streamFigures(1'000'000, true);
    report["stream_parse_only"] = streamFigures(1'000'000, false);
    report["timeline"] = timelineFigures(timelinePng);
    if (jsonPath) {
        std::ofstream out(*jsonPath);
        out << report.dump(2) << '\n';
        if (!out)
            return 2;
    }
    for (const auto* part : { &report["map"][3], &report["markers"][0], &report["markers"][1], &report["heatmap"],
             &report["replot"][0], &report["stream"], &report["timeline"] })
        if (part->contains("error")) {
            fmt::print(stderr, "perf_gui: {}\n", (*part)["error"].get<std::string>());
            return 2;
        }
    const bool met = report["map"][3]["layout_paint_ms"].get<double>() < 16
        && report["heatmap"]["set_and_draw_ms"].get<double>() < 50
        && report["markers"][0]["frame_ms"].get<double>() < 33 && report["markers"][1]["frame_ms"].get<double>() < 33
        && report["replot"][0]["replots_per_s"].get<double>() >= 30
        && report["timeline"]["worst_frame_ms"].get<double>() < 16;
    return met ? 0 : 1;
}
