// Which ops a Vulkan device runs; see vulkansupportsop.h. Every rule restates
// ggml/src/ggml-vulkan/ggml-vulkan.cpp ggml_backend_vk_device_supports_op unless it names another
// function; ops a llama.cpp inference graph never builds (backward passes, optimizer steps,
// COUNT_EQUAL) are left out and refused, as ggml's default case refuses what it does not list.
#include "core/sizing/scheduler/vulkansupportsop.h"

#include "core/sizing/scheduler/tensorlayout.h"

#include <algorithm>
#include <cmath>

namespace llamafit::scheduler {
namespace {

using graph::ComputeGraph;
using graph::GgmlOp;
using graph::GluOp;
using graph::kNoTensor;
using graph::Tensor;
using graph::TensorId;
using graph::UnaryOp;

using layout::blockSize;
using layout::isContiguous;
using layout::isContiguousRows;
using layout::isQuantized;
using layout::typeSize;

bool isFloat(GgmlType type) {
    return type == GgmlType::F32 || type == GgmlType::F16;
}

// ggml_vk_dim01_contiguous.
bool dim01Contiguous(const Tensor& tensor) {
    return tensor.nb[0] == typeSize(tensor.type) &&
           tensor.nb[1] == tensor.nb[0] * static_cast<std::uint64_t>(tensor.ne[0]) /
                               static_cast<std::uint64_t>(blockSize(tensor.type)) &&
           (tensor.ne[3] == 1 || tensor.nb[3] == tensor.nb[2] * static_cast<std::uint64_t>(tensor.ne[2]));
}

// ggml_vk_concat_supported.
bool concatSupported(const Tensor& a, const Tensor& b, const Tensor& dst) {
    if (a.type != b.type || a.type != dst.type) {
        return false;
    }
    if (!isQuantized(a.type)) {
        const std::uint64_t size = typeSize(a.type);
        return size == 1 || size == 2 || size == 4 || size == 8;
    }
    return isContiguousRows(a) && isContiguousRows(b) && isContiguousRows(dst);
}

// ggml_vk_matmul_shmem_support(device, s_warptile_mmqid, true, type) for the small MUL_MAT_ID
// tile of ggml_vk_load_shaders (the branch without NV cooperative matrix 2): when even the small
// tile's shared memory does not fit, mul_mat_id_s/m/l are all off and supports_op refuses
// MUL_MAT_ID ("fallback to CPU"). Vendor tuning only ever turns tiles off that fit.
bool mulMatIdFits(const VulkanDevice& device, GgmlType type) {
    if (device.coopmat2) {
        return true; // the coopmat2 tiles are sized for the NVIDIA GPUs that have it
    }
    std::uint32_t lutBytes = 0;
    switch (type) {
    case GgmlType::IQ1_S:
    case GgmlType::IQ1_M:
        lutBytes = 2 * 2048;
        break;
    case GgmlType::IQ2_XXS:
        lutBytes = 8 * 256;
        break;
    case GgmlType::IQ2_XS:
        lutBytes = 8 * 512;
        break;
    case GgmlType::IQ2_S:
        lutBytes = 8 * 1024;
        break;
    case GgmlType::IQ3_XXS:
        lutBytes = 4 * 256;
        break;
    case GgmlType::IQ3_S:
        lutBytes = 4 * 512;
        break;
    case GgmlType::IQ4_NL:
    case GgmlType::IQ4_XS:
    case GgmlType::MXFP4:
        lutBytes = 4 * 16;
        break;
    case GgmlType::NVFP4:
        lutBytes = 4 * 16 + 128 * 4;
        break;
    default:
        break;
    }
    // s_warptile_mmqid = { max(subgroup, 32), 32, 32, 32, wm, 32, 2, tm_s, tn_s, tk_s, max(subgroup, 8) }.
    const std::uint32_t threads = std::max(device.subgroupSize, 32u);
    const std::uint32_t warps = threads / std::max(device.subgroupSize, 8u);
    const std::uint32_t tileM = 32;
    const std::uint32_t tileN = 32;
    const std::uint32_t tileK = 32;
    const std::uint32_t bankConflictOffset = device.coopmat ? 8 : 1;
    const std::uint32_t elementBytes = device.fp16 ? 2 : 4;
    const std::uint32_t loadBuffers = (tileM + tileN) * (tileK + bankConflictOffset) * elementBytes;
    const std::uint32_t rowIds = tileN * 2 * 2;
    const std::uint32_t coopmatStage = device.coopmat ? device.coopmatM * device.coopmatN / warps * 4 : 0;
    const std::uint32_t ballots = warps * 4 * 4;
    return loadBuffers + rowIds + coopmatStage + lutBytes + ballots <= device.maxComputeSharedMemorySize;
}

// floor(log2(maxComputeWorkGroupInvocations)): device->max_workgroup_size_log2.
std::uint32_t maxWorkgroupLog2(const VulkanDevice& device) {
    return static_cast<std::uint32_t>(std::log2(static_cast<float>(device.maxComputeWorkGroupInvocations)));
}

// Whether ggml_vk_load_shaders made pipeline_topk_f32[i] (BLOCK_SIZE 1 << i): the n-ary search
// shader where the subgroup operations it needs are there, else the argsort one, each if its
// shared memory fits.
bool topKPipeline(const VulkanDevice& device, std::uint32_t i) {
    constexpr std::uint32_t kTopKPipelines = 11; // num_topk_pipelines
    if (i >= kTopKPipelines || i > maxWorkgroupLog2(device)) {
        return false;
    }
    const std::uint32_t block = 1u << i;
    const std::uint32_t narySharedBytes =
        2 * 4 * block + 4 * device.subgroupSize + 2 * 4 + 2 * (block / device.subgroupSize) * 4;
    if (device.subgroupArithmetic && device.computeFullSubgroups && device.subgroupShuffle &&
        device.subgroupBallot && narySharedBytes <= device.maxComputeSharedMemorySize) {
        return true;
    }
    return 2 * 4 * block <= device.maxComputeSharedMemorySize;
}

bool unarySupported(const Tensor& op, const Tensor& src0) {
    switch (op.unaryOp()) {
    case UnaryOp::Exp:
    case UnaryOp::Expm1:
    case UnaryOp::Elu:
    case UnaryOp::Gelu:
    case UnaryOp::GeluErf:
    case UnaryOp::GeluQuick:
    case UnaryOp::Silu:
    case UnaryOp::Relu:
    case UnaryOp::Xielu:
    case UnaryOp::Neg:
    case UnaryOp::Tanh:
    case UnaryOp::Sigmoid:
    case UnaryOp::Hardsigmoid:
    case UnaryOp::Hardswish:
    case UnaryOp::Abs:
    case UnaryOp::Softplus:
    case UnaryOp::Step:
    case UnaryOp::Round:
    case UnaryOp::Ceil:
    case UnaryOp::Floor:
    case UnaryOp::Trunc:
    case UnaryOp::Sgn:
        return isFloat(src0.type) && isFloat(op.type) && src0.type == op.type;
    default:
        return false;
    }
}

// The weight types the matrix products and GET_ROWS read.
bool matMulType(GgmlType type) {
    switch (type) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::Q1_0:
    case GgmlType::Q2_0:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::Q8_0:
    case GgmlType::Q2_K:
    case GgmlType::Q3_K:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K:
    case GgmlType::IQ1_S:
    case GgmlType::IQ1_M:
    case GgmlType::IQ2_XXS:
    case GgmlType::IQ2_XS:
    case GgmlType::IQ2_S:
    case GgmlType::IQ3_XXS:
    case GgmlType::IQ3_S:
    case GgmlType::IQ4_XS:
    case GgmlType::IQ4_NL:
    case GgmlType::MXFP4:
    case GgmlType::NVFP4:
    case GgmlType::TQ2_0:
        return true;
    default:
        return false;
    }
}

// MUL_MAT / MUL_MAT_ID.
bool matMulSupported(const VulkanDevice& device, const ComputeGraph& graph, const Tensor& op) {
    const Tensor& src0 = graph[op.sources[0]];
    const Tensor& src1 = graph[op.sources[1]];
    if (op.op == GgmlOp::MulMatId && !mulMatIdFits(device, src0.type)) {
        return false;
    }
    if (!matMulType(src0.type)) {
        return false;
    }
    const Tensor& a = op.op == GgmlOp::MulMat ? src0 : graph[op.sources[2]];
    if (a.ne[3] != src1.ne[3]) {
        return false;
    }
    if (!(dim01Contiguous(src0) || isFloat(src0.type) || src0.type == GgmlType::BF16) ||
        !(dim01Contiguous(src1) || isFloat(src1.type))) {
        return false;
    }
    // No bf16 x f16 shader, nor an f16 -> bf16 copy.
    return !(src0.type == GgmlType::BF16 && src1.type == GgmlType::F16);
}

bool flashAttentionSupported(const VulkanDevice& device, const ComputeGraph& graph, const Tensor& op) {
    const Tensor& q = graph[op.sources[0]];
    const Tensor& k = graph[op.sources[1]];
    const Tensor& v = graph[op.sources[2]];
    if (k.ne[0] % 8 != 0 || v.ne[0] % 8 != 0) { // HSK, HSV
        return false;
    }
    if (op.sources[4] != kNoTensor && graph[op.sources[4]].type != GgmlType::F32) { // sinks
        return false;
    }
    if (q.type != GgmlType::F32 || op.type != GgmlType::F32) {
        return false;
    }
    if (op.sources[3] != kNoTensor && graph[op.sources[3]].type != GgmlType::F16) { // mask
        return false;
    }
    const auto kvTypeOk = [](GgmlType type) {
        switch (type) {
        case GgmlType::F32:
        case GgmlType::F16:
        case GgmlType::BF16:
        case GgmlType::Q8_0:
        case GgmlType::Q5_1:
        case GgmlType::Q5_0:
        case GgmlType::Q4_1:
        case GgmlType::Q4_0:
        case GgmlType::IQ4_NL:
            return true;
        default:
            return false;
        }
    };
    if (!kvTypeOk(k.type) || !kvTypeOk(v.type) || (k.type == GgmlType::BF16) != (v.type == GgmlType::BF16)) {
        return false;
    }
    // The scalar and coopmat1 shaders use subgroupShuffle and subgroupAll.
    return device.coopmat2 || (device.subgroupShuffle && device.subgroupVote);
}

bool setRowsSupported(const Tensor& op, const Tensor& src0, const Tensor& src1) {
    if (!isFloat(src0.type) || (src1.type != GgmlType::I32 && src1.type != GgmlType::I64)) {
        return false;
    }
    switch (op.type) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::Q1_0:
    case GgmlType::Q2_0:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::Q8_0:
    case GgmlType::IQ4_NL:
        return true;
    default:
        return false;
    }
}

