// CUDA flash attention: which kernel ggml picks for a FLASH_ATTN_EXT node (and so whether the
// device supports it at all), and the f16 copies of K and V that kernel needs behind the result.
// Restates ggml/src/ggml-cuda/fattn.cu ggml_cuda_get_best_fattn_kernel and
// ggml_cuda_flash_attn_ext_get_alloc_size, with fattn-common.cuh
// ggml_cuda_flash_attn_ext_get_f16_extra_data and the availability helpers of common.cuh.
//
// Read from the ggml tree of August 2026 (llama.cpp b10587) and moved to b11669 by one change
// found in the upstream history: llama.cpp PR #28079 (September 2026, "replace
// GGML_FA_ALL_QUANTS with GGML_FA_QUANTS") lets every K/V pair of f32, f16, bf16, q4_0, q4_1,
// q5_0, q5_1, q8_0 through, and a vector kernel whose pair was not compiled converts both to f16
// instead. b10587 refused K and V of different types and q4_1/q5_0/q5_1 unless built with
// GGML_CUDA_FA_ALL_QUANTS. Later tuning of the kernel thresholds (which only moves a node between
// kernels that convert a quantized K/V and kernels that read it as is) is not confirmed.
#include "core/sizing/scheduler/cudasupportsop.h"
#include "core/sizing/scheduler/tensorlayout.h"

#include <algorithm>

namespace llamafit::scheduler {
namespace {

using graph::ComputeGraph;
using graph::kNoTensor;
using graph::Tensor;
using graph::TensorId;

constexpr std::int64_t kFattnKqStride = 256; // FATTN_KQ_STRIDE: the KV padding the kernels step by

bool isNvidia(int cc) {
    return cc < 0x100000; // GGML_CUDA_CC_IS_NVIDIA: below the Moore Threads offset
}
bool isAmd(int cc) {
    return cc >= cudacc::kOffsetAmd;
}
bool isCdna(int cc) {
    return cc >= cudacc::kCdna1 && cc < cudacc::kRdna1;
}
bool isRdna3Or4(int cc) {
    return cc >= cudacc::kRdna3;
}

int compiledArch(const CudaDevice& device) {
    return device.compiledArch != 0 ? device.compiledArch : device.computeCapability;
}

// common.cuh turing_mma_available, volta_mma_available, amd_mfma_available, amd_wmma_available.
bool turingMma(const CudaDevice& device) {
    return isNvidia(device.computeCapability) && compiledArch(device) >= cudacc::kTuring;
}
bool voltaMma(const CudaDevice& device) {
    return isNvidia(device.computeCapability) && compiledArch(device) == cudacc::kVolta;
}
bool amdMfma(const CudaDevice& device) {
    return device.hipMfma && isCdna(device.computeCapability);
}
bool amdWmma(const CudaDevice& device) {
    return isAmd(device.computeCapability) && isRdna3Or4(device.computeCapability);
}

// ggml_cuda_fattn_kv_type_supported (b11669: the types that have vector kernel instances; the
// other kernels convert them to f16).
bool kvTypeSupported(GgmlType type) {
    switch (type) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::Q8_0:
        return true;
    default:
        return false;
    }
}

// ggml_cuda_get_fattn_vec_case != nullptr: a vector kernel was compiled for the pair (f32 reads as
// f16; f16-f16 is always compiled).
bool vecPairCompiled(const CudaDevice& device, GgmlType k, GgmlType v) {
    const auto asF16 = [](GgmlType type) { return type == GgmlType::F32 ? GgmlType::F16 : type; };
    const CudaFlashAttnPair pair{asF16(k), asF16(v)};
    if (pair == CudaFlashAttnPair{GgmlType::F16, GgmlType::F16}) {
        return true;
    }
    return std::find(device.flashAttnVecPairs.begin(), device.flashAttnVecPairs.end(), pair) !=
           device.flashAttnVecPairs.end();
}

} // namespace

