#pragma once
// The shared parts of llama.cpp's RWKV graphs: the token shift of src/llama-graph.cpp
// (build_rwkv_token_shift_load / build_rwkv_token_shift_store over build_rs), the time mix and
// channel mix of src/models/rwkv6-base.cpp and src/models/rwkv7-base.cpp, and the LayerNorm output
// head both architectures share. The per-architecture builders (models/rwkv6.cpp, models/rwkv7.cpp)
// compose them layer by layer. Shapes only; the token shift and the WKV state are recurrent.h's r
// and s tensors (n_embd_r = token_shift_count * n_embd, n_embd_s = n_embd * head_size floats).

#include "core/sizing/graph/recurrent.h"

namespace llamafit::graph {

// A layer's two token shifts (the last token of the previous ubatch, per sequence): the views of
// build_rwkv_token_shift_load's [n_embd, 2, n_seqs] state that the time mix (the first) and the
// channel mix (the second) read, and the layer's r tensor they came from.
struct RwkvTokenShift {
    TensorId cache = kNoTensor;
    TensorId attention = kNoTensor;
    TensorId feedForward = kNoTensor;
};

RwkvTokenShift loadRwkvTokenShift(LlmGraph& g, const RsInput& input, std::uint32_t layer);

// x_prev: ggml_concat(shift, the first n_seq_tokens - 1 tokens of `normed`) along the tokens, the
// input shifted by one token; `normed` is [n_embd, n_seq_tokens, n_seqs].
TensorId rwkvPreviousTokens(LlmGraph& g, TensorId shift, TensorId normed);

// The new token shifts, the last token of both norms concatenated, stored back with
// build_rwkv_token_shift_store (expanded here, as the builders do after the feed-forward norm).
void storeRwkvTokenShift(LlmGraph& g, const RwkvTokenShift& shift, TensorId attentionNorm,
                         TensorId feedForwardNorm);

// build_rwkv6_time_mix and build_rwkv7_time_mix: `cur` is the normed [n_embd, n_seq_tokens,
// n_seqs] input, `previous` its token-shifted copy; the result [n_embd, n_seq_tokens, n_seqs].
// RWKV-7's first layer keeps its value in `firstValue` (kNoTensor before it), the later layers mix
// it back in.
TensorId buildRwkv6TimeMix(LlmGraph& g, const RsInput& input, TensorId cur, TensorId previous,
                           std::uint32_t layer);
TensorId buildRwkv7TimeMix(LlmGraph& g, const RsInput& input, TensorId cur, TensorId previous,
                           TensorId& firstValue, std::uint32_t layer);

// build_rwkv6_channel_mix and build_rwkv7_channel_mix over [n_embd, tokens] rows.
TensorId buildRwkv6ChannelMix(LlmGraph& g, TensorId cur, TensorId previous, std::uint32_t layer);
TensorId buildRwkv7ChannelMix(LlmGraph& g, TensorId cur, TensorId previous, std::uint32_t layer);

// The output LayerNorm (output_norm with its bias, LLM_NORM) and the logits, both graph outputs.
TensorId rwkvOutputHead(LlmGraph& g, TensorId x);

} // namespace llamafit::graph
