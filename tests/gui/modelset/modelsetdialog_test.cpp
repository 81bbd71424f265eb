// ModelSetDialog on real files: a set of two generated tiny models and a built-in card opened
// from disk and planned on a built-in machine; the chart's stacked bars are each model's share
// of each pool, the tables list the models and the sets of two or more, the summary names the
// safe --models-max, and the exports are the CLI's text; a bad file is named in the status line
// and keeps the set shown.
#include "core/common/units.h"
#include "core/machine/machineprofile.h"
#include "core/modelset/modelsetexport.h"
#include "tests/support/modelfiles.h"
#include "ui/modelset/modelsetchart.h"
#include "ui/modelset/modelsetdialog.h"

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>

#include <QDir>

#include <gtest/gtest.h>

#include <fstream>

namespace llamafit {
namespace {

using Format = ModelSetDialog::ExportFormat;

class ModelSetDialogTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(m_folder.isValid());
        ASSERT_TRUE(test::writeTinyModel(path("alpha.gguf")));
        ASSERT_TRUE(test::writeTinyModel(path("beta.gguf")));
        write("trio.json", R"({"models": [
            {"model": "alpha.gguf", "args": ["-c", "512", "-np", "1"]},
            {"model": "beta.gguf", "args": {"c": 2048}},
            {"model": "llama-3.2-1b-q8_0", "name": "small", "args": ["-c", "4096", "-ngl", "99"]}]})");
        const Result<Machine> machine = findBuiltinMachine("rtx-4060-8gb");
        ASSERT_TRUE(machine) << machine.error().message;
        m_machine = *machine;
    }

    std::string path(const std::string& name) const {
        return m_folder.filePath(QString::fromStdString(name)).toStdString();
    }
    QString write(const std::string& name, const std::string& text) const {
        std::ofstream(path(name)) << text;
        return QString::fromStdString(path(name));
    }
    template <typename T> T* child(ModelSetDialog& dialog, const char* name) const {
        return dialog.findChild<T*>(QString::fromLatin1(name));
    }

    QTemporaryDir m_folder;
    Machine m_machine;
};

TEST_F(ModelSetDialogTest, StacksEveryModelsSharePerPool) {
    ModelSetDialog dialog(m_machine, kGiB);
    EXPECT_FALSE(child<QPushButton>(dialog, "setExportIniButton")->isEnabled());
    ASSERT_TRUE(dialog.openSetFile(QString::fromStdString(path("trio.json"))))
        << child<QLabel>(dialog, "setStatusLabel")->text().toStdString();
    ASSERT_TRUE(dialog.plan());
    const ModelSetPlan& plan = *dialog.plan();
    ASSERT_EQ(plan.members.size(), 3U);
    const ModelSetChart* chart = dialog.chart();
    ASSERT_EQ(chart->memberCount(), 3U);
    ASSERT_EQ(chart->poolLabels().size(), static_cast<qsizetype>(m_machine.pools.size()));
    for (std::size_t p = 0; p < m_machine.pools.size(); ++p) {
        const PoolLoad& load = plan.together.pools[p];
        EXPECT_DOUBLE_EQ(chart->reservedBars()[static_cast<qsizetype>(p)],
                         static_cast<double>(m_machine.pools[p].reservedByOsBytes) / kGiB);
        double stacked = chart->reservedBars()[static_cast<qsizetype>(p)];
        for (std::size_t i = 0; i < plan.members.size(); ++i) {
            const double share = chart->memberBars(i)[static_cast<qsizetype>(p)];
            EXPECT_DOUBLE_EQ(share, static_cast<double>(memberShare(plan.members[i], p).atLoadBytes) / kGiB);
            stacked += share;
        }
        // The stack's top is the pool's load with every model at once.
        EXPECT_NEAR(stacked, static_cast<double>(load.atLoadBytes) / kGiB, 1e-9);
        EXPECT_DOUBLE_EQ(chart->capacities()[static_cast<qsizetype>(p)],
                         static_cast<double>(m_machine.pools[p].capacityBytes) / kGiB);
    }
    // The 1B model's weights sit in VRAM with -ngl 99; the tiny ones' too, by llama-server's default.
    EXPECT_GT(chart->memberBars(2)[0], 1.0);

    const auto* models = child<QTableWidget>(dialog, "setModelsTable");
    ASSERT_EQ(models->rowCount(), 3);
    EXPECT_EQ(models->item(2, 0)->text(), QStringLiteral("small"));
    EXPECT_EQ(models->item(1, 2)->text(), QStringLiteral("-c 2048"));
    // Sets of two or more: 3 pairs and the trio.
    EXPECT_EQ(child<QTableWidget>(dialog, "setSubsetsTable")->rowCount(), 4);
    const QString summary = child<QLabel>(dialog, "setSummaryLabel")->text();
    EXPECT_TRUE(summary.contains(QStringLiteral("Safe --models-max: %1").arg(plan.safeModelsMax)))
        << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("llama-server --models-preset trio.ini")))
        << summary.toStdString();
    EXPECT_TRUE(
        child<QLabel>(dialog, "setMachineLabel")->text().contains(QString::fromStdString(m_machine.name)));
}

