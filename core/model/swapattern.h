#pragma once
// SwaPattern: which blocks use sliding-window (or Llama-4 chunked) attention and the window
// n_swa, following the per-architecture defaults of llama.cpp src/models/<arch>.cpp and
// llama_hparams::set_swa_pattern (src/llama-hparams.cpp). Internal to core/model.
// The window is in tokens; one flag per block (block_count entries).

#include "core/common/result.h"
#include "core/model/architecturerules.h"
#include "core/model/archkeys.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

struct SwaPattern {
    AttentionKind kind = AttentionKind::SlidingWindow; // kind of the flagged layers
    std::uint32_t window = 0;                          // n_swa; 0 when no layer is flagged
    std::vector<bool> layers;                          // block_count entries
};

struct SwaPatternInput {
    std::uint32_t blockCount = 0;
    std::uint32_t trunkCount = 0;
    const std::vector<bool>* attends = nullptr; // LFM2 marks its attention layers
};

// Warnings (e.g. an array pattern that llama.cpp ignores) are appended to `warnings`.
Result<SwaPattern> planSwaPattern(const ArchitectureRules& rules, const ArchKeys& keys,
                                  const SwaPatternInput& input, std::vector<std::string>& warnings);

// set_swa_pattern: period 0 marks every layer; otherwise the last layer of each period is
// dense (l % P < P-1), or the first one with dense_first (l % P != 0).
bool isSwaLayerInPeriod(std::uint32_t layer, std::uint32_t period, bool denseFirst);

} // namespace llamafit
