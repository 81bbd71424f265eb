// defaultLlamaBenchProgram: where llama-bench is looked for when the user names none -- the
// environment's choice, else next to the llama-server in use (".exe" kept on Windows builds).
#include "core/system/benchplan.h"

#include <QtGlobal>

#include <QDir>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

class LlamaBenchProgram : public ::testing::Test {
  protected:
    void SetUp() override {
        m_bench = qgetenv("LLAMAFIT_LLAMA_BENCH");
        m_server = qgetenv("LLAMAFIT_LLAMA_SERVER");
        qunsetenv("LLAMAFIT_LLAMA_BENCH");
        qunsetenv("LLAMAFIT_LLAMA_SERVER");
    }
    void TearDown() override {
        restore("LLAMAFIT_LLAMA_BENCH", m_bench);
        restore("LLAMAFIT_LLAMA_SERVER", m_server);
    }
    static void restore(const char* name, const QByteArray& value) {
        if (value.isNull()) {
            qunsetenv(name);
        } else {
            qputenv(name, value);
        }
    }
    QByteArray m_bench;
    QByteArray m_server;
};

// "/opt/llama/..." on Linux, "C:/opt/llama/..." on Windows: absolute on each.
QString underRoot(const char* relative) {
    return QDir::rootPath() + QString::fromUtf8(relative);
}

TEST_F(LlamaBenchProgram, IsTheOneNextToTheServerInUse) {
    EXPECT_EQ(defaultLlamaBenchProgram(underRoot("opt/llama/bin/llama-server")),
              underRoot("opt/llama/bin/llama-bench"));
    EXPECT_EQ(defaultLlamaBenchProgram(underRoot("opt/llama/llama-server.exe")),
              underRoot("opt/llama/llama-bench.exe"));
    qputenv("LLAMAFIT_LLAMA_SERVER", underRoot("srv/llama/llama-server").toUtf8());
    EXPECT_EQ(defaultLlamaBenchProgram({}), underRoot("srv/llama/llama-bench"));
}

TEST_F(LlamaBenchProgram, TheEnvironmentWinsAndABareServerNameMeansThePath) {
    qputenv("LLAMAFIT_LLAMA_BENCH", "/elsewhere/my-bench");
    EXPECT_EQ(defaultLlamaBenchProgram(QStringLiteral("/opt/llama/bin/llama-server")),
              QStringLiteral("/elsewhere/my-bench"));
    qunsetenv("LLAMAFIT_LLAMA_BENCH");
    // "llama-server" found on the PATH: llama-bench is looked for on the PATH too.
    EXPECT_TRUE(
        defaultLlamaBenchProgram(QStringLiteral("llama-server")).endsWith(QStringLiteral("llama-bench")));
}

} // namespace
} // namespace llamafit
