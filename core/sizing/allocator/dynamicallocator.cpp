// ggml-alloc's dynamic allocator; see dynamicallocator.h. Restates ggml/src/ggml-alloc.c
// (ggml_dyn_tallocr_alloc, ggml_dyn_tallocr_free_bytes, ggml_dyn_tallocr_new_chunk).
#include "core/sizing/allocator/dynamicallocator.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>

namespace llamafit::allocator {
namespace {

// GGML_VBUFFER_MAX_CHUNKS: the last chunk ggml allows is practically endless.
constexpr std::size_t kMaxChunks = 16;
constexpr std::uint64_t kEndless = std::numeric_limits<std::uint64_t>::max() / 2; // SIZE_MAX/2

AffineBytes constantBytes(std::uint64_t bytes) {
    return {static_cast<std::int64_t>(bytes), 0};
}

} // namespace

DynamicAllocator::DynamicAllocator(std::uint64_t alignment, std::uint64_t maxChunkBytes, StepRange& choices)
    : m_alignment(alignment == 0 ? 1 : alignment),
      m_maxChunkBytes(constantBytes(std::min(maxChunkBytes, kEndless))), m_choices(&choices) {}

int DynamicAllocator::newChunk(AffineBytes minBytes) {
    // A chunk spans the maximum size, or more for a tensor larger than that; the last one allowed
    // is endless.
    Chunk chunk;
    chunk.free.push_back({{},
                          m_chunks.size() == kMaxChunks - 1 ? constantBytes(kEndless)
                                                            : m_choices->max(minBytes, m_maxChunkBytes)});
    m_chunks.push_back(std::move(chunk));
    return static_cast<int>(m_chunks.size() - 1);
}

DynamicAllocator::Address DynamicAllocator::allocate(AffineBytes bytes) {
    StepRange& choices = *m_choices;
    const AffineBytes size = aligned(bytes);
    int bestChunk = -1;
    std::size_t bestBlock = 0;
    // The best fit among the blocks below each chunk's end; on a tie the later block wins ("<=").
    for (std::size_t c = 0; c < m_chunks.size(); ++c) {
        std::optional<AffineBytes> bestBytes; // none: SIZE_MAX
        const std::vector<FreeBlock>& free = m_chunks[c].free;
        for (std::size_t i = 0; i + 1 < free.size(); ++i) {
            if (choices.lessEqual(size, free[i].bytes) &&
                (!bestBytes || choices.lessEqual(free[i].bytes, *bestBytes))) {
                bestChunk = static_cast<int>(c);
                bestBlock = i;
                bestBytes = free[i].bytes;
            }
        }
    }
    if (bestChunk == -1) {
        // A chunk's open end: the one whose reserved size fits the tensor most tightly, else the
        // one that has to grow least.
        std::optional<AffineBytes> bestReuse; // none: INT64_MIN
        const AffineBytes zero;
        for (std::size_t c = 0; c < m_chunks.size(); ++c) {
            const Chunk& chunk = m_chunks[c];
            if (chunk.free.empty()) {
                continue;
            }
            const FreeBlock& end = chunk.free.back();
            const AffineBytes reuse = chunk.maxBytes - end.offset - size;
            const bool betterReuse = (!bestReuse || choices.less(*bestReuse, zero)) &&
                                     (!bestReuse || choices.less(*bestReuse, reuse));
            const bool betterFit =
                choices.lessEqual(zero, reuse) && bestReuse && choices.less(reuse, *bestReuse);
            if (choices.lessEqual(size, end.bytes) && (betterReuse || betterFit)) {
                bestChunk = static_cast<int>(c);
                bestBlock = chunk.free.size() - 1;
                bestReuse = reuse;
            }
        }
    }
    if (bestChunk == -1) {
        bestChunk = newChunk(size);
        bestBlock = 0;
    }
    Chunk& chunk = m_chunks[static_cast<std::size_t>(bestChunk)];
    FreeBlock& block = chunk.free[bestBlock];
    const Address address{bestChunk, block.offset};
    block.offset += size;
    block.bytes -= size;
    if (choices.equal(block.bytes, {})) {
        chunk.free.erase(chunk.free.begin() + static_cast<std::ptrdiff_t>(bestBlock));
    }
    chunk.maxBytes = choices.max(chunk.maxBytes, address.offset + size);
    return address;
}

void DynamicAllocator::release(Address address, AffineBytes bytes) {
    StepRange& choices = *m_choices;
    const AffineBytes size = aligned(bytes);
    std::vector<FreeBlock>& free = m_chunks[static_cast<std::size_t>(address.chunk)].free;
    for (std::size_t i = 0; i < free.size(); ++i) {
        FreeBlock& block = free[i];
        if (choices.equal(block.offset + block.bytes, address.offset)) { // the freed bytes follow this block
            block.bytes += size;
            if (i + 1 < free.size() && choices.equal(block.offset + block.bytes, free[i + 1].offset)) {
                block.bytes += free[i + 1].bytes;
                free.erase(free.begin() + static_cast<std::ptrdiff_t>(i + 1));
            }
            return;
        }
        if (choices.equal(address.offset + size,
                          block.offset)) { // the freed bytes come just before this block
            block.offset = address.offset;
            block.bytes += size;
            if (i > 0 && choices.equal(free[i - 1].offset + free[i - 1].bytes, block.offset)) {
                free[i - 1].bytes += block.bytes;
                free.erase(free.begin() + static_cast<std::ptrdiff_t>(i));
            }
            return;
        }
    }
    std::size_t at = 0;
    while (at < free.size() && choices.less(free[at].offset, address.offset)) {
        ++at;
    }
    free.insert(free.begin() + static_cast<std::ptrdiff_t>(at), {address.offset, size});
}

AffineBytes DynamicAllocator::reservedBytes() const {
    AffineBytes bytes;
    for (const Chunk& chunk : m_chunks) {
        bytes += chunk.maxBytes;
    }
    return bytes;
}

} // namespace llamafit::allocator
