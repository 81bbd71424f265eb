#pragma once
// Compute buffers when GPUs are present: how llama.cpp's scheduler (ggml/src/ggml-backend.cpp
// ggml_backend_sched_split_graph) divides the worst-case graph between the GPUs and the CPU
// backend, whose buffer lives in the first GPU's pinned host memory ("Vulkan_Host compute buffer").
// Internal to core/sizing (estimator.cpp); bytes. Calibrated on real Vulkan runs (lavapipe,
// tests/unit/sizing/gpucompute_test.cpp); the CPU-only estimate does not come here.
//
//   host   = the graph inputs, which the scheduler assigns to the CPU backend (the token
//            embeddings of the mixed token/embedding input, the KQ masks, V indices, positions),
//            plus the ops a GPU refuses (device limits) and, below GGML_OP_OFFLOAD_MIN_BATCH, the
//            blocks left on the CPU.
//   device = the block activations of computebuffer.h without the embedding row the host holds,
//            less what runs on the host, plus the copy of a host weight when ops are offloaded.

#include "core/model/modelinfo.h"
#include "core/sizing/computebuffer.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/weightplacement.h"

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
                                    const LayerPlacement& layers, const WeightPlan& weights);

} // namespace llamafit