CudaFlashAttnKernel cudaFlashAttnKernel(const CudaDevice& device, const ComputeGraph& graph, TensorId id) {
    using Kernel = CudaFlashAttnKernel;
    // FLASH_ATTN_AVAILABLE: not with GGML_CUDA_NO_FA.
    if (!device.flashAttention) {
        return Kernel::None;
    }
    const Tensor& op = graph[id];
    const Tensor& q = graph[op.sources[0]];
    const Tensor& k = graph[op.sources[1]];
    const Tensor& v = graph[op.sources[2]];
    const Tensor* mask = op.sources[3] != kNoTensor ? &graph[op.sources[3]] : nullptr;
    if (k.ne[2] == 0 || q.ne[2] % k.ne[2] != 0) {
        return Kernel::None; // ggml asserts that the Q heads are a multiple of the K heads
    }
    const std::int64_t gqaRatio = q.ne[2] / k.ne[2];
    const float maxBias = layout::opParamFloat(op, 1);

    // The GQA optimisation (K/V heads shared by gqaRatio Q heads in one tile) needs a mask, no
    // ALiBi, a KV length padded to FATTN_KQ_STRIDE and 16-byte strides on the unquantized inputs.
    bool gqaOpt = gqaRatio >= 2 && mask != nullptr && maxBias == 0.0f && k.ne[1] % kFattnKqStride == 0;
    for (const Tensor* t : {&q, &k, &v, mask}) {
        if (t == nullptr || layout::isQuantized(t->type)) {
            continue;
        }
        for (std::size_t i = 1; i < 4; ++i) {
            if (t->nb[i] % 16 != 0) {
                gqaOpt = false;
            }
        }
    }

    // Head sizes (K's, and V's where it differs): the kernels' template instances.
    switch (k.ne[0]) {
    case 40:
    case 64:
    case 72:
    case 80:
    case 96:
    case 112:
    case 128:
    case 256:
        if (v.ne[0] != k.ne[0]) {
            return Kernel::None;
        }
        break;
    case 192: // MiMo: V 128, GQA a multiple of 8
        if (v.ne[0] != 128 || !gqaOpt || gqaRatio % 8 != 0) {
            return Kernel::None;
        }
        break;
    case 320: // Mistral Small 4: V 256, GQA a multiple of 32
        if (v.ne[0] != 256 || !gqaOpt || gqaRatio % 32 != 0) {
            return Kernel::None;
        }
        break;
    case 512:
        if (v.ne[0] != 512 || !gqaOpt) {
            return Kernel::None;
        }
        break;
    case 576: // DeepSeek MLA: V 512
        if (v.ne[0] != 512 || !gqaOpt) {
            return Kernel::None;
        }
        break;
    default:
        return Kernel::None;
    }
    if (!kvTypeSupported(k.type) || !kvTypeSupported(v.type)) {
        return Kernel::None;
    }
    if (mask != nullptr && mask->ne[2] != 1) {
        return Kernel::None; // a mask broadcast over heads
    }

    const std::int64_t headSize = q.ne[0];
    const std::int64_t batch = q.ne[1];
    const bool quantizedKv = layout::isQuantized(k.type) || layout::isQuantized(v.type);
    // The vector kernel exists for head sizes 64, 128 and 256 and a padded KV length.
    const bool canUseVec =
        headSize <= 256 && headSize % 64 == 0 && headSize != 192 && k.ne[1] % kFattnKqStride == 0;
    const bool oddHead = headSize == 40 || headSize == 72; // only the tile kernel has them
    const int cc = device.computeCapability;

    if (turingMma(device) && !oddHead) {
        if (canUseVec) {
            if (!quantizedKv) {
                if (cc >= cudacc::kAda && batch == 1 && q.ne[3] == 1 && !(gqaRatio > 4 && k.ne[1] >= 8192)) {
                    return Kernel::Vec;
                }
            } else if (cc >= cudacc::kAda ? batch <= 2 : batch == 1) {
                return Kernel::Vec;
            }
            if (!gqaOpt && batch == 1) {
                return Kernel::Vec;
            }
        }
        return Kernel::MmaF16;
    }

    // The columns the GQA optimisation can put in one tile: the largest power of two dividing the
    // ratio, up to 8 (16 for head sizes 576 and 192, 32 for 320).
    const std::int64_t ncols2Max = headSize == 320 ? 32 : (headSize == 576 || headSize == 192) ? 16 : 8;
    std::int64_t gqaEff = 1;
    while (gqaRatio % (2 * gqaEff) == 0 && gqaEff < ncols2Max) {
        gqaEff *= 2;
    }
    const std::int64_t columns = batch * gqaEff;

    if (voltaMma(device) && !oddHead) {
        if (canUseVec && columns <= 2) {
            return Kernel::Vec;
        }
        return columns <= 16 ? Kernel::Tile : Kernel::MmaF16;
    }
    // AMD MFMA (CDNA) beats the tile kernel above a batch that grows with the head size.
    if (amdMfma(device) && headSize <= 256 && !oddHead) {
        if ((headSize <= 64 && columns > 8) || (headSize <= 128 && columns > 16) || columns > 64) {
            return Kernel::MmaF16;
        }
    }
    // AMD WMMA (RDNA3/4) when the full tile width of 16 is used.
    if (amdWmma(device) && gqaOpt && headSize <= 128 && !oddHead && columns > 8) {
        return Kernel::MmaF16;
    }
    if (canUseVec) {
        if (!quantizedKv) {
            if (batch == 1 && !gqaOpt) {
                return Kernel::Vec;
            }
        } else if (batch <= 2) {
            return Kernel::Vec;
        }
    }
    return Kernel::Tile;
}

