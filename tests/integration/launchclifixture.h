#pragma once
// A gtest fixture for running `llamafit-cli launch` against the real llama-server on the tiny
// real-weight model: finds the server, writes the model, reads the CLI's output through
// QSignalSpy (never sleeps) and kills the CLI (and with it its server) in TearDown.
// Used by launchcli_test.cpp and launchmemory_test.cpp.

#include "tests/integration/scratchdirectory.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <string>

namespace llamafit::test {

class LaunchCliFixture : public ::testing::Test {
  protected:
    explicit LaunchCliFixture(std::string modelFileName) : m_modelFileName(std::move(modelFileName)) {}

    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const auto server = findLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        m_server = QString::fromStdString(*server);
        std::string error;
        const std::string& directory = scratchDirectory(error);
        ASSERT_FALSE(directory.empty()) << error;
        m_model = QString::fromStdString(directory + "/" + m_modelFileName);
        const auto written = writeTinyModel(m_model.toStdString());
        ASSERT_TRUE(written.ok()) << written.error().message;
    }

    // The CLI (and with it its server) never outlives a test.
    void TearDown() override {
        if (m_cli.state() != QProcess::NotRunning) {
            m_cli.kill();
            m_cli.waitForFinished(5000);
        }
    }

    // Reads the CLI's stdout until it holds `text` or the CLI exits; returns all read so far.
    QByteArray readUntil(const QByteArray& text, int timeoutMs) {
        QSignalSpy output(&m_cli, &QProcess::readyReadStandardOutput);
        QDeadlineTimer deadline(timeoutMs);
        m_output += m_cli.readAllStandardOutput();
        while (!m_output.contains(text) && m_cli.state() != QProcess::NotRunning && !deadline.hasExpired()) {
            output.wait(500);
            m_output += m_cli.readAllStandardOutput();
        }
        return m_output;
    }

    std::string m_modelFileName;
    QString m_server;
    QString m_model;
    QProcess m_cli;
    QByteArray m_output;
};

} // namespace llamafit::test
