// The CUDA/HIP backend table (core/sizing/scheduler/cudabackend.h): the rules that decide where an
// op runs and how many bytes ggml-alloc gives it, each against a graph built by hand.
#include "core/sizing/scheduler/cudabackend.h"
#include "tests/unit/sizing/backendtablegraph.h"

#include <gtest/gtest.h>

namespace llamafit::scheduler {
namespace cudabackendtest {

using graph::ComputeGraph;
using graph::GgmlOp;
using graph::kNoTensor;
using graph::Tensor;
using graph::TensorId;

using test::addTableTensor;

// A FLASH_ATTN_EXT node: Q of `batch` tokens and `qHeads` heads, K/V caches of `cells` cells and
// `kvHeads` heads, an f16 mask.
struct Attention {
    ComputeGraph graph;
    TensorId k = kNoTensor;
    TensorId v = kNoTensor;
    TensorId op = kNoTensor;
};

Attention makeAttention(std::int64_t headK, std::int64_t headV, GgmlType kType, GgmlType vType,
                        std::int64_t batch, std::int64_t qHeads = 32, std::int64_t kvHeads = 8,
                        std::int64_t cells = 4096) {
    Attention a;
    const TensorId q = addTableTensor(a.graph, GgmlType::F32, {headK, batch, qHeads, 1});
    a.k = addTableTensor(a.graph, kType, {headK, cells, kvHeads, 1});
    a.v = addTableTensor(a.graph, vType, {headV, cells, kvHeads, 1});
    const TensorId mask = addTableTensor(a.graph, GgmlType::F16, {cells, batch, 1, 1});
    a.op = addTableTensor(a.graph, GgmlType::F32, {headV, qHeads, batch, 1}, GgmlOp::FlashAttnExt,
                          {q, a.k, a.v, mask});
    return a;
}

std::uint64_t f16CopyBytes(const ComputeGraph& graph, TensorId id) {
    const Tensor& t = graph[id];
    return static_cast<std::uint64_t>(t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]) * 2;
}

std::uint64_t pad128(std::uint64_t bytes) {
    return (bytes + 127) / 128 * 128;
}

TEST(CudaBackend, BufferTypesAreNamedAlignedAndSizedAsGgmlDoes) {
    const CudaDevice cuda;
    EXPECT_EQ(cudaBufferType(cuda).name, "CUDA0");
    EXPECT_EQ(cudaBufferType(cuda).alignment, 128u);
    EXPECT_FALSE(cudaBufferType(cuda).host);
    EXPECT_EQ(cudaBufferType(cuda).maxSize, UINT64_MAX / 2);
    EXPECT_EQ(cudaHostBufferType(cuda).name, "CUDA_Host");
    EXPECT_EQ(cudaHostBufferType(cuda).alignment, 32u);
    EXPECT_TRUE(cudaHostBufferType(cuda).host);
    EXPECT_EQ(cudaHostBufferType(cuda).allocBufferPadding, 0u);

    CudaDevice rocm;
    rocm.hip = true;
    rocm.index = 1;
    rocm.computeCapability = cudacc::kRdna3;
    EXPECT_EQ(cudaBackend(rocm).name, "ROCm1");
    EXPECT_EQ(cudaBufferType(rocm).name, "ROCm1");
    EXPECT_EQ(cudaHostBufferType(rocm).name, "ROCm_Host");
}

TEST(CudaBackend, ReadsItsOwnBufferAndThePinnedHostOneOnlyWhenIntegrated) {
    CudaDevice device;
    const SchedulerBackend discrete = cudaBackend(device);
    EXPECT_TRUE(discrete.supportsBufferType("CUDA0", false));
    EXPECT_FALSE(discrete.supportsBufferType("CUDA1", false));
    EXPECT_FALSE(discrete.supportsBufferType("CUDA_Host", true));
    EXPECT_FALSE(discrete.supportsBufferType("CPU", true));
    device.integrated = true;
    EXPECT_TRUE(cudaBackend(device).supportsBufferType("CUDA_Host", true));
}

TEST(CudaBackend, TakesAHostMatrixProductFromThirtyTwoRows) {
    ComputeGraph graph;
    graph.buffers.push_back({"CPU", graph::BufferUsage::Weights, true});
    const TensorId weight = addTableTensor(graph, GgmlType::Q4_0, {4096, 4096, 1, 1}, GgmlOp::None, {}, 0);
    const TensorId x31 = addTableTensor(graph, GgmlType::F32, {4096, 31, 1, 1});
    const TensorId x32 = addTableTensor(graph, GgmlType::F32, {4096, 32, 1, 1});
    const TensorId mm31 =
        addTableTensor(graph, GgmlType::F32, {4096, 31, 1, 1}, GgmlOp::MulMat, {weight, x31});
    const TensorId mm32 =
        addTableTensor(graph, GgmlType::F32, {4096, 32, 1, 1}, GgmlOp::MulMat, {weight, x32});
    const TensorId rows =
        addTableTensor(graph, GgmlType::F32, {4096, 512, 1, 1}, GgmlOp::GetRows, {weight, x32});

    CudaDevice device;
    EXPECT_FALSE(cudaBackend(device).offloadOp(graph, mm31));
    EXPECT_TRUE(cudaBackend(device).offloadOp(graph, mm32));
    EXPECT_FALSE(cudaBackend(device).offloadOp(graph, rows)); // GET_ROWS counts as batch 0
    device.opOffloadMinBatch = 64;                            // GGML_OP_OFFLOAD_MIN_BATCH=64
    EXPECT_FALSE(cudaBackend(device).offloadOp(graph, mm32));
}

TEST(CudaBackend, PadsAQuantizedRowToAMultipleOf512Values) {
    ComputeGraph graph;
    const TensorId odd = addTableTensor(graph, GgmlType::Q4_0, {4000, 10, 1, 1});
    const TensorId even = addTableTensor(graph, GgmlType::Q4_0, {4096, 10, 1, 1});
    const TensorId plain = addTableTensor(graph, GgmlType::F32, {4000, 10, 1, 1});
    const CudaDevice device;
    // 4000 % 512 = 416: 96 more values, three q4_0 blocks of 18 bytes.
    EXPECT_EQ(cudaAllocSize(device, graph, odd), graph[odd].bytes() + 54);
    EXPECT_EQ(cudaBufferType(device).allocSizeOf(graph, odd), graph[odd].bytes() + 54);
    EXPECT_EQ(cudaAllocSize(device, graph, even), graph[even].bytes());
    EXPECT_EQ(cudaAllocSize(device, graph, plain), graph[plain].bytes());
}

TEST(CudaBackend, FlashAttentionHeadSizesAndTypes) {
    const CudaDevice device;
    const auto supported = [&](const Attention& a) { return cudaBackend(device).supportsOp(a.graph, a.op); };
    EXPECT_TRUE(supported(makeAttention(128, 128, GgmlType::F16, GgmlType::F16, 1)));
    EXPECT_FALSE(supported(makeAttention(100, 100, GgmlType::F16, GgmlType::F16, 1))); // no kernel
    EXPECT_FALSE(supported(makeAttention(128, 64, GgmlType::F16, GgmlType::F16, 1)));  // K and V differ
    EXPECT_FALSE(supported(makeAttention(192, 128, GgmlType::F16, GgmlType::F16, 1, 16, 4)));  // GQA 4
    EXPECT_TRUE(supported(makeAttention(192, 128, GgmlType::F16, GgmlType::F16, 1, 32, 4)));   // GQA 8
    EXPECT_FALSE(supported(makeAttention(576, 512, GgmlType::F16, GgmlType::F16, 1, 16, 16))); // no GQA
    EXPECT_TRUE(supported(makeAttention(576, 512, GgmlType::F16, GgmlType::F16, 1, 16, 1)));
    // b11669 takes any pair of f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0, but no IQ4_NL.
    EXPECT_TRUE(supported(makeAttention(128, 128, GgmlType::Q8_0, GgmlType::Q4_1, 512)));
    EXPECT_FALSE(supported(makeAttention(128, 128, GgmlType::IQ4_NL, GgmlType::IQ4_NL, 512)));

    CudaDevice noFlashAttention;
    noFlashAttention.flashAttention = false; // GGML_CUDA_FA=OFF
    const Attention plain = makeAttention(128, 128, GgmlType::F16, GgmlType::F16, 1);
    EXPECT_FALSE(cudaBackend(noFlashAttention).supportsOp(plain.graph, plain.op));
}

TEST(CudaBackend, FlashAttentionRefusesAMaskBroadcastOverHeads) {
    Attention a = makeAttention(128, 128, GgmlType::F16, GgmlType::F16, 1);
    a.graph[a.graph[a.op].sources[3]].ne[2] = 8;
    EXPECT_FALSE(cudaBackend(CudaDevice{}).supportsOp(a.graph, a.op));
}

TEST(CudaBackend, QuantizedPromptAttentionCarriesF16CopiesOfKAndV) {
    const CudaDevice ada; // Turing tensor cores and up: the MMA kernel for a prompt
    const Attention a = makeAttention(128, 128, GgmlType::Q8_0, GgmlType::Q8_0, 512);
    EXPECT_EQ(cudaFlashAttnKernel(ada, a.graph, a.op), CudaFlashAttnKernel::MmaF16);
    const std::uint64_t expected =
        pad128(pad128(a.graph[a.op].bytes()) + f16CopyBytes(a.graph, a.k)) + f16CopyBytes(a.graph, a.v);
    EXPECT_EQ(cudaAllocSize(ada, a.graph, a.op), expected);
    // The buffer type alone cannot see K and V: it gives the node's own bytes.
    EXPECT_EQ(cudaBufferType(ada).allocSizeOf(a.graph, a.op), cudaAllocSize(ada, a.graph, a.op));
}

TEST(CudaBackend, DecodeAttentionReadsACompiledQuantizedPairAsIs) {
    const CudaDevice ada;
    const Attention q8 = makeAttention(128, 128, GgmlType::Q8_0, GgmlType::Q8_0, 1);
    EXPECT_EQ(cudaFlashAttnKernel(ada, q8.graph, q8.op), CudaFlashAttnKernel::Vec);
    EXPECT_EQ(cudaAllocSize(ada, q8.graph, q8.op), q8.graph[q8.op].bytes());
    // q5_1-q5_1 is not in the default GGML_CUDA_FA_QUANTS: the vector kernel converts both.
    const Attention q5 = makeAttention(128, 128, GgmlType::Q5_1, GgmlType::Q5_1, 1);
    EXPECT_EQ(cudaFlashAttnKernel(ada, q5.graph, q5.op), CudaFlashAttnKernel::Vec);
    EXPECT_GT(cudaAllocSize(ada, q5.graph, q5.op), q5.graph[q5.op].bytes() + f16CopyBytes(q5.graph, q5.k));
    CudaDevice allQuants;
    allQuants.flashAttnVecPairs = cudaAllFlashAttnPairs();
    EXPECT_EQ(cudaAllocSize(allQuants, q5.graph, q5.op), q5.graph[q5.op].bytes());
}

TEST(CudaBackend, AValueViewOfTheKeyIsConvertedOnce) {
    // MLA: V is the first 512 values of each 576-value K row (a view of the same cache).
    Attention a = makeAttention(576, 512, GgmlType::Q8_0, GgmlType::Q8_0, 512, 16, 1);
    ComputeGraph& g = a.graph;
    const TensorId cache = addTableTensor(g, GgmlType::Q8_0, {576, 4096, 1, 1});
    g[a.k].viewSource = cache;
    g[a.v].viewSource = cache;
    g[a.v].nb = g[a.k].nb;
    const CudaDevice ada;
    EXPECT_EQ(cudaAllocSize(ada, g, a.op), pad128(g[a.op].bytes()) + f16CopyBytes(g, a.k));
}

TEST(CudaBackend, OlderArchitecturesPickTheTileKernel) {
    const Attention a = makeAttention(128, 128, GgmlType::Q4_0, GgmlType::Q4_0, 8, 8, 8);
    CudaDevice volta;
    volta.computeCapability = cudacc::kVolta;
    EXPECT_EQ(cudaFlashAttnKernel(volta, a.graph, a.op), CudaFlashAttnKernel::Tile);
    CudaDevice pascal;
    pascal.computeCapability = 610;
    EXPECT_EQ(cudaFlashAttnKernel(pascal, a.graph, a.op), CudaFlashAttnKernel::Tile);
    // A Turing card in a build compiled only for Pascal has no tensor core kernel either.
    CudaDevice turingOnPascalBuild;
    turingOnPascalBuild.computeCapability = cudacc::kTuring;
    turingOnPascalBuild.compiledArch = cudacc::kPascal;
    EXPECT_EQ(cudaFlashAttnKernel(turingOnPascalBuild, a.graph, a.op), CudaFlashAttnKernel::Tile);
    turingOnPascalBuild.compiledArch = 0;
    EXPECT_EQ(cudaFlashAttnKernel(turingOnPascalBuild, a.graph, a.op), CudaFlashAttnKernel::MmaF16);
}

TEST(CudaBackend, HipSortsOnlyRowsOfOneBlock) {
    ComputeGraph graph;
    const TensorId logits = addTableTensor(graph, GgmlType::F32, {2048, 4, 1, 1});
    const TensorId sort = addTableTensor(graph, GgmlType::I32, {2048, 4, 1, 1}, GgmlOp::Argsort, {logits});
    EXPECT_TRUE(cudaBackend(CudaDevice{}).supportsOp(graph, sort)); // CUB
    CudaDevice rocm;
    rocm.hip = true;
    rocm.computeCapability = cudacc::kRdna3;
    EXPECT_FALSE(cudaBackend(rocm).supportsOp(graph, sort));
}

TEST(CudaBackend, RefusesAWeightOnAnotherCudaDevice) {
    ComputeGraph graph;
    graph.buffers.push_back({"CUDA1", graph::BufferUsage::Weights, false});
    graph.buffers.push_back({"CUDA_Host", graph::BufferUsage::Weights, true});
    const TensorId other = addTableTensor(graph, GgmlType::F16, {64, 64, 1, 1}, GgmlOp::None, {}, 0);
    const TensorId pinned = addTableTensor(graph, GgmlType::F16, {64, 64, 1, 1}, GgmlOp::None, {}, 1);
    const TensorId x = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1});
    const TensorId onOther = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::MulMat, {other, x});
    const TensorId onHost = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::MulMat, {pinned, x});
    EXPECT_FALSE(cudaBackend(CudaDevice{}).supportsOp(graph, onOther));
    EXPECT_TRUE(cudaBackend(CudaDevice{}).supportsOp(graph, onHost));
}

TEST(CudaBackend, MatrixProductRefusesAnF16ActivationOnAnotherWeightType) {
    ComputeGraph graph;
    const TensorId weight = addTableTensor(graph, GgmlType::Q4_K, {256, 64, 1, 1});
    const TensorId x = addTableTensor(graph, GgmlType::F16, {256, 8, 1, 1});
    const TensorId mm = addTableTensor(graph, GgmlType::F32, {64, 8, 1, 1}, GgmlOp::MulMat, {weight, x});
    EXPECT_FALSE(cudaBackend(CudaDevice{}).supportsOp(graph, mm));
    graph[x].type = GgmlType::F32;
    graph[x].nb = {4, 1024, 8192, 8192};
    EXPECT_TRUE(cudaBackend(CudaDevice{}).supportsOp(graph, mm));
}

} // namespace cudabackendtest
} // namespace llamafit::scheduler
