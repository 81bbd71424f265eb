// BenchmarkDialog against the real llama-bench (the CPU wrapper next to the real llama-server)
// on the tiny real-weight model: a run finishes with its rows in the table and the chart,
// measured against predicted, is stored and comes back from the history in a new dialog;
// cancel and closing the dialog stop llama-bench and store nothing; a built-in card and bad
// depths cannot be run and say why. Waits on signals with deadlines, never on sleeps.
#include "core/model/modelspec.h"
#include "tests/gui/launch/launchfixture.h"
#include "ui/bench/benchmarkchart.h"
#include "ui/bench/benchmarkdialog.h"

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>

#include <csignal>
#include <sys/types.h>

namespace llamafit {
namespace {

using test::waitUntil;
using Kind = BenchmarkChart::Kind;
using BenchState = BenchmarkRun::State;

class BenchmarkDialogTest : public test::LaunchFixture {
  protected:
    void SetUp() override {
        test::LaunchFixture::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        const Result<std::string> bench = test::findRigTool("LLAMAFIT_LLAMA_BENCH", "llama-bench");
        ASSERT_TRUE(bench.ok()) << bench.error().message;
        m_bench = QString::fromStdString(*bench);
        ASSERT_TRUE(m_store.isValid());
        // A known bandwidth, so every generation row has a bound and an expected rate.
        m_session->setBandwidthOverride(40'000'000'000ULL);
    }

    std::unique_ptr<BenchmarkDialog> makeDialog() {
        auto dialog = std::make_unique<BenchmarkDialog>(m_session.get(), m_server, m_store.path());
        dialog->findChild<QLineEdit*>(QStringLiteral("benchProgramEdit"))->setText(m_bench);
        return dialog;
    }

    static void setSmallRun(BenchmarkDialog& dialog) {
        dialog.findChild<QLineEdit*>(QStringLiteral("benchDepthsEdit"))->setText(QStringLiteral("0,64"));
        dialog.findChild<QSpinBox*>(QStringLiteral("benchPromptSpin"))->setValue(32);
        dialog.findChild<QSpinBox*>(QStringLiteral("benchGenerationSpin"))->setValue(8);
        dialog.findChild<QSpinBox*>(QStringLiteral("benchRepetitionsSpin"))->setValue(1);
    }

    // A run long enough to be cancelled in the middle: many repetitions of long tests.
    static void setLongRun(BenchmarkDialog& dialog) {
        dialog.findChild<QLineEdit*>(QStringLiteral("benchDepthsEdit"))->setText(QStringLiteral("0,256,512"));
        dialog.findChild<QSpinBox*>(QStringLiteral("benchPromptSpin"))->setValue(512);
        dialog.findChild<QSpinBox*>(QStringLiteral("benchGenerationSpin"))->setValue(512);
        dialog.findChild<QSpinBox*>(QStringLiteral("benchRepetitionsSpin"))->setValue(50);
    }

    bool waitForEnd(BenchmarkDialog& dialog, int timeoutMs) {
        QSignalSpy spy(&dialog.run(), &BenchmarkRun::stateChanged);
        return waitUntil(
            spy,
            [&] {
                const BenchState state = dialog.run().state();
                return state != BenchState::Running && state != BenchState::Cancelling;
            },
            timeoutMs);
    }

    std::size_t storedFiles() const {
        std::size_t files = 0;
        const QDir root(m_store.path());
        for (const QString& machine : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            files += QDir(root.filePath(machine)).entryList({QStringLiteral("*.json")}, QDir::Files).size();
        }
        return files;
    }

    QString m_bench;
    QTemporaryDir m_store;
};

TEST_F(BenchmarkDialogTest, RunShowsMeasuredAgainstPredictedStoresItAndTheHistoryBringsItBack) {
    auto dialog = makeDialog();
    setSmallRun(*dialog);
    const QString command = dialog->findChild<QLabel*>(QStringLiteral("benchCommandLabel"))->text();
    EXPECT_TRUE(command.contains(QStringLiteral("-d 0,64"))) << command.toStdString();
    EXPECT_TRUE(command.contains(QStringLiteral("-t 1")))
        << "the launch's -t 1 is benchmarked too: " << command.toStdString();
    QSignalSpy shown(dialog.get(), &BenchmarkDialog::recordShown);
    QSignalSpy progressed(&dialog->run(), &BenchmarkRun::progressed);
    dialog->findChild<QPushButton*>(QStringLiteral("benchRunButton"))->click();
    ASSERT_TRUE(waitForEnd(*dialog, 120000));
    ASSERT_EQ(dialog->run().state(), BenchState::Finished) << dialog->run().error().message;
    EXPECT_GE(progressed.count(), 4) << "one progress line per test at least";
    ASSERT_EQ(shown.count(), 1);

    const auto* table = dialog->findChild<QTableWidget*>(QStringLiteral("benchResultsTable"));
    ASSERT_EQ(table->rowCount(), 4); // pp32 and tg8 at depths 0 and 64
    EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("pp32"));
    EXPECT_EQ(table->item(3, 0)->text(), QStringLiteral("tg8 @ d64"));
    for (int row = 0; row < 4; ++row) {
        EXPECT_GT(table->item(row, 1)->text().toDouble(), 0) << "measured rate of row " << row;
    }
    EXPECT_TRUE(table->item(1, 5)->text().endsWith(QStringLiteral("%"))) << "tg rows compare with the model";

