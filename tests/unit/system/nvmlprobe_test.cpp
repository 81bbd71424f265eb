// NvmlProbe: run-time loading of NVML. No NVIDIA driver here: the library is either absent
// (the source must be reported missing) or the fake built from NVML's documented API.

#include "core/common/units.h"
#include "core/system/nvmlprobe.h"

#include <QByteArray>
#include <QtGlobal>

#include <gtest/gtest.h>

#include <cstdlib>

namespace llamafit {
namespace {

TEST(NvmlProbe, AbsentLibraryIsReportedNotFound) {
    const Result<std::shared_ptr<NvmlProbe>> probe = NvmlProbe::open("libllamafit-no-such-nvml.so.1");
    ASSERT_FALSE(probe);
    EXPECT_EQ(probe.error().code, "nvml.not-found");
}

TEST(NvmlProbe, LibraryWithoutNvmlSymbolsIsRejected) {
    // A system library certainly loadable here, without nvmlInit_v2.
#ifdef _WIN32
    const Result<std::shared_ptr<NvmlProbe>> probe = NvmlProbe::open("kernel32.dll");
#else
    const Result<std::shared_ptr<NvmlProbe>> probe = NvmlProbe::open("libvulkan.so.1");
#endif
    ASSERT_FALSE(probe);
    EXPECT_EQ(probe.error().code, "nvml.missing-symbol");
}

TEST(NvmlProbe, ReadsDevicesFromTheFakeLibrary) {
    const Result<std::shared_ptr<NvmlProbe>> probe = NvmlProbe::open(LLAMAFIT_FAKE_NVML_PATH);
    ASSERT_TRUE(probe) << probe.error().message;
    const NvmlProbe& nvml = **probe;
    EXPECT_EQ(nvml.driverVersion(), "550.54.14");
    ASSERT_EQ(nvml.devices().size(), 2u);
    const NvmlDevice& rtx4060 = nvml.devices()[0];
    EXPECT_EQ(rtx4060.name, "NVIDIA GeForce RTX 4060");
    EXPECT_EQ(rtx4060.vendorId, 0x10deu);
    EXPECT_EQ(rtx4060.deviceId, 0x2882u);
    EXPECT_EQ(rtx4060.pciBusId, "00000000:01:00.0");
    EXPECT_EQ(rtx4060.memory.totalBytes, 8 * kGiB);
    EXPECT_EQ(rtx4060.memory.usedBytes + rtx4060.memory.freeBytes, rtx4060.memory.totalBytes);
    EXPECT_EQ(nvml.devices()[1].memory.totalBytes, 24 * kGiB);

    // Live reads go back to the library (the fake's used memory grows per call).
    const Result<NvmlMemory> again = nvml.readMemory(0);
    ASSERT_TRUE(again);
    EXPECT_GT(again->usedBytes, rtx4060.memory.usedBytes);
    const Result<NvmlMemory> bad = nvml.readMemory(2);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, "nvml.bad-device-index");
}

TEST(NvmlProbe, InitFailureNamesTheCode) {
    qputenv("LLAMAFIT_FAKE_NVML_INIT_ERROR", QByteArrayLiteral("9")); // NVML_ERROR_DRIVER_NOT_LOADED
    const Result<std::shared_ptr<NvmlProbe>> probe = NvmlProbe::open(LLAMAFIT_FAKE_NVML_PATH);
    qunsetenv("LLAMAFIT_FAKE_NVML_INIT_ERROR");
    ASSERT_FALSE(probe);
    EXPECT_EQ(probe.error().code, "nvml.init-failed");
    EXPECT_NE(probe.error().message.find("9"), std::string::npos);
}

} // namespace
} // namespace llamafit
