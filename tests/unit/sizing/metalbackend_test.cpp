// The Metal backend table (core/sizing/scheduler/metalbackend.h): buffer types, the ops it takes
// and refuses, the scratch its ops keep in the compute buffer, and its concurrency reorder, each
// against a graph built by hand.
#include "core/sizing/scheduler/metalbackend.h"
#include "tests/unit/sizing/backendtablegraph.h"

#include <gtest/gtest.h>

namespace llamafit::scheduler {
namespace metalbackendtest {

using graph::ComputeGraph;
using graph::GgmlOp;
using graph::kNoTensor;
using graph::Tensor;
using graph::TensorId;

using test::addTableTensor;

// FLASH_ATTN_EXT over 32 query heads and an 8-head cache of 4096 cells, head size 128.
TensorId addMetalAttention(ComputeGraph& graph, GgmlType kvType, std::int64_t batch,
                           std::int64_t headV = 128) {
    const TensorId q = addTableTensor(graph, GgmlType::F32, {128, batch, 32, 1});
    const TensorId k = addTableTensor(graph, kvType, {128, 4096, 8, 1});
    const TensorId v = addTableTensor(graph, kvType, {headV, 4096, 8, 1});
    const TensorId mask = addTableTensor(graph, GgmlType::F16, {4096, batch, 1, 1});
    return addTableTensor(graph, GgmlType::F32, {headV, 32, batch, 1}, GgmlOp::FlashAttnExt, {q, k, v, mask});
}

TEST(MetalBackend, BufferTypeIsSharedOnUnifiedMemoryAndStopsAtMaxBufferLength) {
    MetalDevice device;
    device.maxBufferLength = 32ull << 30;
    const BufferType shared = metalBufferType(device);
    EXPECT_EQ(metalBackend(device).name, "MTL0");
    EXPECT_EQ(shared.name, "MTL0");
    EXPECT_FALSE(shared.host);
    EXPECT_EQ(shared.alignment, 32u);
    EXPECT_EQ(shared.maxSize, 32ull << 30);
    device.sharedBuffers = false;
    EXPECT_EQ(metalBufferType(device).name, "MTL0_Private");
}

TEST(MetalBackend, ReadsOnlyItsOwnBufferTypes) {
    const SchedulerBackend metal = metalBackend(MetalDevice{});
    EXPECT_TRUE(metal.supportsBufferType("MTL0", false));
    EXPECT_TRUE(metal.supportsBufferType("MTL0_Mapped", false));
    EXPECT_TRUE(metal.supportsBufferType("MTL0_Private", false));
    EXPECT_FALSE(metal.supportsBufferType("MTL1", false));
    EXPECT_FALSE(metal.supportsBufferType("CPU", true));
    EXPECT_FALSE(metal.supportsBufferType("CPU_Mapped", true));
}

TEST(MetalBackend, TakesOnlyMatrixProductsOnHostWeightsFromThirtyTwoRows) {
    ComputeGraph graph;
    graph.buffers.push_back({"CPU", graph::BufferUsage::Weights, true});
    const TensorId weight = addTableTensor(graph, GgmlType::Q4_0, {4096, 4096, 1, 1}, GgmlOp::None, {}, 0);
    const TensorId norm = addTableTensor(graph, GgmlType::F32, {4096, 1, 1, 1}, GgmlOp::None, {}, 0);
    const TensorId x31 = addTableTensor(graph, GgmlType::F32, {4096, 31, 1, 1});
    const TensorId x512 = addTableTensor(graph, GgmlType::F32, {4096, 512, 1, 1});
    const TensorId mm31 =
        addTableTensor(graph, GgmlType::F32, {4096, 31, 1, 1}, GgmlOp::MulMat, {weight, x31});
    const TensorId mm512 =
        addTableTensor(graph, GgmlType::F32, {4096, 512, 1, 1}, GgmlOp::MulMat, {weight, x512});
    const TensorId mul = addTableTensor(graph, GgmlType::F32, {4096, 512, 1, 1}, GgmlOp::Mul, {x512, norm});
    const SchedulerBackend metal = metalBackend(MetalDevice{});
    EXPECT_FALSE(metal.offloadOp(graph, mm31));
    EXPECT_TRUE(metal.offloadOp(graph, mm512));
    EXPECT_FALSE(metal.offloadOp(graph, mul)); // 512 rows, but not a matrix product
}

TEST(MetalBackend, FlashAttentionNeedsOneKvTypeAKnownHeadAndSimdgroupMatrices) {
    ComputeGraph graph;
    const TensorId f16 = addMetalAttention(graph, GgmlType::F16, 1);
    const TensorId q51 = addMetalAttention(graph, GgmlType::Q5_1, 512);
    const TensorId iq4 = addMetalAttention(graph, GgmlType::IQ4_NL, 512);
    const TensorId bf16 = addMetalAttention(graph, GgmlType::BF16, 1);
    MetalDevice device;
    EXPECT_TRUE(metalBackend(device).supportsOp(graph, f16));
    EXPECT_TRUE(metalBackend(device).supportsOp(graph, q51));
    EXPECT_FALSE(metalBackend(device).supportsOp(graph, iq4));
    EXPECT_TRUE(metalBackend(device).supportsOp(graph, bf16));

    // K q8_0 with V f16: Metal wants one type.
    const TensorId mixed = addMetalAttention(graph, GgmlType::Q8_0, 1);
    graph[graph[mixed].sources[2]].type = GgmlType::F16;
    EXPECT_FALSE(metalBackend(device).supportsOp(graph, mixed));
    // Head size 100 has no kernel.
    graph[graph[f16].sources[0]].ne[0] = 100;
    EXPECT_FALSE(metalBackend(device).supportsOp(graph, f16));

    device.bfloat = false;
    EXPECT_FALSE(metalBackend(device).supportsOp(graph, bf16));
    device = MetalDevice{};
    device.simdgroupMatrixMultiply = false; // pre-Apple7 GPUs
    EXPECT_FALSE(metalBackend(device).supportsOp(graph, q51));
}

TEST(MetalBackend, RefusesOpsItHasNoKernelFor) {
    ComputeGraph graph;
    const TensorId x = addTableTensor(graph, GgmlType::F32, {64, 64, 1, 1});
    const TensorId mask = addTableTensor(graph, GgmlType::F32, {64, 64, 1, 1}, GgmlOp::DiagMaskInf, {x});
    const TensorId weight = addTableTensor(graph, GgmlType::NVFP4, {64, 64, 1, 1});
    const TensorId mm = addTableTensor(graph, GgmlType::F32, {64, 64, 1, 1}, GgmlOp::MulMat, {weight, x});
    EXPECT_FALSE(metalBackend(MetalDevice{}).supportsOp(graph, mask));
    EXPECT_FALSE(metalBackend(MetalDevice{}).supportsOp(graph, mm));
}

TEST(MetalBackend, DecodeAttentionReservesEveryScratch) {
    ComputeGraph graph;
    const TensorId fa = addMetalAttention(graph, GgmlType::F16, 1);
    // result 16384 + pad 64 * (8 * 256 + 8 * 256 + 2) + blk 128 + tmp 4 * 32 * 32 * 130
    // + the f16 K and V copies (reserved for an f16 cache too) 2 * 8388608.
    EXPECT_EQ(metalAllocSize(MetalDevice{}, graph, fa), 16384u + 262272u + 128u + 532480u + 16777216u);
    EXPECT_EQ(metalBufferType(MetalDevice{}).allocSizeOf(graph, fa),
              metalAllocSize(MetalDevice{}, graph, fa));
}

TEST(MetalBackend, PromptAttentionOverAQuantizedCachePadsAtF16RowSize) {
    ComputeGraph graph;
    const TensorId fa = addMetalAttention(graph, GgmlType::Q8_0, 512);
    // result 8388608 + pad 64 * (8 * 256 + 8 * 256 + 2 * 512) + blk 64 * 64 + tmp 4 * 32 * 32 * 32
    // * 130 + kv_f16 2 * 8388608.
    EXPECT_EQ(metalAllocSize(MetalDevice{}, graph, fa), 8388608u + 327680u + 4096u + 17039360u + 16777216u);
}

TEST(MetalBackend, ExpertProductsSortsAndTopKKeepScratch) {
    ComputeGraph graph;
    const TensorId experts = addTableTensor(graph, GgmlType::Q4_0, {4096, 1024, 64, 1});
    const TensorId x = addTableTensor(graph, GgmlType::F32, {4096, 8, 32, 1});
    const TensorId ids = addTableTensor(graph, GgmlType::I32, {8, 32, 1, 1});
    const TensorId mmid =
        addTableTensor(graph, GgmlType::F32, {1024, 8, 32, 1}, GgmlOp::MulMatId, {experts, x, ids});
    EXPECT_EQ(metalAllocSize(MetalDevice{}, graph, mmid), 1048576u + 4u * 64u + 4u * 64u * 32u);

    const TensorId logits = addTableTensor(graph, GgmlType::F32, {128, 32, 1, 1});
    const TensorId sorted = addTableTensor(graph, GgmlType::I32, {128, 32, 1, 1}, GgmlOp::Argsort, {logits});
    const TensorId top = addTableTensor(graph, GgmlType::I32, {8, 32, 1, 1}, GgmlOp::TopK, {logits});
    EXPECT_EQ(metalAllocSize(MetalDevice{}, graph, sorted), 2u * 16384u);
    EXPECT_EQ(metalBufferType(MetalDevice{}).allocSizeOf(graph, sorted), 2u * 16384u);
    EXPECT_EQ(metalAllocSize(MetalDevice{}, graph, top), 2u * 4u * 4096u);
}

// x feeds two matrix products; the first one's SCALE must wait for it, so the reorder pulls the
// second product forward into the first one's concurrent set.
struct TwoProducts {
    ComputeGraph graph;
    TensorId first = kNoTensor;
    TensorId scale = kNoTensor;
    TensorId second = kNoTensor;
};

TwoProducts makeTwoProducts(GgmlOp secondOp) {
    TwoProducts t;
    t.graph.buffers.push_back({"MTL0", graph::BufferUsage::Weights, false});
    const TensorId w0 = addTableTensor(t.graph, GgmlType::F16, {64, 64, 1, 1}, GgmlOp::None, {}, 0);
    const TensorId w1 = addTableTensor(t.graph, GgmlType::F16, {64, 64, 1, 1}, GgmlOp::None, {}, 0);
    const TensorId x = addTableTensor(t.graph, GgmlType::F32, {64, 8, 1, 1});
    t.first = addTableTensor(t.graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::MulMat, {w0, x});
    t.scale = addTableTensor(t.graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::Scale, {t.first});
    t.second = secondOp == GgmlOp::MulMat
                   ? addTableTensor(t.graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::MulMat, {w1, x})
                   : addTableTensor(t.graph, GgmlType::F32, {64, 8, 1, 1}, secondOp, {x});
    return t;
}

TEST(MetalBackend, ReorderPullsAnIndependentProductIntoTheRunningSet) {
    const TwoProducts t = makeTwoProducts(GgmlOp::MulMat);
    std::vector<TensorId> nodes = t.graph.nodes;
    metalBackend(MetalDevice{}).optimizeGraph(t.graph, nodes);
    EXPECT_EQ(nodes, (std::vector<TensorId>{t.first, t.second, t.scale}));
}

TEST(MetalBackend, ReorderStopsAtAnOpItMayNotMove) {
    const TwoProducts t = makeTwoProducts(GgmlOp::SoftMax);
    std::vector<TensorId> nodes = t.graph.nodes;
    metalBackend(MetalDevice{}).optimizeGraph(t.graph, nodes);
    EXPECT_EQ(nodes, t.graph.nodes);

    MetalDevice noReorder;
    noReorder.graphOptimize = false; // GGML_METAL_GRAPH_OPTIMIZE_DISABLE
    EXPECT_FALSE(metalBackend(noReorder).optimizeGraph);
}

TEST(MetalBackend, ReorderMovesAFusedChainOnlyWhole) {
    // ADD -> MUL is packed as one node. Alone the ADD could run beside the first product, but the
    // MUL reads the SCALE that waits for it, so the pair stays where it is.
    ComputeGraph graph;
    graph.buffers.push_back({"MTL0", graph::BufferUsage::Weights, false});
    const TensorId w = addTableTensor(graph, GgmlType::F16, {64, 64, 1, 1}, GgmlOp::None, {}, 0);
    const TensorId x = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1});
    const TensorId y = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1});
    const TensorId first = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::MulMat, {w, x});
    const TensorId scale = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::Scale, {first});
    const TensorId add = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::Add, {x, y});
    const TensorId mul = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::Mul, {add, scale});
    std::vector<TensorId> nodes = graph.nodes;
    metalBackend(MetalDevice{}).optimizeGraph(graph, nodes);
    EXPECT_EQ(nodes, (std::vector<TensorId>{first, scale, add, mul}));

    // An output ADD is not fused (ggml_can_fuse): then the ADD alone moves forward.
    graph[add].flags |= graph::kFlagOutput;
    nodes = graph.nodes;
    metalBackend(MetalDevice{}).optimizeGraph(graph, nodes);
    EXPECT_EQ(nodes, (std::vector<TensorId>{first, add, scale, mul}));
}

} // namespace metalbackendtest
} // namespace llamafit::scheduler
