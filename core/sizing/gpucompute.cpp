// The closed form for GPU and host compute buffers where the engine (computeengine.h) does not
// replay llama.cpp's graph: an architecture without a graph builder, LoRA adapters, a device with
// no backend table. The estimate says so ("approximate: ..."); see gpucompute.h.
#include "core/sizing/gpucompute.h"

#include "core/sizing/backendcompute.h"
#include "core/sizing/computeengine.h"
#include "core/sizing/reservetokens.h"

#include <algorithm>

namespace llamafit {
namespace {

// The widest V row (n_head_kv * head_dim_v) of a cache's layers.
std::uint64_t widestValueRow(const ModelInfo& model, bool swaCache) {
    std::uint64_t widest = 0;
    for (const auto& layer : model.layers) {
        if (layer.hasKv && layer.inSwaCache() == swaCache) {
            widest = std::max<std::uint64_t>(widest, std::uint64_t{layer.headCountKv} * layer.valueHeadDim);
        }
    }
    return widest;
}

// What the scheduler keeps in host memory whatever runs where. ggml-backend.cpp
// ggml_backend_sched_backend_id_from_cur assigns graph inputs (GGML_TENSOR_FLAG_INPUT) to the last
// backend, the CPU, and token_embd always lives on the host (llama-model.cpp dev_input), so:
//  - the embedding rows of build_inp_embd (src/llama-graph.cpp; backendcompute.h hostEmbeddingRows);
//  - the KQ mask of each cache (backendcompute.h hostMaskElementBytes), once per scheduler copy;
//  - without flash attention, the V-cache row indices of each cache (n_embd_v_gqa x n_ubatch int64);
//  - token ids, positions, output ids and K/V rotation inputs (ComputeBreakdown::inputBytes).
std::uint64_t hostInputBytes(const ModelInfo& model, const ResolvedContext& context, const KvPlan& kv,
                             const ComputeBreakdown& block, std::uint32_t maskCopies,
                             LlamaGeneration generation) {
    const std::uint64_t ub = reserveTokens(context);
    std::uint64_t bytes = hostEmbeddingRows(generation) * ub * model.embeddingLength * 4 + block.inputBytes;
    const std::uint64_t maskElementBytes = hostMaskElementBytes(generation, context.flashAttention);
    for (const auto& cache : kv.caches) {
        bytes += std::uint64_t{cache.cells} * ub * maskElementBytes * maskCopies;
        if (!context.flashAttention) {
            bytes += widestValueRow(model, cache.swa) * ub * 8;
        }
    }
    return bytes;
}

// A block's total from its parts, as computebuffer.cpp adds them up.
std::uint64_t totalOf(const ComputeBreakdown& b) {
    const std::uint64_t activations = std::max({b.feedForwardBytes, b.attentionBytes, b.recurrentBytes});
    return std::max(activations + b.maskBytes, b.outputBytes + b.maskBytes) + b.inputBytes + b.gpuExtraBytes;
}

// The largest block weight left on the host that the GPU accepts: with op offload
// (ggml-backend.cpp, batches of GGML_OP_OFFLOAD_MIN_BATCH = 32 tokens or more) the scheduler copies
// it into the GPU's compute buffer for its matrix multiplication.
std::uint64_t largestOffloadedWeight(const ModelInfo& model, const GpuDevice& gpu,
                                     const LayerPlacement& layers) {
    std::uint64_t largest = 0;
    for (const auto& tensor : model.tensors) {
        const bool hostBlock = tensor.layer >= 0 &&
                               static_cast<std::size_t>(tensor.layer) < layers.layerDevice.size() &&
                               layers.layerDevice[static_cast<std::size_t>(tensor.layer)] == kHostDevice;
        if (hostBlock && gpu.limits.allowsTensor(tensor.bytes)) {
            largest = std::max(largest, tensor.bytes);
        }
    }
    return largest;
}

} // namespace

GpuComputeBuffers gpuComputeBuffers(const ModelInfo& model, const ComputeWidths& widths,
                                    const ServerSettings& settings, const ResolvedContext& context,
                                    const KvPlan& kv, const std::vector<GpuDevice>& gpus,
                                    const LayerPlacement& layers) {
    GpuComputeBuffers out;
    out.deviceBytes.assign(gpus.size(), 0);
    const std::uint64_t ub = reserveTokens(context);
    const std::uint64_t embeddingRow = ub * model.embeddingLength * 4;
    const bool hostHasBlocks = std::any_of(layers.layerDevice.begin(), layers.layerDevice.end(),
                                           [](int device) { return device == kHostDevice; });
    // Op offload: an op on a host weight runs on the first GPU that asks for it (offload_op: a
    // batch of 32 or more); ggml-rpc.cpp has no offload_op, so the first device that is not an RPC
    // server (ggml-backend.cpp ggml_backend_sched_backend_id_from_cur).
    const auto offloader = std::find_if(gpus.begin(), gpus.end(),
                                        [](const GpuDevice& gpu) { return gpu.backend != Backend::Rpc; });
    const bool opOffload = hostHasBlocks && ub >= 32 && offloader != gpus.end();
    const bool fullOffload =
        settings.gpuLayers.value_or(GpuLayers::automatic()).requestedLayers(model.trunkLayerCount()) >
        model.trunkLayerCount();
    const auto copies = static_cast<std::uint32_t>(schedulerCopies(settings, gpus, fullOffload));
    const LlamaGeneration generation = generationOfBuild(settings.llamaBuild);

    const ComputeBreakdown cpuBlock =
        blockComputeBytes(model, widths, settings, context, kv, {Backend::Cpu, 1, 0});
    out.hostBytes = hostInputBytes(model, context, kv, cpuBlock, copies, generation);
    if (hostHasBlocks && !opOffload) {
        // Small batches: the host's blocks run on the CPU backend, as in a CPU-only run.
        out.hostRunsBlocks = true;
        out.hostBytes = std::max(out.hostBytes, cpuBlock.totalBytes);
    }
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        const GpuDevice& gpu = gpus[i];
        const int device = static_cast<int>(i);
        const bool runsBlocks = std::find(layers.layerDevice.begin(), layers.layerDevice.end(), device) !=
                                layers.layerDevice.end();
        const bool runsOffloaded = opOffload && gpus.begin() + device == offloader;
        if (!runsBlocks && !runsOffloaded) {
            continue;
        }
        ComputeBreakdown block =
            blockComputeBytes(model, widths, settings, context, kv, {gpu.backend, copies, 0});
        if (!runsOffloaded && layers.outputDevice != device) {
            block.outputBytes = 0; // the logits run on the output layer's device only
        }
        // The token embeddings arrive as the host's rows; an offloaded host weight lands on top.
        std::uint64_t bytes = totalOf(block);
        bytes -= std::min(bytes, embeddingRow);
        if (runsOffloaded) {
            bytes += largestOffloadedWeight(model, gpu, layers);
        }
        out.deviceBytes[i] = bytes;
    }
    return out;
}

} // namespace llamafit
