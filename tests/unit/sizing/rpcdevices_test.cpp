// RPC devices in the estimate: llama.cpp's device order (RPC first), their buffer names, the
// default split by the free memory each server reports, -ts over that order, and the named
// errors when the GPU list and --rpc disagree.

#include "core/common/units.h"
#include "core/sizing/estimator.h"
#include "core/sizing/rpcdevices.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

constexpr const char* kRpcDevicesFirst = "127.0.0.1:50052";
constexpr const char* kRpcDevicesSecond = "127.0.0.1:50053";

GpuDevice vulkan(std::uint64_t mib) {
    GpuDevice device;
    device.name = "Vulkan0";
    device.memoryBytes = mib * kMiB;
    device.backend = Backend::Vulkan;
    return device;
}

double bufferMiB(const MemoryEstimate& estimate, const std::string& bufferType, Component component) {
    std::uint64_t bytes = 0;
    for (const DeviceEstimate& device : estimate.devices) {
        for (const BufferEstimate& buffer : device.buffers) {
            bytes += buffer.bufferType == bufferType && buffer.component == component ? buffer.bytes : 0;
        }
    }
    return toMiB(bytes);
}

TEST(RpcDevices, AreNamedLikeTheirBuffersAndKeepTheirEndpoint) {
    EXPECT_EQ(rpcBufferName(kRpcDevicesFirst), "RPC0[127.0.0.1:50052]");
    EXPECT_EQ(rpcEndpointOf("RPC0[127.0.0.1:50052]"), std::optional<std::string>(kRpcDevicesFirst));
    EXPECT_EQ(rpcEndpointOf("Vulkan0"), std::nullopt);
    const GpuDevice device = rpcDevice(kRpcDevicesSecond, 24105 * kMiB);
    EXPECT_EQ(device.backend, Backend::Rpc);
    EXPECT_EQ(device.memoryBytes, 24105 * kMiB);
}

TEST(RpcDevices, EndpointsMustBeHostAndPort) {
    EXPECT_TRUE(checkRpcEndpoint("127.0.0.1:50052").ok());
    EXPECT_TRUE(checkRpcEndpoint("gpu-box:1").ok());
    for (const char* bad : {"127.0.0.1", ":50052", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "h:5x"}) {
        const Result<bool> checked = checkRpcEndpoint(bad);
        ASSERT_FALSE(checked.ok()) << bad;
        EXPECT_EQ(checked.error().code, "settings.bad-value");
        EXPECT_EQ(checked.error().settings, std::vector<Setting>{Setting::RpcServers});
    }
}

TEST(RpcDevices, ComeBeforeLocalGpusInRpcOrder) {
    const ServerSettings settings = test::rpcSettings({kRpcDevicesSecond, kRpcDevicesFirst});
    const std::vector<GpuDevice> ordered = inLlamaDeviceOrder(
        settings, {vulkan(2048), rpcDevice(kRpcDevicesFirst, 1), rpcDevice(kRpcDevicesSecond, 2)});
    ASSERT_EQ(ordered.size(), 3u);
    EXPECT_EQ(ordered[0].name, rpcBufferName(kRpcDevicesSecond));
    EXPECT_EQ(ordered[1].name, rpcBufferName(kRpcDevicesFirst));
    EXPECT_EQ(ordered[2].name, "Vulkan0");
}

TEST(RpcDevices, TheEstimateNamesEachServersBuffersAndSplitsByFreeMemory) {
    // Two servers reporting the same free memory: the 17 layers (16 blocks + output) split at
    // position 0.5, so blocks 0-8 go to the first server and 9-15 plus the output to the second.
    const ModelInfo model = test::llama1B();
    const ServerSettings settings = test::rpcSettings({kRpcDevicesFirst, kRpcDevicesSecond});
    const auto estimate = estimateMemory(
        model, settings,
        {rpcDevice(kRpcDevicesFirst, 24105 * kMiB), rpcDevice(kRpcDevicesSecond, 24105 * kMiB)});
    ASSERT_TRUE(estimate.ok()) << estimate.error().message;
    const std::string first = rpcBufferName(kRpcDevicesFirst);
    const std::string second = rpcBufferName(kRpcDevicesSecond);
    // llama-1B: 8 MiB of f16 KV per layer at 4096 cells.
    EXPECT_DOUBLE_EQ(bufferMiB(*estimate, first, Component::Kv), 9 * 8.0);
    EXPECT_DOUBLE_EQ(bufferMiB(*estimate, second, Component::Kv), 7 * 8.0);
    EXPECT_GT(bufferMiB(*estimate, first, Component::Compute), 0.0);
    // ggml-rpc has no host buffer type: logits stay in plain CPU memory, mapped weights in CPU_Mapped.
    EXPECT_GT(bufferMiB(*estimate, "CPU", Component::Output), 0.0);
    EXPECT_GT(bufferMiB(*estimate, "CPU_Mapped", Component::Model), 0.0);
}

