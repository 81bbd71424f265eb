// Bandwidth figures and the bandwidth-bound decode estimate; see bandwidth.h.
#include "core/machine/bandwidth.h"

#include <algorithm>

namespace llamafit {

namespace {

constexpr std::uint64_t kGBps = 1'000'000'000ULL;

} // namespace

const std::vector<KnownBandwidth>& knownBandwidths() {
    static const std::vector<KnownBandwidth> table{
        {"rtx-4060", "NVIDIA GeForce RTX 4060 (8 GB GDDR6, 128-bit, 17 Gbps)", 272 * kGBps,
         "NVIDIA RTX 4060 specifications; seed 003 uses 272 GB/s"},
        {"rtx-3090", "NVIDIA GeForce RTX 3090 (24 GB GDDR6X, 384-bit, 19.5 Gbps)", 936 * kGBps,
         "NVIDIA RTX 3090 specifications (936 GB/s)"},
        {"strix-halo", "AMD Ryzen AI Max (Strix Halo), LPDDR5X-8000, 256-bit", 256 * kGBps,
         "AMD Ryzen AI Max+ 395 specifications: LPDDR5X-8000 on a 256-bit bus = 256 GB/s"},
        {"ryzen-ai-300", "AMD Ryzen AI 300 (Strix Point), LPDDR5X-7500, 128-bit", 120 * kGBps,
         "LPDDR5X-7500 on a 128-bit bus = 120 GB/s (bus arithmetic)"},
        {"ddr5-5600-dual", "Desktop CPU, dual-channel DDR5-5600", 89'600'000'000ULL,
         "2 channels x 64 bit x 5600 MT/s = 89.6 GB/s (bus arithmetic)"},
        {"ddr4-3200-dual", "Desktop CPU, dual-channel DDR4-3200", 51'200'000'000ULL,
         "2 channels x 64 bit x 3200 MT/s = 51.2 GB/s (bus arithmetic)"},
    };
    return table;
}

std::optional<KnownBandwidth> findKnownBandwidth(std::string_view id) {
    for (const KnownBandwidth& entry : knownBandwidths()) {
        if (entry.id == id) {
            return entry;
        }
    }
    return std::nullopt;
}

std::uint64_t busBandwidthBytesPerSecond(std::uint64_t megaTransfersPerSecond, std::uint32_t busWidthBits) {
    return megaTransfersPerSecond * 1'000'000ULL * (busWidthBits / 8);
}

std::uint64_t activeWeightBytesPerToken(const ModelInfo& model) {
    std::uint64_t bytes = 0;
    for (const TensorSummary& tensor : model.tensors) {
        if (tensor.role == TensorRole::TokenEmbedding && !model.tiedOutput && model.vocabularySize > 0) {
            // llama.cpp ggml_get_rows: one row per token.
            bytes += tensor.bytes / model.vocabularySize;
        } else if (tensor.expert && model.expertCount > 0 && model.expertUsedCount <= model.expertCount) {
            // ggml_mul_mat_id reads only the experts the router picked for this token.
            bytes += tensor.bytes / model.expertCount * model.expertUsedCount;
        } else {
            bytes += tensor.bytes;
        }
    }
    return bytes;
}

std::uint64_t kvBytesReadPerToken(const MemoryEstimate& estimate, std::uint32_t filledTokens,
                                  std::uint32_t slidingWindow) {
    std::uint64_t bytes = 0;
    for (const KvCacheEstimate& cache : estimate.kvCaches) {
        const std::uint64_t cells =
            static_cast<std::uint64_t>(cache.cells) * std::max<std::uint32_t>(1, cache.streams);
        if (cells == 0) {
            continue;
        }
        const std::uint64_t perCell = (cache.kBytes + cache.vBytes) / cells;
        std::uint64_t read = std::min<std::uint64_t>(filledTokens, cache.cells);
        if (cache.swa && slidingWindow > 0) {
            read = std::min<std::uint64_t>(read, slidingWindow);
        }
        bytes += perCell * read;
    }
    return bytes;
}

double decodeTokensPerSecond(std::uint64_t bandwidthBytesPerSecond, std::uint64_t bytesPerToken) {
    return bytesPerToken == 0
               ? 0.0
               : static_cast<double>(bandwidthBytesPerSecond) / static_cast<double>(bytesPerToken);
}

DecodeSpeedEstimate estimateDecodeSpeed(const ModelInfo& model, const MemoryEstimate& estimate,
                                        std::uint64_t bandwidthBytesPerSecond,
                                        std::optional<std::uint32_t> filledTokens) {
    DecodeSpeedEstimate speed;
    speed.filledTokens = filledTokens.value_or(estimate.context.nCtxSeq);
    speed.weightBytesPerToken = activeWeightBytesPerToken(model);
    speed.kvBytesPerToken = kvBytesReadPerToken(estimate, speed.filledTokens, model.slidingWindow);
    speed.rsBytesPerToken =
        (estimate.rs.rBytes + estimate.rs.sBytes) / std::max<std::uint32_t>(1, estimate.rs.cells);
    speed.totalBytesPerToken = speed.weightBytesPerToken + speed.kvBytesPerToken + speed.rsBytesPerToken;
    speed.tokensPerSecond = decodeTokensPerSecond(bandwidthBytesPerSecond, speed.totalBytesPerToken);
    return speed;
}

} // namespace llamafit
