// `llamafit-cli engines` finds the llama-server builds on PATH and runs each: the Debian
// llama-server 0.7.0 the rig fetched, once with the CPU backend and once with Vulkan (lavapipe),
// and a program that only pretends to be llama-server, listed with its error.

#include "tests/integration/scratchdirectory.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"

#include <QFile>
#include <QProcess>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>

namespace llamafit::test {
namespace {

TEST(EnginesCli, ListsEachBuildOnPathWithItsBuildAndDevices) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const auto cpu = findLlamaServer();
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    const auto gpu = findGpuLlamaServer();
    ASSERT_TRUE(gpu.ok()) << gpu.error().message;
    std::string error;
    const std::string fake = scratchDirectory(error) + "/fake-engine";
    std::filesystem::create_directories(fake);
    {
        QFile script(QString::fromStdString(fake + "/llama-server"));
        ASSERT_TRUE(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\necho 'not llama.cpp'\n");
    }
    std::filesystem::permissions(fake + "/llama-server", std::filesystem::perms::owner_all);

    const QString path =
        QString::fromStdString(std::filesystem::path(*cpu).parent_path().string() + ":" +
                               std::filesystem::path(*gpu).parent_path().string() + ":" + fake) +
        QStringLiteral(":/usr/bin:/bin");
    QProcess cli;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("PATH"), path);
    cli.setProcessEnvironment(environment);
    cli.start(QStringLiteral(LLAMAFIT_CLI_PATH), {QStringLiteral("engines"), QStringLiteral("--json")});
    ASSERT_TRUE(cli.waitForFinished(180000));
    ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    const auto json = nlohmann::json::parse(cli.readAllStandardOutput().toStdString(), nullptr, false);
    ASSERT_FALSE(json.is_discarded());
    const auto find = [&](const std::string& program) -> nlohmann::json {
        for (const auto& engine : json["engines"]) {
            if (engine["path"] == program) {
                return engine;
            }
        }
        return nullptr;
    };
    const nlohmann::json cpuEngine = find(*cpu);
    ASSERT_FALSE(cpuEngine.is_null()) << json.dump(2);
    EXPECT_EQ(cpuEngine["origin"], "PATH");
    EXPECT_EQ(cpuEngine["build_number"], 11669);
    EXPECT_TRUE(cpuEngine["error"].is_null()) << cpuEngine.dump(2);
    const nlohmann::json gpuEngine = find(*gpu);
    ASSERT_FALSE(gpuEngine.is_null()) << json.dump(2);
    ASSERT_GE(gpuEngine["devices"].size(), 1U) << gpuEngine.dump(2);
    EXPECT_EQ(gpuEngine["devices"][0]["name"], "Vulkan0");
    const nlohmann::json fakeEngine = find(fake + "/llama-server");
    ASSERT_FALSE(fakeEngine.is_null()) << json.dump(2);
    EXPECT_FALSE(fakeEngine["error"].is_null());
}

} // namespace
} // namespace llamafit::test