// CPY / CONT / DUP: the type pairs with a copy shader (src1, the destination, defaults to src0).
bool copySupported(const ComputeGraph& graph, const Tensor& op) {
    const Tensor& src0 = graph[op.sources[0]];
    const GgmlType from = src0.type;
    const GgmlType to = op.sources[1] != kNoTensor ? graph[op.sources[1]].type : from;
    const auto quantCopyType = [](GgmlType type) {
        switch (type) {
        case GgmlType::F16:
        case GgmlType::BF16:
        case GgmlType::Q1_0:
        case GgmlType::Q2_0:
        case GgmlType::Q4_0:
        case GgmlType::Q4_1:
        case GgmlType::Q5_0:
        case GgmlType::Q5_1:
        case GgmlType::Q8_0:
        case GgmlType::IQ4_NL:
            return true;
        default:
            return false;
        }
    };
    if (from == GgmlType::F32 && (to == GgmlType::F32 || quantCopyType(to))) {
        return true;
    }
    if (to == GgmlType::F32 && quantCopyType(from)) {
        return true;
    }
    if (from == GgmlType::F16 && to == GgmlType::F16) {
        return true;
    }
    if ((from == GgmlType::F32 && to == GgmlType::I32) || (from == GgmlType::I32 && to == GgmlType::F32)) {
        return true;
    }
    // Same type to same type through the f16 or f32 shaders: not quantized, or quantized and
    // contiguous on both ends, and a type size that is a multiple of 2.
    return from == to && (!isQuantized(from) || (isContiguous(src0) && isContiguous(op))) &&
           typeSize(from) % 2 == 0;
}

