// SPDX-License-Identifier: MIT
// The worker stream's line limit seen from the app: a line the controller must refuse during
// a run fails that run with the reason, and the worker is told to stop measuring it.
#include "runcontroller.h"

#include "ctxscope/protocol.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

TEST(RunControllerLimits, AnOversizedLineFailsTheRunAndCancelsItInTheWorker)
{
    auto live = Topology::loadLive();
    ASSERT_TRUE(live.ok());
    const int cpu = live->allowedPus().front();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString commands = dir.filePath(QStringLiteral("commands"));
    // The real worker; what the app sends it is copied to a file, and after its first progress
    // line a line of 1.1 MB (over protocol::kMaxLineBytes) is slipped into its stream.
    const QString script = QStringLiteral(R"sh(tee "$1" | "$0" worker | while IFS= read -r line; do
    printf '%s\n' "$line"
    case $line in *'"type":"progress"'*)
        if [ -z "$done" ]; then
            done=1
            head -c 1100000 /dev/zero | tr '\0' x; echo
        fi;;
    esac
done)sh");
    RunController controller;
    controller.setWorkerCommand(
        QStringLiteral("/bin/sh"), { QStringLiteral("-c"), script, RunController::defaultProgram(), commands });
    QSignalSpy failed(&controller, &RunController::runFailed);
    BenchSpec spec;
    spec.bench = "futex";
    spec.cpus = { cpu, cpu };
    spec.minTimeSeconds = 30; // long enough that only the cancel ends it within the wait below
    spec.repetitions = 1;
    const auto id = controller.start(spec);
    ASSERT_TRUE(id.has_value());
    ASSERT_TRUE(failed.wait(60'000));
    EXPECT_EQ(failed.at(0).at(0).toULongLong(), *id);
    const QString why = failed.at(0).at(1).toString();
    EXPECT_TRUE(why.contains(QStringLiteral("longer than the %1 allowed").arg(protocol::kMaxLineBytes)))
        << why.toStdString();
    EXPECT_EQ(controller.state(), RunController::State::Idle);
    // The app no longer listens for that id, so look at what it sent the worker.
    const QByteArray cancel = QByteArray::fromStdString(protocol::commandLine(protocol::CancelCommand { *id }));
    QByteArray text;
    const bool sent = QTest::qWaitFor(
        [&] {
            QFile file(commands);
            text = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
            return text.contains(cancel);
        },
        5000);
    EXPECT_TRUE(sent) << text.toStdString();
}
