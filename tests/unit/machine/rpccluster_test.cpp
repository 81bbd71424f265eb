// A cluster: the seed machine plus ggml-rpc-servers, each a device in front of the local GPU with
// a pool of the memory it reports free.
#include "core/common/units.h"
#include "core/machine/rpccluster.h"
#include "tests/unit/machine/seedmachine.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

const std::vector<RpcHost> kTwoHosts{{"127.0.0.1:50052", 24105 * kMiB}, {"127.0.0.1:50053", 2048 * kMiB}};

TEST(RpcCluster, RpcDevicesComeFirstEachWithItsOwnPool) {
    const Machine local = test::seedMachine();
    const Machine cluster = withRpcHosts(local, kTwoHosts);
    ASSERT_EQ(cluster.gpus.size(), local.gpus.size() + 2);
    EXPECT_EQ(cluster.gpus[0].name, "RPC0[127.0.0.1:50052]");
    EXPECT_EQ(cluster.gpus[1].name, "RPC0[127.0.0.1:50053]");
    EXPECT_EQ(cluster.gpus[0].backend, Backend::Rpc);
    EXPECT_EQ(cluster.gpus[2], local.gpus[0]); // the local GPU keeps its pool index
    ASSERT_EQ(cluster.pools.size(), local.pools.size() + 2);
    const MemoryPool& first = cluster.pools[cluster.gpus[0].poolIndex];
    EXPECT_EQ(first.kind, PoolKind::RpcHost);
    EXPECT_EQ(first.capacityBytes, 24105 * kMiB);
    EXPECT_EQ(first.usableBytes(), 24105 * kMiB); // the server's figure is already what is free
    EXPECT_EQ(cluster.hostPoolIndex, local.hostPoolIndex);

    // The estimate's devices: llama.cpp's order, the RPC servers sized by what they report.
    const std::vector<GpuDevice> gpus = sizingGpus(cluster);
    ASSERT_EQ(gpus.size(), 3u);
    EXPECT_EQ(gpus[0].name, "RPC0[127.0.0.1:50052]");
    EXPECT_EQ(gpus[0].memoryBytes, 24105 * kMiB);
    EXPECT_EQ(gpus[1].memoryBytes, 2048 * kMiB);
    EXPECT_EQ(gpus[2].name, local.gpus[0].name);
}

TEST(RpcCluster, HostsCanBeReplacedAndReadBack) {
    const Machine local = test::seedMachine();
    const Machine two = withRpcHosts(local, kTwoHosts);
    EXPECT_EQ(rpcHostsOf(two), kTwoHosts);
    EXPECT_TRUE(rpcHostsOf(local).empty());

    const std::vector<RpcHost> one{{"10.0.0.2:50052", 65536 * kMiB}};
    const Machine replaced = withRpcHosts(two, one);
    EXPECT_EQ(rpcHostsOf(replaced), one);
    EXPECT_EQ(replaced.pools.size(), local.pools.size() + 1);
    EXPECT_EQ(withRpcHosts(replaced, {}), local);
}

TEST(RpcCluster, OneColumnPerHost) {
    const Machine cluster = withRpcHosts(test::seedMachine(), kTwoHosts);
    const std::vector<ClusterHost> hosts = clusterHosts(cluster);
    ASSERT_EQ(hosts.size(), 3u);
    EXPECT_EQ(hosts[0].endpoint, "");
    EXPECT_EQ(hosts[0].poolIndices.size(), test::seedMachine().pools.size());
    EXPECT_EQ(hosts[1].endpoint, "127.0.0.1:50052");
    EXPECT_EQ(hosts[1].poolIndices, std::vector<std::size_t>{cluster.gpus[0].poolIndex});
    EXPECT_EQ(hosts[2].name, "127.0.0.1:50053");
}

} // namespace
} // namespace llamafit
