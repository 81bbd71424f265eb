// ggml's operation names; see ggmlop.h.
#include "core/sizing/graph/ggmlop.h"

#include <array>

namespace llamafit::graph {
namespace {

// In enum order: ggml/src/ggml.c GGML_OP_NAME.
constexpr std::array kOpNames = {
    std::string_view{"NONE"},
    std::string_view{"DUP"},
    std::string_view{"ADD"},
    std::string_view{"ADD_ID"},
    std::string_view{"ADD1"},
    std::string_view{"ACC"},
    std::string_view{"SUB"},
    std::string_view{"MUL"},
    std::string_view{"DIV"},
    std::string_view{"SQR"},
    std::string_view{"SQRT"},
    std::string_view{"LOG"},
    std::string_view{"SIN"},
    std::string_view{"COS"},
    std::string_view{"SUM"},
    std::string_view{"SUM_ROWS"},
    std::string_view{"CUMSUM"},
    std::string_view{"MEAN"},
    std::string_view{"ARGMAX"},
    std::string_view{"REPEAT"},
    std::string_view{"REPEAT_BACK"},
    std::string_view{"CONCAT"},
    std::string_view{"SILU_BACK"},
    std::string_view{"NORM"},
    std::string_view{"RMS_NORM"},
    std::string_view{"RMS_NORM_BACK"},
    std::string_view{"GROUP_NORM"},
    std::string_view{"L2_NORM"},
    std::string_view{"MUL_MAT"},
    std::string_view{"MUL_MAT_ID"},
    std::string_view{"OUT_PROD"},
    std::string_view{"SCALE"},
    std::string_view{"SET"},
    std::string_view{"CPY"},
    std::string_view{"CONT"},
    std::string_view{"RESHAPE"},
    std::string_view{"VIEW"},
    std::string_view{"PERMUTE"},
    std::string_view{"TRANSPOSE"},
    std::string_view{"GET_ROWS"},
    std::string_view{"GET_ROWS_BACK"},
    std::string_view{"SET_ROWS"},
    std::string_view{"DIAG"},
    std::string_view{"DIAG_MASK_INF"},
    std::string_view{"DIAG_MASK_ZERO"},
    std::string_view{"SOFT_MAX"},
    std::string_view{"SOFT_MAX_BACK"},
    std::string_view{"ROPE"},
    std::string_view{"ROPE_BACK"},
    std::string_view{"CLAMP"},
    std::string_view{"CONV_TRANSPOSE_1D"},
    std::string_view{"IM2COL"},
    std::string_view{"IM2COL_BACK"},
    std::string_view{"IM2COL_3D"},
    std::string_view{"COL2IM_1D"},
    std::string_view{"CONV_2D"},
    std::string_view{"CONV_3D"},
    std::string_view{"CONV_2D_DW"},
    std::string_view{"CONV_TRANSPOSE_2D"},
    std::string_view{"POOL_1D"},
    std::string_view{"POOL_2D"},
    std::string_view{"POOL_2D_BACK"},
    std::string_view{"UPSCALE"},
    std::string_view{"PAD"},
    std::string_view{"PAD_REFLECT_1D"},
    std::string_view{"ROLL"},
    std::string_view{"ARANGE"},
    std::string_view{"TIMESTEP_EMBEDDING"},
    std::string_view{"ARGSORT"},
    std::string_view{"TOP_K"},
    std::string_view{"LEAKY_RELU"},
    std::string_view{"TRI"},
    std::string_view{"FILL"},
    std::string_view{"FLASH_ATTN_EXT"},
    std::string_view{"FLASH_ATTN_BACK"},
    std::string_view{"SSM_CONV"},
    std::string_view{"SSM_SCAN"},
    std::string_view{"WIN_PART"},
    std::string_view{"WIN_UNPART"},
    std::string_view{"GET_REL_POS"},
    std::string_view{"ADD_REL_POS"},
    std::string_view{"RWKV_WKV6"},
    std::string_view{"GATED_LINEAR_ATTN"},
    std::string_view{"RWKV_WKV7"},
    std::string_view{"SOLVE_TRI"},
    std::string_view{"GATED_DELTA_NET"},
    std::string_view{"LIGHTNING_INDEXER"},
    std::string_view{"DSV4_HC_COMB"},
    std::string_view{"DSV4_HC_PRE"},
    std::string_view{"DSV4_HC_POST"},
    std::string_view{"UNARY"},
    std::string_view{"MAP_CUSTOM1"},
    std::string_view{"MAP_CUSTOM2"},
    std::string_view{"MAP_CUSTOM3"},
    std::string_view{"CUSTOM"},
    std::string_view{"CROSS_ENTROPY_LOSS"},
    std::string_view{"CROSS_ENTROPY_LOSS_BACK"},
    std::string_view{"OPT_STEP_ADAMW"},
    std::string_view{"OPT_STEP_SGD"},
    std::string_view{"GLU"},
};

} // namespace

std::string_view ggmlOpName(GgmlOp op) {
    return kOpNames.at(static_cast<std::size_t>(op));
}

std::optional<GgmlOp> ggmlOpFromName(std::string_view name) {
    for (std::size_t i = 0; i < kOpNames.size(); ++i) {
        if (kOpNames[i] == name) {
            return static_cast<GgmlOp>(i);
        }
    }
    return std::nullopt;
}

bool isViewOp(GgmlOp op) {
    return op == GgmlOp::Reshape || op == GgmlOp::View || op == GgmlOp::Permute || op == GgmlOp::Transpose;
}

bool canRunInPlace(GgmlOp op) {
    switch (op) {
    case GgmlOp::Fill:
    case GgmlOp::Scale:
    case GgmlOp::DiagMaskZero:
    case GgmlOp::DiagMaskInf:
    case GgmlOp::Add:
    case GgmlOp::AddId:
    case GgmlOp::Add1:
    case GgmlOp::Sub:
    case GgmlOp::Mul:
    case GgmlOp::Div:
    case GgmlOp::Sqr:
    case GgmlOp::Sqrt:
    case GgmlOp::Log:
    case GgmlOp::Unary:
    case GgmlOp::Rope:
    case GgmlOp::RopeBack:
    case GgmlOp::SiluBack:
    case GgmlOp::RmsNorm:
    case GgmlOp::RmsNormBack:
    case GgmlOp::SoftMax:
    case GgmlOp::SoftMaxBack:
        return true;
    default:
        return false;
    }
}

} // namespace llamafit::graph
