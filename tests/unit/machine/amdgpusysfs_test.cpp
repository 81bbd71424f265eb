// amdgpu sysfs reading against fixture trees shaped like real machines (tests/data/sysfs):
// a 512 MiB carve-out with a 108000 MiB GTT, a 96 GiB carve-out, the EVO-X2's 32/32 split,
// and an older kernel with a file missing.

#include "core/common/units.h"
#include "core/machine/amdgpusysfs.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace llamafit {
namespace {

std::filesystem::path drmDir(const std::string& machine) {
    return std::filesystem::path(LLAMAFIT_TEST_SYSFS_DIR) / machine / "sys/class/drm";
}

AmdgpuCard onlyCard(const std::string& machine) {
    const Result<std::vector<AmdgpuCard>> cards = readAmdgpuCards(drmDir(machine));
    EXPECT_TRUE(cards) << (cards ? "" : cards.error().message);
    EXPECT_EQ(cards ? cards->size() : 0u, 1u) << machine;
    return cards && !cards->empty() ? cards->front() : AmdgpuCard{};
}

TEST(SysfsNumber, DecimalAndHex) {
    EXPECT_EQ(parseSysfsNumber("536870912\n"), 536870912u);
    EXPECT_EQ(parseSysfsNumber("0x1002\n"), 0x1002u);
    EXPECT_EQ(parseSysfsNumber("0X15DD"), 0x15ddu);
    EXPECT_EQ(parseSysfsNumber(""), std::nullopt);
    EXPECT_EQ(parseSysfsNumber("0x"), std::nullopt);
    EXPECT_EQ(parseSysfsNumber("12 MB\n"), std::nullopt);
    EXPECT_EQ(parseSysfsNumber("-1\n"), std::nullopt);
}

TEST(AmdgpuSysfs, SmallCarveOutLargeGtt) {
    // dmesg "amdgpu: 512M of VRAM memory ready" + "108000M of GTT memory ready".
    const AmdgpuCard card = onlyCard("strix-halo-128g-512m-gtt108g");
    EXPECT_EQ(card.memory.card, "card1"); // card0 is a simple-framebuffer, card1-DP-1 a connector
    EXPECT_EQ(card.vendorId, 0x1002u);
    EXPECT_EQ(card.deviceId, 0x1586u);
    EXPECT_EQ(card.pciBusId, "0000:c5:00.0");
    EXPECT_EQ(card.memory.vramTotalBytes, 512 * kMiB);
    EXPECT_EQ(card.memory.visVramTotalBytes, 512 * kMiB);
    EXPECT_EQ(card.memory.gttTotalBytes, 108000 * kMiB);
    EXPECT_EQ(card.memory.vramUsedBytes, 84 * kMiB);
    EXPECT_EQ(card.memory.gttUsedBytes, 23 * kMiB);
    EXPECT_EQ(card.deviceDir, drmDir("strix-halo-128g-512m-gtt108g") / "card1" / "device");
}

TEST(AmdgpuSysfs, NinetySixGiBCarveOut) {
    const AmdgpuCard card = onlyCard("strix-halo-128g-96g-carveout");
    EXPECT_EQ(card.memory.card, "card0");
    EXPECT_EQ(card.memory.vramTotalBytes, 96 * kGiB); // ROCm0 98304 MiB total
    ASSERT_TRUE(card.memory.gttTotalBytes);
    EXPECT_NEAR(toGiB(*card.memory.gttTotalBytes), 15.24, 0.005); // "GTT 15.24 GiB"
}

TEST(AmdgpuSysfs, EvoX2ThirtyTwoThirtyTwo) {
    const AmdgpuCard card = onlyCard("evo-x2-64g-32-32");
    EXPECT_EQ(card.memory.vramTotalBytes, 32 * kGiB);
    EXPECT_EQ(card.memory.vramUsedBytes, 29 * kGiB);
    ASSERT_TRUE(card.memory.gttTotalBytes);
    // Kernel default GTT = max(3 GiB, RAM / 2): the RAM the OS sees is what the carve-out left.
    EXPECT_EQ(*card.memory.gttTotalBytes, 32604160ull * kKiB / 2);
}

TEST(AmdgpuSysfs, MissingFileLeavesOnlyThatFigureEmpty) {
    const AmdgpuCard card = onlyCard("old-kernel-raven-partial");
    EXPECT_EQ(card.deviceId, 0x15ddu);
    EXPECT_EQ(card.memory.visVramTotalBytes, std::nullopt);
    EXPECT_EQ(card.memory.vramTotalBytes, 512 * kMiB);
    EXPECT_EQ(card.memory.gttTotalBytes, 3 * kGiB);
}

TEST(AmdgpuSysfs, ReadMemoryOfADirectoryWithoutFiles) {
    const AmdgpuMemory memory =
        readAmdgpuMemory(drmDir("strix-halo-128g-512m-gtt108g") / "card0" / "device", "card0");
    AmdgpuMemory empty;
    empty.card = "card0";
    EXPECT_EQ(memory, empty);
}

TEST(AmdgpuSysfs, NoDrmClassDirectoryIsAnError) {
    const Result<std::vector<AmdgpuCard>> cards = readAmdgpuCards(drmDir("no-such-machine"));
    ASSERT_FALSE(cards);
    EXPECT_EQ(cards.error().code, "amdgpu-sysfs.no-drm-class");
}

TEST(AmdgpuSysfs, DirectoryWithoutAmdgpuCardsIsAnEmptyList) {
    // The fixture's proc/ directory holds no cardN entries at all.
    const Result<std::vector<AmdgpuCard>> cards =
        readAmdgpuCards(std::filesystem::path(LLAMAFIT_TEST_SYSFS_DIR) / "evo-x2-64g-32-32" / "proc");
    ASSERT_TRUE(cards);
    EXPECT_TRUE(cards->empty());
}

} // namespace
} // namespace llamafit
