#pragma once
// DynamicAllocator: ggml-alloc's dynamic tensor allocator (ggml/src/ggml-alloc.c ggml_dyn_tallocr)
// for one buffer type: aligned sizes, a best-fit free list per chunk, and a new chunk when a tensor
// fits no chunk under the buffer type's maximum size (ggml's virtual buffers, GGML_VBUFFER_MAX_CHUNKS).
// graphallocator.cpp runs one per buffer type over a scheduled graph. A value type; bytes.

#include <cstdint>
#include <vector>

namespace llamafit::allocator {

class DynamicAllocator {
  public:
    struct Address {
        int chunk = 0;
        std::uint64_t offset = 0;
    };

    DynamicAllocator(std::uint64_t alignment, std::uint64_t maxChunkBytes);

    // ggml_dyn_tallocr_alloc: the best-fitting free block below a chunk's end, else the chunk end
    // that wastes least (or grows least), else a new chunk.
    Address allocate(std::uint64_t bytes);
    // ggml_dyn_tallocr_free_bytes: gives the bytes back, merging with free neighbours.
    void release(Address address, std::uint64_t bytes);

    std::uint64_t alignment() const { return m_alignment; }
    std::uint64_t aligned(std::uint64_t bytes) const {
        return (bytes + m_alignment - 1) / m_alignment * m_alignment;
    }
    // The buffer ggml-alloc reserves: the sum of the chunks' high-water marks.
    std::uint64_t reservedBytes() const;
    std::size_t chunkCount() const { return m_chunks.size(); }

  private:
    struct FreeBlock {
        std::uint64_t offset = 0;
        std::uint64_t bytes = 0;
    };
    struct Chunk {
        std::vector<FreeBlock> free; // sorted by offset; the last one is the open end
        std::uint64_t maxBytes = 0;  // high-water mark
    };
    int newChunk(std::uint64_t minBytes);

    std::uint64_t m_alignment;
    std::uint64_t m_maxChunkBytes;
    std::vector<Chunk> m_chunks;
};

} // namespace llamafit::allocator
