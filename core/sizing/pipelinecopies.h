#pragma once
// What ggml's scheduler copies between devices when llama.cpp splits the layers over several of
// them: the split inputs (a tensor one device computes and the next one reads) and, with pipeline
// parallelism, GGML_SCHED_MAX_COPIES (4) copies of every split input and graph input, so that one
// ubatch can run on device i while the next is prepared on device i-1. Internal to core/sizing
// (gpucompute.cpp adds these terms on top of the one-device compute rules); bytes.
//
// llama.cpp src/llama-context.cpp (llama_context constructor): pipeline parallelism is on when the
// model has more than one device, every block and the output are offloaded (n_gpu_layers >
// n_layer), the split mode is layer, the KV cache is offloaded (no -nkvo), no tensor override is
// set, and every non-CPU device supports async compute and events (ggml-rpc and ggml-vulkan do).
// ggml/src/ggml-backend.cpp ggml_backend_sched_new: n_copies = GGML_SCHED_MAX_COPIES when parallel;
// ggml_backend_sched_split_graph then gives each split input n_copies copies in the receiving
// device's compute buffer and each graph input (masks, positions, K/V row indices, the embedding
// input) n_copies copies in the CPU's, all flagged as outputs so ggml-alloc never reuses them.
//
// Calibrated on the RPC matrix (tests/data/recorded/rpc-b11669: two ggml-rpc-server -d CPU, or one
// next to lavapipe's Vulkan0, llama-server 0.7.0 b11669). An RPC device running qwen2, qwen3 or
// gemma3 blocks is replayed node by node instead, these copies included (attentionsplit.h); the
// closed form stands for the other models and for local GPUs.

#include "core/model/modelinfo.h"
#include "core/sizing/computebuffer.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/recurrentcompute.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <vector>

namespace llamafit {

// GGML_SCHED_MAX_COPIES (ggml/src/ggml-backend.cpp) when llama.cpp turns pipeline parallelism on
// for these devices and this placement, else 1.
std::uint32_t schedulerCopies(const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
                              const LayerPlacement& layers);

// The bytes pipeline parallelism adds to each GPU's compute buffer and to the host's, on top of the
// one-copy rules of gpucompute.h (which already count every mask `copies` times).
struct PipelineCopyBytes {
    std::vector<std::uint64_t> deviceBytes; // per GPU
    std::uint64_t hostBytes = 0;
    bool operator==(const PipelineCopyBytes&) const = default;
};

// `recurrentBlock` is the model's replayed recurrent block (computebuffer.h ComputeWidths).
PipelineCopyBytes pipelineCopyBytes(const ModelInfo& model, const RecurrentBlockShape& recurrentBlock,
                                    const ResolvedContext& context, const KvPlan& kv,
                                    const LayerPlacement& layers, std::size_t gpuCount, std::uint32_t copies);

// A GPU that holds only the output layer while no op is offloaded to it: the scheduler has already
// picked the output rows (out_ids) on the previous device, so only n_outputs hidden-state rows
// cross the split (`copies` times), and the logits come on top -- unless the GPU refuses the
// output matrix (`logitsHere` false: the lm_head runs on the CPU, measured with qwen2's 151936-row
// output on lavapipe after an RPC server, "Vulkan0 compute buffer size = 0.02 MiB").
std::uint64_t outputSplitComputeBytes(const ModelInfo& model, const ResolvedContext& context,
                                      std::uint32_t copies, bool logitsHere = true);

// A device that runs its own blocks only (no op offload onto it), against the one-device rule of
// gpucompute.cpp (the CPU backend's figure less the embedding row the host holds):
//  - the KQ masks cross to it only when one of its blocks has attention (a device with Mamba-2
//    blocks only has none: granitehybrid -ngl 10 over two RPC servers, 20.38 MiB where its
//    neighbour with one attention block has 24.45);
//  - when the host runs the first blocks it receives their hidden state instead of the token
//    embeddings and their mix: two rows less (qwen2 -ngl 10, 36.01 MiB on both servers);
//  - with -nkvo the K/V cache is in host memory and the first block's device keeps the embedding
//    row (qwen2 -nkvo over one and over two RPC servers: 41.26 MiB, the second server 39.50).
// Returns the bytes to add (negative: to take off).
std::int64_t splitInputAdjustmentBytes(const ComputeBreakdown& block, const ModelInfo& model,
                                       const ServerSettings& settings, const ResolvedContext& context,
                                       const LayerPlacement& layers, int device);

} // namespace llamafit
