// The sequence of Vulkan_Host's plan in llama-server 0.7.0 (b11669) on lavapipe, read with
// scripts/alloc-plan/galloc_replay.py (see hostattention.h). The graph inputs are the CPU
// backend's (src/llama-graph.cpp build_inp_embd and the attention inputs).
#include "core/sizing/hostattention.h"

#include "core/sizing/allocatorreplay.h"

namespace llamafit {

std::uint64_t hostAttentionBytes(const HostAttentionShape& s, std::uint64_t tokens, std::uint64_t outputs) {
    if (tokens == 0 || s.kqBytes == 0) {
        return 0;
    }
    const std::uint64_t t = tokens;
    const std::uint64_t row = 4 * s.embd * t;
    AllocatorReplay alloc;
    // The inputs, allocated before any node: token ids, the mixed path's token ids, the token
    // embeddings' input, its slot ids and rows, positions, K and V row indices (one per value
    // without flash attention), the f32 mask, the output ids.
    const auto tokenIds = alloc.allocate(4 * t);
    const auto mixedTokenIds = alloc.allocate(4 * t);
    alloc.allocate(row); // inp_embd
    const auto slots = alloc.allocate(8 * t);
    const auto mixedRows = alloc.allocate(row);
    const auto positions = alloc.allocate(4 * t);
    const auto keyIndices = alloc.allocate(8 * t);
    const auto valueIndices = alloc.allocate(8 * s.valueRowValues * t);
    alloc.allocate(4 * s.cells * t); // KQ mask
    for (const auto& cache : s.otherCaches) {
        alloc.allocate(8 * t);
        alloc.allocate(8 * cache.valueRowValues * t);
        alloc.allocate(4 * cache.cells * t);
    }
    alloc.allocate(4 * outputs); // out_ids
    // The token lookup (get_rows twice), which the GPU takes over; the inputs the GPU reads are
    // copied there and die here.
    const auto lookup = alloc.allocate(row);
    alloc.release(tokenIds);
    const auto mixedLookup = alloc.allocate(row);
    alloc.release(mixedTokenIds);
    alloc.release(mixedRows);
    alloc.release(mixedLookup);
    alloc.release(slots);
    alloc.release(lookup);
    alloc.release(positions);
    alloc.release(keyIndices);
    alloc.release(valueIndices);
    // The first layer's attention on the CPU.
    alloc.allocate(s.keyCopyBytes);
    alloc.allocate(4 * s.queryValues * t);
    alloc.allocate(s.valueCopyBytes);
    alloc.allocate(s.kqBytes);
    return alloc.peakBytes();
}

} // namespace llamafit
