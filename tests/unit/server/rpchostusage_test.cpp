// Each RPC host's memory as the main host's log shows it: a recorded run of llama-server 0.7.0
// over two ggml-rpc-server on loopback (tests/data/recorded/rpc-b11669, qwen2 -c 4096 -np 1).
#include "core/common/units.h"
#include "core/server/rpchostusage.h"
#include "core/sizing/rpcdevices.h"
#include "tests/unit/server/serverdata.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using testdata::readServerCapture;

AllocationLog recordedTwoServerRun() {
    const auto log = parseAllocationLog(readServerCapture("../recorded/rpc-b11669/qwen2_rpc2_c4096_np1.txt"));
    EXPECT_TRUE(log.ok());
    return log.ok() ? *log : AllocationLog{};
}

TEST(RpcHostUsage, TheStartLogListsEachDeviceWithItsFreeMemory) {
    const AllocationLog log = recordedTwoServerRun();
    ASSERT_EQ(log.listedDevices.size(), 3u);
    EXPECT_EQ(log.listedDevices[0].name, "CPU");
    EXPECT_EQ(log.listedDevices[1], (ListedDevice{"RPC0", "127.0.0.1:50052", 24105 * kMiB, 24105 * kMiB}));
    EXPECT_EQ(log.listedDevices[2].description, "127.0.0.1:50053");
}

TEST(RpcHostUsage, EachHostsBuffersAndWhatItReported) {
    const std::vector<RpcHostUsage> hosts = rpcHostUsage(recordedTwoServerRun());
    ASSERT_EQ(hosts.size(), 2u);
    EXPECT_EQ(hosts[0].endpoint, "127.0.0.1:50052");
    EXPECT_EQ(hosts[0].device, "RPC0");
    EXPECT_EQ(hosts[1].device, "RPC1");
    EXPECT_EQ(hosts[0].freeAtStartMiB, 24105u);
    // 196.54 model + 26.00 KV + its compute buffer, as logged.
    EXPECT_GT(hosts[0].allocatedMiB, 196.54 + 26.00);
    EXPECT_GT(hosts[1].allocatedMiB, 304.25 + 22.00);
    EXPECT_FALSE(hosts[0].predictedMiB.has_value());
}

TEST(RpcHostUsage, ThePredictionIsMatchedByEndpoint) {
    MemoryEstimate prediction;
    DeviceEstimate device;
    device.name = rpcBufferName("127.0.0.1:50053");
    device.buffers.push_back(
        BufferEstimate{device.name, Component::Model, 300 * kMiB, {}, BufferOwner::Main});
    device.bytes.overheadBytes = 256 * kMiB; // an allowance, not a buffer: not compared
    prediction.devices.push_back(device);
    const std::vector<RpcHostUsage> hosts = rpcHostUsage(recordedTwoServerRun(), prediction);
    ASSERT_EQ(hosts.size(), 2u);
    EXPECT_FALSE(hosts[0].predictedMiB.has_value());
    EXPECT_EQ(hosts[1].predictedMiB, 300.0);
    EXPECT_TRUE(rpcHostUsage(AllocationLog{}).empty()); // one machine: no hosts
}

} // namespace
} // namespace llamafit