bool ssmScanSupported(const VulkanDevice& device, const ComputeGraph& graph, const Tensor& op) {
    for (std::size_t i = 0; i < 6; ++i) {
        if (op.sources[i] != kNoTensor && isQuantized(graph[op.sources[i]].type)) {
            return false;
        }
    }
    if (op.sources[6] != kNoTensor && graph[op.sources[6]].type != GgmlType::I32) {
        return false;
    }
    const Tensor& src0 = graph[op.sources[0]];
    if (src0.type != GgmlType::F32 || op.type != GgmlType::F32) {
        return false;
    }
    // Mamba-2 only: its A (src3) has one value per head, so a row stride of one float.
    const bool mamba2 = op.sources[3] != kNoTensor && graph[op.sources[3]].nb[1] == 4;
    if (!mamba2) {
        return false;
    }
    const std::int64_t dState = src0.ne[0];
    const std::int64_t headDim = src0.ne[1];
    if ((dState != 128 && dState != 256) || headDim % 16 != 0) {
        return false;
    }
    return static_cast<std::uint64_t>(dState) * 4 <= device.maxComputeSharedMemorySize &&
           device.subgroupBasic;
}

bool opSupported(const VulkanDevice& device, const ComputeGraph& graph, const Tensor& op) {
    const auto src = [&](std::size_t i) -> const Tensor& { return graph[op.sources[i]]; };
    switch (op.op) {
    case GgmlOp::Unary:
        return unarySupported(op, src(0));
    case GgmlOp::Glu:
        switch (op.gluOp()) {
        case GluOp::Geglu:
        case GluOp::Reglu:
        case GluOp::Swiglu:
        case GluOp::SwigluOai:
        case GluOp::GegluErf:
        case GluOp::GegluQuick:
            return isFloat(src(0).type) && isFloat(op.type) && src(0).type == op.type &&
                   (op.sources[1] == kNoTensor || src(1).type == src(0).type);
        }
        return false;
    case GgmlOp::MulMat:
    case GgmlOp::MulMatId:
        return matMulSupported(device, graph, op);
    case GgmlOp::FlashAttnExt:
        return flashAttentionSupported(device, graph, op);
    case GgmlOp::GetRows:
        return matMulType(src(0).type) || src(0).type == GgmlType::I32;
    case GgmlOp::SetRows:
        return setRowsSupported(op, src(0), src(1));
    case GgmlOp::Cont:
    case GgmlOp::Cpy:
    case GgmlOp::Dup:
        return copySupported(graph, op);
    case GgmlOp::Repeat:
        return typeSize(op.type) == typeSize(src(0).type) &&
               (typeSize(op.type) == 4 || typeSize(op.type) == 2);
    case GgmlOp::Rope:
        return isContiguousRows(op) && isContiguousRows(src(0));
    case GgmlOp::RopeBack:
    case GgmlOp::None:
    case GgmlOp::Reshape:
    case GgmlOp::View:
    case GgmlOp::Permute:
    case GgmlOp::Transpose:
    case GgmlOp::RmsNorm:
        return true;
    case GgmlOp::GroupNorm:
        return isContiguous(src(0));
    case GgmlOp::Norm:
    case GgmlOp::L2Norm:
        return src(0).type == GgmlType::F32 && op.type == GgmlType::F32;
    case GgmlOp::Add:
    case GgmlOp::Sub:
    case GgmlOp::Mul:
    case GgmlOp::Div:
        return isFloat(src(0).type) && isFloat(src(1).type) && isFloat(op.type);
    case GgmlOp::AddId:
        return src(0).type == GgmlType::F32 && src(1).type == GgmlType::F32 && src(2).type == GgmlType::I32 &&
               op.type == GgmlType::F32;
    case GgmlOp::Sqr:
    case GgmlOp::Sqrt:
    case GgmlOp::Sin:
    case GgmlOp::Cos:
    case GgmlOp::Clamp:
    case GgmlOp::LeakyRelu:
    case GgmlOp::Log:
    case GgmlOp::Tri:
    case GgmlOp::Diag:
        return isFloat(src(0).type) && op.type == src(0).type;
    case GgmlOp::Argsort:
        if (!isContiguous(op) || !isContiguous(src(0))) {
            return false;
        }
        // pipeline_argsort_large_f32 needs the Vulkan memory model; without it one workgroup sorts.
        return device.vulkanMemoryModel || op.ne[0] <= (std::int64_t{1} << maxWorkgroupLog2(device));
    case GgmlOp::TopK:
        if (!isContiguous(op) || !isContiguous(src(0))) {
            return false;
        }
        return topKPipeline(device, static_cast<std::uint32_t>(std::log2(static_cast<float>(op.ne[0]))) + 1);
    case GgmlOp::Upscale:
        // GGML_SCALE_FLAG_ANTIALIAS (bit 8) only with GGML_SCALE_MODE_BILINEAR (1).
        if ((op.opParams[0] & 0x100) != 0 && (op.opParams[0] & 0xFF) != 1) {
            return false;
        }
        return src(0).type == GgmlType::F32;
    case GgmlOp::Acc:
        return src(0).type == GgmlType::F32 && src(1).type == GgmlType::F32 && op.type == GgmlType::F32;
    case GgmlOp::Set:
        return src(0).type == src(1).type && src(0).type == op.type &&
               (src(0).type == GgmlType::F32 || src(0).type == GgmlType::I32);
    case GgmlOp::Concat:
        return concatSupported(src(0), src(1), op);
    case GgmlOp::Add1:
        return (src(0).type == GgmlType::F32 && src(1).type == GgmlType::F32) ||
               (src(0).type == GgmlType::F16 && src(1).type == GgmlType::F32) ||
               (src(0).type == GgmlType::F16 && src(1).type == GgmlType::F16);
    case GgmlOp::Arange:
        return op.type == GgmlType::F32;
    case GgmlOp::Fill:
        return isFloat(op.type);
    case GgmlOp::Scale:
    case GgmlOp::DiagMaskInf:
    case GgmlOp::Argmax:
    case GgmlOp::Pool1d:
    case GgmlOp::Pool2d:
        return isContiguous(src(0)) && src(0).type == GgmlType::F32;
    case GgmlOp::Pad:
    case GgmlOp::Roll:
    case GgmlOp::TimestepEmbedding:
        return src(0).type == GgmlType::F32;
    case GgmlOp::SoftMax:
        return isContiguous(src(0)) && src(0).type == GgmlType::F32 &&
               (op.sources[1] == kNoTensor || isFloat(src(1).type));
    case GgmlOp::Sum:
    case GgmlOp::SumRows:
    case GgmlOp::Mean:
        return src(0).type == GgmlType::F32 && isContiguousRows(src(0));
    case GgmlOp::Cumsum:
        return device.subgroupArithmetic && device.computeFullSubgroups && src(0).type == GgmlType::F32 &&
               isContiguousRows(src(0));
    case GgmlOp::SolveTri: {
        if (op.type != GgmlType::F32 || src(0).type != GgmlType::F32) {
            return false;
        }
        const auto n = static_cast<std::uint32_t>(src(0).ne[0]);
        const auto k = static_cast<std::uint32_t>(src(1).ne[0]);
        // K is one workgroup wide; a batch of rows of N + K floats must fit shared memory.
        return k <= (1u << maxWorkgroupLog2(device)) &&
               device.maxComputeSharedMemorySize / ((n + k) * 4) != 0;
    }
    case GgmlOp::Im2col:
        return isContiguous(src(1)) && src(1).type == GgmlType::F32 && isFloat(op.type);
    case GgmlOp::Im2col3d:
        return src(1).type == GgmlType::F32 && isFloat(op.type);
    case GgmlOp::Conv2dDw:
        return isFloat(src(0).type) && src(1).type == GgmlType::F32;
    case GgmlOp::RwkvWkv6:
    case GgmlOp::RwkvWkv7:
        return true; // all inputs are contiguous (ggml.c)
    case GgmlOp::GatedLinearAttn:
        // The shader's block size is head size 64.
        return src(0).type == GgmlType::F32 && op.type == GgmlType::F32 && src(0).ne[0] == 64;
    case GgmlOp::GatedDeltaNet: {
        const std::int64_t headSize = src(2).ne[0]; // S_v
        if (headSize != 16 && headSize != 32 && headSize != 64 && headSize != 128) {
            return false;
        }
        for (std::size_t i = 0; i < 6; ++i) {
            if (op.sources[i] == kNoTensor || src(i).type != GgmlType::F32) {
                return false;
            }
        }
        return op.type == GgmlType::F32;
    }
    case GgmlOp::SsmScan:
        return ssmScanSupported(device, graph, op);
    case GgmlOp::SsmConv:
        return src(0).type == GgmlType::F32;
    case GgmlOp::ConvTranspose1d:
        return src(0).type == GgmlType::F32 && src(1).type == GgmlType::F32;
    case GgmlOp::Col2im1d:
        return (isFloat(src(0).type) || src(0).type == GgmlType::BF16) && op.type == src(0).type &&
               isContiguous(src(0)) && isContiguous(op);
    case GgmlOp::Conv2d:
    case GgmlOp::ConvTranspose2d: {
        const bool transpose = op.op == GgmlOp::ConvTranspose2d;
        const std::int64_t channelsOut = transpose ? src(0).ne[2] : src(0).ne[3];
        const std::int64_t channelsIn = transpose ? src(0).ne[3] : src(0).ne[2];
        // Channel-contiguous layouts are not supported yet.
        return isFloat(src(0).type) && (src(0).nb[0] == 4 || src(0).nb[0] == 2) &&
               src(1).type == GgmlType::F32 && op.type == GgmlType::F32 && channelsOut == op.ne[2] &&
               channelsIn == src(1).ne[2] && isContiguous(src(0)) && isContiguous(src(1)) && isContiguous(op);
    }
    case GgmlOp::Conv3d:
        return isFloat(src(0).type) && src(1).type == GgmlType::F32 && op.type == GgmlType::F32 &&
               isContiguous(src(0)) && isContiguous(src(1)) && isContiguous(op);
    default:
        return false;
    }
}

} // namespace

bool vulkanSupportsOp(const VulkanDevice& device, const ComputeGraph& graph, TensorId id) {
    const Tensor& op = graph[id];
    // "reject any tensors larger than the max buffer size": the op and each source must fit one
    // buffer, and, without 64-bit indexing, one storage buffer binding (maxStorageBufferRange); the
    // im2col shaders address through buffer device addresses and skip the binding limit.
    const bool usesDeviceAddress = (op.op == GgmlOp::Im2col || op.op == GgmlOp::Im2col3d) &&
                                   device.shaderInt64 && device.bufferDeviceAddress;
    const auto sizeSupported = [&](std::uint64_t bytes) {
        if (bytes > vulkanMaxBufferBytes(device)) {
            return false;
        }
        return usesDeviceAddress || device.shader64BitIndexing || bytes <= device.maxStorageBufferRange;
    };
    for (const TensorId source : op.sources) {
        if (source != kNoTensor && !sizeSupported(graph[source].bytes())) {
            return false;
        }
    }
    if (!sizeSupported(op.bytes())) {
        return false;
    }
    return opSupported(device, graph, op);
}

} // namespace llamafit::scheduler
