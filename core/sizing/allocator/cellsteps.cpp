// Bytes as the KV cache grows; see cellsteps.h.
#include "core/sizing/allocator/cellsteps.h"

#include <algorithm>

namespace llamafit::allocator {
namespace {

// Floor and ceiling of n / d for d > 0, from C++'s truncating division, so that no sum can leave
// 64 bits: a free block's end is ggml-alloc's SIZE_MAX/2 (dynamicallocator.cpp kEndless), and a
// difference with it is within a few bytes of INT64_MAX.
std::int64_t floorDiv(std::int64_t n, std::int64_t d) {
    const std::int64_t q = n / d;
    return n % d != 0 && n < 0 ? q - 1 : q;
}
std::int64_t ceilDiv(std::int64_t n, std::int64_t d) {
    const std::int64_t q = n / d;
    return n % d != 0 && n > 0 ? q + 1 : q;
}

} // namespace

void StepRange::keepOnly(std::int64_t lo, std::int64_t hi) {
    m_lo = std::max(m_lo, std::min<std::int64_t>(lo, 0));
    m_hi = std::min(m_hi, std::max<std::int64_t>(hi, 0));
}

int StepRange::keepSign(AffineBytes difference) {
    const std::int64_t now = difference.now;
    const std::int64_t slope = difference.perStep;
    const int sign = now > 0 ? 1 : (now < 0 ? -1 : 0);
    if (slope == 0) {
        return sign;
    }
    if (sign == 0) {
        keepAnchorOnly(); // equal here, apart on every other step
        return sign;
    }
    // now + slope * s keeps the sign of `now` up to the step before it crosses zero.
    if (sign > 0) {
        if (slope > 0) {
            keepOnly(floorDiv(-now, slope) + 1, m_hi); // s > -now / slope
        } else {
            keepOnly(m_lo, ceilDiv(now, -slope) - 1); // s < now / -slope
        }
    } else {
        if (slope > 0) {
            keepOnly(m_lo, ceilDiv(-now, slope) - 1); // s < -now / slope
        } else {
            keepOnly(floorDiv(now, -slope) + 1, m_hi); // s > now / -slope
        }
    }
    return sign;
}

AffineBytes StepRange::alignedUp(AffineBytes bytes, std::uint64_t alignment) {
    const auto align = static_cast<std::int64_t>(alignment == 0 ? 1 : alignment);
    if (bytes.perStep % align != 0) {
        keepAnchorOnly();
    }
    return {ceilDiv(bytes.now, align) * align, bytes.perStep};
}

} // namespace llamafit::allocator
