#pragma once
// LayerMix: which blocks attend, which keep K/V in the main cache, and which hold recurrent
// state, following the layer filters of llama.cpp src/llama-model.cpp create_memory and the
// is_recr rules of src/models/<arch>.cpp. Internal to core/model. One entry per block
// (block_count entries, NextN blocks included).

#include "core/common/result.h"
#include "core/model/architecturerules.h"
#include "core/model/archkeys.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

struct LayerMix {
    std::vector<bool> attends;       // the block has an attention mixer
    std::vector<bool> inMainKvCache; // create_memory's attention filter keeps it (before has_kv)
    std::vector<bool> recurrent;     // llama_memory_recurrent allocates R/S rows for it
};

struct LayerMixInput {
    std::uint32_t blockCount = 0; // n_layer_all
    std::uint32_t trunkCount = 0; // n_layer() = n_layer_all - nextn
    const std::vector<std::uint32_t>* headCountKv = nullptr;
    const std::vector<std::uint32_t>* feedForward = nullptr;
};

// `rules` is the generic transformer row for unknown architectures.
Result<LayerMix> planLayerMix(const ArchitectureRules& rules, const ArchKeys& keys,
                              const LayerMixInput& input);

} // namespace llamafit
