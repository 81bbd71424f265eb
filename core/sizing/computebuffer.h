#pragma once
// Compute-buffer model: the peak of ggml-alloc's plan for llama.cpp's worst-case graph
// (src/llama-context.cpp sched_reserve), as a closed form A + B*n_kv calibrated on the CPU
// backend of llama-server 0.7.0 (b11669). Internal to core/sizing; bytes.
//
//   B (exact):  FA on : n_ubatch * 2 B per KV cell and cache (the f16 KQ mask)
//               FA off: n_ubatch * 4 B per cell (f32 mask) + n_ubatch * 4 * n_head B (KQ of one layer)
//   A: activations n_ubatch * 4 B * W floats per token, W the widest of the FFN and attention
//      blocks (widths in computebuffer.cpp), or the logits when they do not fit the holes the
//      masks leave behind.
// The fallback of the sizing engine (computeengine.h), for what it has no graph or backend table
// for; not exact, and the estimate says so. A recurrent block's per-slot state copies make its
// peak depend on n_ubatch and the slot count in ways no width follows, so a recurrent model the
// engine does not cover is the roughest case.
// GPU terms on top (per backend): CUDA/ROCm f16 copies of a quantized K/V for flash attention,
// op-offloaded host weights, pipeline-parallel copies of the masks.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/kvrotation.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstdint>

namespace llamafit {

// The pieces of one device's compute buffer, for tests and --explain.
struct ComputeBreakdown {
    std::uint64_t maskBytes = 0;        // KQ masks of every cache: graph inputs alive through all layers
    std::uint64_t feedForwardBytes = 0; // dense FFN or routed-expert activations at their peak
    std::uint64_t attentionBytes = 0;   // attention activations at their peak, KQ included (FA off)
    std::uint64_t recurrentBytes = 0;   // gated-delta-net / SSM block activations at their peak
    std::uint64_t logitsBytes = 0;      // n_vocab * n_outputs * 4
    std::uint64_t outputBytes = 0;      // the output branch when the logits overflow the mask holes
    std::uint64_t inputBytes = 0;       // token ids, positions, output ids
    std::uint64_t gpuExtraBytes = 0;    // backend-specific terms (see computebuffer.cpp)
    std::uint64_t totalBytes = 0;
    bool operator==(const ComputeBreakdown&) const = default;
};

struct ComputeDevice {
    Backend backend = Backend::Cpu;
    std::uint32_t maskCopies = 1;     // GGML_SCHED_MAX_COPIES (4) with pipeline parallelism
    std::uint64_t opOffloadBytes = 0; // host weight copied in to run big batches on this GPU
    bool operator==(const ComputeDevice&) const = default;
};

// What the closed form reads from the model alone, in floats per ubatch token (widths) or heads.
// Worked out once per estimate, or once per model by prepareModel() (sizingmodel.h).
struct ComputeWidths {
    std::uint64_t feedForward = 0;       // the widest dense-FFN / MoE block
    std::uint64_t denseFeedForward = 0;  // the widest block without routed experts
    std::uint64_t attentionFlash = 0;    // the widest attention block with flash attention
    std::uint64_t attentionNoFlash = 0;  // ... without
    std::uint64_t recurrent = 0;         // the widest recurrent block
    std::uint64_t fullCacheHeads = 0;    // most heads of a layer in the non-SWA cache (KQ, FA off)
    std::uint64_t swaCacheHeads = 0;     // most heads of a layer in the SWA cache
    std::uint64_t widestKvRowValues = 0; // most n_head_kv * (head_dim_k + head_dim_v) of a KV layer
    KvRotationShape fullCacheRotation;   // head sizes the K/V rotation of each cache reads
    KvRotationShape swaCacheRotation;
    bool operator==(const ComputeWidths&) const = default;
};

ComputeWidths computeWidths(const ModelInfo& model);

// A device that runs at least one block (the CPU backend of a CPU-only run, or a GPU with layers).
ComputeBreakdown blockComputeBytes(const ModelInfo& model, const ServerSettings& settings,
                                   const ResolvedContext& context, const KvPlan& kv,
                                   const ComputeDevice& device);

// The same with the widths already worked out (computeWidths(model)).
ComputeBreakdown blockComputeBytes(const ModelInfo& model, const ComputeWidths& widths,
                                   const ServerSettings& settings, const ResolvedContext& context,
                                   const KvPlan& kv, const ComputeDevice& device);

// A GPU that holds only the output layer (-ngl 1): output norm and the lm_head's logits.
std::uint64_t outputOnlyComputeBytes(const ModelInfo& model, const ResolvedContext& context);

// The host when every block is offloaded: the token-embedding lookup runs on the CPU.
std::uint64_t inputOnlyComputeBytes(const ModelInfo& model, const ResolvedContext& context);

} // namespace llamafit
