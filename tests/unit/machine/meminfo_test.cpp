// procfs text parsers: /proc/meminfo, /proc/PID/status, /proc/cpuinfo, against the fixture
// machines in tests/data/sysfs and hand-written edge cases.

#include "core/common/units.h"
#include "core/machine/meminfo.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace llamafit {
namespace {

std::string readFixture(const std::string& relative) {
    std::ifstream file(std::filesystem::path(LLAMAFIT_TEST_SYSFS_DIR) / relative);
    EXPECT_TRUE(file) << relative;
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

TEST(MemInfo, ReadsKiBFieldsAsBytes) {
    const std::string text = "MemTotal:       24684084 kB\nMemFree:        19514236 kB\n"
                             "MemAvailable:   23645808 kB\nHugePages_Total:       0\n";
    EXPECT_EQ(findProcKiBField(text, "MemFree"), 19514236ull * kKiB);
    EXPECT_EQ(findProcKiBField(text, "HugePages_Total"), 0u); // no unit: a plain count
    EXPECT_EQ(findProcKiBField(text, "SwapTotal"), std::nullopt);
    const Result<HostMemory> host = parseMemInfo(text);
    ASSERT_TRUE(host) << host.error().message;
    EXPECT_EQ(host->memTotalBytes, 24684084ull * kKiB);
    EXPECT_EQ(host->memAvailableBytes, 23645808ull * kKiB);
}

TEST(MemInfo, KeyMustMatchWholeName) {
    // "Active(file)" must not be read for "Active", nor "MemAvailableX" for "MemAvailable".
    const std::string text = "Active(file):  100 kB\nActive:  7 kB\nMemAvailableX: 5 kB\n";
    EXPECT_EQ(findProcKiBField(text, "Active"), 7u * kKiB);
    EXPECT_EQ(findProcKiBField(text, "MemAvailable"), std::nullopt);
}

TEST(MemInfo, FixtureMachines) {
    const Result<HostMemory> evo = parseMemInfo(readFixture("evo-x2-64g-32-32/proc/meminfo"));
    ASSERT_TRUE(evo);
    EXPECT_EQ(evo->memTotalBytes, 32604160ull * kKiB);
    EXPECT_EQ(evo->memAvailableBytes, 19ull * kGiB); // the seed's "19 GB of system RAM left"

    const Result<HostMemory> halo96 = parseMemInfo(readFixture("strix-halo-128g-96g-carveout/proc/meminfo"));
    ASSERT_TRUE(halo96);
    EXPECT_NEAR(toGiB(halo96->memTotalBytes), 30.48, 0.005); // "HOST 30.48 GiB"

    const Result<HostMemory> halo512 = parseMemInfo(readFixture("strix-halo-128g-512m-gtt108g/proc/meminfo"));
    ASSERT_TRUE(halo512);
    EXPECT_EQ(halo512->memTotalBytes, 127360ull * kMiB);
    EXPECT_LT(halo512->memAvailableBytes, halo512->memTotalBytes);
}

TEST(MemInfo, MissingMemAvailableIsAnErrorNotAGuess) {
    const std::string text = readFixture("old-kernel-raven-partial/proc/meminfo");
    ASSERT_TRUE(findProcKiBField(text, "MemFree").has_value()); // MemFree + Cached would be a guess
    const Result<HostMemory> host = parseMemInfo(text);
    ASSERT_FALSE(host);
    EXPECT_EQ(host.error().code, "meminfo.missing-field");
    EXPECT_NE(host.error().message.find("MemAvailable"), std::string::npos);
}

TEST(MemInfo, RejectsMalformedValues) {
    EXPECT_FALSE(parseMemInfo(""));
    EXPECT_EQ(parseMemInfo("MemTotal: lots kB\nMemAvailable: 1 kB\n").error().code, "meminfo.missing-field");
    EXPECT_EQ(findProcKiBField("MemTotal: 12 MB\n", "MemTotal"), std::nullopt); // only kB is known
    EXPECT_EQ(findProcKiBField("MemTotal: 99999999999999999999 kB\n", "MemTotal"), std::nullopt);
    EXPECT_EQ(findProcKiBField("MemTotal: 18446744073709551 kB\n", "MemTotal"),
              std::nullopt); // overflows bytes
}

TEST(ProcessStatus, ReadsVmRss) {
    const std::string status = "Name:\tllama-server\nState:\tS (sleeping)\nVmPeak:\t 9000000 kB\n"
                               "VmRSS:\t 27650436 kB\nRssAnon:\t  400000 kB\n";
    const Result<std::uint64_t> rss = parseProcessRssBytes(status);
    ASSERT_TRUE(rss);
    EXPECT_EQ(*rss, 27650436ull * kKiB);
    // Kernel threads have no VmRSS line.
    const Result<std::uint64_t> kthread = parseProcessRssBytes("Name:\tkworker/0:1\nState:\tI (idle)\n");
    ASSERT_FALSE(kthread);
    EXPECT_EQ(kthread.error().code, "proc-status.missing-field");
}

TEST(CpuInfo, ModelNameAndLogicalCpus) {
    const CpuInfo halo = parseCpuInfo(readFixture("strix-halo-128g-96g-carveout/proc/cpuinfo"));
    EXPECT_EQ(halo.modelName, "AMD RYZEN AI MAX+ 395 w/ Radeon 8060S");
    EXPECT_EQ(halo.logicalCpus, 32u);
    const CpuInfo arm =
        parseCpuInfo("processor\t: 0\nBogoMIPS\t: 108.00\n\nprocessor\t: 1\n\nModel\t\t: Raspberry Pi 5\n");
    EXPECT_EQ(arm.modelName, "Raspberry Pi 5");
    EXPECT_EQ(arm.logicalCpus, 2u);
    EXPECT_EQ(parseCpuInfo(""), CpuInfo{});
}

} // namespace
} // namespace llamafit
