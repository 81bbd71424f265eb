// `llamafit-cli engines --fetch` against a release listing served by a real web server (nginx, the
// Hub emulation's static site), holding the rig's llama-server 0.7.0 packed the way llama.cpp's
// releases are (llama-<tag>/ in a .tar.gz): the build is fetched, checked against its digest,
// unpacked and found with its build number; an archive whose digest does not match is refused
// and nothing of it is unpacked.

#include "tests/integration/scratchdirectory.h"
#include "tests/support/hubemulation.h"
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

std::string sha256Of(const std::string& path) {
    QFile file(QString::fromStdString(path));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly));
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&file);
    return hash.result().toHex().toStdString();
}

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
        // The rig's CPU llama-server (its wrapper and the unpacked Debian root) as a release archive.
        const std::string download = m_hub->staticDirectory() + "/download/" + kTag;
        fs::create_directories(download);
        m_archive = download + "/" + kArchive;
        QProcess tar;
        tar.start(QStringLiteral("tar"),
                  {QStringLiteral("--transform"), QStringLiteral("s,^,llama-b11669/,S") /* not the symlinks' targets */, QStringLiteral("-C"),
                   QString::fromStdString(fs::path(*server).parent_path().string()), QStringLiteral("-I"),
                   QStringLiteral("gzip -1"), QStringLiteral("-cf"), QString::fromStdString(m_archive),
                   QStringLiteral("llama-server"), QStringLiteral("root")});
        ASSERT_TRUE(tar.waitForFinished(300000));
        ASSERT_EQ(tar.exitCode(), 0) << tar.readAllStandardError().toStdString();
    }

    // Writes the listing with `digest` for the Linux CPU build, and returns its URL.
    std::string writeListing(const std::string& name, const std::string& digest) {
        const std::string url = m_hub->cdnOrigin() + "/static/download/" + kTag + "/" + kArchive;
        nlohmann::json listing{
            {"tag_name", kTag},
            {"assets",
             {{{"name", kArchive}, {"size", fs::file_size(m_archive)}, {"browser_download_url", url}, {"digest", "sha256:" + digest}},
              // Builds for other systems, one without a digest: never chosen here.
              {{"name", "llama-" + kTag + "-bin-win-vulkan-x64.zip"}, {"size", 1}, {"browser_download_url", url}}}}};
        const std::string folder = m_hub->staticDirectory() + "/repos/ggml-org/llama.cpp/releases/" + name;
        fs::create_directories(folder);
        std::ofstream(folder + "/latest") << listing.dump();
        return m_hub->cdnOrigin() + "/static/repos/ggml-org/llama.cpp/releases/" + name + "/latest";
    }

    // `llamafit-cli engines --fetch cpu --json` with its data folder in the scratch folder.
    std::pair<int, nlohmann::json> fetch(const std::string& listingUrl, const std::string& dataHome) {
        QProcess cli;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("LLAMAFIT_LLAMA_RELEASES_URL"), QString::fromStdString(listingUrl));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), QString::fromStdString(dataHome));
        environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
        cli.setProcessEnvironment(environment);
        cli.start(QStringLiteral(LLAMAFIT_CLI_PATH),
                  {QStringLiteral("engines"), QStringLiteral("--fetch"), QStringLiteral("cpu"), QStringLiteral("--json")});
        EXPECT_TRUE(cli.waitForFinished(300000));
        return {cli.exitCode(), nlohmann::json::parse(cli.readAllStandardOutput().toStdString(), nullptr, false)};
    }

    std::string m_scratch;
    std::string m_archive;
    std::unique_ptr<HubEmulation> m_hub;
};

TEST_F(EngineFetchTest, TheReleaseBuildIsVerifiedUnpackedAndFound) {
    const std::string dataHome = m_scratch + "/data-good";
    const auto [status, json] = fetch(writeListing("good", sha256Of(m_archive)), dataHome);
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
