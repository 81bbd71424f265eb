// LibraryScanner: the scan on its worker thread reports progress, batches and the end on the
// GUI thread; a new scan replaces a running one; destroying it mid-scan cancels and joins.

#include "core/system/libraryscanner.h"

#include "tests/unit/library/libraryfixtures.h"

#include <QCoreApplication>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>

#include <gtest/gtest.h>

#include <filesystem>

namespace llamafit {
namespace {

class LibraryScannerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(m_dir.isValid());
        for (int i = 0; i < 3; ++i) {
            const std::filesystem::path file =
                std::filesystem::path(m_dir.path().toStdString()) / ("f" + std::to_string(i)) / "model.gguf";
            std::filesystem::create_directories(file.parent_path());
            test::writeTinyModelNamed(file.string(), "m");
        }
    }
    LibraryRoots roots() const {
        return {{m_dir.path().toStdString(), LibraryRootKind::UserFolder, "Your folder"}};
    }
    QTemporaryDir m_dir;
};

TEST_F(LibraryScannerTest, ReportsOnTheOwnersThreadAndFinishes) {
    LibraryScanner scanner;
    QSignalSpy progress(&scanner, &LibraryScanner::progress);
    QSignalSpy finished(&scanner, &LibraryScanner::finished);
    std::size_t entries = 0;
    bool onOwnerThread = true;
    QObject::connect(&scanner, &LibraryScanner::entriesFound, &scanner,
                     [&](const std::vector<LibraryEntry>& batch) {
                         entries += batch.size();
                         onOwnerThread = onOwnerThread && QThread::currentThread() == scanner.thread();
                     });
    scanner.start(roots());
    EXPECT_TRUE(scanner.isRunning());
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_FALSE(finished.front().front().toBool());
    EXPECT_FALSE(scanner.isRunning());
    EXPECT_EQ(entries, 3u);
    EXPECT_TRUE(onOwnerThread);
    ASSERT_GE(progress.count(), 1);
    EXPECT_EQ(progress.last().at(0).toULongLong(), 3u); // done
    EXPECT_EQ(progress.last().at(1).toULongLong(), 3u); // found
}

TEST_F(LibraryScannerTest, ANewScanReplacesTheRunningOne) {
    LibraryScanner scanner;
    QSignalSpy finished(&scanner, &LibraryScanner::finished);
    std::size_t entries = 0;
    QObject::connect(&scanner, &LibraryScanner::entriesFound, &scanner,
                     [&](const std::vector<LibraryEntry>& batch) { entries += batch.size(); });
    scanner.start(roots());
    scanner.start(roots());
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_EQ(finished.count(), 1) << "the replaced scan reports nothing";
    EXPECT_FALSE(finished.front().front().toBool());
    EXPECT_EQ(entries, 3u) << "only the second scan's entries arrive";
}

TEST_F(LibraryScannerTest, DestroyingARunningScannerJoinsItsThread) {
    auto scanner = std::make_unique<LibraryScanner>();
    scanner->start(roots());
    QPointer<LibraryScanner> watcher(scanner.get());
    scanner.reset(); // must neither hang nor crash; the worker's late posts are dropped
    QCoreApplication::processEvents();
    EXPECT_TRUE(watcher.isNull());
}

} // namespace
} // namespace llamafit
