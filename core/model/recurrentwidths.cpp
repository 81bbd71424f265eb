// n_embd_r / n_embd_s per family, restating llama.cpp src/llama-hparams.cpp:
//   RWKV (wkv_head_size != 0):  r = token_shift_count * n_embd,       s = n_embd * wkv_head_size
//   LFM2 (shortconv.l_cache):    r = n_embd * (l_cache - 1),           s = d_state * d_inner (0)
//   Kimi KDA (kda.head_dim):     r = 3 * (d_conv - 1) * n_head * hd,   s = hd * hd * n_head
//   MiniMax-01 linear attention: r = default (0 without ssm keys),     s = hd * hd * n_head
//   default (Mamba-1/2, GDN):    r = (d_conv - 1) * (d_inner + 2 * n_group * d_state),
//                                s = d_state * d_inner
// The keys each family reads come from its src/models/<arch>.cpp load_arch_hparams.
#include "core/model/recurrentwidths.h"

namespace llamafit {
namespace {

constexpr std::string_view kWhySsm = "recurrent-state size";

struct SsmKeys {
    std::uint32_t conv = 0;
    std::uint32_t inner = 0;
    std::uint32_t state = 0;
    std::uint32_t group = 0;
};

Result<SsmKeys> readSsm(const ArchKeys& keys, bool withGroups) {
    SsmKeys out;
    for (auto [suffix, target] :
         {std::pair{"ssm.conv_kernel", &out.conv}, std::pair{"ssm.inner_size", &out.inner},
          std::pair{"ssm.state_size", &out.state}}) {
        auto value = keys.requiredUint32(suffix, kWhySsm);
        if (!value.ok()) {
            return value.error();
        }
        *target = value.value();
    }
    // Mamba-1 (mamba.cpp, jamba.cpp) never reads ssm.group_count: n_group stays 0.
    if (withGroups) {
        auto groups = keys.requiredUint32("ssm.group_count", kWhySsm);
        if (!groups.ok()) {
            return groups.error();
        }
        out.group = groups.value();
    }
    return out;
}

std::uint64_t convMinusOne(std::uint64_t conv) {
    return conv > 0 ? conv - 1 : 0;
}

} // namespace

Result<RecurrentWidths> computeRecurrentWidths(RecurrentState state, const ArchKeys& keys,
                                               const RecurrentWidthsInput& in) {
    RecurrentWidths out;
    const std::uint64_t embd = in.embeddingLength;
    switch (state) {
    case RecurrentState::None:
        return out;
    case RecurrentState::Mamba1:
    case RecurrentState::Mamba2: {
        auto ssm = readSsm(keys, state == RecurrentState::Mamba2);
        if (!ssm.ok()) {
            return ssm.error();
        }
        const auto& s = ssm.value();
        out.ssmConvKernel = s.conv;
        out.ssmInnerSize = s.inner;
        out.ssmStateSize = s.state;
        out.ssmGroupCount = s.group;
        out.convWidth = convMinusOne(s.conv) * (std::uint64_t{s.inner} + 2ull * s.group * s.state);
        out.stateWidth = std::uint64_t{s.state} * s.inner;
        return out;
    }
    case RecurrentState::Rwkv: {
        auto headSize = keys.requiredUint32("wkv.head_size", kWhySsm);
        if (!headSize.ok()) {
            return headSize.error();
        }
        auto shift = keys.uint32("token_shift_count");
        if (!shift.ok()) {
            return shift.error();
        }
        // llama-hparams.h: token_shift_count defaults to 2.
        out.convWidth = std::uint64_t{shift.value().value_or(2)} * embd;
        out.stateWidth = embd * headSize.value();
        return out;
    }
    case RecurrentState::ShortConv: {
        auto cache = keys.requiredUint32("shortconv.l_cache", kWhySsm);
        if (!cache.ok()) {
            return cache.error();
        }
        out.convWidth = embd * convMinusOne(cache.value());
        out.stateWidth = 0; // lfm2.cpp reads no ssm.* keys: d_state * d_inner = 0
        return out;
    }
    case RecurrentState::Kda: {
        auto conv = keys.requiredUint32("ssm.conv_kernel", kWhySsm);
        if (!conv.ok()) {
            return conv.error();
        }
        auto headDim = keys.requiredUint32("kda.head_dim", kWhySsm);
        if (!headDim.ok()) {
            return headDim.error();
        }
        const std::uint64_t hd = headDim.value();
        // n_embd_r uses 3 when d_conv is 0 (llama-hparams.cpp).
        const std::uint64_t convTail = conv.value() > 0 ? conv.value() - 1 : 3;
        out.ssmConvKernel = conv.value();
        out.convWidth = 3 * convTail * in.firstHeadCount * hd;
        out.stateWidth = hd * hd * in.firstHeadCount;
        return out;
    }
    case RecurrentState::LinearAttention: {
        // minimax-01.cpp: n_embd_head_la = n_embd_head_k_full; no ssm.* keys are read.
        const std::uint64_t hd = in.keyHeadDim;
        out.convWidth = 0;
        out.stateWidth = hd * hd * in.firstHeadCount;
        return out;
    }
    }
    return out;
}

} // namespace llamafit
