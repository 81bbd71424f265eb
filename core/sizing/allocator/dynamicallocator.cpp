// ggml-alloc's dynamic allocator; see dynamicallocator.h. Restates ggml/src/ggml-alloc.c
// (ggml_dyn_tallocr_alloc, ggml_dyn_tallocr_free_bytes, ggml_dyn_tallocr_new_chunk).
#include "core/sizing/allocator/dynamicallocator.h"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace llamafit::allocator {
namespace {

// GGML_VBUFFER_MAX_CHUNKS: the last chunk ggml allows is practically endless.
constexpr std::size_t kMaxChunks = 16;
constexpr std::uint64_t kEndless = std::numeric_limits<std::uint64_t>::max() / 2; // SIZE_MAX/2

} // namespace

DynamicAllocator::DynamicAllocator(std::uint64_t alignment, std::uint64_t maxChunkBytes)
    : m_alignment(alignment == 0 ? 1 : alignment), m_maxChunkBytes(std::min(maxChunkBytes, kEndless)) {}

int DynamicAllocator::newChunk(std::uint64_t minBytes) {
    // A chunk spans the maximum size, or more for a tensor larger than that; the last one allowed
    // is endless.
    Chunk chunk;
    chunk.free.push_back(
        {0, m_chunks.size() == kMaxChunks - 1 ? kEndless : std::max(minBytes, m_maxChunkBytes)});
    m_chunks.push_back(std::move(chunk));
    return static_cast<int>(m_chunks.size() - 1);
}

DynamicAllocator::Address DynamicAllocator::allocate(std::uint64_t bytes) {
    const std::uint64_t size = aligned(bytes);
    int bestChunk = -1;
    std::size_t bestBlock = 0;
    // The best fit among the blocks below each chunk's end; on a tie the later block wins ("<=").
    for (std::size_t c = 0; c < m_chunks.size(); ++c) {
        std::uint64_t bestBytes = std::numeric_limits<std::uint64_t>::max();
        const std::vector<FreeBlock>& free = m_chunks[c].free;
        for (std::size_t i = 0; i + 1 < free.size(); ++i) {
            if (free[i].bytes >= size && free[i].bytes <= bestBytes) {
                bestChunk = static_cast<int>(c);
                bestBlock = i;
                bestBytes = free[i].bytes;
            }
        }
    }
    if (bestChunk == -1) {
        // A chunk's open end: the one whose reserved size fits the tensor most tightly, else the
        // one that has to grow least.
        std::int64_t bestReuse = std::numeric_limits<std::int64_t>::min();
        for (std::size_t c = 0; c < m_chunks.size(); ++c) {
            const Chunk& chunk = m_chunks[c];
            if (chunk.free.empty()) {
                continue;
            }
            const FreeBlock& end = chunk.free.back();
            const std::int64_t reuse = static_cast<std::int64_t>(chunk.maxBytes) -
                                       static_cast<std::int64_t>(end.offset) -
                                       static_cast<std::int64_t>(size);
            const bool betterReuse = bestReuse < 0 && reuse > bestReuse;
            const bool betterFit = reuse >= 0 && reuse < bestReuse;
            if (end.bytes >= size && (betterReuse || betterFit)) {
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
    if (block.bytes == 0) {
        chunk.free.erase(chunk.free.begin() + static_cast<std::ptrdiff_t>(bestBlock));
    }
    chunk.maxBytes = std::max(chunk.maxBytes, address.offset + size);
    return address;
}

void DynamicAllocator::release(Address address, std::uint64_t bytes) {
    const std::uint64_t size = aligned(bytes);
    std::vector<FreeBlock>& free = m_chunks[static_cast<std::size_t>(address.chunk)].free;
    for (std::size_t i = 0; i < free.size(); ++i) {
        FreeBlock& block = free[i];
        if (block.offset + block.bytes == address.offset) { // the freed bytes follow this block
            block.bytes += size;
            if (i + 1 < free.size() && block.offset + block.bytes == free[i + 1].offset) {
                block.bytes += free[i + 1].bytes;
                free.erase(free.begin() + static_cast<std::ptrdiff_t>(i + 1));
            }
            return;
        }
        if (address.offset + size == block.offset) { // the freed bytes come just before this block
            block.offset = address.offset;
            block.bytes += size;
            if (i > 0 && free[i - 1].offset + free[i - 1].bytes == block.offset) {
                free[i - 1].bytes += block.bytes;
                free.erase(free.begin() + static_cast<std::ptrdiff_t>(i));
            }
            return;
        }
    }
    std::size_t at = 0;
    while (at < free.size() && free[at].offset < address.offset) {
        ++at;
    }
    free.insert(free.begin() + static_cast<std::ptrdiff_t>(at), {address.offset, size});
}

std::uint64_t DynamicAllocator::reservedBytes() const {
    std::uint64_t bytes = 0;
    for (const Chunk& chunk : m_chunks) {
        bytes += chunk.maxBytes;
    }
    return bytes;
}

} // namespace llamafit::allocator
