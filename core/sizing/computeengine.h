#pragma once
// engineComputeBuffers: the compute buffers as llama.cpp itself arrives at them. The model's graph
// at each of llama-server's reserves (core/sizing/graph), split between the backends by ggml's
// scheduler (core/sizing/scheduler), laid out by ggml-alloc (core/sizing/allocator); each backend
// keeps the largest buffer any reserve needed. Internal to core/sizing (estimator.cpp); bytes.
//
// It answers only where every part exists, and an error elsewhere, which keeps the closed forms of
// gpucompute.h / computebuffer.h (the explicit choice issue 30 asks for until they are retired):
// an architecture with a graph builder (graph/modelgraph.h), every device with a backend table
// (the CPU, Vulkan, RPC), and the LoRA adapters' files read where settings name adapters: their
// pairs (`adapters`, in the order of settings.loraAdapters) enter the graph as build_lora_mm does.

#include "core/common/result.h"
#include "core/model/loraadapter.h"
#include "core/model/modelinfo.h"
#include "core/sizing/computeplancache.h"
#include "core/sizing/gpucompute.h"
#include "core/sizing/graph/graphparams.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <optional>
#include <string>
#include <vector>

namespace llamafit {

// The graph parameters of this estimate (the reserve left to set): the KV cache's cells and
// streams, each weight's and each layer's cache's buffer, each layer's backend, the LoRA pairs of
// `adapters` (those of a non-zero scale) with their buffers. nullopt where a
// weight cannot be placed. The plan tests build their graphs from it too.
std::optional<graph::GraphParams> graphParamsFor(const ModelInfo& model, const ServerSettings& settings,
                                                 const ResolvedContext& context, const KvPlan& kv,
                                                 const std::vector<GpuDevice>& gpus,
                                                 const LayerPlacement& layers,
                                                 const std::vector<LoraAdapterInfo>& adapters = {});

// Why the engine does not size this case yet, or "" where it does: an architecture (or variant)
// without a graph builder, a device without a backend table, LoRA adapters whose files were not
// read (`adapters` not one per settings.loraAdapters).
std::string engineCoverageGap(const ModelInfo& model, const ServerSettings& settings,
                              const std::vector<GpuDevice>& gpus,
                              const std::vector<LoraAdapterInfo>& adapters = {});

// The scheduler's copies of each split input: 4 (GGML_SCHED_MAX_COPIES) under llama.cpp's pipeline
// parallelism (several devices, every layer offloaded, KV offloaded, no tensor override), else 1.
// `fullOffload` as graphParamsFor sets it. The plan tests check it against the recordings.
int schedulerCopies(const ServerSettings& settings, const std::vector<GpuDevice>& gpus, bool fullOffload);

// Errors: sizing.no-graph where the engine does not cover the case (engineCoverageGap, or a graph
// its builder cannot make), sizing.unschedulable where ggml's scheduler would abort, with ggml's
// own message (a cache tensor over a device's buffer limit: "pre-allocated tensor cache_k_l0 in a
// buffer that cannot run ..."). `plans`, where given, answers from a plan compiled for this
// structure when one holds at these cells, and otherwise keeps the plan compiled for them
// (computeplancache.h); the answer is the same.
Result<GpuComputeBuffers>
engineComputeBuffers(const ModelInfo& model, const ServerSettings& settings, const ResolvedContext& context,
                     const KvPlan& kv, const std::vector<GpuDevice>& gpus, const LayerPlacement& layers,
                     const std::vector<LoraAdapterInfo>& adapters = {}, ComputePlanCache* plans = nullptr);

// -fa auto as llama.cpp resolves it (src/llama-context.cpp resolve_fused_ops): the graph of one
// token per sequence with flash attention on, split by the scheduler; flash attention stays on
// unless a FLASH_ATTN_EXT node lands on another device than its layer ("layer N is assigned to
// device X but Flash Attention is assigned to device Y"), as when a device has no flash attention
// kernel for the cache types. nullopt where the engine does not cover the case.
std::optional<bool> engineKeepsFlashAttention(const ModelInfo& model, const ServerSettings& settings,
                                              const ResolvedContext& context,
                                              const std::vector<GpuDevice>& gpus,
                                              const LayerPlacement& layers,
                                              const std::vector<LoraAdapterInfo>& adapters = {},
                                              ComputePlanCache* plans = nullptr);

} // namespace llamafit
