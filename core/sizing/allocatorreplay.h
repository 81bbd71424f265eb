#pragma once
// AllocatorReplay: ggml-alloc's dynamic allocator (ggml/src/ggml-alloc.c, ggml_dyn_tallocr) run
// over a hand-written sequence of tensor allocations and frees, to find the peak of the compute
// buffer where a closed form would need one case per hole a tensor may or may not fit.
// recurrentcompute.cpp replays llama.cpp's graph for recurrent blocks with it. Pure value type,
// one per replay; sizes in bytes.

#include <cstdint>
#include <vector>

namespace llamafit {

class AllocatorReplay {
  public:
    struct Block {
        std::uint64_t offset = 0;
        std::uint64_t bytes = 0; // aligned size
    };

    AllocatorReplay();

    // A tensor of `bytes`: the best-fitting free block below the end, else the end (which grows
    // the buffer). Zero bytes takes no space.
    Block allocate(std::uint64_t bytes);
    // Gives a block back; it merges with free neighbours as ggml_dyn_tallocr_free_bytes does.
    void release(Block block);

    // The high-water mark: the buffer size ggml-alloc would reserve.
    std::uint64_t peakBytes() const { return m_peakBytes; }

  private:
    struct FreeBlock {
        std::uint64_t offset = 0;
        std::uint64_t bytes = 0;
    };
    std::vector<FreeBlock> m_free; // sorted by offset; the last one is the open end
    std::uint64_t m_peakBytes = 0;
};

} // namespace llamafit
