// SPDX-License-Identifier: MIT
// MainWindow: saving and opening results, exporting a plot.
#include "mainwindow.h"

#include "distributionplot.h"
#include "fileopener.h"
#include "liveplot.h"
#include "loadedfile.h"
#include "plotstyle.h"
#include "plotsview.h"
#include "qcp.h"
#include "resultsmodel.h"
#include "runlabel.h"
#include "sessionstore.h"

#include "ctxscope/csv.h"
#include "ctxscope/results_file.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSaveFile>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>

namespace ctxscope::gui {

namespace {
// Results read from files get ids far above the worker's run ids.
constexpr quint64 kOpenedIdBase = quint64 { 1 } << 40;
} // namespace

Status MainWindow::saveResults(const QString& path) const
{
    std::vector<RunResult> results;
    for (const ResultRow& row : m_store->runs())
        results.push_back(*row.result);
    if (results.empty())
        return makeError("there are no results to save yet");
    const nlohmann::json context
        = m_controller->workerContext().is_null() ? nlohmann::json::object() : m_controller->workerContext();
    const bool csv = path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive);
    const std::string text = csv ? resultsToCsv(context, results) : makeReport(context, results, true).dump(2) + '\n';
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0
        || !file.commit())
        return makeError("could not write " + path.toStdString() + ": " + file.errorString().toStdString());
    return {};
}

Status MainWindow::openResults(const QString& path)
{
    auto opened = readDocument(path, DocumentKind::Results);
    if (!opened)
        return opened.error();
    return showDocument(std::move(*opened));
}

Status MainWindow::showDocument(OpenedDocument document)
{
    if (document.session)
        return showSession(std::move(*document.session), document.file.name);
    auto* file = &document.file;
    if (file->sweep) {
        addSweep(file->sweep);
        return {};
    }
    if (file->matrix)
        addMatrix(file->matrix, file->name);
    addResultRows(std::move(file->results.results), file->name);
    return {};
}

std::vector<ResultRow> MainWindow::rowsOf(std::vector<RunResult> results)
{
    std::vector<ResultRow> rows;
    for (RunResult& r : results)
        rows.push_back({ kOpenedIdBase + m_opened++, std::make_shared<const RunResult>(std::move(r)),
            runColor(m_runsStarted++, palette()) });
    return rows;
}

void MainWindow::addResultRows(std::vector<RunResult> results, const QString& origin)
{
    for (ResultRow& row : rowsOf(std::move(results)))
        m_store->addRun(std::move(row), origin);
    fitResultColumns();
}

void MainWindow::drawRun(const ResultRow& row, const QString& origin)
{
    const QString label
        = origin.isEmpty() ? runLabel(*row.result) : runLabel(*row.result) + QStringLiteral(" · ") + origin;
    // A run measured here drew its live curve as it streamed; one read from a file draws it now.
    if (!origin.isEmpty() && !row.result->samples.empty()) {
        m_plots->livePlot()->beginRun(row.id, label, row.color);
        m_plots->livePlot()->addSamples(
            row.id, QVector<double>(row.result->samples.begin(), row.result->samples.end()));
        m_plots->livePlot()->finishRun(row.id);
    }
    m_plots->distributionPlot()->addResult(row.id, row.result, label, row.color);
}

Status MainWindow::exportPlot(const QString& path) const
{
    QCustomPlot* plot = m_plots->currentPlot();
    bool ok = false;
    if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(plot->size());
        svg.setViewBox(QRect(QPoint(0, 0), plot->size()));
        svg.setTitle(QStringLiteral("ctxscope"));
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, plot->width(), plot->height());
            ok = painter.end();
        }
    } else if (path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)) {
        ok = plot->savePdf(path);
    } else {
        ok = plot->savePng(path, 0, 0, 2.0); // twice the pixels: sharp on slides
    }
    return ok ? Status() : Status(makeError("could not write " + path.toStdString()));
}

void MainWindow::createFileActions(QMenu* file)
{
    QAction* open = file->addAction(tr("&Open results..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open results"), QString(), tr("ctxscope results (*.json);;All files (*)"));
        if (!path.isEmpty())
            m_opener->open({ path }, DocumentKind::Results);
    });
    open->setShortcut(QKeySequence::Open);
    QAction* save = file->addAction(tr("&Save results..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save results"), QStringLiteral("ctxscope.json"),
            tr("JSON, Google Benchmark format (*.json);;CSV (*.csv)"));
        if (path.isEmpty())
            return;
        if (const Status s = saveResults(path); !s)
            QMessageBox::warning(this, tr("Save results"), QString::fromStdString(s.error().message));
        else
            statusBar()->showMessage(tr("Saved %1").arg(path), 10000);
    });
    save->setShortcut(QKeySequence::Save);
    QAction* exportAction = file->addAction(tr("&Export plot..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export plot"), QStringLiteral("ctxscope.png"), tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
        if (path.isEmpty())
            return;
        if (const Status s = exportPlot(path); !s)
            QMessageBox::warning(this, tr("Export plot"), QString::fromStdString(s.error().message));
        else
            statusBar()->showMessage(tr("Exported %1").arg(path), 10000);
    });
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
}

} // namespace ctxscope::gui
