// Model paths as people have them: non-ASCII folder and file names (UTF-8 in the core's
// std::string, on Windows not the ANSI code page), Windows drive letters and backslashes, a
// split model under such a name. Run on Linux and, by scripts/test-windows-core.sh, on
// Windows (Wine), where TempDir() itself is a drive-letter path with backslashes.

#include "core/common/utf8path.h"
#include "core/gguf/ggufreader.h"
#include "core/gguf/ggufsplit.h"
#include "tests/support/ggufbuilder.h"
#include "tests/support/ggufwriter.h"
#include "tests/unit/gguf/scratchdir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace llamafit {
namespace {

using test::GgufBuilder;

// Japanese, accented Latin and a euro sign: none of them is in one ANSI code page together.
constexpr const char* kFolder =
    "\xE3\x83\xA2\xE3\x83\x87\xE3\x83\xAB Mod\xC3\xA8les \xE2\x82\xAC";    // "モデル Modèles €"
constexpr const char* kFile = "Qw\xC3\xA9n \xE6\x97\xA5\xE6\x9C\xAC.gguf"; // "Qwén 日本.gguf"

GgufFile smallModel() {
    GgufBuilder b("llama");
    b.setUint32("llama.block_count", 2);
    b.addTensor("blk.0.attn_q.weight", GgmlType::Q8_0, {256, 256});
    b.addTensor("blk.1.attn_q.weight", GgmlType::Q8_0, {256, 256});
    return b.build();
}

// `name` in a non-ASCII folder of the scratch folder, the folder created; UTF-8.
std::string inNonAsciiFolder(const test::ScratchDir& dir, const std::string& name) {
    const std::string folder = dir.path(kFolder);
    std::filesystem::create_directories(pathFromUtf8(folder));
    return folder + "/" + name;
}

TEST(GgufReaderPaths, Utf8PathRoundTripsThroughTheFileSystemPath) {
    const std::string utf8 = std::string(kFolder) + "/" + kFile;
    EXPECT_EQ(utf8FromPath(pathFromUtf8(utf8)), utf8);
    EXPECT_EQ(utf8FromPath(pathFromUtf8(utf8).filename()), kFile);
}

TEST(GgufReaderPaths, ReadsAFileWithANonAsciiName) {
    test::ScratchDir dir;
    ASSERT_TRUE(dir.valid());
    const std::string path = inNonAsciiFolder(dir, kFile);
    ASSERT_EQ(test::writeGguf(path, smallModel()), "");
    EXPECT_TRUE(std::filesystem::is_regular_file(pathFromUtf8(path)));

    const auto read = readGgufFile(path);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->tensors.size(), 2u);
    EXPECT_EQ(read->getString("general.architecture"), "llama");
}

TEST(GgufReaderPaths, MissingNonAsciiFileIsNamedInTheError) {
    test::ScratchDir dir;
    ASSERT_TRUE(dir.valid());
    const std::string path = inNonAsciiFolder(dir, kFile);
    const auto read = readGgufFile(path);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().code, "gguf.open-failed");
    EXPECT_NE(read.error().message.find(kFile), std::string::npos) << read.error().message;
}

TEST(GgufReaderPaths, FindsTheSplitPartsOfANonAsciiName) {
    test::ScratchDir dir;
    ASSERT_TRUE(dir.valid());
    const std::string prefix = inNonAsciiFolder(dir, "\xE6\x97\xA5\xE6\x9C\xAC-Q4_K_M"); // "日本-Q4_K_M"
    for (std::uint32_t index = 0; index < 2; ++index) {
        GgufBuilder b(index == 0 ? "llama" : "");
        if (index == 0) {
            b.setUint32("llama.block_count", 2);
        }
        b.set("split.no", GgufValue::fromUint(index, GgufValueType::Uint16));
        b.set("split.count", GgufValue::fromUint(2, GgufValueType::Uint16));
        b.setInt32("split.tensors.count", 2);
        b.addTensor("blk." + std::to_string(index) + ".attn_q.weight", GgmlType::Q8_0, {256, 256});
        ASSERT_EQ(test::writeGguf(ggufSplitPartPath(prefix, index + 1, 2), b.build()), "");
    }
    const auto read = readGgufModel(ggufSplitPartPath(prefix, 2, 2));
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->tensors.size(), 2u);
}

TEST(GgufReaderPaths, SplitNamesKeepDriveLettersAndBackslashes) {
    const auto name = parseGgufSplitName("C:\\Users\\me\\models\\Qwen3-235B-Q4_K_M-00002-of-00005.gguf");
    ASSERT_TRUE(name.has_value());
    EXPECT_EQ(name->prefix, "C:\\Users\\me\\models\\Qwen3-235B-Q4_K_M");
    EXPECT_EQ(ggufSplitPartPath(name->prefix, 1, 5),
              "C:\\Users\\me\\models\\Qwen3-235B-Q4_K_M-00001-of-00005.gguf");
    // A name that is only the part suffix, right after a backslash, is no split model.
    EXPECT_FALSE(parseGgufSplitName("C:\\models\\-00001-of-00002.gguf").has_value());
}

TEST(GgufReaderPaths, ReadsThroughADriveLetterPathWithBackslashes) {
#ifndef _WIN32
    GTEST_SKIP() << "drive letters and backslash separators are Windows paths; on Linux a backslash "
                    "is part of a file name";
#else
    test::ScratchDir dir;
    ASSERT_TRUE(dir.valid());
    const std::string path = inNonAsciiFolder(dir, kFile);
    ASSERT_EQ(test::writeGguf(path, smallModel()), "");
    // The absolute path as Windows spells it: "C:\...\Temp\llamafit-gguf-N\モデル Modèles €\Qwén 日本.gguf".
    std::string windowsPath = utf8FromPath(std::filesystem::absolute(pathFromUtf8(path)));
    std::replace(windowsPath.begin(), windowsPath.end(), '/', '\\');
    ASSERT_GE(windowsPath.size(), 3u);
    EXPECT_TRUE(windowsPath[1] == ':' && windowsPath[2] == '\\') << windowsPath;
    const auto read = readGgufFile(windowsPath);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->tensors.size(), 2u);
#endif
}

} // namespace
} // namespace llamafit
