// `llamafit-cli engines --fetch` against a release listing served by a real web server (nginx, the
// Hub emulation's static site), holding the rig's llama-server 0.7.0 packed the way llama.cpp's
// releases are (llama-<tag>/ in a .tar.gz): the build is fetched, checked against its digest,
// unpacked and found with its build number; an archive whose digest does not match is refused
// and nothing of it is unpacked.

#include "tests/integration/scratchdirectory.h"
#include "tests/support/hubemulation.h"
#include "tests/support/hubfixtures.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace llamafit::test {
namespace {

namespace fs = std::filesystem;

const std::string kTag = "b11669";
const std::string kArchive = "llama-b11669-bin-ubuntu-x64.tar.gz";

class EngineFetchTest : public ::testing::Test {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        const auto server = findLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        std::string error;
        m_scratch = scratchDirectory(error) + "/engine-fetch";
        fs::create_directories(m_scratch + "/site");
        auto hub = HubEmulation::start({}, m_scratch + "/site");
        ASSERT_TRUE(hub.ok()) << hub.error().message;
        m_hub = std::make_unique<HubEmulation>(std::move(*hub));
        m_server = *server;
    }

    std::string writeListing(const std::string& name, const std::string& digest) {
        auto url = writeLlamaReleaseSite(*m_hub, m_server, kTag, name, digest);
        EXPECT_TRUE(url.ok()) << url.error().message;
        m_archive = m_hub->staticDirectory() + "/download/" + kTag + "/" + kArchive;
        return url.ok() ? *url : std::string();
    }

    // `llamafit-cli engines --fetch cpu --json` with its data folder in the scratch folder.
    std::pair<int, nlohmann::json> fetch(const std::string& listingUrl, const std::string& dataHome) {
        QProcess cli;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("LLAMAFIT_LLAMA_RELEASES_URL"), QString::fromStdString(listingUrl));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), QString::fromStdString(dataHome));
        environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
        cli.setProcessEnvironment(environment);
        cli.start(QStringLiteral(LLAMAFIT_CLI_PATH), {QStringLiteral("engines"), QStringLiteral("--fetch"),
                                                      QStringLiteral("cpu"), QStringLiteral("--json")});
        EXPECT_TRUE(cli.waitForFinished(300000));
        return {cli.exitCode(),
                nlohmann::json::parse(cli.readAllStandardOutput().toStdString(), nullptr, false)};
    }

    std::string m_scratch;
    std::string m_archive;
    std::string m_server;
    std::unique_ptr<HubEmulation> m_hub;
};

TEST_F(EngineFetchTest, TheReleaseBuildIsVerifiedUnpackedAndFound) {
    const std::string dataHome = m_scratch + "/data-good";
    const auto [status, json] = fetch(writeListing("good", ""), dataHome);
    ASSERT_EQ(status, 0) << json.dump(2);
    const std::string program = json["fetched"]["program"];
    EXPECT_EQ(program, dataHome + "/llamafit/engines/b11669-cpu/llama-b11669/llama-server");
    EXPECT_TRUE(fs::exists(program));
    bool listed = false;
    for (const auto& engine : json["engines"]) {
        if (engine["path"] == program) {
            listed = true;
            EXPECT_EQ(engine["origin"], "LlamaFit");
            EXPECT_EQ(engine["build_number"], 11669) << engine.dump(2);
        }
    }
    EXPECT_TRUE(listed) << json.dump(2);
    EXPECT_FALSE(fs::exists(dataHome + "/llamafit/engines/.downloads/" + kArchive)) << "the archive was kept";
}

TEST_F(EngineFetchTest, AnArchiveThatDoesNotMatchItsDigestIsNeverUnpacked) {
    const std::string dataHome = m_scratch + "/data-bad";
    const auto [status, json] = fetch(writeListing("bad", std::string(64, 'e')), dataHome);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(json["error"]["code"], "release.digest-mismatch") << json.dump(2);
    const std::string engines = dataHome + "/llamafit/engines";
    EXPECT_FALSE(fs::exists(engines + "/b11669-cpu"));
    EXPECT_FALSE(fs::exists(engines + "/.downloads/" + kArchive));
    EXPECT_FALSE(fs::exists(engines + "/.partial-b11669-cpu"));
}

} // namespace
} // namespace llamafit::test
