#pragma once
// Bytes as the KV cache grows, for the plan cache (core/sizing/computeplancache.h).
//
// llama.cpp pads every cache to a multiple of 256 cells (llama-context.cpp: n_ctx =
// GGML_PAD(n_ctx, 256), n_ctx_seq likewise), a reserve attends to all of them (n_kv = the cells),
// and each dimension of a graph tensor is either n_kv or independent of it: so every tensor spans
// a number of bytes affine in the cells, `now + perStep * steps`, a step being 256 cells counted
// from the anchor the plan was made at. ggml-alloc's choices (best fit, merges, in place) compare
// such sizes; a StepRange keeps the steps where every comparison made so far gives the answer it
// gave at the anchor, so the allocator's result, an affine size too, holds over that range.
// Value types; bytes and steps.

#include <cstdint>

namespace llamafit::allocator {

inline constexpr std::uint32_t kCellsPerStep = 256;

struct AffineBytes {
    std::int64_t now = 0;     // at the anchor
    std::int64_t perStep = 0; // added by each 256 cells more

    std::int64_t at(std::int64_t steps) const { return now + perStep * steps; }
    AffineBytes operator+(AffineBytes other) const { return {now + other.now, perStep + other.perStep}; }
    AffineBytes operator-(AffineBytes other) const { return {now - other.now, perStep - other.perStep}; }
    AffineBytes& operator+=(AffineBytes other) { return *this = *this + other; }
    AffineBytes& operator-=(AffineBytes other) { return *this = *this - other; }
    bool operator==(const AffineBytes&) const = default;
};

// Steps from the anchor, [lo, hi], always holding 0. The bound keeps every product of a size's
// slope and a step far inside 64 bits (2^24 steps: 2^32 cells, llama.cpp's largest context).
class StepRange {
  public:
    static constexpr std::int64_t kBound = std::int64_t{1} << 24;

    std::int64_t lo() const { return m_lo; }
    std::int64_t hi() const { return m_hi; }
    bool contains(std::int64_t steps) const { return steps >= m_lo && steps <= m_hi; }
    void keepOnly(std::int64_t lo, std::int64_t hi);
    void keepAnchorOnly() { m_lo = m_hi = 0; }

    // Each answers as at the anchor and narrows the range to where that answer holds.
    bool less(AffineBytes a, AffineBytes b) { return keepSign(b - a) > 0; }
    bool lessEqual(AffineBytes a, AffineBytes b) { return keepSign(b - a) >= 0; }
    bool equal(AffineBytes a, AffineBytes b) { return keepSign(b - a) == 0; }
    AffineBytes max(AffineBytes a, AffineBytes b) { return less(a, b) ? b : a; }
    // `bytes` rounded up to `alignment`: affine only where the slope is a multiple of it, else the
    // rounding differs from step to step and only the anchor is kept.
    AffineBytes alignedUp(AffineBytes bytes, std::uint64_t alignment);

  private:
    // The sign of `difference` at the anchor (-1, 0, 1), keeping the steps where it stays so.
    int keepSign(AffineBytes difference);

    std::int64_t m_lo = -kBound;
    std::int64_t m_hi = kBound;
};

} // namespace llamafit::allocator
