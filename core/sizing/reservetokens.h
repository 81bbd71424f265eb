#pragma once
// The number of tokens in llama.cpp's worst-case graph (src/llama-context.cpp graph_reserve):
// n_ubatch spread over n_seq_max sequences and rounded up to a multiple of n_seq_max ("making
// n_tokens a multiple of n_seqs"). Every compute-buffer rule sizes its activations by it.
// Internal to core/sizing.

#include "core/sizing/memoryestimate.h"

#include <algorithm>
#include <cstdint>

namespace llamafit {

inline std::uint64_t reserveTokens(std::uint64_t ubatchTokens, std::uint64_t sequences) {
    const std::uint64_t seqs = std::max<std::uint64_t>(sequences, 1);
    return (ubatchTokens + seqs - 1) / seqs * seqs;
}

inline std::uint64_t reserveTokens(const ResolvedContext& context) {
    return reserveTokens(context.nUbatch, context.nSeqMax);
}

} // namespace llamafit
