// llama-server's --list-devices listing and the RPC failures its log names (core/server/devicelist.h),
// on text printed by llama-server 0.7.0 (b11669) with two ggml-rpc-server on loopback and lavapipe.
#include "core/server/devicelist.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

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
