#pragma once
// ContextStops: the values the settings panel's context slider snaps to, up to a model's
// training context -- the powers of two from 256 with quarter steps between them once a quarter
// is a multiple of 256 (..., 2048, 2560, 3072, 3584, 4096, 5120, ..., 65536, 81920, ...), and
// always the training context itself as the last stop. Maps slider indices to tokens and any
// token count to its nearest stop. Used by SettingsPanel (the slider) and the context sweep
// chart (its points), so a clicked point is a stop the slider can show.
// Pure value type, no widgets; any thread. Units: tokens.

#include <cstdint>
#include <vector>

namespace llamafit {

class ContextStops {
  public:
    // Stops when the model does not say its training context (trainingContext == 0).
    static constexpr std::uint32_t kUnknownTrainingContext = 131072;
    static constexpr std::uint32_t kFirstStop = 256;

    // trainingContext: the model's n_ctx_train (0 = unknown); values above 2^32-1 are clamped.
    explicit ContextStops(std::uint64_t trainingContext);

    const std::vector<std::uint32_t>& tokens() const { return m_tokens; }
    int count() const { return static_cast<int>(m_tokens.size()); }
    std::uint32_t maximum() const { return m_tokens.back(); }

    // The stop at `index`, clamped to [0, count() - 1].
    std::uint32_t tokensAt(int index) const;
    // Index of the stop nearest to `contextTokens` (the lower one on a tie).
    int nearestIndex(std::uint32_t contextTokens) const;
    std::uint32_t nearest(std::uint32_t contextTokens) const { return tokensAt(nearestIndex(contextTokens)); }

  private:
    std::vector<std::uint32_t> m_tokens; // strictly increasing, never empty
};

} // namespace llamafit
