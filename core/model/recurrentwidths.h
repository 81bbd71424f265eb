#pragma once
// RecurrentWidths: the per-sequence widths of llama.cpp's recurrent-state rows, n_embd_r
// (conv / token-shift state) and n_embd_s (SSM / WKV state), in floats, plus the SSM
// dimensions they come from (src/llama-hparams.cpp n_embd_r(), n_embd_s()). The same for
// every recurrent layer. Internal to core/model.

#include "core/common/result.h"
#include "core/model/architecturerules.h"
#include "core/model/archkeys.h"

#include <cstdint>

namespace llamafit {

struct RecurrentWidths {
    std::uint64_t convWidth = 0;  // n_embd_r, floats per sequence
    std::uint64_t stateWidth = 0; // n_embd_s, floats per sequence
    std::uint32_t ssmConvKernel = 0;
    std::uint32_t ssmInnerSize = 0;
    std::uint32_t ssmStateSize = 0;
    std::uint32_t ssmGroupCount = 0;
};

struct RecurrentWidthsInput {
    std::uint32_t embeddingLength = 0; // n_embd
    std::uint32_t firstHeadCount = 0;  // n_head() = n_head(0), used by the KDA / MiniMax formulas
    std::uint32_t keyHeadDim = 0;      // n_embd_head_k of full-attention layers (MiniMax-01 head_dim)
};

// Missing keys the formula needs -> model.missing-key (llama.cpp's get_key is required there).
Result<RecurrentWidths> computeRecurrentWidths(RecurrentState state, const ArchKeys& keys,
                                               const RecurrentWidthsInput& input);

} // namespace llamafit
