// A realistic ~33 GB model whose data region is a hole: the reader must parse it from the
// header alone. /proc/self/io shows how many bytes the process read while parsing. And the
// writer that makes such holes for every test, on a volume with less room than the model.

#include "core/gguf/ggufreader.h"

#include "tests/support/ggufwriter.h"
#include "tests/unit/gguf/gguftestmodels.h"
#include "tests/unit/gguf/scratchdir.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>

namespace llamafit {
namespace {

// Bytes this process has read through read(2) and friends so far (Linux "rchar").
std::optional<std::uint64_t> bytesReadByProcess() {
    std::ifstream io("/proc/self/io");
    std::string key;
    std::uint64_t value = 0;
    while (io >> key >> value) {
        if (key == "rchar:") {
            return value;
        }
    }
    return std::nullopt;
}

TEST(GgufReaderSparse, ThirtyGigabyteModelParsesFromItsHeader) {
    const GgufFile built = test::largeDenseModel();
    ASSERT_GT(built.tensors.size(), 700u);
    ASSERT_GT(built.tensorBytes(), 30ull * 1000 * 1000 * 1000);

    test::ScratchDir dir;
    ASSERT_TRUE(dir.valid());
    const std::string path = dir.path("dense-33g.gguf");
    ASSERT_EQ(test::writeGguf(path, built), "");
    const std::uint64_t onDisk = std::filesystem::file_size(path);
    const std::uint64_t headerBytes = test::serializeGgufHeader(built).size();
    ASSERT_GT(onDisk, built.tensorBytes());

    const auto before = bytesReadByProcess();
    const auto read = readGgufModel(path);
    const auto after = bytesReadByProcess();
    ASSERT_TRUE(read.ok()) << read.error().code << ": " << read.error().message;

    EXPECT_EQ(read->tensors.size(), built.tensors.size());
    EXPECT_EQ(read->tensorBytes(), built.tensorBytes());
    EXPECT_EQ(read->fileBytes, onDisk);
    EXPECT_EQ(read->dataOffset, headerBytes);
    EXPECT_EQ(read->getUint("qwen2.block_count"), 64u);
    const auto* down = read->findTensor("blk.63.ffn_down.weight");
    ASSERT_NE(down, nullptr);
    EXPECT_EQ(down->bytes, 5120u / 32 * 34 * 27648);
    EXPECT_EQ(read->tensors.back().dataOffset + read->tensors.back().bytes + read->dataOffset, onDisk);

    // The reader reads its first chunk (1 MiB) and no more, never the 33 GB behind it.
    if (before && after) {
        EXPECT_LE(*after - *before, 2u * 1024 * 1024) << "header is " << headerBytes << " bytes";
    }

    // The same header bytes, held in memory with the true file size, give the same answer.
    const auto fromMemory = parseGguf(test::serializeGgufHeader(built), onDisk);
    ASSERT_TRUE(fromMemory.ok()) << fromMemory.error().message;
    EXPECT_EQ(fromMemory->tensors, read->tensors);
}

// The Windows build runs the GUI tests under Wine with 35B models on whatever disk CI has: the
// writer must make the hole without asking the volume for the room (mingw-w64's ftruncate64
// refuses to extend a file past the free space with EFBIG, even where the file stays sparse).
TEST(GgufWriterSparse, AModelLargerThanTheVolumesFreeSpaceIsWrittenAsAHole) {
    test::ScratchDir dir;
    ASSERT_TRUE(dir.valid());
    const std::string path = dir.path("larger-than-the-disk.gguf");
    const std::uint64_t freeBytes =
        std::filesystem::space(std::filesystem::path(path).parent_path()).available;
    const std::uint64_t rowBytes = 4096 * sizeof(float);
    const std::uint64_t rows = (freeBytes + (1ull << 30)) / rowBytes + 1;

    GgufFile file;
    GgufTensorInfo huge;
    huge.name = "huge.weight";
    huge.type = GgmlType::F32;
    huge.dimensionCount = 2;
    huge.shape = {4096, rows, 1, 1};
    huge.bytes = rowBytes * rows;
    file.tensors.push_back(huge);
    ASSERT_GT(huge.bytes, freeBytes);

    ASSERT_EQ(test::writeGguf(path, file), "");
    EXPECT_EQ(std::filesystem::file_size(path), test::serializeGgufHeader(file).size() + huge.bytes);
}

} // namespace
} // namespace llamafit
