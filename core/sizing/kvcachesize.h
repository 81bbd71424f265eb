#pragma once
// KV cache sizing: the caches llama.cpp creates for the attention layers (one plain cache, or a
// non-SWA and an SWA cache for iSWA models) and the K/V bytes of every layer, so the estimator
// can put each layer's share on that layer's device. Internal to core/sizing. Bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llamafit {

struct KvPlan {
    std::vector<KvCacheEstimate> caches;   // non-SWA first, then SWA; empty without KV layers
    std::vector<std::uint64_t> layerBytes; // per block: K+V bytes of that layer's cache tensors
    std::vector<bool> layerInSwaCache;     // per block: the layer's K/V live in the SWA cache
    // The cache (index into `caches`) that block `il` keeps its K/V in; nullopt when there is none
    // of its kind.
    std::optional<std::size_t> cacheOf(std::size_t il) const;
    bool operator==(const KvPlan&) const = default;
};

KvPlan sizeKvCaches(const ModelInfo& model, const ServerSettings& settings, const ResolvedContext& context);

// Cells per stream of the SWA cache (src/llama-kv-cache-iswa.cpp), shared with the compute model.
std::uint32_t swaCellsPerStream(const ModelInfo& model, const ServerSettings& settings,
                                const ResolvedContext& context);

} // namespace llamafit
