// "Get models" with real widgets against a real web server (the Hub emulated by nginx): search,
// the quant table sized for a machine with its recommendation, a download of the recommended
// quant into the Hugging Face cache that then loads as a local file, and a cancelled download
// that completes when asked again.

#include "ui/hub/getmodelsdialog.h"

#include "core/hub/hubcachelayout.h"
#include "core/machine/machineprofile.h"
#include "core/model/modelsource.h"
#include "tests/support/hubemulation.h"
#include "tests/support/hubfixtures.h"

#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <filesystem>

namespace llamafit::test {
namespace {

const std::string kRepo = "llamafit-test/Tiny-GGUF";
const std::string kCommit = "89abcdef0123456789abcdef0123456789abcdef";

class GetModelsDialogTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(m_folder.isValid());
        const std::string folder = m_folder.path().toStdString();
        std::filesystem::create_directories(folder + "/fixture");
        std::filesystem::create_directories(folder + "/site");
        auto files = tinyHubRepoFiles(folder + "/fixture");
        ASSERT_TRUE(files.ok()) << files.error().message;
        HubEmulationOptions options;
        options.searchResultIds = {kRepo};
        auto hub =
            HubEmulation::start({HubFixtureRepo{kRepo, kCommit, *files, false}}, folder + "/site", options);
        ASSERT_TRUE(hub.ok()) << hub.error().message;
        m_hub = std::make_unique<HubEmulation>(std::move(*hub));
        m_cache = folder + "/hub-cache";
        qputenv("HF_HUB_CACHE", QByteArray::fromStdString(m_cache));
        qunsetenv("LLAMA_CACHE");
        const auto machine = findBuiltinMachine("rtx-4060-8gb");
        ASSERT_TRUE(machine.ok());
        ServerSettings settings;
        settings.contextTokens = 2048;
        HubClientOptions endpoint;
        endpoint.endpoint = m_hub->endpoint();
        m_dialog = std::make_unique<GetModelsDialog>(endpoint, settings, *machine, 1024ULL * 1024 * 1024);
        m_dialog->show();
    }
    void TearDown() override {
        m_dialog.reset(); // its thread and requests end before the Hub does
        m_hub.reset();
        qunsetenv("HF_HUB_CACHE");
    }

    template <typename T> T* child(const char* name) {
        return m_dialog->findChild<T*>(QString::fromLatin1(name));
    }

    // Types the query, presses Search, picks the first repo: the quant table is sized.
    void searchAndPick() {
        QSignalSpy searched(m_dialog.get(), &GetModelsDialog::searchFinished);
        QTest::keyClicks(child<QLineEdit>("hubQuery"), QStringLiteral("tiny"));
        QTest::mouseClick(child<QPushButton>("hubSearchButton"), Qt::LeftButton);
        ASSERT_TRUE(searched.wait(20000));
        ASSERT_EQ(searched.front().front().toBool(), true)
            << child<QLabel>("hubStatus")->text().toStdString();
        auto* results = child<QTableWidget>("hubResults");
        ASSERT_EQ(results->rowCount(), 1);
        EXPECT_EQ(results->item(0, 0)->text().toStdString(), kRepo);
        QSignalSpy sized(m_dialog.get(), &GetModelsDialog::repoSized);
        results->selectRow(0);
        ASSERT_TRUE(sized.wait(20000));
        ASSERT_EQ(sized.front().front().toBool(), true) << child<QLabel>("hubStatus")->text().toStdString();
    }

    QTemporaryDir m_folder;
    std::unique_ptr<HubEmulation> m_hub;
    std::string m_cache;
    std::unique_ptr<GetModelsDialog> m_dialog;
};

TEST_F(GetModelsDialogTest, RecommendsAQuantAndDownloadsIt) {
    searchAndPick();
    auto* quants = child<QTableWidget>("hubQuants");
    ASSERT_EQ(quants->rowCount(), 4); // F32, F16 (two shards), Q8_0, Q4_0
    const QuantFitTable& table = m_dialog->fitTable();
    ASSERT_TRUE(table.recommended.has_value());
    EXPECT_EQ(table.rows[*table.recommended].quant.label,
              "F32"); // the best quality, and it fits an 8 GB card
    EXPECT_TRUE(quants->item(static_cast<int>(*table.recommended), 0)
                    ->text()
                    .contains(QStringLiteral("recommended")));
    EXPECT_EQ(quants->selectedItems().front()->row(), static_cast<int>(*table.recommended));
    // The table is the estimate: verdict column and the largest contexts.
    EXPECT_EQ(quants->item(0, 2)->text(), QStringLiteral("fits"));

    QSignalSpy downloaded(m_dialog.get(), &GetModelsDialog::modelDownloaded);
    QTest::mouseClick(child<QPushButton>("hubDownloadButton"), Qt::LeftButton);
    ASSERT_TRUE(downloaded.wait(60000)) << child<QLabel>("hubStatus")->text().toStdString();
    const QString modelPath = downloaded.front().at(0).toString();
    const QString projectorPath = downloaded.front().at(1).toString();
    const HubCacheLayout layout{m_cache, kRepo};
    EXPECT_EQ(modelPath.toStdString(), layout.snapshotPath(kCommit, "Tiny-F32.gguf"));
    EXPECT_EQ(projectorPath.toStdString(), layout.snapshotPath(kCommit, "mmproj-F16.gguf"));
    EXPECT_TRUE(loadModel(modelPath.toStdString()).ok());
    EXPECT_EQ(child<QProgressBar>("hubProgress")->value(), 1000);
}

TEST_F(GetModelsDialogTest, ACancelledDownloadCompletesWhenAskedAgain) {
    searchAndPick();
    // The F16 pair: the cancel is pressed as soon as its first progress arrives, so some bytes
    // are in; whether the download finished first depends on timing, so both outcomes are checked.
    QSignalSpy failed(m_dialog.get(), &GetModelsDialog::downloadFailed);
    QSignalSpy downloaded(m_dialog.get(), &GetModelsDialog::modelDownloaded);
    m_dialog->download(1);
    m_dialog->cancelDownload();
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() + downloaded.count() == 1, 60000);
    if (failed.count() == 1) {
        EXPECT_TRUE(failed.front().front().toString().contains(QStringLiteral("cancelled")))
            << failed.front().front().toString().toStdString();
        // Download again: it completes (resuming whatever arrived).
        m_dialog->download(1);
        ASSERT_TRUE(downloaded.wait(60000)) << child<QLabel>("hubStatus")->text().toStdString();
    }
    EXPECT_TRUE(loadModel(downloaded.back().at(0).toString().toStdString()).ok());
}

TEST_F(GetModelsDialogTest, ABuiltInCardsSourceOpensWithItsQuantSelected) {
    QSignalSpy sized(m_dialog.get(), &GetModelsDialog::repoSized);
    m_dialog->openRepo(QString::fromStdString(kRepo), QStringLiteral("q4_0"));
    ASSERT_TRUE(sized.wait(20000));
    auto* quants = child<QTableWidget>("hubQuants");
    ASSERT_FALSE(quants->selectedItems().isEmpty());
    EXPECT_TRUE(
        quants->item(quants->selectedItems().front()->row(), 0)->text().startsWith(QStringLiteral("Q4_0")));
    EXPECT_EQ(child<QLineEdit>("hubQuery")->text().toStdString(), kRepo);
}

} // namespace
} // namespace llamafit::test
