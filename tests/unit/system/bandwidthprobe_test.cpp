// The host memory-bandwidth probe, run for real on this machine: a positive, finite figure in a
// sane range (no timing assertions beyond that: CI machines are shared), honest errors for bad
// options, and where a measured figure goes in a machine's model (machinefrominventory.h).

#include "core/common/units.h"
#include "core/machine/machinefrominventory.h"
#include "core/machine/machineprofile.h"
#include "core/system/bandwidthprobe.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llamafit {
namespace {

TEST(BandwidthProbe, MeasuresASaneFigure) {
    const Result<BandwidthMeasurement> measured = measureHostBandwidth();
    ASSERT_TRUE(measured.ok()) << measured.error().message;
    const double bytesPerSecond = static_cast<double>(measured->bytesPerSecond);
    EXPECT_TRUE(std::isfinite(bytesPerSecond));
    EXPECT_GT(bytesPerSecond, 100e6); // slower than 100 MB/s is not RAM
    EXPECT_LT(bytesPerSecond, 10e12); // faster than 10 TB/s is a broken timer or an optimized-out read
    EXPECT_EQ(measured->bufferBytes, 256 * kMiB);
    EXPECT_GE(measured->passes, 1u);
    EXPECT_LE(measured->passes, BandwidthProbeOptions{}.maxPasses);
    EXPECT_GE(measured->threads, 1u);
    EXPECT_GT(measured->elapsedSeconds, 0.0);
    EXPECT_NE(measured->method.find("256 MiB"), std::string::npos) << measured->method;
}

TEST(BandwidthProbe, OptionsAreHonoured) {
    BandwidthProbeOptions options;
    options.bufferBytes = 16 * kMiB;
    options.maxPasses = 2;
    options.threads = 1;
    const Result<BandwidthMeasurement> measured = measureHostBandwidth(options);
    ASSERT_TRUE(measured.ok()) << measured.error().message;
    EXPECT_EQ(measured->threads, 1u);
    EXPECT_LE(measured->passes, 2u);
    EXPECT_NE(measured->method.find("1 thread,"), std::string::npos) << measured->method;
    EXPECT_GT(measured->bytesPerSecond, 0u);
}

TEST(BandwidthProbe, BadOptionsAreErrors) {
    BandwidthProbeOptions options;
    options.bufferBytes = 0;
    EXPECT_EQ(measureHostBandwidth(options).error().code, "bandwidth.bad-options");
    options.bufferBytes = kMiB;
    options.maxPasses = 0;
    EXPECT_EQ(measureHostBandwidth(options).error().code, "bandwidth.bad-options");
}

MachineInventory cpuOnlyInventory() {
    MachineInventory inventory;
    inventory.hostMemory = HostMemory{24 * kGiB, 20 * kGiB};
    inventory.sources.push_back({"proc-meminfo", true, "MemTotal, MemAvailable"});
    return inventory;
}

TEST(BandwidthProbe, MeasuredFigureFeedsACpuOnlyMachine) {
    Machine machine = machineFromInventory(cpuOnlyInventory());
    ASSERT_FALSE(machine.bandwidthBytesPerSecond);
    EXPECT_TRUE(applyMeasuredBandwidth(machine, 40'000'000'000ULL, "read of 256 MiB by 2 threads"));
    EXPECT_EQ(machine.bandwidthBytesPerSecond, 40'000'000'000ULL);
    EXPECT_NE(machine.bandwidthSource.find("measured"), std::string::npos);
    for (const std::string& note : machine.notes) {
        EXPECT_EQ(note.find("bandwidth unknown"), std::string::npos) << note;
    }
    // A figure already there (a profile's, or an earlier measurement) is kept.
    EXPECT_FALSE(applyMeasuredBandwidth(machine, 1'000'000'000ULL, "again"));
    EXPECT_EQ(machine.bandwidthBytesPerSecond, 40'000'000'000ULL);
    // No figure is not a figure.
    Machine other = machineFromInventory(cpuOnlyInventory());
    EXPECT_FALSE(applyMeasuredBandwidth(other, 0, "nothing"));
}

TEST(BandwidthProbe, DiscreteGpuKeepsItsOwnBandwidth) {
    MachineInventory inventory = cpuOnlyInventory();
    GpuInfo gpu;
    gpu.name = "NVIDIA GeForce RTX 4060";
    gpu.vendorId = 0x10de;
    gpu.type = GpuType::Discrete;
    gpu.nvml = NvmlMemory{8 * kGiB, 500 * kMiB, 8 * kGiB - 500 * kMiB};
    inventory.gpus.push_back(gpu);
    Machine machine = machineFromInventory(inventory);
    // The CPU's RAM bandwidth says nothing about the card's VRAM.
    EXPECT_FALSE(applyMeasuredBandwidth(machine, 40'000'000'000ULL, "read"));
    EXPECT_FALSE(machine.bandwidthBytesPerSecond);
}

} // namespace
} // namespace llamafit
