// llama-server's --list-devices listing and the RPC failures its log names (core/server/devicelist.h),
// on text printed by llama-server 0.7.0 (b11669) with two ggml-rpc-server on loopback and lavapipe.
#include "core/common/units.h"
#include "core/server/devicelist.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(DeviceList, ReadsRpcServersAndGpusWithTheirFreeMemory) {
    const auto devices =
        parseDeviceList("load_backend: loaded RPC backend\n"
                        "Available devices:\n"
                        "  Vulkan0: llvmpipe (LLVM 15.0.6, 256 bits) (2048 MiB, 2048 MiB free)\n"
                        "  RPC0: 127.0.0.1:50062 (24105 MiB, 24105 MiB free)\n"
                        "  RPC1: 127.0.0.1:50063 (24105 MiB, 23000 MiB free)\n"
                        "\n");
    ASSERT_TRUE(devices) << devices.error().message;
    ASSERT_EQ(devices->size(), 3u);
    EXPECT_EQ((*devices)[0],
              (ListedDevice{"Vulkan0", "llvmpipe (LLVM 15.0.6, 256 bits)", 2048 * kMiB, 2048 * kMiB}));
    EXPECT_EQ((*devices)[1].name, "RPC0");
    EXPECT_EQ((*devices)[1].description, "127.0.0.1:50062");
    EXPECT_EQ((*devices)[2].freeBytes, 23000 * kMiB);
    EXPECT_EQ((*devices)[2].totalBytes, 24105 * kMiB);
}

TEST(DeviceList, NoDeviceAndNoListing) {
    const auto none = parseDeviceList("Available devices:\n  (none)\n");
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
    const auto missing = parseDeviceList("error: invalid argument: --list-devicez\n");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, "devices.no-listing");
}

TEST(DeviceList, AMalformedLineIsSkippedNotGuessed) {
    const auto devices = parseDeviceList("Available devices:\n  RPC0: 127.0.0.1:50062 (lots of memory)\n"
                                         "  RPC1: 127.0.0.1:50063 (10 MiB, 9 MiB free)\n");
    ASSERT_TRUE(devices);
    ASSERT_EQ(devices->size(), 1u);
    EXPECT_EQ(devices->front().name, "RPC1");
}

TEST(DeviceList, ThisMachinesGpusAsTheServerListsThem) {
    GpuInfo lavapipe;
    lavapipe.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    lavapipe.source = "vulkan";
    lavapipe.type = GpuType::Cpu;
    lavapipe.maxStorageBufferRangeBytes = 128ULL << 20;
    lavapipe.maxMemoryAllocationBytes = 2048ULL << 20;
    GpuInfo radeon;
    radeon.name = "AMD Radeon 8060S Graphics (RADV GFX1151)";
    radeon.source = "vulkan";
    radeon.type = GpuType::Integrated;
    const std::vector<GpuInfo> probed{lavapipe, radeon};

    const auto vulkan = listedLocalGpu({"Vulkan0", lavapipe.name, 2048ULL << 20, 2000ULL << 20}, probed);
    ASSERT_TRUE(vulkan);
    EXPECT_EQ(vulkan->name, "Vulkan0");
    EXPECT_EQ(vulkan->backend, Backend::Vulkan);
    EXPECT_EQ(vulkan->memoryBytes, 2000ULL << 20); // free, as the default split reads it
    EXPECT_EQ(vulkan->limits.maxStorageBufferRangeBytes, std::optional<std::uint64_t>(128ULL << 20));
    EXPECT_FALSE(vulkan->integrated);
    const auto apu = listedLocalGpu({"Vulkan1", radeon.name, 1, 1}, probed);
    ASSERT_TRUE(apu);
    EXPECT_TRUE(apu->integrated);
    // A device the driver does not show: no limits, not integrated.
    const auto unknown = listedLocalGpu({"Vulkan2", "Another GPU", 1, 1}, probed);
    ASSERT_TRUE(unknown);
    EXPECT_FALSE(unknown->limits.largestOpTensorBytes());

    EXPECT_EQ(listedLocalGpu({"CUDA0", "NVIDIA GeForce RTX 4060", 1, 1}, {})->backend, Backend::Cuda);
    EXPECT_EQ(listedLocalGpu({"ROCm0", "AMD Radeon RX 7900 XTX", 1, 1}, {})->backend, Backend::Rocm);
    EXPECT_EQ(listedLocalGpu({"MTL0", "Apple M2 Max", 1, 1}, {})->backend, Backend::Metal);
    EXPECT_EQ(listedLocalGpu({"SYCL0", "Intel Arc A770", 1, 1}, {})->backend, Backend::Other);
    EXPECT_FALSE(listedLocalGpu({"RPC0", "127.0.0.1:50052", 1, 1}, {})); // a server's, not this machine's
}

TEST(DeviceList, NamesTheRpcFailures) {
    const auto unreachable =
        rpcFailureOf("./src/ggml-rpc/ggml-rpc.cpp:650: Failed to connect to 127.0.0.1:50069\n"
                     "[Inferior 1 (process 9741) detached]\n");
    ASSERT_TRUE(unreachable);
    EXPECT_EQ(unreachable->code, "rpc.unreachable");
    EXPECT_NE(unreachable->message.find("127.0.0.1:50069"), std::string::npos);
    const auto protocol = rpcFailureOf("RPC server version mismatch: 3.0.0\n");
    ASSERT_TRUE(protocol);
    EXPECT_EQ(protocol->code, "rpc.protocol-mismatch");
    EXPECT_NE(protocol->message.find("3.0.0"), std::string::npos);
    const auto handshake = rpcFailureOf("RPC HELLO failed: server dropped the connection\n");
    ASSERT_TRUE(handshake);
    EXPECT_EQ(handshake->code, "rpc.handshake-failed");
    EXPECT_FALSE(rpcFailureOf("Available devices:\n  (none)\n"));
}

} // namespace
} // namespace llamafit
