#pragma once
// CommonKeys: the hyper-parameters every architecture shares, read the way llama.cpp
// src/llama-model.cpp llama_model_base::load_hparams reads them: block count, NextN split,
// n_embd, training context, per-layer head / KV-head / n_ff arrays and the head dims.
// Internal to core/model (used by the interpreter). Counts and per-head dimensions only.

#include "core/common/result.h"
#include "core/model/architecturerules.h"
#include "core/model/archkeys.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

struct CommonKeys {
    std::uint32_t blockCount = 0; // n_layer_all
    std::uint32_t nextnCount = 0;
    std::uint64_t context = 0;
    std::uint32_t embd = 0;
    std::vector<std::uint32_t> heads, kvHeads, ff; // blockCount entries each
    std::uint32_t keyFull = 0, valueFull = 0, keySwa = 0, valueSwa = 0;
    bool mla = false;

    std::uint32_t trunkCount() const { return blockCount - nextnCount; }
};

// `known` = false adds a warning for every default an unknown architecture relies on.
// Errors: model.missing-key (block_count, embedding_length, context_length), model.bad-value.
Result<CommonKeys> readCommonKeys(const ArchitectureRules& rules, const ArchKeys& keys, bool known,
                                  std::vector<std::string>& warnings);

} // namespace llamafit
