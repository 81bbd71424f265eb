// The model picker on a temporary library (QTemporaryDir; no home folder is scanned): tiny
// real models, a sparse realistic one, a corrupt file, a split model and an mmproj. Widgets are
// found by objectName and driven with keys and clicks; the scan runs on its real worker thread
// and the tests wait on signals.

#include "ui/library/modelpickerpanel.h"

#include "core/gguf/ggufreader.h"
#include "core/model/modelspec.h"
#include "tests/support/modelfiles.h"
#include "tests/unit/library/libraryfixtures.h"
#include "ui/library/modellibrarymodel.h"

#include <QAction>
#include <QApplication>
#include <QDeadlineTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <gtest/gtest.h>

#include <filesystem>

namespace llamafit {
namespace {

namespace fs = std::filesystem;

// Processes events until `done()` holds or `timeoutMs` passes; returns done().
template <typename Predicate> bool waitUntil(Predicate done, int timeoutMs = 30000) {
    QDeadlineTimer deadline(timeoutMs);
    while (!done() && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    return done();
}

class ModelPickerPanelTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(m_dir.isValid());
        m_root = m_dir.path().toStdString();
        test::writeTinyModelNamed(path("lib/vision/tiny-alpha.gguf"), "Tiny Alpha");
        test::writeProjector(path("lib/vision/mmproj-tiny-alpha-f16.gguf"));
        test::writeCorruptFile(path("lib/broken.gguf"));
        const auto shape = test::loadShape("qwen3");
        ASSERT_TRUE(shape.ok());
        ASSERT_TRUE(test::writeSpecAsGguf(*shape, path("lib/zebra-sparse.gguf")).ok()); // large, sparse
        m_splitParts = test::writeSplitTinyModel(path("lib/split/Tiny-Split"), 3);
        ASSERT_EQ(m_splitParts.size(), 3u);
    }

    std::string path(const std::string& relative) const {
        const fs::path full = fs::path(m_root) / relative;
        fs::create_directories(full.parent_path());
        return full.generic_string(); // as the library lists it: '/' between parts on Windows too
    }

    LibraryRoots roots() const {
        // An HF cache root that does not exist (as on a machine with no downloads) and the library.
        return {{m_root + "/hub", LibraryRootKind::HfHubCache, "Hugging Face cache"},
                {m_root + "/lib", LibraryRootKind::UserFolder, "Your folder"}};
    }

    // Starts a scan and waits for it to end; true when it was not cancelled.
    static bool scan(ModelPickerPanel& panel) {
        QSignalSpy finished(&panel, &ModelPickerPanel::scanFinished);
        panel.startScan();
        if (!finished.wait(30000)) {
            ADD_FAILURE() << "the scan did not finish";
            return false;
        }
        return !finished.front().front().toBool();
    }

    // Source-model row whose Name column is `name`; -1 if none.
    static int rowNamed(const ModelLibraryModel& model, const QString& name) {
        for (int row = 0; row < model.rowCount(); ++row) {
            if (model.index(row, ModelLibraryModel::Name).data().toString() == name) {
                return row;
            }
        }
        return -1;
    }

