// Which ops a Metal device runs; see metalsupportsop.h. Every rule restates
// ggml/src/ggml-metal/ggml-metal-device.m ggml_metal_device_supports_op (llama.cpp b10587); ops it
// does not list (DIAG_MASK_INF, GATED_LINEAR_ATTN, OUT_PROD, IM2COL_3D, the backward passes, ...)
// are refused, as its default case refuses them.
#include "core/sizing/scheduler/metalsupportsop.h"
#include "core/sizing/scheduler/tensorlayout.h"

namespace llamafit::scheduler {
namespace metalrules {
namespace {

using graph::ComputeGraph;
using graph::GgmlOp;
using graph::Tensor;
using layout::isContiguous;
using layout::isContiguousRows;

bool isFloat(GgmlType type) {
    return type == GgmlType::F32 || type == GgmlType::F16;
}

// The head sizes the flash attention kernels are instantiated for ("for new head sizes, add
// checks here").
bool flashAttnHeadSize(std::int64_t headSize) {
    switch (headSize) {
    case 32:
    case 40:
    case 48:
    case 64:
    case 72:
    case 80:
    case 96:
    case 112:
    case 128:
    case 192:
    case 256:
    case 320:
    case 512:
    case 576:
        return true;
    default:
        return false;
    }
}

// FLASH_ATTN_EXT: a listed head size (Q's), K and V of one type among f32, f16, q8_0, q4_0,
// q4_1, q5_0, q5_1 (bf16 with bfloat), and the simdgroup matrix product ("TODO: over-restricted
// for vec-kernels"). No GQA or mask condition.
bool flashAttnSupported(const MetalDevice& device, const Tensor& q, const Tensor& k, const Tensor& v) {
    if (!flashAttnHeadSize(q.ne[0]) || k.type != v.type) {
        return false;
    }
    switch (k.type) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::Q8_0:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
        break;
    case GgmlType::BF16:
        if (!device.bfloat) {
            return false;
        }
        break;
    default:
        return false;
    }
    return device.simdgroupMatrixMultiply;
}

// SET, CPY, DUP, CONT: the source type to the result type.
bool copySupported(GgmlType from, GgmlType to) {
    switch (from) {
    case GgmlType::F32:
        switch (to) {
        case GgmlType::F32:
        case GgmlType::F16:
        case GgmlType::BF16:
        case GgmlType::Q8_0:
        case GgmlType::Q1_0:
        case GgmlType::Q2_0:
        case GgmlType::Q4_0:
        case GgmlType::Q4_1:
        case GgmlType::Q5_0:
        case GgmlType::Q5_1:
        case GgmlType::IQ4_NL:
        case GgmlType::TQ2_0:
        case GgmlType::I32:
            return true;
        default:
            return false;
        }
    case GgmlType::F16:
        return isFloat(to);
    case GgmlType::BF16:
        return to == GgmlType::F32 || to == GgmlType::BF16;
    case GgmlType::Q1_0:
    case GgmlType::Q2_0:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::Q8_0:
    case GgmlType::TQ2_0:
        return isFloat(to);
    case GgmlType::I32:
        return to == GgmlType::F32 || to == GgmlType::I32;
    default:
        return false;
    }
}

// SET_ROWS: f16 rows into f16; f32 rows into f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl
// or tq2_0.
bool setRowsSupported(GgmlType from, GgmlType to) {
    if (from == GgmlType::F16) {
        return to == GgmlType::F16;
    }
    if (from != GgmlType::F32) {
        return false;
    }
    switch (to) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::Q8_0:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::IQ4_NL:
    case GgmlType::TQ2_0:
        return true;
    default:
        return false;
    }
}

// LIGHTNING_INDEXER: 128-wide heads in a group of 64, f32 q and weights, an f16 mask, f32 out,
// contiguous rows, the simdgroup matrix product, and a k type the kernel reads.
bool lightningIndexerSupported(const MetalDevice& device, const ComputeGraph& graph, const Tensor& op) {
    const Tensor& q = graph[op.sources[0]];
    const Tensor& k = graph[op.sources[1]];
    const Tensor& w = graph[op.sources[2]];
    const Tensor& m = graph[op.sources[3]];
    if (q.ne[0] != 128 || q.ne[1] != 64) { // OP_LIGHTNING_INDEXER_DK, _NH
        return false;
    }
    if (!device.simdgroupMatrixMultiply || q.type != GgmlType::F32 || w.type != GgmlType::F32 ||
        m.type != GgmlType::F16 || op.type != GgmlType::F32 || !isContiguousRows(q) || !isContiguousRows(k) ||
        !isContiguousRows(w) || !isContiguousRows(m)) {
        return false;
    }
    switch (k.type) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::Q8_0:
        return true;
    case GgmlType::BF16:
        return device.bfloat;
    default:
        return false;
    }
}

