#pragma once
// The recurrent-state parts of llama.cpp's model graphs: llama-graph.cpp build_inp_rs (the
// rs_s_copy input) and build_rs (a layer's state rows read through s_copy, the cell to clear, the
// rows past the ubatch's sequences copied back into the cache), and the Mamba layers of
// src/models/graph-context-mamba.cpp (build_mamba_layer, build_mamba2_layer), and LFM2's short
// convolution. The Mamba builder (models/mamba.cpp) and the hybrids compose them. Shapes only; the
// state tensors are f32 [n_embd_r or n_embd_s, rows] leafs in the layer's RS buffer
// (GraphParams::rsBuffers).

#include "core/sizing/graph/llmgraph.h"

#include <functional>

namespace llamafit::graph {

// The bytes of an f32 value, which the recurrent states and their ops hold.
inline constexpr std::uint64_t kF32Bytes = 4;
// The cell the ubatch's states start at (mctx->get_head()): 0 at a reserve, the cache being empty.
inline constexpr std::uint64_t kRsHead = 0;

// What build_inp_rs makes once per graph: the I32 [n_rs] copy-source indices and their views.
struct RsInput {
    TensorId stateCopy = kNoTensor;
    TensorId mainIds = kNoTensor;  // the ubatch's sequences' source cells
    TensorId extraIds = kNoTensor; // the cells whose rows build_rs copies back unchanged
};

RsInput buildRsInput(LlmGraph& g);

// A layer's state tensor: cache_r_l<layer> (conv / token shift, n_embd_r wide) or cache_s_l<layer>
// (SSM / WKV state, n_embd_s wide), created once per graph.
TensorId rsCache(LlmGraph& g, std::uint32_t layer, bool convState);

// build_rs: the states of this ubatch's sequences, [stateSize, n_seqs]. Without `getRows` they are
// plain rows; with it (the SSM scan) `getRows(states, ids)` reads them.
using RsRowsFn = std::function<TensorId(TensorId states, TensorId ids)>;
TensorId buildRs(LlmGraph& g, const RsInput& input, TensorId cache, const RsRowsFn& getRows = {});

// build_mamba_layer (Mamba-1) and build_mamba2_layer: `cur` is the normed [n_embd, n_tokens] input,
// the result the layer's [n_embd, n_tokens] output before the residual.
TensorId buildMambaLayer(LlmGraph& g, const RsInput& input, TensorId cur, std::uint32_t layer);
TensorId buildMamba2Layer(LlmGraph& g, const RsInput& input, TensorId cur, std::uint32_t layer);

// LFM2's short convolution (src/models/lfm2.cpp build_shortconv_block): the input projected into
// three chunks B, C and x, B*x convolved over the conv state's last tokens (no SSM state), gated by
// C, projected out. `cur` is the normed [n_embd, n_tokens] input, the result [n_embd, n_tokens].
TensorId buildShortConvLayer(LlmGraph& g, const RsInput& input, TensorId cur, std::uint32_t layer);

} // namespace llamafit::graph