    QTemporaryDir m_dir;
    std::string m_root;
    std::vector<std::string> m_splitParts;
};

TEST_F(ModelPickerPanelTest, ListsEveryBuiltinCardFirstThenTheFixtures) {
    ModelPickerPanel panel(roots());
    ASSERT_TRUE(scan(panel));
    auto* table = panel.findChild<QTableView*>(QStringLiteral("modelTable"));
    ASSERT_NE(table, nullptr);
    const auto& cards = builtinModelCards();
    const auto* model = panel.libraryModel();
    ASSERT_EQ(model->rowCount(), static_cast<int>(cards.size()) + 4); // alpha, broken, zebra, split
    for (std::size_t i = 0; i < cards.size(); ++i) {
        const QModelIndex shown = table->model()->index(static_cast<int>(i), ModelLibraryModel::Source);
        EXPECT_EQ(shown.data().toString(), QStringLiteral("built-in card"));
        EXPECT_EQ(shown.data(ModelLibraryModel::PathRole).toString(), QString::fromStdString(cards[i].id));
    }
    const int alpha = rowNamed(*model, QStringLiteral("tiny-alpha"));
    ASSERT_GE(alpha, 0);
    EXPECT_EQ(model->index(alpha, ModelLibraryModel::Architecture).data().toString(),
              QStringLiteral("llama"));
    EXPECT_EQ(model->index(alpha, ModelLibraryModel::Quantisation).data().toString(), QStringLiteral("F32"));
    EXPECT_EQ(model->index(alpha, ModelLibraryModel::Status).data().toString(),
              QStringLiteral("OK, with vision projector"));
    const auto* status = panel.findChild<QLabel*>(QStringLiteral("scanStatusLabel"));
    ASSERT_NE(status, nullptr);
    EXPECT_EQ(status->text(), QStringLiteral("Scan finished. Models found: 4, unreadable: 1"));
}

TEST_F(ModelPickerPanelTest, CorruptFileRowShowsTheReadersError) {
    ModelPickerPanel panel(roots());
    ASSERT_TRUE(scan(panel));
    const auto* model = panel.libraryModel();
    const int broken = rowNamed(*model, QStringLiteral("broken"));
    ASSERT_GE(broken, 0);
    const auto error = readGgufModel(path("lib/broken.gguf"));
    ASSERT_FALSE(error.ok());
    const QString message = QString::fromStdString(error.error().message);
    EXPECT_EQ(model->index(broken, ModelLibraryModel::Status).data().toString(), message);
    EXPECT_TRUE(
        model->index(broken, ModelLibraryModel::Name).data(Qt::ToolTipRole).toString().contains(message));
    EXPECT_TRUE(model->index(broken, ModelLibraryModel::Name).data(ModelLibraryModel::HasErrorRole).toBool());
}

TEST_F(ModelPickerPanelTest, SplitModelIsOneRowAndTheProjectorIsNone) {
    ModelPickerPanel panel(roots());
    ASSERT_TRUE(scan(panel));
    const auto* model = panel.libraryModel();
    int splitRows = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const QString name = model->index(row, ModelLibraryModel::Name).data().toString();
        splitRows += name.contains(QStringLiteral("Tiny-Split")) ? 1 : 0;
        EXPECT_FALSE(name.contains(QStringLiteral("mmproj"))) << name.toStdString();
    }
    EXPECT_EQ(splitRows, 1);
    const int split = rowNamed(*model, QStringLiteral("Tiny-Split"));
    ASSERT_GE(split, 0);
    std::uint64_t total = 0;
    for (const auto& part : m_splitParts) {
        total += fs::file_size(part);
    }
    EXPECT_EQ(
        model->index(split, ModelLibraryModel::FileSize).data(ModelLibraryModel::SortRole).toULongLong(),
        total);
    // Any part selects the one row.
    panel.selectModel(QString::fromStdString(m_splitParts[2]));
    EXPECT_EQ(panel.selectedModel(), QString::fromStdString(m_splitParts[0]));
}

TEST_F(ModelPickerPanelTest, FilterMatchesAnyColumnAndSizeSortsAsNumbers) {
    ModelPickerPanel panel(roots());
    ASSERT_TRUE(scan(panel));
    auto* filter = panel.findChild<QLineEdit*>(QStringLiteral("modelFilterEdit"));
    auto* table = panel.findChild<QTableView*>(QStringLiteral("modelTable"));
    ASSERT_NE(filter, nullptr);
    ASSERT_NE(table, nullptr);
    QTest::keyClicks(filter, QStringLiteral("ZEBRA"));
    ASSERT_EQ(table->model()->rowCount(), 1);
    EXPECT_EQ(table->model()->index(0, ModelLibraryModel::Name).data().toString(),
              QStringLiteral("zebra-sparse"));
    filter->clear();
    QTest::keyClicks(filter, QStringLiteral("bad-magic")); // matches the status column only
    EXPECT_EQ(table->model()->rowCount(), 0) << "the status shows the message, not the code";
    filter->clear();
    QTest::keyClicks(filter, QStringLiteral("vision projector"));
    ASSERT_EQ(table->model()->rowCount(), 1);
    filter->clear();
    ASSERT_EQ(table->model()->rowCount(), panel.libraryModel()->rowCount());

    // Click the Size header: ascending by bytes (a text sort would put "1.2 GiB" before "9 KiB").
    panel.show();
    auto* header = table->horizontalHeader();
    const QPoint sizeHeader(header->sectionViewportPosition(ModelLibraryModel::FileSize) + 4,
                            header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, sizeHeader);
    ASSERT_EQ(header->sortIndicatorSection(), ModelLibraryModel::FileSize);
    const Qt::SortOrder order = header->sortIndicatorOrder();
    std::vector<qulonglong> sizes;
    for (int row = 0; row < table->model()->rowCount(); ++row) {
        sizes.push_back(table->model()
                            ->index(row, ModelLibraryModel::FileSize)
                            .data(ModelLibraryModel::SortRole)
                            .toULongLong());
    }
    if (order == Qt::AscendingOrder) {
        EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
    } else {
        EXPECT_TRUE(std::is_sorted(sizes.rbegin(), sizes.rend()));
    }
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, sizeHeader);
    EXPECT_NE(header->sortIndicatorOrder(), order);
    const QString firstName = table->model()->index(0, ModelLibraryModel::Name).data().toString();
    const QString lastName =
        table->model()->index(table->model()->rowCount() - 1, ModelLibraryModel::Name).data().toString();
    // The smallest file is the corrupt one (a line of text); it is first ascending, last descending.
    EXPECT_EQ(header->sortIndicatorOrder() == Qt::AscendingOrder ? firstName : lastName,
              QStringLiteral("broken"));
}

