#pragma once
// The ggml operations a compute graph is made of (ggml/include/ggml.h enum ggml_op, ggml 0.27.0 /
// llama.cpp b11669 and the ggml tree of August 2026), with the sub-operations of UNARY and GLU that
// ggml keeps in op_params[0]. The sizing engine's graph (computegraph.h), scheduler (which backend
// runs an op, core/sizing/scheduler) and allocator (which ops may run in place) reason about these.
// Names are ggml_op_name's spelling ("MUL_MAT"), the form plan dumps and logs use.

#include <cstdint>
#include <optional>
#include <string_view>

namespace llamafit::graph {

enum class GgmlOp : std::uint8_t {
    None,
    Dup,
    Add,
    AddId,
    Add1,
    Acc,
    Sub,
    Mul,
    Div,
    Sqr,
    Sqrt,
    Log,
    Sin,
    Cos,
    Sum,
    SumRows,
    Cumsum,
    Mean,
    Argmax,
    Repeat,
    RepeatBack,
    Concat,
    SiluBack,
    Norm,
    RmsNorm,
    RmsNormBack,
    GroupNorm,
    L2Norm,
    MulMat,
    MulMatId,
    OutProd,
    Scale,
    Set,
    Cpy,
    Cont,
    Reshape,
    View,
    Permute,
    Transpose,
    GetRows,
    GetRowsBack,
    SetRows,
    Diag,
    DiagMaskInf,
    DiagMaskZero,
    SoftMax,
    SoftMaxBack,
    Rope,
    RopeBack,
    Clamp,
    ConvTranspose1d,
    Im2col,
    Im2colBack,
    Im2col3d,
    Col2im1d,
    Conv2d,
    Conv3d,
    Conv2dDw,
    ConvTranspose2d,
    Pool1d,
    Pool2d,
    Pool2dBack,
    Upscale,
    Pad,
    PadReflect1d,
    Roll,
    Arange,
    TimestepEmbedding,
    Argsort,
    TopK,
    LeakyRelu,
    Tri,
    Fill,
    FlashAttnExt,
    FlashAttnBack,
    SsmConv,
    SsmScan,
    WinPart,
    WinUnpart,
    GetRelPos,
    AddRelPos,
    RwkvWkv6,
    GatedLinearAttn,
    RwkvWkv7,
    SolveTri,
    GatedDeltaNet,
    LightningIndexer,
    Dsv4HcComb,
    Dsv4HcPre,
    Dsv4HcPost,
    Unary,
    MapCustom1,
    MapCustom2,
    MapCustom3,
    Custom,
    CrossEntropyLoss,
    CrossEntropyLossBack,
    OptStepAdamw,
    OptStepSgd,
    Glu,
};

// ggml_unary_op, kept in op_params[0] of a UNARY node.
enum class UnaryOp : std::uint8_t {
    Abs,
    Sgn,
    Neg,
    Step,
    Tanh,
    Elu,
    Relu,
    Sigmoid,
    Gelu,
    GeluQuick,
    Silu,
    Hardswish,
    Hardsigmoid,
    Exp,
    Expm1,
    Softplus,
    GeluErf,
    Xielu,
    Floor,
    Ceil,
    Round,
    Trunc,
};

// ggml_glu_op, kept in op_params[0] of a GLU node.
enum class GluOp : std::uint8_t {
    Reglu,
    Geglu,
    Swiglu,
    SwigluOai,
    GegluErf,
    GegluQuick,
};

std::string_view ggmlOpName(GgmlOp op);
std::optional<GgmlOp> ggmlOpFromName(std::string_view name);

// ggml_is_view_op: RESHAPE, VIEW, PERMUTE, TRANSPOSE; the scheduler skips them when it assigns and
// splits (ggml/src/ggml-backend.cpp).
bool isViewOp(GgmlOp op);

// ggml_op_can_inplace (ggml/src/ggml-alloc.c): ops whose result may take over a source's memory.
bool canRunInPlace(GgmlOp op);

} // namespace llamafit::graph
