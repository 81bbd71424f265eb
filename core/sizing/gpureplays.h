#pragma once
// The compute-buffer replays that know a model's graph (the *ondevice.h and offloaded*.h files), chosen
// for one GPU: where such a replay applies it decides the GPU's buffer, where none does gpucompute.cpp's
// closed form stands. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/model/modelinfo.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>

namespace llamafit {

// What a GPU's limits keep on the host, from the tensors placed on it by the layer plan.
struct Refusals {
    bool experts = false; // some expert tensor of its blocks is over the limit
    bool kq = false;      // the KQ product is over the limit (flash attention off)
    std::uint64_t kqBytes = 0;
};

// A recurrent model with host blocks whose ops the GPU runs (op offload), or nullopt.
std::optional<std::uint64_t> offloadedRecurrentBytes(const ModelInfo& model, const KvPlan& kv,
                                                     const LayerPlacement& layers, const GpuDevice& gpu,
                                                     const ResolvedContext& context, const Refusals& refused);

// One GPU holding every block, or nullopt.
std::optional<std::uint64_t> wholeModelReplayBytes(const ModelInfo& model, const KvPlan& kv,
                                                   const ServerSettings& settings,
                                                   const ResolvedContext& context, const GpuDevice& gpu,
                                                   const Refusals& refused);

// A device's share of a model split by layer over several devices that hold every block
// (attentionsplit.h), or nullopt: another model, host blocks, -nkvo, or the output layer away from
// the device with the last block (not read from a plan). An RPC server keeps llama.cpp's node
// order; a Vulkan GPU runs each block's projections together. `copies`: pipelinecopies.h's.
std::optional<std::uint64_t> splitReplayBytes(const ModelInfo& model, const KvPlan& kv,
                                              const ServerSettings& settings, const ResolvedContext& context,
                                              const LayerPlacement& layers, int device, Backend backend,
                                              std::uint32_t copies);

} // namespace llamafit