TEST(RpcDevices, UnequalFreeMemoryAndExplicitSplitsFollowTheRpcFirstOrder) {
    const ModelInfo model = test::llama1B();
    ServerSettings settings = test::rpcSettings({kRpcDevicesFirst});
    // Free memory 3:1 -> the server takes 17 * 0.75 = 12.75 -> blocks 0-12, Vulkan0 13-15 + output.
    auto estimate = estimateMemory(model, settings, {rpcDevice(kRpcDevicesFirst, 6144 * kMiB), vulkan(2048)});
    ASSERT_TRUE(estimate.ok()) << estimate.error().message;
    EXPECT_DOUBLE_EQ(bufferMiB(*estimate, rpcBufferName(kRpcDevicesFirst), Component::Kv), 13 * 8.0);
    EXPECT_DOUBLE_EQ(bufferMiB(*estimate, "Vulkan0", Component::Kv), 3 * 8.0);
    // The first local GPU's pinned host buffer is the host buffer type, even after an RPC device.
    EXPECT_GT(bufferMiB(*estimate, "Vulkan_Host", Component::Output), 0.0);

    // -ts 1,3 indexes the same order: now the server gets 17 / 4 -> blocks 0-4.
    settings.tensorSplit = {1, 3};
    estimate = estimateMemory(model, settings, {rpcDevice(kRpcDevicesFirst, 6144 * kMiB), vulkan(2048)});
    ASSERT_TRUE(estimate.ok()) << estimate.error().message;
    EXPECT_DOUBLE_EQ(bufferMiB(*estimate, rpcBufferName(kRpcDevicesFirst), Component::Kv), 5 * 8.0);
    EXPECT_DOUBLE_EQ(bufferMiB(*estimate, "Vulkan0", Component::Kv), 11 * 8.0);
}

TEST(RpcDevices, OpOffloadSkipsRpcDevices) {
    // -ngl 8: blocks 0-8 stay on the host; ggml-rpc has no offload_op, so the big-batch copies of
    // host weights land in the first local GPU's compute buffer, never in the server's.
    const ModelInfo model = test::llama1B();
    ServerSettings settings = test::rpcSettings({kRpcDevicesFirst});
    settings.gpuLayers = GpuLayers::count(8);
    const auto onlyRpc = estimateMemory(model, settings, {rpcDevice(kRpcDevicesFirst, 4096 * kMiB)});
    const auto withVulkan =
        estimateMemory(model, settings, {rpcDevice(kRpcDevicesFirst, 4096 * kMiB), vulkan(4096)});
    ASSERT_TRUE(onlyRpc.ok() && withVulkan.ok());
    settings.rpcServers.clear();
    const auto onlyVulkan = estimateMemory(model, settings, {vulkan(4096)});
    ASSERT_TRUE(onlyVulkan.ok());
    const double rpcCompute = bufferMiB(*onlyRpc, rpcBufferName(kRpcDevicesFirst), Component::Compute);
    // Within the allocator's alignment: holding the output layer or handing rows on to Vulkan0
    // moves a few bytes, a host weight's copy would be megabytes.
    EXPECT_NEAR(bufferMiB(*withVulkan, rpcBufferName(kRpcDevicesFirst), Component::Compute), rpcCompute,
                0.001);
    EXPECT_GT(bufferMiB(*onlyVulkan, "Vulkan0", Component::Compute), rpcCompute); // the copy is there
}

TEST(RpcDevices, TheEstimateRefusesRpcServersWithoutTheirDevices) {
    const ModelInfo model = test::llama1B();
    const ServerSettings settings = test::rpcSettings({kRpcDevicesFirst, kRpcDevicesSecond});
    struct Case {
        std::vector<GpuDevice> devices;
        std::string says;
    };
    const std::vector<Case> cases{
        {{rpcDevice(kRpcDevicesFirst, kMiB)}, "not given"},
        {{rpcDevice(kRpcDevicesSecond, kMiB), rpcDevice(kRpcDevicesFirst, kMiB)}, "not at position 0"},
        {{vulkan(1), rpcDevice(kRpcDevicesFirst, kMiB), rpcDevice(kRpcDevicesSecond, kMiB)},
         "not at position 0"},
        {{rpcDevice(kRpcDevicesFirst, kMiB), rpcDevice(kRpcDevicesSecond, kMiB),
          rpcDevice("127.0.0.1:1", kMiB)},
         "not one of"},
    };
    for (const Case& c : cases) {
        const auto estimate = estimateMemory(model, settings, c.devices);
        ASSERT_FALSE(estimate.ok()) << c.says;
        EXPECT_EQ(estimate.error().code, "settings.bad-value");
        EXPECT_EQ(estimate.error().settings, std::vector<Setting>{Setting::RpcServers});
        EXPECT_NE(estimate.error().message.find(c.says), std::string::npos) << estimate.error().message;
    }
    // An RPC device with no --rpc at all is refused too.
    const auto stray = estimateMemory(model, test::rpcSettings({}), {rpcDevice(kRpcDevicesFirst, kMiB)});
    ASSERT_FALSE(stray.ok());
    EXPECT_EQ(stray.error().settings, std::vector<Setting>{Setting::RpcServers});
}

} // namespace
} // namespace llamafit
