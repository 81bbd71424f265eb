#pragma once
// The gated delta-net (linear attention) layer of llama.cpp's Qwen3-Next and Qwen3.5 graphs:
// src/models/delta-net-base.cpp (llm_build_delta_net_base: build_conv_state, build_recurrent_attn,
// the fused ggml_gated_delta_net) and the build_layer_attn_linear / build_qkvz / build_norm_gated
// of src/models/qwen3next.cpp and qwen35moe.cpp: Q, K and V (and the output gate z) projected,
// convolved over the conv state's last tokens, L2-normed Q and K, the decay gate and beta from
// their own projections, one GATED_DELTA_NET node over the SSM state, its new state copied back,
// the output RMS-normed, gated by silu(z) and projected out. The qwen3next builder
// (models/qwen3next.cpp) composes it. Shapes only; the states are recurrent.h's r and s tensors.

#include "core/sizing/graph/recurrent.h"

namespace llamafit::graph {

// Where the architectures' linear-attention layers differ.
struct DeltaNetOptions {
    // qwen3next.cpp: beta and alpha come from one projection (ssm_ba), interleaved per key head;
    // qwen35moe.cpp: from ssm_beta and ssm_alpha.
    bool fusedBetaAlpha = false;
    // Q and K repeated from the key heads to the value heads: qwen3next.cpp always does it where
    // the counts differ; qwen35moe.cpp only where the fused op is off (the fused op broadcasts).
    bool repeatKeyHeads = false;
};

// A layer's linear attention; `cur` is the normed [n_embd, n_tokens] input, the result the
// layer's [n_embd, n_tokens] output before the residual.
TensorId buildDeltaNetLayer(LlmGraph& g, const RsInput& input, TensorId cur, std::uint32_t layer,
                            const DeltaNetOptions& options);

// The head size (S_v) of the model's delta-net layers, ssm.inner_size / ssm.time_step_rank (the
// value heads, read off blk.N.ssm_dt.bias as build_layer_attn_linear's num_v_heads); 0 when the
// model has no delta-net layer.
std::int64_t deltaNetHeadSize(const ModelInfo& model);

} // namespace llamafit::graph
