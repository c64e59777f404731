// SPDX-License-Identifier: MIT
#pragma once

#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace ctxscope::testing {

// The settings of one test process, in a directory of its own that goes with it. ctest runs
// each test as a process of its own, two at once under -j2: with one settings file for all,
// another test's start (which began from a new user's settings by clearing the file) or a panel
// of another test saving its choices as it closed could land between one test's save and its
// load. Made in main, before any QSettings; QStandardPaths' test mode keeps the other
// locations (the app's data, its cache) out of the user's too.
class PrivateSettings {
public:
    PrivateSettings()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
    }
    bool ok() const { return m_dir.isValid(); }

private:
    QTemporaryDir m_dir;
};

} // namespace ctxscope::testing
