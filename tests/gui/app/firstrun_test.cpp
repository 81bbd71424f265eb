// From nothing to a running model, as a new user meets the app: no model file and no llama-server
// on the machine. Through the real main window and its dialogs, against a real web server (the
// Hugging Face Hub and llama.cpp's releases, emulated on loopback by nginx): search, the
// recommended quant, its download, llama.cpp's build fetched and checked against its digest,
// Launch, Ready, and tokens from the server. The build is the rig's llama-server 0.7.0 packed as
// a release (hubfixtures.h writeLlamaReleaseSite); nothing is brought by hand.

#include "core/system/enginefetch.h"
#include "tests/gui/app/mainwindowfixture.h"
#include "tests/support/hubemulation.h"
#include "tests/support/hubfixtures.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "ui/hub/enginesdialog.h"
#include "ui/hub/getmodelsdialog.h"
#include "ui/launch/launchpanel.h"

#include <QAction>
#include <QComboBox>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QTableWidget>

namespace llamafit {
namespace {

const std::string kRepo = "llamafit-test/Tiny-GGUF";
const std::string kCommit = "fedcba9876543210fedcba9876543210fedcba98";

class FirstRunTest : public test::MainWindowFixture {
  protected:
    void SetUp() override {
        LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
        MainWindowFixture::SetUp();
        const auto server = test::findLlamaServer();
        ASSERT_TRUE(server.ok()) << server.error().message;
        const std::string dir = m_directory.path().toStdString();
        QDir().mkpath(QString::fromStdString(dir + "/fixture"));
        QDir().mkpath(QString::fromStdString(dir + "/site"));
        auto files = test::tinyHubRepoFiles(dir + "/fixture");
        ASSERT_TRUE(files.ok()) << files.error().message;
        test::HubEmulationOptions options;
        options.searchResultIds = {kRepo};
        auto hub = test::HubEmulation::start({test::HubFixtureRepo{kRepo, kCommit, *files, false}},
                                             dir + "/site", options);
        ASSERT_TRUE(hub.ok()) << hub.error().message;
        m_hub = std::make_unique<test::HubEmulation>(std::move(*hub));
        auto releases = test::writeLlamaReleaseSite(*m_hub, *server, "b11669", "first-run");
        ASSERT_TRUE(releases.ok()) << releases.error().message;
        // A fresh machine: no llama-server anywhere the app looks, the caches empty.
        m_environment = {{"MODEL_ENDPOINT", m_hub->endpoint()},
                         {"LLAMAFIT_LLAMA_RELEASES_URL", *releases},
                         {"HF_HUB_CACHE", dir + "/hf-cache"},
                         {"LLAMAFIT_ENGINES_DIR", dir + "/engines"},
                         {"PATH", "/usr/bin:/bin"}};
        for (const auto& [name, value] : m_environment) {
            m_saved.emplace_back(name, qgetenv(name.c_str()));
            qputenv(name.c_str(), QByteArray::fromStdString(value));
        }
        m_savedServer = qgetenv("LLAMAFIT_LLAMA_SERVER");
        qunsetenv("LLAMAFIT_LLAMA_SERVER");
        qunsetenv("LLAMA_CACHE");
    }
    void TearDown() override {
        MainWindowFixture::TearDown(); // closes the window, stopping the server
        m_hub.reset();
        for (const auto& [name, value] : m_saved) {
            qputenv(name.c_str(), value);
        }
        if (!m_savedServer.isEmpty()) {
            qputenv("LLAMAFIT_LLAMA_SERVER", m_savedServer);
        }
    }

    template <typename T> T* dialogChild(QWidget* dialog, const char* name) {
        T* widget = dialog->findChild<T*>(QString::fromLatin1(name));
        EXPECT_NE(widget, nullptr) << name;
        return widget;
    }