std::uint64_t cudaFlashAttnAllocBytes(const CudaDevice& device, const ComputeGraph& graph, TensorId id) {
    const Tensor& op = graph[id];
    const TensorId kId = op.sources[1];
    const TensorId vId = op.sources[2];
    const Tensor& k = graph[kId];
    const Tensor& v = graph[vId];
    // The tile and MMA kernels read f16 only; the vector kernel converts f32, and every type of a
    // pair it was not compiled for (b11669).
    bool needF16K = false;
    bool needF16V = false;
    switch (cudaFlashAttnKernel(device, graph, id)) {
    case CudaFlashAttnKernel::Tile:
    case CudaFlashAttnKernel::MmaF16:
        needF16K = true;
        needF16V = true;
        break;
    case CudaFlashAttnKernel::Vec: {
        const bool fallback = !vecPairCompiled(device, k.type, v.type);
        needF16K = k.type == GgmlType::F32 || fallback;
        needF16V = v.type == GgmlType::F32 || fallback;
        break;
    }
    case CudaFlashAttnKernel::None:
        break;
    }
    // ggml_cuda_flash_attn_ext_get_f16_extra_data, from the node's own address (ggml-alloc asks
    // before it places the node, so the address is 0): the f16 K at the next 128 bytes past the
    // result, the f16 V at the next 128 past that, unless V views K (then it reads K's copy). A
    // copy spans all of K's (V's) elements, the cache's whole view and not the cells in use.
    const auto pad128 = [](std::uint64_t bytes) { return (bytes + 127) / 128 * 128; };
    std::uint64_t end = op.bytes();
    if (needF16K && k.type != GgmlType::F16) {
        end = pad128(end) + static_cast<std::uint64_t>(layout::elements(k)) * 2;
    }
    if (needF16V && v.type != GgmlType::F16 && !layout::valueIsViewOfKey(graph, kId, vId)) {
        end = pad128(end) + static_cast<std::uint64_t>(layout::elements(v)) * 2;
    }
    return end;
}

} // namespace llamafit::scheduler
