// What a split over RPC hosts sends across the network per token: llama-1B (n_embd 2048, vocab
// 128256, 16 blocks) on two servers with equal free memory (blocks 0-8 | 9-15 + output, as the
// estimate places them in rpcdevices_test) and on one server plus a local GPU.
#include "core/common/units.h"
#include "core/sizing/rpcdevices.h"
#include "core/sizing/rpctraffic.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr const char* kRpcTrafficFirst = "127.0.0.1:50052";
constexpr const char* kRpcTrafficSecond = "127.0.0.1:50053";
constexpr std::uint64_t kRow = 2048 * 4;         // n_embd f32
constexpr std::uint64_t kLogits = 128256ULL * 4; // n_vocab f32

TEST(RpcTraffic, TwoServersSendEmbeddingsTheSplitTwiceAndTheLogitsBack) {
    const auto traffic = rpcTrafficPerToken(
        test::llama1B(), test::rpcSettings({kRpcTrafficFirst, kRpcTrafficSecond}),
        {rpcDevice(kRpcTrafficFirst, 24105 * kMiB), rpcDevice(kRpcTrafficSecond, 24105 * kMiB)});
    ASSERT_TRUE(traffic.ok()) << traffic.error().message;
    const std::string first = rpcBufferName(kRpcTrafficFirst);
    const std::string second = rpcBufferName(kRpcTrafficSecond);
    EXPECT_EQ(traffic->crossings, (std::vector<DeviceCrossing>{{"CPU", first, "embeddings", kRow, 1},
                                                               {first, second, "after block 8", kRow, 2},
                                                               {second, "CPU", "logits", kLogits, 1}}));
    EXPECT_EQ(traffic->networkBytesPerToken, kRow + 2 * kRow + kLogits);
    // 1 Gbit/s: (3 x 8 KiB + 501 KiB) x 8 bits = 4.3 Mbit -> 4.3 ms per token.
    EXPECT_NEAR(networkSecondsPerToken(*traffic, 1e9), (3 * kRow + kLogits) * 8 / 1e9, 1e-12);
    EXPECT_NEAR(withNetworkFloor(100.0, 0.0043), 1.0 / (0.01 + 0.0043), 1e-9);
}

TEST(RpcTraffic, ALocalGpuAfterTheServerKeepsTheLogitsOffTheNetwork) {
    GpuDevice vulkan;
    vulkan.name = "Vulkan0";
    vulkan.memoryBytes = 2048 * kMiB;
    vulkan.backend = Backend::Vulkan;
    // Free memory 3:1: the server takes blocks 0-12, Vulkan0 13-15 and the output.
    const auto traffic = rpcTrafficPerToken(test::llama1B(), test::rpcSettings({kRpcTrafficFirst}),
                                            {rpcDevice(kRpcTrafficFirst, 6144 * kMiB), vulkan});
    ASSERT_TRUE(traffic.ok());
    ASSERT_EQ(traffic->crossings.size(), 3u);
    EXPECT_EQ(traffic->crossings[1],
              (DeviceCrossing{rpcBufferName(kRpcTrafficFirst), "Vulkan0", "after block 12", kRow, 1}));
    EXPECT_EQ(traffic->crossings[2].networkHops, 0u); // Vulkan0 -> CPU: the same host
    EXPECT_EQ(traffic->networkBytesPerToken, 2 * kRow);
}

TEST(RpcTraffic, OneMachineSendsNothing) {
    ServerSettings settings = test::rpcSettings({});
    const auto traffic = rpcTrafficPerToken(test::llama1B(), settings, {});
    ASSERT_TRUE(traffic.ok());
    EXPECT_EQ(traffic->networkBytesPerToken, 0u);
    EXPECT_EQ(networkSecondsPerToken(*traffic, 1e9), 0.0);
}

} // namespace
} // namespace llamafit