TEST_F(ModelPickerPanelTest, EnterAndDoubleClickChooseTheRowsPath) {
    ModelPickerPanel panel(roots());
    ASSERT_TRUE(scan(panel));
    panel.show();
    auto* table = panel.findChild<QTableView*>(QStringLiteral("modelTable"));
    ASSERT_NE(table, nullptr);
    QSignalSpy chosen(&panel, &ModelPickerPanel::modelChosen);
    const QString alphaPath = QString::fromStdString(path("lib/vision/tiny-alpha.gguf"));
    panel.selectModel(alphaPath);
    EXPECT_EQ(chosen.count(), 0) << "restoring a selection is not a choice";
    EXPECT_EQ(panel.selectedModel(), alphaPath);
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Return);
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.takeFirst().front().toString(), alphaPath);

    const QModelIndex zebra = table->model()->index(
        table->model()
            ->match(table->model()->index(0, 0), Qt::DisplayRole, QStringLiteral("zebra-sparse"))
            .front()
            .row(),
        ModelLibraryModel::Name);
    const QRect rect = table->visualRect(zebra);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, rect.center());
    ASSERT_GE(chosen.count(), 1) << "a selection the user makes is a choice";
    EXPECT_EQ(chosen.last().front().toString(), QString::fromStdString(path("lib/zebra-sparse.gguf")));
    chosen.clear();
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, rect.center());
    ASSERT_GE(chosen.count(), 1);
    EXPECT_EQ(chosen.last().front().toString(), QString::fromStdString(path("lib/zebra-sparse.gguf")));
}

TEST_F(ModelPickerPanelTest, DownInTheFilterMovesIntoTheTable) {
    ModelPickerPanel panel(roots());
    ASSERT_TRUE(scan(panel));
    panel.show();
    auto* filter = panel.findChild<QLineEdit*>(QStringLiteral("modelFilterEdit"));
    auto* table = panel.findChild<QTableView*>(QStringLiteral("modelTable"));
    QSignalSpy chosen(&panel, &ModelPickerPanel::modelChosen);
    panel.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&panel));
    filter->setFocus();
    QTest::keyClicks(filter, QStringLiteral("tiny-alpha"));
    QTest::keyClick(filter, Qt::Key_Down);
    EXPECT_TRUE(table->hasFocus());
    EXPECT_EQ(panel.selectedModel(), QString::fromStdString(path("lib/vision/tiny-alpha.gguf")));
    ASSERT_EQ(chosen.count(), 1);
}

TEST_F(ModelPickerPanelTest, SelectionOfAModelNotYetScannedArrivesWithTheScan) {
    ModelPickerPanel panel(roots());
    const QString zebra = QString::fromStdString(path("lib/zebra-sparse.gguf"));
    panel.selectModel(zebra);
    EXPECT_TRUE(panel.selectedModel().isEmpty());
    QSignalSpy chosen(&panel, &ModelPickerPanel::modelChosen);
    ASSERT_TRUE(scan(panel));
    EXPECT_EQ(panel.selectedModel(), zebra);
    EXPECT_EQ(chosen.count(), 0);
}

