// Restates ggml/src/ggml-alloc.c ggml_dyn_tallocr_alloc / ggml_dyn_tallocr_free_bytes for one
// chunk (the CPU buffer never splits into chunks).
#include "core/sizing/allocatorreplay.h"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace llamafit {
namespace {

// ggml-cpu: TENSOR_ALIGNMENT (32) is the CPU buffer type's alignment; ggml-alloc rounds every
// size up to it.
constexpr std::uint64_t kAlignment = 32;

std::uint64_t aligned(std::uint64_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

} // namespace

AllocatorReplay::AllocatorReplay() {
    // ggml_dyn_tallocr_new_chunk: one free block spanning the (practically endless) chunk.
    m_free.push_back({0, std::numeric_limits<std::uint64_t>::max() / 2});
}

AllocatorReplay::Block AllocatorReplay::allocate(std::uint64_t bytes) {
    const std::uint64_t size = aligned(bytes);
    if (size == 0) {
        return {};
    }
    // The best fit among the blocks below the end; on a tie the later block wins ("<=").
    std::size_t best = m_free.size() - 1;
    std::uint64_t bestBytes = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t i = 0; i + 1 < m_free.size(); ++i) {
        if (m_free[i].bytes >= size && m_free[i].bytes <= bestBytes) {
            best = i;
            bestBytes = m_free[i].bytes;
        }
    }
    FreeBlock& block = m_free[best];
    const Block out{block.offset, size};
    block.offset += size;
    block.bytes -= size;
    if (block.bytes == 0) {
        m_free.erase(m_free.begin() + static_cast<std::ptrdiff_t>(best));
    }
    m_peakBytes = std::max(m_peakBytes, out.offset + size);
    return out;
}

void AllocatorReplay::release(Block block) {
    if (block.bytes == 0) {
        return;
    }
    for (std::size_t i = 0; i < m_free.size(); ++i) {
        FreeBlock& free = m_free[i];
        if (free.offset + free.bytes == block.offset) { // the block ends where this one starts
            free.bytes += block.bytes;
            if (i + 1 < m_free.size() && free.offset + free.bytes == m_free[i + 1].offset) {
                free.bytes += m_free[i + 1].bytes;
                m_free.erase(m_free.begin() + static_cast<std::ptrdiff_t>(i + 1));
            }
            return;
        }
        if (block.offset + block.bytes == free.offset) { // the block starts where this one ends
            free.offset = block.offset;
            free.bytes += block.bytes;
            if (i > 0 && m_free[i - 1].offset + m_free[i - 1].bytes == free.offset) {
                m_free[i - 1].bytes += free.bytes;
                m_free.erase(m_free.begin() + static_cast<std::ptrdiff_t>(i));
            }
            return;
        }
    }
    std::size_t at = 0;
    while (at < m_free.size() && m_free[at].offset < block.offset) {
        ++at;
    }
    m_free.insert(m_free.begin() + static_cast<std::ptrdiff_t>(at), {block.offset, block.bytes});
}

} // namespace llamafit
