#pragma once
// DynamicAllocator: ggml-alloc's dynamic tensor allocator (ggml/src/ggml-alloc.c ggml_dyn_tallocr)
// for one buffer type: aligned sizes, a best-fit free list per chunk, and a new chunk when a tensor
// fits no chunk under the buffer type's maximum size (ggml's virtual buffers, GGML_VBUFFER_MAX_CHUNKS).
// graphallocator.cpp runs one per buffer type over a scheduled graph.
//
// Sizes are affine in the KV cache's cells (cellsteps.h): each choice is made as at the anchor and
// narrows `choices`, the range of cells where every choice comes out the same, so the reserved
// bytes hold over that range. Sizes that do not grow with the cells give the plain allocator.
// A value type; bytes.

#include "core/sizing/allocator/cellsteps.h"

#include <cstdint>
#include <vector>

namespace llamafit::allocator {

class DynamicAllocator {
  public:
    struct Address {
        int chunk = 0;
        AffineBytes offset;
    };

    DynamicAllocator(std::uint64_t alignment, std::uint64_t maxChunkBytes, StepRange& choices);

    // ggml_dyn_tallocr_alloc: the best-fitting free block below a chunk's end, else the chunk end
    // that wastes least (or grows least), else a new chunk.
    Address allocate(AffineBytes bytes);
    // ggml_dyn_tallocr_free_bytes: gives the bytes back, merging with free neighbours.
    void release(Address address, AffineBytes bytes);

    AffineBytes aligned(AffineBytes bytes) const { return m_choices->alignedUp(bytes, m_alignment); }
    // The buffer ggml-alloc reserves: the sum of the chunks' high-water marks.
    AffineBytes reservedBytes() const;
    std::size_t chunkCount() const { return m_chunks.size(); }

  private:
    struct FreeBlock {
        AffineBytes offset;
        AffineBytes bytes;
    };
    struct Chunk {
        std::vector<FreeBlock> free; // sorted by offset; the last one is the open end
        AffineBytes maxBytes;        // high-water mark
    };
    int newChunk(AffineBytes minBytes);

    std::uint64_t m_alignment;
    AffineBytes m_maxChunkBytes;
    StepRange* m_choices;
    std::vector<Chunk> m_chunks;
};

} // namespace llamafit::allocator
