// The new user's path as pictures (issue 31): "Get models" on a Hugging Face repo -- its quants
// sized for the machine with the recommendation -- then the download done, then the llama-server
// builds with llama.cpp's release build fetched. Against the Hub and the releases emulated by
// nginx on loopback (tests/support/hubemulation.h), like the first-run GUI test.

#include "tests/gui/screenshots/screenshotdriver.h"

#include "core/system/enginefetch.h"
#include "tests/support/hubemulation.h"
#include "tests/support/hubfixtures.h"
#include "tests/support/llamaserverrun.h"
#include "ui/hub/enginesdialog.h"
#include "ui/hub/getmodelsdialog.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>

namespace llamafit {

namespace {} // namespace

Result<bool> ScreenshotDriver::newUserPath() {
    const std::string folder = m_directory.filePath(QStringLiteral("new-user")).toStdString();
    QDir().mkpath(QString::fromStdString(folder + "/fixture"));
    QDir().mkpath(QString::fromStdString(folder + "/site"));
    auto files = test::tinyHubRepoFiles(folder + "/fixture");
    if (!files) {
        return files.error();
    }
    const std::string repo = "llamafit-test/Tiny-GGUF";
    test::HubEmulationOptions options;
    options.searchResultIds = {repo};
    auto hub = test::HubEmulation::start({test::HubFixtureRepo{repo, std::string(40, 'c'), *files, false}},
                                         folder + "/site", options);
    if (!hub) {
        return hub.error();
    }
    auto server = test::findLlamaServer();
    if (!server) {
        return server.error();
    }
    auto releases = test::writeLlamaReleaseSite(*hub, *server, "b11669", "screenshots");
    if (!releases) {
        return releases.error();
    }
    qputenv("MODEL_ENDPOINT", QByteArray::fromStdString(hub->endpoint()));
    qputenv("LLAMAFIT_LLAMA_RELEASES_URL", QByteArray::fromStdString(*releases));
    qputenv("HF_HUB_CACHE", QByteArray::fromStdString(folder + "/hf-cache"));
    qputenv("LLAMAFIT_ENGINES_DIR", QByteArray::fromStdString(folder + "/engines"));

    m_window->findChild<QAction*>(QStringLiteral("getModelsAction"))->trigger();
    auto* models = m_window->findChild<GetModelsDialog*>();
    if (models == nullptr) {
        return screenshotFailure("10-get-models", QStringLiteral("no Get models dialog"));
    }
    models->resize(1200, 640);
    QSignalSpy searched(models, &GetModelsDialog::searchFinished);
    models->findChild<QLineEdit*>(QStringLiteral("hubQuery"))->setText(QStringLiteral("tiny"));
    models->findChild<QPushButton*>(QStringLiteral("hubSearchButton"))->click();
    if (!searched.wait(30000)) {
        return screenshotFailure("10-get-models", QStringLiteral("the search did not answer"));
    }
    QSignalSpy sized(models, &GetModelsDialog::repoSized);
    models->findChild<QTableWidget*>(QStringLiteral("hubResults"))->selectRow(0);
    if (!sized.wait(30000) || !sized.back().front().toBool()) {
        return screenshotFailure("10-get-models", QStringLiteral("the repo was not sized"));
    }
    if (auto saved = saveOverWindow(models, QStringLiteral("10-get-models.png")); !saved) {
        return saved;
    }
    QSignalSpy downloaded(models, &GetModelsDialog::modelDownloaded);
    models->findChild<QPushButton*>(QStringLiteral("hubDownloadButton"))->click();
    if (!downloaded.wait(120000)) {
        return screenshotFailure("11-downloaded", QStringLiteral("the download did not finish"));
    }
    if (auto saved = saveOverWindow(models, QStringLiteral("11-downloaded.png")); !saved) {
        return saved;
    }
    models->close();

    m_window->findChild<QAction*>(QStringLiteral("enginesAction"))->trigger();
    auto* engines = m_window->findChild<EnginesDialog*>();
    if (engines == nullptr) {
        return screenshotFailure("12-engine", QStringLiteral("no llama-server builds dialog"));
    }
    engines->resize(1200, 420);
    QSignalSpy refreshed(engines, &EnginesDialog::refreshed);
    if (!refreshed.wait(60000)) {
        return screenshotFailure("12-engine", QStringLiteral("the builds were not listed"));
    }
    auto* backend = engines->findChild<QComboBox*>(QStringLiteral("engineBackendCombo"));
    backend->setCurrentIndex(backend->findText(QStringLiteral("cpu")));
    QSignalSpy chosen(engines, &EnginesDialog::engineChosen);
    engines->findChild<QPushButton*>(QStringLiteral("fetchEngineButton"))->click();
    if (!chosen.wait(300000) || !refreshed.wait(60000)) {
        return screenshotFailure("12-engine", QStringLiteral("llama.cpp's build was not fetched"));
    }
    auto saved = saveOverWindow(engines, QStringLiteral("12-engine.png"));
    engines->close();
    qunsetenv("LLAMAFIT_ENGINES_DIR");
    qunsetenv("MODEL_ENDPOINT");
    qunsetenv("LLAMAFIT_LLAMA_RELEASES_URL");
    qunsetenv("HF_HUB_CACHE");
    return saved;
}

} // namespace llamafit
