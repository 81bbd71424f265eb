#pragma once
// Memory bandwidth and the decode-speed estimate of seed 003: generating one token reads every
// active weight once plus the KV cache up to the current fill, so
//     tokens/s  <=  bandwidth / bytes read per token.
// It is an upper bound (real kernels reach roughly 50-80 % of it; seed 000 measured 53.6 t/s on a
// Strix Halo where the bound is higher), good for comparing settings: a quantized KV cache
// reads fewer bytes and decodes faster. Used by `llamafit-cli plan` and the GUI. Pure.
// Bandwidth in bytes per second (decimal GB/s x 1e9, as vendors quote it); sizes in bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace llamafit {

struct KnownBandwidth {
    std::string_view id;   // "rtx-4060"
    std::string_view name; // "NVIDIA RTX 4060 (GDDR6, 128-bit, 17 Gbps)"
    std::uint64_t bytesPerSecond = 0;
    std::string_view source;
};

const std::vector<KnownBandwidth>& knownBandwidths();
std::optional<KnownBandwidth> findKnownBandwidth(std::string_view id);

// Peak bandwidth of a memory bus: transfers per second x bus width in bytes
// (LPDDR5X-8000 on 256 bits: 8000e6 x 32 = 256 GB/s).
std::uint64_t busBandwidthBytesPerSecond(std::uint64_t megaTransfersPerSecond, std::uint32_t busWidthBits);

// Weights read per generated token: every tensor once, routed experts scaled by used/total
// (as ModelInfo::activeParameterCount), the token embedding one row (it is a lookup) unless a
// tied output reads the whole matrix for the logits.
std::uint64_t activeWeightBytesPerToken(const ModelInfo& model);

// KV bytes one sequence reads per token at `filledTokens` cells: full-attention caches read
// every filled cell, SWA caches at most the window.
std::uint64_t kvBytesReadPerToken(const MemoryEstimate& estimate, std::uint32_t filledTokens,
                                  std::uint32_t slidingWindow);

struct DecodeSpeedEstimate {
    std::uint64_t weightBytesPerToken = 0;
    std::uint64_t kvBytesPerToken = 0;
    std::uint64_t rsBytesPerToken = 0; // one slot's recurrent state
    std::uint64_t totalBytesPerToken = 0;
    std::uint32_t filledTokens = 0;
    double tokensPerSecond = 0; // the bandwidth bound
    bool operator==(const DecodeSpeedEstimate&) const = default;
};

double decodeTokensPerSecond(std::uint64_t bandwidthBytesPerSecond, std::uint64_t bytesPerToken);

// `filledTokens` defaults to a full slot (the resolved n_ctx_seq), the worst case seed 003 uses.
DecodeSpeedEstimate estimateDecodeSpeed(const ModelInfo& model, const MemoryEstimate& estimate,
                                        std::uint64_t bandwidthBytesPerSecond,
                                        std::optional<std::uint32_t> filledTokens = std::nullopt);

} // namespace llamafit
