#pragma once
// The replays behind recurrentcompute.h: one function per llama.cpp graph builder, each walking
// the tensors of the first block in graph order through AllocatorReplay, as the CPU backend of
// llama-server 0.7.0 (b11669) plans them. The rules they follow (ggml/src/ggml-alloc.c):
//  - a node reuses a source in place only for an in-place op (add, mul, scale, unary, ...) whose
//    direct source (not a view) dies at that node with the same layout;
//  - a tensor is freed after the last node that reads it, directly or through a view.
// Every sequence was checked tensor by tensor against the server's own plans (the reserved graph
// re-planned with ggml_gallocr by a preload shim that dumps each tensor's offset) and matches the
// logged compute buffer to the byte over n_ubatch 64-4096, 1-8 slots and other model dimensions.
// Internal to core/sizing; sizes in f32 values (4 bytes each) per the take() calls.

#include "core/sizing/allocatorreplay.h"
#include "core/sizing/recurrentcompute.h"
#include "core/sizing/reservetokens.h"

#include <algorithm>
#include <cstdint>
#include <functional>

namespace llamafit {

struct RecurrentReplay {
    using Block = AllocatorReplay::Block;
    static constexpr std::uint64_t kF32 = 4;

    AllocatorReplay alloc;
    std::uint64_t tokens = 0;    // n_ubatch rounded up to a multiple of the slots
    std::uint64_t seqs = 1;      // slots: one recurrent state each
    std::uint64_t stateRows = 1; // states the delta-net op writes: seqs * (1 + n_rs_seq)

    // A replay of llama.cpp's worst-case graph: n_ubatch tokens over `sequences` slots
    // (reservetokens.h).
    static RecurrentReplay reserving(std::uint64_t ubatchTokens, std::uint64_t sequences) {
        RecurrentReplay r;
        r.seqs = std::max<std::uint64_t>(sequences, 1);
        r.tokens = reserveTokens(ubatchTokens, r.seqs);
        return r;
    }

    Block take(std::uint64_t values) { return alloc.allocate(kF32 * values); }
    void drop(Block block) { alloc.release(block); }
    // A matrix product of `values` f32 per token over such a copy.
    Block product(std::uint64_t weightBytes, std::uint64_t values) {
        const Block weight = alloc.allocate(weightBytes);
        const Block out = take(values * tokens);
        alloc.release(weight);
        return out;
    }
    template <typename... Blocks> void drop(Block first, Blocks... rest) {
        drop(first);
        drop(rest...);
    }
};

// The graph inputs and embedding slots before the first block; returns the residual (the token
// embeddings).
AllocatorReplay::Block replayGraphStart(RecurrentReplay& r, std::uint64_t embd);

// The bytes of an FFN's weights that op offload copies in, each for its one product;
// 0 for weights the GPU holds.
struct FeedForwardCopies {
    std::uint64_t gate = 0, up = 0, down = 0;
};

// A gated FFN: gate, up, the GLU, down, each weight in `copies` copied in just before its product;
// `input` (its norm) dies at the up product. `withDownWeight` runs once the down weight is in, before
// its product: where a split's graph inputs arrive (the last host layer before the GPU's). Returns the
// output (the residual add runs in place into it).
AllocatorReplay::Block replayGatedFeedForward(RecurrentReplay& r, std::uint64_t embd,
                                              std::uint64_t feedForward, AllocatorReplay::Block input,
                                              const FeedForwardCopies& copies = {},
                                              const std::function<void()>& withDownWeight = {});

// Mamba-2's block after the scan: cont(z), x * D (y + x * D in place), swiglu(z, y), the grouped
// RMS norm (weight in place) and ssm_out; `zxBCdt`, `xBC` and `y` die on the way. The residual
// add runs in place into ssm_out and the old `residual` dies; returns the new one.
AllocatorReplay::Block replayMamba2Output(RecurrentReplay& r, const RecurrentBlockShape& s,
                                          AllocatorReplay::Block zxBCdt, AllocatorReplay::Block xBC,
                                          AllocatorReplay::Block y, AllocatorReplay::Block residual);

void replayParallelAttention(RecurrentReplay& r, const RecurrentBlockShape& s);
// Mamba blocks run s.layers times; Mamba-2 adds in place into the block output, so it frees the
// `residual` the first block was given.
void replayMamba1(RecurrentReplay& r, const RecurrentBlockShape& s);
void replayMamba2(RecurrentReplay& r, const RecurrentBlockShape& s, AllocatorReplay::Block residual);
void replayDeltaNet(RecurrentReplay& r, const RecurrentBlockShape& s);
void replayDeltaNetFusedQkvz(RecurrentReplay& r, const RecurrentBlockShape& s);
// RWKV-7 replays two layers: the first (token-embedding norm, v_first) and the second (value
// mix with v_first), which holds more.
void replayRwkv7(RecurrentReplay& r, const RecurrentBlockShape& s, AllocatorReplay::Block embeddings);

} // namespace llamafit