TEST_F(ModelSetDialogTest, ExportsTheCliTextAndRefusesACard) {
    write("pair.json", R"({"machine": "rtx-3090-24gb", "models": [
        {"model": "alpha.gguf", "args": ["-c", "512"]}, {"model": "beta.gguf", "args": ["-c", "1024"]}]})");
    ModelSetDialog dialog(m_machine, kGiB);
    ASSERT_TRUE(dialog.openSetFile(QString::fromStdString(path("pair.json"))));
    EXPECT_TRUE(child<QLabel>(dialog, "setMachineLabel")->text().contains(QStringLiteral("RTX 3090")));
    EXPECT_TRUE(child<QPushButton>(dialog, "setExportIniButton")->isEnabled());
    const Result<std::string> ini = dialog.exportText(Format::PresetIni);
    ASSERT_TRUE(ini) << ini.error().message;
    EXPECT_NE(
        // The path as llama-server reads it on this platform (backslashes on Windows).
        ini->find("--models-max 2\nversion = 1\n\n[alpha]\nmodel = " +
                  QDir::toNativeSeparators(QString::fromStdString(path("alpha.gguf"))).toStdString() +
                  "\nc = 512\n"),
        std::string::npos)
        << *ini;
    const QString saved = QString::fromStdString(path("pair.ini"));
    ASSERT_TRUE(dialog.saveExport(Format::PresetIni, saved));
    QFile file(saved);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll().toStdString(), *ini);
    const Result<std::string> swap = dialog.exportText(Format::LlamaSwap);
    ASSERT_TRUE(swap) << swap.error().message;
    EXPECT_NE(swap->find("groups:\n  \"pair\":\n    swap: false\n"), std::string::npos) << *swap;

    // The trio holds a card: planned, but it has no file for the router.
    ASSERT_TRUE(dialog.openSetFile(QString::fromStdString(path("trio.json"))));
    const Result<std::string> card = dialog.exportText(Format::PresetIni);
    ASSERT_FALSE(card);
    EXPECT_EQ(card.error().code, "export.no-model-file");
    EXPECT_FALSE(dialog.saveExport(Format::PresetIni, saved));
    EXPECT_TRUE(child<QLabel>(dialog, "setStatusLabel")->text().contains(QStringLiteral("built-in card")));
}

TEST_F(ModelSetDialogTest, ABadFileIsNamedAndTheSetShownStays) {
    ModelSetDialog dialog(m_machine, kGiB);
    ASSERT_TRUE(dialog.openSetFile(QString::fromStdString(path("trio.json"))));
    EXPECT_FALSE(dialog.openSetFile(
        write("bad.json", R"({"models": [{"model": "alpha.gguf", "args": {"bogus": 1}}]})")));
    EXPECT_TRUE(child<QLabel>(dialog, "setStatusLabel")->text().contains(QStringLiteral("'bogus'")));
    ASSERT_TRUE(dialog.plan());
    EXPECT_EQ(dialog.plan()->members.size(), 3U);
    EXPECT_EQ(dialog.chart()->memberCount(), 3U);
    EXPECT_FALSE(dialog.openSetFile(QString::fromStdString(path("missing.json"))));
    EXPECT_TRUE(child<QLabel>(dialog, "setStatusLabel")->text().contains(QStringLiteral("missing.json")));
}

} // namespace
} // namespace llamafit
