#pragma once
// A gtest fixture for the launch tests: the real llama-server (findLlamaServer), the tiny
// real-weight model written into a QTemporaryDir, a SizingSession on that model for a CPU-only
// machine (like the test machines), the ServerProcess the panel drives, and waits on its
// stateChanged through QSignalSpy with a deadline (never sleeps). Whatever server a test
// started is stopped in TearDown.
// Used by serverlauncher_test.cpp, launchpanel_test.cpp and failuredialog_test.cpp.

#include "core/machine/memorypools.h"
#include "core/model/modelsource.h"
#include "core/system/serverprocess.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"
#include "ui/sizingsession.h"

#include <QDeadlineTimer>
#include <QProcessEnvironment>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llamafit::test {

// A CPU-only Linux machine with 64 GiB of RAM: the estimate places everything on "CPU", as
// llama-server does on the test machines.
inline Machine cpuOnlyMachine() {
    Machine machine;
    machine.id = "test-cpu-only";
    machine.name = "CPU only (test)";
    machine.os = OsKind::Linux;
    MemoryPool ram;
    ram.name = "System RAM";
    ram.kind = PoolKind::HostRam;
    ram.capacityBytes = 64ULL * 1024 * 1024 * 1024;
    machine.pools = {ram};
    machine.hostPoolIndex = 0;
    return machine;
}

// Waits until `done()` or the deadline, one event at a time through `spy`; returns done().
inline bool waitUntil(QSignalSpy& spy, const std::function<bool()>& done, int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (!done() && !deadline.hasExpired()) {
        spy.wait(static_cast<int>(std::clamp<qint64>(deadline.remainingTime(), 1, 1000)));
    }
    return done();
}

class LaunchFixture : public ::testing::Test {
  protected:
    using State = ServerProcess::State;

    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        ASSERT_TRUE(m_directory.isValid());
        const auto server = findLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        m_server = QString::fromStdString(*server);
        m_modelPath = m_directory.filePath(QStringLiteral("launch-tiny.gguf")).toStdString();
        const auto written = writeTinyModel(m_modelPath);
        ASSERT_TRUE(written.ok()) << written.error().message;
        auto loaded = loadModel(m_modelPath);
        ASSERT_TRUE(loaded.ok()) << loaded.error().message;
        m_session = std::make_unique<SizingSession>(cpuOnlyMachine());
        m_session->setModel(std::move(*loaded));
        ServerSettings settings;
        settings.contextTokens = 1024;
        settings.parallelSlots = 1;
        m_session->setSettings(settings);
        // Fast and small: no warm-up run, no automatic fitting, one thread.
        m_session->setExtraArgs({"--no-warmup", "-fit", "off", "-t", "1"});
        // The wrapper preloads libnopopulate.so with this set: sparse loads stay fast.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("LLAMAFIT_NO_POPULATE"), QStringLiteral("1"));
        m_process.setEnvironment(environment);
    }

    void TearDown() override {
        if (m_process.state() != State::Stopped && m_process.state() != State::Failed) {
            QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
            m_process.stop();
            waitForState(spy, State::Stopped, 15000);
        }
    }

    // Waits for `target` (or Failed) through the spy; true when `target` was reached.
    bool waitForState(QSignalSpy& spy, State target, int timeoutMs) {
        return waitUntil(
                   spy, [&] { return m_process.state() == target || m_process.state() == State::Failed; },
                   timeoutMs) &&
               m_process.state() == target;
    }

    QTemporaryDir m_directory;
    QString m_server;
    std::string m_modelPath;
    std::unique_ptr<SizingSession> m_session;
    ServerProcess m_process;
};

} // namespace llamafit::test