    const BenchmarkChart* chart = dialog->chart();
    ASSERT_EQ(chart->measured(Kind::Generation).size(), 2);
    ASSERT_EQ(chart->expected(Kind::Generation).size(), 2);
    ASSERT_EQ(chart->bound(Kind::Generation).size(), 2);
    ASSERT_EQ(chart->measured(Kind::Prompt).size(), 2);
    EXPECT_EQ(chart->depthLabels(Kind::Generation), (QStringList{QStringLiteral("0"), QStringLiteral("64")}));
    const BenchRecord& record = *dialog->shownRecord();
    for (int i = 0; i < 2; ++i) {
        // The chart draws the record: measured as llama-bench printed it, the model's figures,
        // the expected rate never above the bound.
        EXPECT_DOUBLE_EQ(chart->measured(Kind::Generation)[i],
                         record.rows[static_cast<std::size_t>(2 * i + 1)].averageTps);
        EXPECT_GT(chart->expected(Kind::Generation)[i], 0);
        EXPECT_LE(chart->expected(Kind::Generation)[i], chart->bound(Kind::Generation)[i]);
    }
    EXPECT_GT(chart->bound(Kind::Generation)[0], chart->bound(Kind::Generation)[1])
        << "more KV read per token at depth 64: a lower bound";
    EXPECT_EQ(storedFiles(), 1U);

    // A new dialog (the app restarted) shows the stored run from its history.
    auto reopened = makeDialog();
    ASSERT_EQ(reopened->history().size(), 1U);
    ASSERT_TRUE(reopened->shownRecord().has_value());
    EXPECT_EQ(reopened->shownRecord()->rows, record.rows);
    EXPECT_EQ(reopened->findChild<QComboBox*>(QStringLiteral("benchHistoryCombo"))->count(), 1);
    EXPECT_EQ(reopened->chart()->measured(Kind::Prompt), chart->measured(Kind::Prompt));
}

TEST_F(BenchmarkDialogTest, CancelStopsLlamaBenchAndStoresNothing) {
    auto dialog = makeDialog();
    setLongRun(*dialog);
    QSignalSpy progressed(&dialog->run(), &BenchmarkRun::progressed);
    ASSERT_TRUE(dialog->startBenchmark());
    const qint64 pid = dialog->run().processId();
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(waitUntil(
        progressed, [&] { return progressed.count() > 0; }, 60000))
        << "llama-bench started a test";
    auto* cancel = dialog->findChild<QPushButton*>(QStringLiteral("benchCancelButton"));
    ASSERT_TRUE(cancel->isEnabled());
    cancel->click();
    ASSERT_TRUE(waitForEnd(*dialog, 30000));
    EXPECT_EQ(dialog->run().state(), BenchState::Cancelled);
    EXPECT_EQ(::kill(static_cast<pid_t>(pid), 0), -1) << "llama-bench is gone (reaped)";
    EXPECT_TRUE(dialog->findChild<QLabel*>(QStringLiteral("benchStatusLabel"))
                    ->text()
                    .contains(QStringLiteral("Cancelled")));
    EXPECT_TRUE(dialog->findChild<QPushButton*>(QStringLiteral("benchRunButton"))->isEnabled());
    EXPECT_EQ(storedFiles(), 0U);
    EXPECT_FALSE(dialog->shownRecord().has_value());
}

TEST_F(BenchmarkDialogTest, ClosingTheDialogCancelsTheRun) {
    auto dialog = makeDialog();
    setLongRun(*dialog);
    dialog->show();
    ASSERT_TRUE(dialog->startBenchmark());
    dialog->close();
    ASSERT_TRUE(waitForEnd(*dialog, 30000));
    EXPECT_EQ(dialog->run().state(), BenchState::Cancelled);
    EXPECT_EQ(storedFiles(), 0U);
}

TEST_F(BenchmarkDialogTest, BadDepthsAndABuiltInCardCannotRunAndSayWhy) {
    auto dialog = makeDialog();
    auto* run = dialog->findChild<QPushButton*>(QStringLiteral("benchRunButton"));
    auto* command = dialog->findChild<QLabel*>(QStringLiteral("benchCommandLabel"));
    EXPECT_TRUE(run->isEnabled());
    dialog->findChild<QLineEdit*>(QStringLiteral("benchDepthsEdit"))->setText(QStringLiteral("0,lots"));
    EXPECT_FALSE(run->isEnabled());
    EXPECT_TRUE(command->text().contains(QStringLiteral("--depths"))) << command->text().toStdString();
    EXPECT_FALSE(dialog->startBenchmark());
    EXPECT_EQ(dialog->run().state(), BenchState::Idle);

    dialog->findChild<QLineEdit*>(QStringLiteral("benchDepthsEdit"))->setText(QStringLiteral("0"));
    EXPECT_TRUE(run->isEnabled());
    Result<LoadedModel> card = loadModel(std::string(defaultModelCardId()));
    ASSERT_TRUE(card.ok()) << card.error().message;
    m_session->setModel(std::move(*card));
    EXPECT_FALSE(run->isEnabled());
    EXPECT_TRUE(command->text().contains(QStringLiteral("built-in card"))) << command->text().toStdString();
    EXPECT_TRUE(dialog->history().empty());
}

} // namespace
} // namespace llamafit
