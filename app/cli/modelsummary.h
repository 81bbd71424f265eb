#pragma once
// Per-layer summary of a ModelInfo for `llamafit-cli inspect` (text and JSON): how many
// layers of each kind, a one-character-per-layer map, and the distinct head/state widths.

#include "core/model/modelinfo.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

namespace llamafit {

struct LayerCounts {
    std::uint32_t full = 0;      // dense attention with its own KV
    std::uint32_t swa = 0;       // sliding-window attention with its own KV
    std::uint32_t chunked = 0;   // Llama-4 chunked attention
    std::uint32_t recurrent = 0; // recurrent state only
    std::uint32_t hybrid = 0;    // both attention and recurrent state (Falcon-H1)
    std::uint32_t none = 0;      // neither (MLP-only layers of Nemotron-H)
    std::uint32_t sharedKv = 0; // attention that reuses an earlier layer's KV (Gemma-3n/4), counted above too
    std::uint32_t nextn = 0;    // MTP / NextN layers, outside the main cache
};

LayerCounts countLayers(const ModelInfo& model);

// F full, S SWA, C chunked, R recurrent, B both, - none, N NextN; lower case = shared KV.
char layerSymbol(const LayerInfo& layer);
std::string layerMap(const ModelInfo& model);
std::string_view attentionKindName(AttentionKind kind); // "full", "swa", "chunked", "none"

struct LayerWidths {
    std::set<std::uint32_t> headCountKv; // over layers that hold KV
    std::set<std::uint32_t> keyHeadDim;
    std::set<std::uint32_t> valueHeadDim;
    std::set<std::uint64_t> recurrentConvWidth; // over recurrent layers
    std::set<std::uint64_t> recurrentStateWidth;
};

LayerWidths layerWidths(const ModelInfo& model);

} // namespace llamafit