TEST_F(ModelPickerPanelTest, UserFoldersAreScannedAndCanBeRemoved) {
    ModelPickerPanel panel(LibraryRoots{});
    test::writeTinyModelNamed(path("extra/extra-model.gguf"), "extra");
    const QString extra = QString::fromStdString(m_root + "/extra");
    panel.setUserFolders({extra});
    EXPECT_EQ(panel.userFolders(), QStringList{extra});
    ASSERT_TRUE(scan(panel));
    EXPECT_GE(rowNamed(*panel.libraryModel(), QStringLiteral("extra-model")), 0);
    EXPECT_EQ(rowNamed(*panel.libraryModel(), QStringLiteral("tiny-alpha")), -1)
        << "only the roots given are scanned";

    auto* remove = panel.findChild<QToolButton*>(QStringLiteral("removeFolderButton"));
    ASSERT_NE(remove, nullptr);
    ASSERT_TRUE(remove->isEnabled());
    const auto actions = remove->menu()->findChildren<QAction*>(QStringLiteral("removeFolderAction"));
    ASSERT_EQ(actions.size(), 1);
    QSignalSpy changed(&panel, &ModelPickerPanel::userFoldersChanged);
    QSignalSpy finished(&panel, &ModelPickerPanel::scanFinished);
    actions.front()->trigger();
    ASSERT_EQ(changed.count(), 1);
    EXPECT_TRUE(changed.front().front().toStringList().isEmpty());
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_EQ(rowNamed(*panel.libraryModel(), QStringLiteral("extra-model")), -1);
    EXPECT_EQ(panel.libraryModel()->rowCount(), static_cast<int>(builtinModelCards().size()));
    EXPECT_FALSE(remove->isEnabled());
}

// A library slow enough to cancel for certain: one file whose header holds a 1M-entry string
// array (about 12 ms to parse), reached through 300 hard links (seconds to scan in full).
void writeSlowLibrary(const std::string& folder) {
    test::GgufBuilder big("llama");
    std::vector<std::string> tokens;
    tokens.reserve(1000000);
    for (int i = 0; i < 1000000; ++i) {
        tokens.push_back("token-" + std::to_string(i));
    }
    big.setStringArray("tokenizer.ggml.tokens", tokens);
    fs::create_directories(folder);
    const std::string first = folder + "/slow-000.gguf";
    ASSERT_EQ(test::writeGguf(first, big.build()), "");
    for (int i = 1; i < 300; ++i) {
        fs::create_hard_link(first, folder + "/slow-" + std::to_string(1000 + i) + ".gguf");
    }
}

TEST_F(ModelPickerPanelTest, CancelStopsTheScanAndThePanelSaysSo) {
    writeSlowLibrary(m_root + "/slow");
    ModelPickerPanel panel(LibraryRoots{{m_root + "/slow", LibraryRootKind::UserFolder, "Your folder"}});
    panel.show();
    auto* progress = panel.findChild<QProgressBar*>(QStringLiteral("scanProgress"));
    auto* cancel = panel.findChild<QPushButton*>(QStringLiteral("scanCancelButton"));
    auto* status = panel.findChild<QLabel*>(QStringLiteral("scanStatusLabel"));
    ASSERT_NE(progress, nullptr);
    ASSERT_NE(cancel, nullptr);
    EXPECT_FALSE(progress->isVisible());
    EXPECT_FALSE(cancel->isVisible());
    QSignalSpy finished(&panel, &ModelPickerPanel::scanFinished);
    panel.startScan();
    EXPECT_TRUE(progress->isVisible());
    EXPECT_TRUE(cancel->isVisible());
    // Wait until the scan has counted the files and started reading (the first progress).
    ASSERT_TRUE(waitUntil([progress] { return progress->maximum() == 300; }));
    QTest::mouseClick(cancel, Qt::LeftButton);
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_TRUE(finished.front().front().toBool());
    EXPECT_FALSE(progress->isVisible());
    EXPECT_FALSE(cancel->isVisible());
    EXPECT_TRUE(status->text().startsWith(QStringLiteral("Scan cancelled."))) << status->text().toStdString();
    const int scanned = panel.libraryModel()->rowCount() - panel.libraryModel()->cardCount();
    EXPECT_LT(scanned, 300);
}

} // namespace
} // namespace llamafit
