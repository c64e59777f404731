// SPDX-License-Identifier: MIT
// The worker stream's line limit seen from the app: a line the controller must refuse during
// a run fails that run with the reason, and the worker is told to stop measuring it.
#include "workerclient.h"

#include "ctxscope/protocol.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

using namespace ctxscope;
using namespace ctxscope::gui;

namespace {

// The real worker; what the app sends it and what it answers are copied to files ($1, $2),
// and just before the first line of the worker's that contains $3 a line of 1.1 MB (over
// protocol::kMaxLineBytes) is slipped into its stream.
const QString kScript = QStringLiteral(R"sh(tee "$1" | "$0" worker | tee "$2" | while IFS= read -r line; do
    case $line in *"$3"*)
        if [ -z "$done" ]; then
            done=1
            head -c 1100000 /dev/zero | tr '\0' x; echo
        fi;;
    esac
    printf '%s\n' "$line"
done)sh");

// Waits until the file holds `needle` (what a tee in the worker's pipeline copied there).
bool fileGets(const QString& path, const QByteArray& needle, QByteArray& text)
{
    return QTest::qWaitFor(
        [&] {
            QFile file(path);
            text = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
            return text.contains(needle);
        },
        10'000);
}

// A controller on the real worker wrapped in kScript (the 1.1 MB line before the first line
// containing `before`), a one-repetition futex spec with both tasks on this machine's first
// allowed PU, and spies on what the controller reports.
struct Rig {
    explicit Rig(const QString& before)
    {
        auto live = Topology::loadLive();
        EXPECT_TRUE(live.ok());
        const int cpu = live ? live->allowedPus().front() : 0;
        spec.bench = "futex";
        spec.cpus = { cpu, cpu };
        spec.repetitions = 1;
        controller.setWorkerCommand(QStringLiteral("/bin/sh"),
            { QStringLiteral("-c"), kScript, WorkerClient::defaultProgram(), commands, replies, before });
    }

    QTemporaryDir dir;
    const QString commands = dir.filePath(QStringLiteral("commands"));
    const QString replies = dir.filePath(QStringLiteral("replies"));
    WorkerClient controller;
    QSignalSpy failed { &controller, &WorkerClient::runFailed };
    QSignalSpy garbage { &controller, &WorkerClient::protocolError };
    QSignalSpy results { &controller, &WorkerClient::resultAvailable };
    BenchSpec spec;
};

} // namespace

TEST(WorkerClientLimits, AnOversizedLineFailsTheRunStopsItInTheWorkerAndTheNextRunWorks)
{
    Rig rig(QStringLiteral(R"("type":"progress")"));
    auto& [dir, commands, replies, controller, failed, garbage, results, spec] = rig;
    spec.minTimeSeconds = 30; // only the cancel can end it within the waits below
    const auto id = controller.start(spec);
    ASSERT_TRUE(id.has_value());
    ASSERT_TRUE(failed.wait(60'000));
    EXPECT_EQ(failed.at(0).at(0).toULongLong(), *id);
    const QString why = failed.at(0).at(1).toString();
    EXPECT_TRUE(why.contains(QStringLiteral("longer than the %1 allowed").arg(protocol::kMaxLineBytes)))
        << why.toStdString();
    EXPECT_EQ(controller.state(), WorkerClient::State::Idle);

    // The app told the worker to stop, and the worker did.
    QByteArray text;
    EXPECT_TRUE(
        fileGets(commands, QByteArray::fromStdString(protocol::commandLine(protocol::CancelCommand { *id })), text))
        << text.toStdString();
    ASSERT_TRUE(fileGets(replies, QByteArray::fromStdString(protocol::cancelledLine(*id)), text))
        << "the worker still measures the abandoned run";
    // The next run is taken.
    spec.minTimeSeconds = 0.01;
    const auto next = controller.start(spec);
    ASSERT_TRUE(next.has_value());
    ASSERT_TRUE(results.wait(60'000)) << (failed.size() > 1 ? failed.at(1).at(1).toString().toStdString() : "");
    EXPECT_EQ(results.at(0).at(0).toULongLong(), *next);
    EXPECT_EQ(garbage.size(), 1) << "only the oversized line is reported";
}

TEST(WorkerClientLimits, WhatTheWorkerSaysOfAnAbandonedRunIsDroppedWithoutAWord)
{
    // The refused line comes just before the run's result: the worker has finished when the
    // cancel reaches it and answers that no such run is in progress. That is no news for the
    // user, whose run already failed with the reason.
    Rig rig(QStringLiteral(R"("type":"result")"));
    auto& [dir, commands, replies, controller, failed, garbage, results, spec] = rig;
    spec.iterations = 2000;
    const auto id = controller.start(spec);
    ASSERT_TRUE(id.has_value());
    ASSERT_TRUE(failed.wait(60'000));
    QByteArray text;
    ASSERT_TRUE(fileGets(replies, QByteArrayLiteral(R"("type":"error")"), text))
        << "the worker answers the late cancel: " << text.toStdString();
    const auto next = controller.start(spec); // its result comes after that answer
    ASSERT_TRUE(next.has_value());
    ASSERT_TRUE(results.wait(60'000));
    EXPECT_EQ(results.at(0).at(0).toULongLong(), *next);
    EXPECT_EQ(garbage.size(), 1) << "only the oversized line is reported, not the worker's answer to the late cancel: "
                                 << garbage.last().at(0).toString().toStdString();
}
