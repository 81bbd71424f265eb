// Which ops a CUDA (or HIP) device runs; see cudasupportsop.h. Every rule restates
// ggml/src/ggml-cuda/ggml-cuda.cu ggml_backend_cuda_device_supports_op (llama.cpp b10587) unless
// it names another function; ops the function does not list are refused, as its default case
// refuses them. MUSA's exceptions are left out (no MUSA device here).
#include "core/sizing/scheduler/cudasupportsop.h"
#include "core/sizing/scheduler/tensorlayout.h"

#include <cctype>

namespace llamafit::scheduler {
namespace cudarules {
namespace {

using graph::ComputeGraph;
using graph::GgmlOp;
using graph::GluOp;
using graph::kNoTensor;
using graph::Tensor;
using graph::UnaryOp;
using layout::isContiguous;
using layout::isContiguousRows;
using layout::isQuantized;
using layout::typeSize;

bool isFloat(GgmlType type) {
    return type == GgmlType::F32 || type == GgmlType::F16;
}

// The weight types the matrix products read (MUL_MAT, MUL_MAT_ID).
bool matMulWeightType(GgmlType type) {
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
    case GgmlType::MXFP4:
    case GgmlType::NVFP4:
    case GgmlType::Q2_K:
    case GgmlType::Q3_K:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K:
    case GgmlType::Q8_K:
    case GgmlType::IQ1_S:
    case GgmlType::IQ1_M:
    case GgmlType::IQ2_XXS:
    case GgmlType::IQ2_XS:
    case GgmlType::IQ2_S:
    case GgmlType::IQ3_XXS:
    case GgmlType::IQ3_S:
    case GgmlType::IQ4_NL:
    case GgmlType::IQ4_XS:
        return true;
    default:
        return false;
    }
}

// GET_ROWS: the types of the row source; IQ4_NL and MXFP4 only in rows of whole QK_K (256)
// super-blocks, which the kernel steps by.
bool getRowsSupported(const Tensor& src0) {
    switch (src0.type) {
    case GgmlType::F16:
    case GgmlType::F32:
    case GgmlType::BF16:
    case GgmlType::I32:
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
    case GgmlType::IQ2_XXS:
    case GgmlType::IQ2_XS:
    case GgmlType::IQ2_S:
    case GgmlType::IQ3_XXS:
    case GgmlType::IQ3_S:
    case GgmlType::IQ1_S:
    case GgmlType::IQ1_M:
    case GgmlType::IQ4_XS:
        return true;
    case GgmlType::IQ4_NL:
    case GgmlType::MXFP4:
        return src0.ne[0] % 256 == 0;
    default:
        return false;
    }
}

// SET_ROWS: f32 rows into f32, f16, bf16, q4_0, q4_1, q5_0, q5_1, q8_0 or iq4_nl, or f16 rows into
// f16, at i32 or i64 row indices.
bool setRowsSupported(const Tensor& op, const Tensor& src0, const Tensor& src1) {
    if (src1.type != GgmlType::I64 && src1.type != GgmlType::I32) {
        return false;
    }
    if (src0.type == GgmlType::F16) {
        return op.type == GgmlType::F16;
    }
    if (src0.type != GgmlType::F32) {
        return false;
    }
    switch (op.type) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
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

// CPY: the type pairs with a copy kernel (src1 is the destination).
bool copySupported(const Tensor& src0, const Tensor& src1) {
    const GgmlType from = src0.type;
    const GgmlType to = src1.type;
    const auto floatLike = [](GgmlType t) { return isFloat(t) || t == GgmlType::BF16; };
    if (floatLike(from) && floatLike(to)) {
        return true;
    }
    const auto quantPair = [](GgmlType t) {
        return t == GgmlType::Q8_0 || t == GgmlType::Q4_0 || t == GgmlType::Q4_1 || t == GgmlType::Q5_0 ||
               t == GgmlType::Q5_1;
    };
    if ((from == GgmlType::F32 && quantPair(to)) || (quantPair(from) && to == GgmlType::F32)) {
        return true;
    }
    if (from == GgmlType::F32 && (to == GgmlType::IQ4_NL || to == GgmlType::I32)) {
        return true;
    }
    if (from == GgmlType::I32 && (to == GgmlType::F32 || to == GgmlType::I32)) {
        return true;
    }
    return from == to && isContiguous(src0) && isContiguous(src1);
}

// CONCAT: same types; a quantized type in whole blocks with contiguous sources (all four
// dimensions when concatenating along the last, the first three otherwise), another type of a
// 1, 2, 4 or 8 byte element.
bool concatSupported(const Tensor& op, const Tensor& a, const Tensor& b) {
    if (a.type != b.type || a.type != op.type) {
        return false;
    }
    if (isQuantized(a.type)) {
        const std::int32_t dim = op.opParams[0];
        const bool contiguous = dim == 3 ? isContiguous(a) && isContiguous(b)
                                         : layout::isContiguousTo3(a) && layout::isContiguousTo3(b);
        const std::int64_t block = layout::blockSize(a.type);
        return contiguous && a.ne[0] % block == 0 && b.ne[0] % block == 0;
    }
    const std::uint64_t size = typeSize(a.type);
    return layout::blockSize(a.type) == 1 && (size == 1 || size == 2 || size == 4 || size == 8);
}

// SSM_SCAN: Mamba-2 (A has one value per head) with a state of 128 or 256 and a head size that
// is a multiple of 16; Mamba-1 with a state of 16, head size 1, heads in multiples of 128, one
// group and one scan step (op_params[0], K).
bool ssmScanSupported(const ComputeGraph& graph, const Tensor& op) {
    const Tensor& src0 = graph[op.sources[0]];
    if (graph[op.sources[3]].ne[0] == 1) {
        return (src0.ne[0] == 128 || src0.ne[0] == 256) && src0.ne[1] % 16 == 0;
    }
    if (op.opParams[0] > 1) {
        return false;
    }
    return src0.ne[0] == 16 && src0.ne[1] == 1 && src0.ne[2] % 128 == 0 && graph[op.sources[4]].ne[1] == 1;
}

// lightning-indexer.cu ggml_cuda_lightning_indexer_supported: 128-wide heads in groups of 64 or
// 32, 16-byte strides on unquantized q and k, and a k type the kernel reads.
bool lightningIndexerSupported(const ComputeGraph& graph, const Tensor& op) {
    const Tensor& q = graph[op.sources[0]];
    const Tensor& k = graph[op.sources[1]];
    if (q.ne[0] != 128 || (q.ne[1] != 64 && q.ne[1] != 32)) {
        return false;
    }
    for (const Tensor* t : {&q, &k}) {
        if (isQuantized(t->type)) {
            continue;
        }
        for (std::size_t i = 1; i < 4; ++i) {
            if (t->nb[i] % 16 != 0) {
                return false;
            }
        }
    }
    switch (k.type) {
    case GgmlType::F32:
    case GgmlType::BF16:
    case GgmlType::F16:
    case GgmlType::Q8_0:
    case GgmlType::Q5_1:
    case GgmlType::Q5_0:
    case GgmlType::Q4_1:
    case GgmlType::Q4_0:
        return true;
    default:
        return false;
    }
}

bool allF32(const ComputeGraph& graph, const Tensor& op, std::size_t sources) {
    for (std::size_t i = 0; i < sources; ++i) {
        if (graph[op.sources[i]].type != GgmlType::F32) {
            return false;
        }
    }
    return op.type == GgmlType::F32;
}

bool opSupported(const CudaDevice& device, const ComputeGraph& graph, graph::TensorId id) {
    const Tensor& op = graph[id];
    const auto src = [&](std::size_t i) -> const Tensor& { return graph[op.sources[i]]; };
    switch (op.op) {
    case GgmlOp::Unary:
        // Every ggml_unary_op the enum has is listed; "TODO: should become contiguous_rows".
        return isContiguous(src(0));
    case GgmlOp::Glu:
        return layout::isContiguous1(src(0));
    case GgmlOp::MulMat:
    case GgmlOp::MulMatId: {
        const Tensor& a = src(0);
        const Tensor& b = src(1);
        if (a.nb[0] != typeSize(a.type) || b.nb[0] != typeSize(b.type)) {
            return false; // a non-contiguous first dimension
        }
        if (b.type == GgmlType::F16 && a.type != GgmlType::F16) {
            return false;
        }
        return matMulWeightType(a.type);
    }
    case GgmlOp::OutProd:
        return allF32(graph, op, 2);
    case GgmlOp::GetRows:
        return getRowsSupported(src(0));
    case GgmlOp::GetRowsBack:
        return op.type == GgmlType::F32 && src(0).type == GgmlType::F32 && op.ne[2] == 1 && op.ne[3] == 1;
    case GgmlOp::SetRows:
        return setRowsSupported(op, src(0), src(1));
    case GgmlOp::Set:
        return (op.type == GgmlType::F32 || op.type == GgmlType::I32) && op.type == src(0).type &&
               op.type == src(1).type;
    case GgmlOp::Cpy:
        return copySupported(src(0), src(1));
    case GgmlOp::Dup:
        return src(0).type != GgmlType::I32 && src(0).type != GgmlType::I16;
    case GgmlOp::Argmax:
        return true;
    case GgmlOp::Repeat: // the REPEAT path implements f32 and f16 only
        return isFloat(src(0).type);
    case GgmlOp::RepeatBack:
        return op.type == GgmlType::F32 && src(0).ne[2] * src(0).ne[3] <= (1 << 15);
    case GgmlOp::Concat:
        return concatSupported(op, src(0), src(1));
    case GgmlOp::ConvTranspose1d:
        return src(0).type == GgmlType::F32 && src(1).type == GgmlType::F32;
    case GgmlOp::Col2im1d:
        return (isFloat(src(0).type) || src(0).type == GgmlType::BF16) && op.type == src(0).type &&
               isContiguous(src(0)) && isContiguous(op);
    case GgmlOp::SiluBack:
        return isContiguous(src(0)) && src(0).type == GgmlType::F32;
    case GgmlOp::Norm:
    case GgmlOp::RmsNorm:
    case GgmlOp::L2Norm:
        return isContiguousRows(src(0));
    case GgmlOp::RmsNormBack:
        return isContiguous(src(0));
    case GgmlOp::None:
    case GgmlOp::Reshape:
    case GgmlOp::View:
    case GgmlOp::Permute:
    case GgmlOp::Transpose:
    case GgmlOp::AddId:
    case GgmlOp::Add1:
    case GgmlOp::Scale:
    case GgmlOp::Sqr:
    case GgmlOp::Sqrt:
    case GgmlOp::Sin:
    case GgmlOp::Cos:
    case GgmlOp::Clamp:
    case GgmlOp::Log:
    case GgmlOp::Cont:
    case GgmlOp::DiagMaskInf:
    case GgmlOp::SoftMax:
    case GgmlOp::ConvTranspose2d:
    case GgmlOp::Pool2d:
    case GgmlOp::Pad:
    case GgmlOp::Upscale:
    case GgmlOp::PadReflect1d:
    case GgmlOp::Arange:
    case GgmlOp::TimestepEmbedding:
    case GgmlOp::LeakyRelu:
    case GgmlOp::RwkvWkv6:
    case GgmlOp::GatedLinearAttn:
    case GgmlOp::RwkvWkv7:
    case GgmlOp::GatedDeltaNet: // refused only on MUSA
    case GgmlOp::CrossEntropyLoss:
    case GgmlOp::CrossEntropyLossBack:
    case GgmlOp::OptStepAdamw:
    case GgmlOp::OptStepSgd:
    case GgmlOp::Fill:
    case GgmlOp::Cumsum:
    case GgmlOp::Tri:
    case GgmlOp::Diag:
    case GgmlOp::SolveTri:
        return true;
    case GgmlOp::Add:
    case GgmlOp::Sub:
    case GgmlOp::Mul:
    case GgmlOp::Div:
        return isFloat(src(0).type) && isFloat(src(1).type) && isFloat(op.type);
    case GgmlOp::SsmScan:
        return ssmScanSupported(graph, op);
    case GgmlOp::SsmConv: // the kernel assumes d_inner is a multiple of its 128 threads
        return src(0).ne[1] % 128 == 0;
    case GgmlOp::SoftMaxBack: // no ALiBi
        return layout::opParamFloat(op, 1) == 0.0f;
    case GgmlOp::Roll:
        return src(0).type == GgmlType::F32 && isContiguous(src(0));
    case GgmlOp::Rope:
    case GgmlOp::RopeBack:
        return src(0).nb[0] == typeSize(src(0).type) && layout::isContiguous2(src(0));
    case GgmlOp::Im2col:
    case GgmlOp::Im2col3d:
    case GgmlOp::Conv2d:
        return isContiguous(src(0)) && isContiguous(src(1));
    case GgmlOp::Conv2dDw:
        return src(0).type == GgmlType::F32;
    case GgmlOp::Acc:
        return isContiguous(src(0)) && isContiguous(src(1));
    case GgmlOp::Sum:
        return isContiguousRows(src(0));
    case GgmlOp::TopK:
    case GgmlOp::Argsort:
        // CUB sorts any row on CUDA (GGML_CUDA_USE_CUB: CUDA 11.7 and later); the HIP build has
        // only the bitonic kernel, one block of at most 1024 values.
        return !device.hip || src(0).ne[0] <= 1024;
    case GgmlOp::SumRows:
    case GgmlOp::Mean:
    case GgmlOp::GroupNorm:
        return isContiguous(src(0));
    case GgmlOp::Dsv4HcComb:
        return allF32(graph, op, 3);
    case GgmlOp::Dsv4HcPre:
        return allF32(graph, op, 2);
    case GgmlOp::Dsv4HcPost:
        return allF32(graph, op, 4);
    case GgmlOp::FlashAttnExt:
        return cudaFlashAttnKernel(device, graph, id) != CudaFlashAttnKernel::None;
    case GgmlOp::LightningIndexer:
        return lightningIndexerSupported(graph, op);
    default:
        return false;
    }
}

// Whether a buffer type is another CUDA device's ("CUDA1" beside "CUDA0"; not "CUDA_Host").
bool isOtherDeviceBuffer(const CudaDevice& device, const std::string& bufferType) {
    const std::string prefix = cudaBackendPrefix(device);
    if (bufferType.size() <= prefix.size() || bufferType.compare(0, prefix.size(), prefix) != 0) {
        return false;
    }
    for (std::size_t i = prefix.size(); i < bufferType.size(); ++i) {
        if (std::isdigit(static_cast<unsigned char>(bufferType[i])) == 0) {
            return false;
        }
    }
    return bufferType != cudaDeviceName(device);
}

} // namespace
} // namespace cudarules

bool cudaSupportsOp(const CudaDevice& device, const graph::ComputeGraph& graph, graph::TensorId id) {
    // "check if all the sources are allocated on this device": a source in another CUDA device's
    // buffer is refused (the scheduler copies it). A view has no buffer of its own while the
    // scheduler assigns (ggml_new_tensor_impl leaves it unset), so only weights and caches count.
    for (const graph::TensorId source : graph[id].sources) {
        if (source == graph::kNoTensor || graph[source].buffer == graph::kNoBuffer) {
            continue;
        }
        const std::string& bufferType = graph.buffers[graph[source].buffer].bufferType;
        if (cudarules::isOtherDeviceBuffer(device, bufferType)) {
            return false;
        }
    }
    return cudarules::opSupported(device, graph, id);
}

} // namespace llamafit::scheduler