// The DeepSeek V4 hyper-connection ops: f32 throughout, contiguous rows, the shapes of its four
// streams (24 mixing weights for COMB).
bool hyperConnectionSupported(const MetalDevice& device, const ComputeGraph& graph, const Tensor& op) {
    const auto src = [&](std::size_t i) -> const Tensor& { return graph[op.sources[i]]; };
    const std::size_t count = op.op == GgmlOp::Dsv4HcPre ? 2 : op.op == GgmlOp::Dsv4HcComb ? 3 : 4;
    if (!device.simdgroupReduction || op.type != GgmlType::F32) {
        return false;
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (src(i).type != GgmlType::F32 || !isContiguousRows(src(i))) {
            return false;
        }
    }
    switch (op.op) {
    case GgmlOp::Dsv4HcComb:
        return src(0).ne[0] == 24 && src(1).ne[0] >= 3 && src(2).ne[0] == 24;
    case GgmlOp::Dsv4HcPre:
        return src(0).ne[1] == 4 && src(1).ne[0] == 4;
    default:
        return src(1).ne[1] == 4 && src(2).ne[0] == 4 && src(3).ne[0] == 4 && src(3).ne[1] == 4;
    }
}

bool opSupported(const MetalDevice& device, const ComputeGraph& graph, const Tensor& op) {
    const auto src = [&](std::size_t i) -> const Tensor& { return graph[op.sources[i]]; };
    const bool reduction = device.simdgroupReduction;
    switch (op.op) {
    case GgmlOp::Scale:
    case GgmlOp::Fill:
    case GgmlOp::Clamp:
    case GgmlOp::Sqr:
    case GgmlOp::Sqrt:
    case GgmlOp::Sin:
    case GgmlOp::Cos:
    case GgmlOp::Log:
    case GgmlOp::Unary: // every ggml_unary_op the enum has is listed
        return isContiguousRows(src(0)) && isFloat(src(0).type);
    case GgmlOp::SiluBack:
        return src(0).type == GgmlType::F32 && src(1).type == GgmlType::F32 && op.type == GgmlType::F32 &&
               isContiguous(src(0)) && isContiguous(src(1)) && isContiguous(op) &&
               layout::sameShape(src(0), src(1));
    case GgmlOp::Glu: // every ggml_glu_op is listed
        return layout::isContiguous1(src(0)) && isFloat(src(0).type);
    case GgmlOp::None:
    case GgmlOp::Reshape:
    case GgmlOp::View:
    case GgmlOp::Transpose:
    case GgmlOp::Permute:
    case GgmlOp::Repeat:
    case GgmlOp::ConvTranspose1d:
    case GgmlOp::Rope:
    case GgmlOp::RopeBack:
    case GgmlOp::Argsort:
    case GgmlOp::TopK:
    case GgmlOp::Arange:
    case GgmlOp::RwkvWkv6:
    case GgmlOp::RwkvWkv7:
    case GgmlOp::Diag:
        return true;
    case GgmlOp::Concat: {
        const GgmlType type = src(0).type;
        if (type != src(1).type || type != op.type) {
            return false;
        }
        if (type == GgmlType::BF16) {
            return device.bfloat;
        }
        return isFloat(type) || type == GgmlType::I8 || type == GgmlType::I16 || type == GgmlType::I32 ||
               type == GgmlType::I64;
    }
    case GgmlOp::Add:
    case GgmlOp::Sub:
    case GgmlOp::Mul:
    case GgmlOp::Div:
    case GgmlOp::AddId:
        return isContiguousRows(src(0)) && isContiguousRows(src(1)) && isFloat(src(0).type) &&
               src(0).type == src(1).type;
    case GgmlOp::Acc:
        return isContiguousRows(src(0)) && isContiguousRows(src(1)) && src(0).type == GgmlType::F32;
    case GgmlOp::ConvTranspose2d:
        return isContiguous(src(0)) && isContiguous(src(1)) && isFloat(src(0).type) &&
               src(1).type == GgmlType::F32 && op.type == GgmlType::F32;
    case GgmlOp::Col2im1d:
        return (isFloat(src(0).type) || src(0).type == GgmlType::BF16) && op.type == src(0).type &&
               isContiguous(src(0)) && isContiguous(op);
    case GgmlOp::Conv3d:
        return isContiguous(src(0)) && isContiguous(src(1)) && isFloat(src(0).type) &&
               src(1).type == GgmlType::F32;
    case GgmlOp::Sum:
        return reduction && isContiguous(src(0));
    case GgmlOp::Tri:
        return isContiguousRows(src(0));
    case GgmlOp::SumRows:
    case GgmlOp::Cumsum:
    case GgmlOp::Mean:
    case GgmlOp::SoftMax:
    case GgmlOp::GroupNorm:
    case GgmlOp::L2Norm:
    case GgmlOp::Norm:
    case GgmlOp::RmsNorm:
        return reduction && isContiguousRows(src(0));
    case GgmlOp::Argmax:
    case GgmlOp::SsmScan:
    case GgmlOp::SsmConv:
    case GgmlOp::OptStepAdamw:
    case GgmlOp::OptStepSgd:
        return reduction;
    case GgmlOp::Im2col:
        return isContiguous(src(1)) && src(1).type == GgmlType::F32 && isFloat(op.type);
    case GgmlOp::Conv2d:
        return isContiguous(src(0)) && src(1).type == GgmlType::F32 && op.type == GgmlType::F32 &&
               isFloat(src(0).type);
    case GgmlOp::Conv2dDw:
        return src(1).type == GgmlType::F32 && op.type == GgmlType::F32 && isFloat(src(0).type);
    case GgmlOp::Upscale:
    case GgmlOp::Pool2d:
    case GgmlOp::PadReflect1d:
    case GgmlOp::TimestepEmbedding:
        return src(0).type == GgmlType::F32;
    case GgmlOp::Pool1d:
        return isContiguous(src(0)) && src(0).type == GgmlType::F32;
    case GgmlOp::Pad:
        // No circular padding (op_params[8]) and no padding before a dimension's start.
        return op.opParams[8] == 0 && op.opParams[0] == 0 && op.opParams[2] == 0 && op.opParams[4] == 0 &&
               op.opParams[6] == 0;
    case GgmlOp::LeakyRelu:
        return isFloat(src(0).type);
    case GgmlOp::Roll:
        return isContiguous(src(0));
    case GgmlOp::FlashAttnExt:
        return flashAttnSupported(device, src(0), src(1), src(2));
    case GgmlOp::LightningIndexer:
        return lightningIndexerSupported(device, graph, op);
    case GgmlOp::Dsv4HcComb:
    case GgmlOp::Dsv4HcPre:
    case GgmlOp::Dsv4HcPost:
        return hyperConnectionSupported(device, graph, op);
    case GgmlOp::GatedDeltaNet: // the value head a multiple of the simdgroup's 32
        return reduction && src(2).ne[0] % 32 == 0;
    case GgmlOp::SolveTri:
    case GgmlOp::MulMat:
    case GgmlOp::MulMatId:
        return reduction && src(0).type != GgmlType::NVFP4;
    case GgmlOp::Set:
    case GgmlOp::Cpy:
    case GgmlOp::Dup:
    case GgmlOp::Cont:
        return copySupported(src(0).type, op.type);
    case GgmlOp::GetRows:
        return src(0).type != GgmlType::NVFP4;
    case GgmlOp::SetRows:
        return setRowsSupported(src(0).type, op.type);
    default:
        return false;
    }
}

} // namespace
} // namespace metalrules

bool metalSupportsOp(const MetalDevice& device, const graph::ComputeGraph& graph, graph::TensorId id) {
    const graph::Tensor& op = graph[id];
    // Without bfloat, nothing that makes or reads (first three sources) a bf16 tensor.
    if (!device.bfloat) {
        if (op.type == GgmlType::BF16) {
            return false;
        }
        for (std::size_t i = 0; i < 3; ++i) {
            if (op.sources[i] != graph::kNoTensor && graph[op.sources[i]].type == GgmlType::BF16) {
                return false;
            }
        }
    }
    return metalrules::opSupported(device, graph, op);
}

} // namespace llamafit::scheduler