    std::unique_ptr<test::HubEmulation> m_hub;
    std::vector<std::pair<std::string, std::string>> m_environment;
    std::vector<std::pair<std::string, QByteArray>> m_saved;
    QByteArray m_savedServer;
};

TEST_F(FirstRunTest, FromNothingToTokens) {
    openWindow();
    auto* launchPanel = m_window->findChild<LaunchPanel*>();
    ASSERT_NE(launchPanel, nullptr);
    EXPECT_TRUE(launchPanel->serverBinary().isEmpty())
        << "a llama-server was found: " << launchPanel->serverBinary().toStdString();

    // Get models: search, pick the repo, download the recommended quant.
    m_window->findChild<QAction*>(QStringLiteral("getModelsAction"))->trigger();
    auto* models = m_window->findChild<GetModelsDialog*>();
    ASSERT_NE(models, nullptr);
    QSignalSpy searched(models, &GetModelsDialog::searchFinished);
    dialogChild<QLineEdit>(models, "hubQuery")->setText(QStringLiteral("tiny"));
    QTest::mouseClick(dialogChild<QPushButton>(models, "hubSearchButton"), Qt::LeftButton);
    ASSERT_TRUE(searched.wait(30000));
    QSignalSpy sized(models, &GetModelsDialog::repoSized);
    dialogChild<QTableWidget>(models, "hubResults")->selectRow(0);
    ASSERT_TRUE(sized.wait(30000));
    ASSERT_TRUE(sized.back().front().toBool())
        << dialogChild<QLabel>(models, "hubStatus")->text().toStdString();
    ASSERT_TRUE(models->fitTable().recommended.has_value());
    QSignalSpy downloaded(models, &GetModelsDialog::modelDownloaded);
    QTest::mouseClick(dialogChild<QPushButton>(models, "hubDownloadButton"), Qt::LeftButton);
    ASSERT_TRUE(downloaded.wait(120000)) << dialogChild<QLabel>(models, "hubStatus")->text().toStdString();
    const QString modelPath = downloaded.front().at(0).toString();
    EXPECT_EQ(QString::fromStdString(m_session->model().path), modelPath)
        << "the download is the model planned";
    models->close();

    // The engine: llama.cpp's release build for this machine, fetched and checked.
    m_window->findChild<QAction*>(QStringLiteral("enginesAction"))->trigger();
    auto* engines = m_window->findChild<EnginesDialog*>();
    ASSERT_NE(engines, nullptr);
    QSignalSpy refreshed(engines, &EnginesDialog::refreshed);
    ASSERT_TRUE(refreshed.wait(60000));
    EXPECT_TRUE(engines->engines().empty()) << "a fresh machine has no llama-server";
    auto* backend = dialogChild<QComboBox>(engines, "engineBackendCombo");
    backend->setCurrentIndex(backend->findText(QStringLiteral("cpu")));
    QSignalSpy chosen(engines, &EnginesDialog::engineChosen);
    QTest::mouseClick(dialogChild<QPushButton>(engines, "fetchEngineButton"), Qt::LeftButton);
    ASSERT_TRUE(chosen.wait(300000)) << dialogChild<QLabel>(engines, "enginesStatus")->text().toStdString();
    EXPECT_EQ(launchPanel->serverBinary(), chosen.front().front().toString());
    EXPECT_TRUE(launchPanel->serverBinary().startsWith(QString::fromStdString(defaultEnginesRoot())));
    engines->close();

    // Launch, Ready, tokens.
    auto* launch = launchPanel->findChild<QPushButton*>(QStringLiteral("launchButton"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return launch->isEnabled(); }, 60000))
        << launchPanel->launchBlocker().toStdString();
    launch->click();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            return m_window->serverProcess()->state() == State::Ready ||
                   m_window->serverProcess()->state() == State::Failed;
        },
        180000));
    ASSERT_EQ(m_window->serverProcess()->state(), State::Ready) << m_window->serverProcess()->log();
    QNetworkAccessManager network;
    QNetworkRequest request(
        m_window->serverProcess()->baseUrl().resolved(QUrl(QStringLiteral("/completion"))));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    std::unique_ptr<QNetworkReply> reply(network.post(request, R"({"prompt": "Hello", "n_predict": 8})"));
    QEventLoop loop;
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    ASSERT_EQ(reply->error(), QNetworkReply::NoError) << reply->errorString().toStdString();
    const QJsonObject answer = QJsonDocument::fromJson(reply->readAll()).object();
    EXPECT_GT(answer.value(QStringLiteral("tokens_predicted")).toInt(), 0)
        << QJsonDocument(answer).toJson().toStdString();
}

} // namespace
} // namespace llamafit
