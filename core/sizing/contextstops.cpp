// The context slider's stops; see contextstops.h.
#include "core/sizing/contextstops.h"

#include <algorithm>
#include <limits>

namespace llamafit {

namespace {

// Between 2^k and 2^(k+1) the step is a quarter of 2^k, but never below 256: llama.cpp pads
// n_ctx to a multiple of 256 (src/llama-context.cpp, GGML_PAD(n_ctx, 256)), so finer stops
// would size identically.
std::uint64_t stepAfter(std::uint64_t powerOfTwo) {
    return std::max<std::uint64_t>(ContextStops::kFirstStop, powerOfTwo / 4);
}

} // namespace

ContextStops::ContextStops(std::uint64_t trainingContext) {
    const std::uint64_t last =
        std::min<std::uint64_t>(trainingContext == 0 ? kUnknownTrainingContext : trainingContext,
                                std::numeric_limits<std::uint32_t>::max());
    for (std::uint64_t power = kFirstStop; power < last; power *= 2) {
        for (std::uint64_t value = power; value < power * 2 && value < last; value += stepAfter(power)) {
            m_tokens.push_back(static_cast<std::uint32_t>(value));
        }
    }
    m_tokens.push_back(static_cast<std::uint32_t>(last));
}

std::uint32_t ContextStops::tokensAt(int index) const {
    return m_tokens[static_cast<std::size_t>(std::clamp(index, 0, count() - 1))];
}

int ContextStops::nearestIndex(std::uint32_t contextTokens) const {
    const auto upper = std::lower_bound(m_tokens.begin(), m_tokens.end(), contextTokens);
    if (upper == m_tokens.begin()) {
        return 0;
    }
    if (upper == m_tokens.end()) {
        return count() - 1;
    }
    const auto lower = upper - 1;
    const bool lowerIsNearer = contextTokens - *lower <= *upper - contextTokens;
    return static_cast<int>((lowerIsNearer ? lower : upper) - m_tokens.begin());
}

} // namespace llamafit
