#pragma once
// A gtest fixture for tests that drive a ServerProcess against the real llama-server on the
// tiny real-weight model: finds the server, writes the model, waits for states through
// QSignalSpy (never sleeps), and stops whatever server a test started in TearDown.
// Used by serverprocess_test.cpp and serverload_test.cpp.

#include "core/system/serverprocess.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"
#include "tests/support/serverprocesswait.h"

#include <QDeadlineTimer>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace llamafit::test {

class ServerProcessFixture : public ::testing::Test {
  protected:
    using State = ServerProcess::State;

    explicit ServerProcessFixture(std::string modelFileName) : m_modelFileName(std::move(modelFileName)) {}

    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const auto server = findLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        m_server = QString::fromStdString(*server);
        std::string error;
        const std::string& directory = scratchDirectory(error);
        ASSERT_FALSE(directory.empty()) << error;
        m_model = directory + "/" + m_modelFileName;
        const auto written = writeTinyModel(m_model);
        ASSERT_TRUE(written.ok()) << written.error().message;
    }

    // Every server a test started is stopped here, whatever the test did.
    void TearDown() override {
        if (m_process.state() != State::Stopped && m_process.state() != State::Failed) {
            QSignalSpy spy(&m_process, &ServerProcess::stateChanged);
            m_process.stop();
            waitForState(spy, State::Stopped, 15000);
        }
    }

    // Waits for `target` (or Failed) through the spy; true when `target` was reached.
    bool waitForState(QSignalSpy& spy, State target, int timeoutMs) {
        return waitForServerState(m_process, spy, target, timeoutMs);
    }

    std::string m_modelFileName;
    QString m_server;
    std::string m_model;
    ServerProcess m_process;
};

} // namespace llamafit::test
