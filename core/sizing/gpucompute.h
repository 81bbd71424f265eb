#pragma once
// Compute buffers when GPUs are present and the engine (computeengine.h) does not replay the graph:
// an architecture without a graph builder, LoRA adapters, a device without a backend table. One
// closed form, approximate, and the estimate says so (MemoryEstimate::computeApproximation).
// Internal to core/sizing (estimator.cpp); bytes.
//
//   host   = the graph inputs, which the scheduler assigns to the CPU backend (the token
//            embeddings, the KQ masks, V indices, positions), or, below GGML_OP_OFFLOAD_MIN_BATCH,
//            the activations of the blocks left on the CPU.
//   device = the block activations of computebuffer.h without the embedding row the host holds,
//            plus the copy of a host weight when it runs the host blocks' ops (op offload).

#include "core/model/modelinfo.h"
#include "core/sizing/computebuffer.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <vector>

namespace llamafit {

struct GpuComputeBuffers {
    std::vector<std::uint64_t> deviceBytes; // per GPU, 0 = no compute buffer
    std::uint64_t hostBytes = 0;
    bool hostRunsBlocks = false; // the host buffer holds block activations (small batches)
    bool operator==(const GpuComputeBuffers&) const = default;
};

GpuComputeBuffers gpuComputeBuffers(const ModelInfo& model, const ComputeWidths& widths,
                                    const ServerSettings& settings, const ResolvedContext& context,
                                    const KvPlan& kv, const std::vector<GpuDevice>& gpus,
                                    const LayerPlacement& layers);

} // namespace llamafit
