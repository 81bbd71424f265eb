#pragma once
// Waiting on a ServerProcess and on the orphan helper (tests/support/orphanhelper.cpp) through
// Qt's signals, never sleeps: shared by the Linux integration tests and the Windows launch tests
// (tests/windows). Test support only; header-only (Qt Core and Test, core/system).

#include "core/system/serverprocess.h"

#include <QByteArray>
#include <QDeadlineTimer>
#include <QProcess>
#include <QSignalSpy>

#include <algorithm>

namespace llamafit::test {

// Waits for `target` (or Failed) through `spy` on `process`'s stateChanged; true when `target`
// was reached within `timeoutMs`.
inline bool waitForServerState(const ServerProcess& process, QSignalSpy& spy, ServerProcess::State target,
                               int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (process.state() != target) {
        if (process.state() == ServerProcess::State::Failed || deadline.hasExpired() ||
            !spy.wait(static_cast<int>(std::max<qint64>(deadline.remainingTime(), 1)))) {
            return process.state() == target;
        }
    }
    return true;
}

// What `helper` printed up to its first line, or all it printed before it ended or `timeoutMs`
// passed (`output` spies its readyReadStandardOutput).
inline QByteArray readFirstLine(QProcess& helper, QSignalSpy& output, int timeoutMs) {
    QByteArray printed;
    QDeadlineTimer deadline(timeoutMs);
    while (!printed.contains('\n') && helper.state() != QProcess::NotRunning && !deadline.hasExpired()) {
        output.wait(1000);
        printed += helper.readAllStandardOutput();
    }
    return printed + helper.readAllStandardOutput();
}

} // namespace llamafit::test
