// writeFileAtomically: replaces the whole content, and a failed write leaves the old file and
// no temporary file behind. (A kill in the middle of a save: tests/integration/crashsafewrite_test.cpp.)
#include "core/common/atomicfile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace llamafit {
namespace {

namespace fs = std::filesystem;

fs::path freshFolder() {
    const fs::path folder = fs::temp_directory_path() / ("llamafit_atomicfile_" + std::to_string(::getpid()));
    fs::remove_all(folder);
    fs::create_directories(folder);
    return folder;
}

std::string contentOf(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

TEST(AtomicFile, ReplacesTheWholeContentAndLeavesNoTemporaryFile) {
    const fs::path folder = freshFolder();
    const fs::path target = folder / "profile.json";
    ASSERT_TRUE(writeFileAtomically(target.string(), std::string(5000, 'x')).ok());
    ASSERT_TRUE(writeFileAtomically(target.string(), "short").ok());
    EXPECT_EQ(contentOf(target), "short");
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);
    fs::remove_all(folder);
}

TEST(AtomicFile, AFailedWriteNamesThePathAndKeepsTheOldFile) {
    const fs::path folder = freshFolder();
    const fs::path target = folder / "is-a-folder";
    fs::create_directories(target / "child"); // rename(2) cannot replace a non-empty folder
    Result<bool> written = writeFileAtomically(target.string(), "new");
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().code, "file.write-failed");
    EXPECT_NE(written.error().message.find(target.string()), std::string::npos) << written.error().message;
    EXPECT_TRUE(fs::is_directory(target / "child"));
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);

    written = writeFileAtomically((folder / "missing" / "x.json").string(), "new");
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.error().code, "file.write-failed");
    fs::remove_all(folder);
}

} // namespace
} // namespace llamafit
