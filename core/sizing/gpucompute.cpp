// GPU and host compute buffers. Every term names the measurement it was fitted on: llama-server
// 0.7.0 (b11669) with Debian's ggml Vulkan backend on lavapipe, 20 shapes of tests/data/shapes,
// -ngl all/part/0, -fa on/off, f16/q8_0 caches, 1/4/auto slots, ubatch 512/1024.
#include "core/sizing/gpucompute.h"

#include "core/sizing/deltanetondevice.h"
#include "core/sizing/gpureplays.h"

#include "core/sizing/backendcompute.h"
#include "core/sizing/hostattention.h"
#include "core/sizing/hostmambascan.h"
#include "core/sizing/mambaondevice.h"
#include "core/sizing/offloadedattention.h"
#include "core/sizing/offloadedlfm2.h"
#include "core/sizing/offloadedmla.h"
#include "core/sizing/pipelinecopies.h"
#include "core/sizing/reservetokens.h"

#include <algorithm>
#include <optional>
#include <string_view>

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
//  - 4 embedding rows per token (n_embd * 4 B each): the token lookup, the lookup of the mixed
//    token/embedding input, that input itself and its mix (src/llama-graph.cpp build_inp_embd);
//    measured 4.00 x n_embd x n_ubatch x 4 B on 17 shapes, fully offloaded or not; older
//    generations hold fewer (backendcompute.h hostEmbeddingRows);
//  - the KQ mask of each cache, f16 with flash attention (cells x n_ubatch x 2 B) and f32 without
//    (f32 in both before June 2026, backendcompute.h);
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

// Cells x tokens over the caches: the elements of the KQ masks.
std::uint64_t maskElements(const ResolvedContext& context, const KvPlan& kv) {
    std::uint64_t elements = 0;
    for (const auto& cache : kv.caches) {
        elements += std::uint64_t{cache.cells} * reserveTokens(context);
    }
    return elements;
}

// A block's total from its parts, as computebuffer.cpp adds them up.
std::uint64_t totalOf(const ComputeBreakdown& b) {
    const std::uint64_t activations = std::max({b.feedForwardBytes, b.attentionBytes, b.recurrentBytes});
    return std::max(activations + b.maskBytes, b.outputBytes + b.maskBytes) + b.inputBytes + b.gpuExtraBytes;
}

// The KQ product of the widest layer of each cache without flash attention:
// [n_kv, n_tokens, n_head] f32, the tensor a device limit may refuse.
std::uint64_t kqBytes(const ComputeWidths& widths, const ResolvedContext& context, const KvPlan& kv) {
    std::uint64_t widest = 0;
    if (!context.flashAttention) {
        for (const auto& cache : kv.caches) {
            const std::uint64_t heads = cache.swa ? widths.swaCacheHeads : widths.fullCacheHeads;
            widest = std::max(widest, std::uint64_t{cache.cells} * reserveTokens(context) * heads * 4);
        }
    }
    return widest;
}

// n_ff of one expert: expert_feed_forward_length, else from ffn_up_exps (Jamba has no key).
std::uint64_t expertFeedForwardLength(const ModelInfo& model) {
    if (model.expertFeedForwardLength > 0) {
        return model.expertFeedForwardLength;
    }
    for (const auto& tensor : model.tensors) {
        if (tensor.expert && tensor.name.ends_with("ffn_up_exps.weight") && model.expertCount > 0 &&
            tensor.rowValues > 0) {
            return tensor.bytes / ggmlRowBytes(tensor.type, tensor.rowValues) / model.expertCount;
        }
    }
    return 0;
}

// gpt-oss (src/models/openai-moe.cpp): the experts' gate and up products get a per-expert bias
// (ggml_add_id) before the GLU.
bool biasedExperts(const ModelInfo& model) {
    return std::any_of(model.tensors.begin(), model.tensors.end(),
                       [](const TensorSummary& tensor) { return tensor.name.ends_with("ffn_up_exps.bias"); });
}

// What the CPU adds to the host buffer when it runs the routed experts (build_moe_ffn): the gate
// and up products of n_used experts and the GLU (ggml-alloc does not run a GLU in place, so the
// pair stays a hole below it), then the experts' outputs, which fill that hole when they fit.
// Two of the four embedding rows of hostInputBytes are free by then. Read from ggml-alloc's
// plans: qwen3moe 80.02 MiB (outputs on top), deepseek2 V2-Lite 61.51 (outputs in the hole).
std::uint64_t expertActivationBytes(const ModelInfo& model, const ResolvedContext& context,
                                    std::uint64_t embeddingRow) {
    const std::uint64_t ub = reserveTokens(context);
    const std::uint64_t used = model.expertUsedCount;
    const std::uint64_t expertRows = ub * 4 * used * expertFeedForwardLength(model);
    const std::uint64_t outputs = ub * 4 * used * model.embeddingLength;
    const std::uint64_t bytes = 3 * expertRows + (outputs > 2 * expertRows ? outputs : 0);
    return bytes - std::min(bytes, 2 * embeddingRow);
}

// Per cache whose KQ product a GPU refuses (flash attention off): its mask, which stays on the
// host, less the V row indices (n_embd_v_gqa x n_ubatch int64) the device receives instead.
std::uint64_t refusedMaskBytes(const ModelInfo& model, const ComputeWidths& widths,
                               const ResolvedContext& context, const KvPlan& kv, const GpuDevice& gpu) {
    const std::uint64_t ub = reserveTokens(context);
    std::uint64_t bytes = 0;
    for (const auto& cache : kv.caches) {
        const std::uint64_t heads = cache.swa ? widths.swaCacheHeads : widths.fullCacheHeads;
        if (gpu.limits.allowsTensor(std::uint64_t{cache.cells} * ub * heads * 4)) {
            continue;
        }
        const std::uint64_t mask = std::uint64_t{cache.cells} * ub * 4;
        const std::uint64_t valueIndices = widestValueRow(model, cache.swa) * ub * 8;
        bytes += mask > valueIndices ? mask - valueIndices : 0;
    }
    return bytes;
}

Refusals refusalsOf(const ModelInfo& model, const GpuDevice& gpu, int device, bool runsHostBlocks,
                    const LayerPlacement& layers, std::uint64_t kq) {
    Refusals out;
    if (!gpu.limits.largestOpTensorBytes()) {
        return out;
    }
    for (const auto& tensor : model.tensors) {
        if (gpu.limits.allowsTensor(tensor.bytes)) {
            continue;
        }
        // Its own blocks, and the host's when it runs their offloaded ops.
        const int owner =
            tensor.layer >= 0 && static_cast<std::size_t>(tensor.layer) < layers.layerDevice.size()
                ? layers.layerDevice[static_cast<std::size_t>(tensor.layer)]
                : kHostDevice - 1;
        out.experts =
            out.experts || (tensor.expert && (owner == device || (runsHostBlocks && owner == kHostDevice)));
    }
    // The output matrix may be refused too (a big vocabulary): the lm_head then runs on the CPU, but
    // its logits fit the host buffer's holes (measured: llama, 501 MiB tied output, host unchanged).
    out.kq = kq > 0 && !gpu.limits.allowsTensor(kq);
    out.kqBytes = out.kq ? kq : 0;
    return out;
}

// The output matrix (output.weight, or the tied token_embd) is over the GPU's limit.
bool refusesOutputMatrix(const ModelInfo& model, const GpuDevice& gpu) {
    const auto named = [&](std::string_view name) {
        return std::find_if(model.tensors.begin(), model.tensors.end(),
                            [&](const auto& tensor) { return tensor.name == name; });
    };
    auto output = named("output.weight");
    if (output == model.tensors.end()) {
        output = named("token_embd.weight");
    }
    return output != model.tensors.end() && !gpu.limits.allowsTensor(output->bytes);
}

// The attention the CPU takes over from a GPU that refuses KQ: the first KV layer's widths and the
// (one) cache's per-layer tensors.
HostAttentionShape hostAttentionShape(const ModelInfo& model, const KvPlan& kv, std::uint64_t kqBytes) {
    HostAttentionShape shape;
    shape.embd = model.embeddingLength;
    const auto layer =
        std::find_if(model.layers.begin(), model.layers.end(), [](const LayerInfo& l) { return l.hasKv; });
    if (layer != model.layers.end()) {
        shape.queryValues = std::uint64_t{layer->headCount} * layer->keyHeadDim;
    }
    shape.valueRowValues = widestValueRow(model, kv.caches.front().swa);
    shape.cells = kv.caches.front().cells;
    for (std::size_t c = 1; c < kv.caches.size(); ++c) {
        shape.otherCaches.push_back({kv.caches[c].cells, widestValueRow(model, kv.caches[c].swa)});
    }
    // The first layer's attention: its cache's K and V are copied.
    const std::optional<std::size_t> cache = kv.cacheOf(0);
    const KvCacheEstimate& first = kv.caches[cache.value_or(0)];
    shape.keyCopyBytes = first.layers > 0 ? first.kBytes / first.layers : 0;
    shape.valueCopyBytes = first.layers > 0 ? first.vBytes / first.layers : 0;
    shape.kqBytes = kqBytes;
    return shape;
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

// Where a layer's KV cache or recurrent state lives: its block's device, or the host with -nkvo.
int cacheDevice(const ServerSettings& settings, const LayerPlacement& layers, std::size_t il) {
    return settings.kvOffload && il < layers.layerDevice.size() ? layers.layerDevice[il] : kHostDevice;
}

// Which caches are in host memory. Measured on hybrid models: the recurrent ops and, without flash
// attention, KQ of layers with a host cache run on the CPU. The attention models of
// offloadedattention.h attend on the GPU with copies of K and V instead, unless the GPU refuses KQ.
struct HostCaches {
    bool attention = false; // a KV layer whose cache is in host memory
    bool allAttention = true;
    bool recurrent = false; // a recurrent layer whose state is in host memory
    bool allRecurrent = true;
};

HostCaches hostCaches(const ModelInfo& model, const ServerSettings& settings, const LayerPlacement& layers) {
    HostCaches out;
    bool anyRecurrent = false;
    for (std::size_t il = 0; il < model.layers.size(); ++il) {
        const bool onHost = cacheDevice(settings, layers, il) == kHostDevice;
        if (model.layers[il].hasKv) {
            out.attention = out.attention || onHost;
            out.allAttention = out.allAttention && onHost;
        }
        if (model.layers[il].recurrent) {
            anyRecurrent = true;
            out.recurrent = out.recurrent || onHost;
            out.allRecurrent = out.allRecurrent && onHost;
        }
    }
    out.allRecurrent = out.allRecurrent && anyRecurrent;
    return out;
}

// The recurrent block's work the CPU does when its state is in host memory (or the GPU cannot scan).
// Measured on lavapipe at -ngl 0 / 2 / 3: RWKV 3 embedding rows (rwkv6 +12.0, rwkv7 +4.5);
// Mamba-1 fully offloaded, whose scan no Vulkan kernel runs (d_state 16), 2 x d_inner rows (mamba
// +6.1 MiB), plus the scan's final states, one d_state x d_inner matrix per slot (mamba -np 4:
// 12.38 MiB, -np 1: 12.10; the replay of hostmambascan.h, whose graph start holds one more
// embedding row, is 1.50 MiB over that). With only some blocks' state on the host the CPU's share
// is smaller: 1 embedding row for RWKV (rwkv6 -ngl 2: +4.00, rwkv7 -ngl 3 -ub 1024: +3.00). A Mamba
// scan with host blocks is replayed instead (hostmambascan.h).
std::uint64_t hostRecurrentBytes(const ModelInfo& model, const ComputeWidths& widths, std::uint64_t ub,
                                 std::uint64_t slots, bool allOnHost) {
    const std::uint64_t inner = model.ssmInnerSize > 0 ? model.ssmInnerSize : 2ull * model.embeddingLength;
    const std::uint64_t row = ub * 4;
    switch (widths.recurrentBlock.kind) {
    case RecurrentBlockKind::Mamba1:
        return 2 * inner * row + 4 * std::uint64_t{model.ssmStateSize} * inner * slots;
    case RecurrentBlockKind::Rwkv7:
    case RecurrentBlockKind::None:
        return model.architecture.rfind("rwkv", 0) == 0 ? (allOnHost ? 3 : 1) * model.embeddingLength * row
                                                        : 0;
    case RecurrentBlockKind::Mamba2:
        break; // replayed: hostmambascan.h
    case RecurrentBlockKind::DeltaNet:
    case RecurrentBlockKind::DeltaNetFusedQkvz:
        break; // measured: qwen35moe and qwen3next at -ngl 0 keep the delta net on the GPU
    }
    return 0;
}

} // namespace

GpuComputeBuffers gpuComputeBuffers(const ModelInfo& model, const ComputeWidths& widths,
                                    const ServerSettings& settings, const ResolvedContext& context,
                                    const KvPlan& kv, const std::vector<GpuDevice>& gpus,
                                    const LayerPlacement& layers, const WeightPlan& weights) {
    GpuComputeBuffers out;
    out.deviceBytes.assign(gpus.size(), 0);
    const std::uint64_t ub = reserveTokens(context);
    const std::uint64_t embeddingRow = ub * model.embeddingLength * 4;
    const bool hostHasBlocks = std::any_of(layers.layerDevice.begin(), layers.layerDevice.end(),
                                           [](int device) { return device == kHostDevice; });
    // ggml-rpc.cpp has no offload_op: RPC devices, which come first, pass op offload on to the
    // first local GPU, and with RPC devices only the host's blocks run on the CPU.
    const auto offloader = std::find_if(gpus.begin(), gpus.end(),
                                        [](const GpuDevice& gpu) { return gpu.backend != Backend::Rpc; });
    const std::size_t offloadDevice = static_cast<std::size_t>(offloader - gpus.begin());
    // ggml-backend.cpp ggml_backend_sched_backend_id_from_cur: an op on a host weight runs on the
    // first GPU that wants it (ggml_backend_offload_op: batch >= 32); the rest of the block follows
    // it there when the scheduler expands GPU assignments up and down the graph.
    const bool opOffload = hostHasBlocks && ub >= 32 && offloader != gpus.end();
    const std::uint32_t copies = schedulerCopies(settings, gpus, layers); // pipelinecopies.h
    const std::uint64_t kq = kqBytes(widths, context, kv);

    const ComputeBreakdown cpuBlock =
        blockComputeBytes(model, widths, settings, context, kv, {Backend::Cpu, 1, 0});
    out.hostBytes =
        hostInputBytes(model, context, kv, cpuBlock, copies, generationOfBuild(settings.llamaBuild));
    if (hostHasBlocks && !opOffload) {
        // Small batches: the host's blocks run on the CPU backend, as in a CPU-only run (plus the
        // inputs the GPUs read from it).
        out.hostRunsBlocks = true;
        out.hostBytes = std::max(out.hostBytes, cpuBlock.totalBytes);
    }

    std::uint64_t hostRefused = 0; // on top of the inputs
    std::uint64_t hostPeak = 0;    // a whole host plan replayed (inputs included)
    const HostCaches cachesOnHost = hostCaches(model, settings, layers);
    // Hybrid models only: there KQ, soft_max and KQV of layers with a host cache run on the CPU
    // (measured: granitehybrid -fa off -ngl 2, "Vulkan_Host compute buffer size = 112.51 MiB",
    // 96 of it KQ; lfm2, nemotron_h, falcon-h1 alike), while qwen2, qwen3, gemma2 and gemma3 at
    // -fa off -ngl 2 keep KQ on the GPU and their host buffer holds the inputs only.
    const bool hybrid = std::any_of(model.layers.begin(), model.layers.end(),
                                    [](const LayerInfo& layer) { return layer.recurrent; });
    // Qwen3.5 MoE's host attention layers run KQ on the GPU over copies of K, V and the f32 mask when
    // it takes KQ's size (offloadeddeltanet.h; qwen35moe_l8_ngl0_np1_faoff: "Vulkan_Host compute buffer
    // size = 74.52 MiB", the experts only).
    const bool kqOnGpuCopies =
        model.architecture == "qwen35moe" && opOffload && gpus[offloadDevice].limits.allowsTensor(kq);
    const bool hostAttentionOnCpu =
        hybrid && cachesOnHost.attention && !context.flashAttention && !kqOnGpuCopies;
    if (hostAttentionOnCpu) {
        hostRefused = std::max(hostRefused, kq);
    }
    const bool mambaOneOnVulkan = widths.recurrentBlock.kind == RecurrentBlockKind::Mamba1 &&
                                  std::any_of(gpus.begin(), gpus.end(), [](const GpuDevice& gpu) {
                                      return gpu.backend == Backend::Vulkan;
                                  });
    const RecurrentBlockKind recurrentKind = widths.recurrentBlock.kind;
    const bool mambaScanOnHost =
        (recurrentKind == RecurrentBlockKind::Mamba2 || recurrentKind == RecurrentBlockKind::Mamba1) &&
        cachesOnHost.recurrent && opOffload;
    const bool cacheInputs = model.hasAttentionLayers() && !kv.caches.empty();
    const HostScanInputs scanInputs{cacheInputs ? kv.caches.front().cells : 0, widths.widestKvRowValues,
                                    context.flashAttention};
    if (opOffload && gpus[offloadDevice].backend == Backend::Vulkan) {
        if (const auto lfm2 = offloadedLfm2(model, kv, layers, context.flashAttention)) {
            // The graph start and the host's attention layers (offloadedlfm2.h).
            hostPeak = offloadedLfm2HostBytes(*lfm2, context.nUbatch, context.nSeqMax, context.nOutputs);
        }
    }
    if (mambaScanOnHost) {
        // The scan's inputs and outputs over the graph inputs, replayed (hostmambascan.h).
        hostPeak = hostMambaScanBytes(widths.recurrentBlock, context.nUbatch, context.nSeqMax,
                                      context.nOutputs, scanInputs);
    } else if ((cachesOnHost.recurrent && opOffload) || mambaOneOnVulkan) {
        hostRefused += hostRecurrentBytes(model, widths, ub, context.nSeqMax,
                                          cachesOnHost.allRecurrent || !cachesOnHost.recurrent);
    }
    std::vector<bool> replayedSplit(gpus.size(), false); // the pipeline copies already counted
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        const GpuDevice& gpu = gpus[i];
        const int device = static_cast<int>(i);
        const bool runsBlocks = std::find(layers.layerDevice.begin(), layers.layerDevice.end(), device) !=
                                layers.layerDevice.end();
        const bool runsOffloaded = opOffload && i == offloadDevice;
        if (!runsBlocks && !runsOffloaded) {
            if (layers.outputDevice == device) {
                // Without op offload only the output rows cross to it (pipelinecopies.h).
                out.deviceBytes[i] = opOffload ? outputOnlyComputeBytes(model, context)
                                               : outputSplitComputeBytes(model, context, copies,
                                                                         !refusesOutputMatrix(model, gpu));
            }
            continue;
        }
        const Refusals refused = refusalsOf(model, gpu, device, runsOffloaded, layers, kq);
        // An RPC server's split, or a Vulkan GPU's after RPC servers, replayed node by node with the
        // pipeline copies (gpureplays.h). Not read from a plan: a Vulkan GPU first in the list, one
        // running host blocks' ops, or one whose limits keep ops off it.
        const bool afterRpc =
            std::any_of(gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(i),
                        [](const GpuDevice& before) { return before.backend == Backend::Rpc; });
        const bool splitReplayed =
            gpu.backend == Backend::Rpc ||
            (gpu.backend == Backend::Vulkan && afterRpc && !runsOffloaded && !refused.experts && !refused.kq);
        if (splitReplayed) {
            if (const auto split =
                    splitReplayBytes(model, kv, settings, context, layers, device, gpu.backend, copies)) {
                out.deviceBytes[i] = *split;
                replayedSplit[i] = true;
                continue;
            }
        }
        if (!hostHasBlocks && refused.experts && !refused.kq && !kv.caches.empty()) {
            if (const auto deltaNet = deltaNetOnDeviceShape(model);
                deltaNet &&
                quantizedKeyAttention(model, *deltaNet, settings, context.flashAttention, gpu.backend)
                    .quantizedKey) {
                // The CPU computes KQ over a quantized K (deltanetondevice.h).
                hostRefused =
                    std::max(hostRefused, quantizedKeyHostBytes(*deltaNet, ub, kv.caches.front().cells));
            }
        }
        if (mambaScanOnHost && runsOffloaded && refused.experts && model.architecture == "jamba") {
            // Jamba's refused experts run on the CPU after the scans (hostmambascan.h).
            HostScanInputs withExperts = scanInputs;
            withExperts.experts = model.expertCount;
            withExperts.expertsUsed = model.expertUsedCount;
            withExperts.expertFeedForward = expertFeedForwardLength(model);
            hostPeak = std::max(hostPeak, hostMambaScanBytes(widths.recurrentBlock, context.nUbatch,
                                                             context.nSeqMax, context.nOutputs, withExperts));
        }
        ComputeBreakdown block =
            blockComputeBytes(model, widths, settings, context, kv, {gpu.backend, copies, 0});
        if (layers.outputDevice == device && block.outputBytes > 0 && refusesOutputMatrix(model, gpu)) {
            // The lm_head runs on the CPU and its logits land in the host buffer, next to the two
            // rows of its input (measured: llama-fit-params' 512 logits rows of gemma3 on
            // lavapipe, "Host ... compute 516" MiB for 512 MiB of logits, Vulkan0 84).
            out.hostBytes = std::max(out.hostBytes, block.logitsBytes + 2 * embeddingRow);
            block.outputBytes = 0;
        }
        if (!runsOffloaded && layers.outputDevice != device) {
            // The logits branch runs on the output layer's device only (matters when the logits
            // outgrow the masks: llama-fit-params' n_batch rows over several devices).
            block.outputBytes = 0;
        }
        // Read off lavapipe's allocation plans (scripts/alloc-plan); over RPC the pipeline copies
        // (pipelinecopies.h) change the inputs' hole the GLU would fit in, and the measured RPC
        // buffers hold the CPU-calibrated FFN term: not applied there until measured.
        if (widths.gpuDenseFeedForward > 0 && !runsOffloaded && gpu.backend != Backend::Rpc) {
            block.feedForwardBytes = ub * 4 * widths.gpuDenseFeedForward;
        }
        if (runsOffloaded && cachesOnHost.allRecurrent) {
            block.recurrentBytes = 0;
        }
        if (refused.kq && !kv.caches.empty() && kv.caches.size() <= 2 && !cachesOnHost.attention) {
            // KQ, soft_max and KQV run on the CPU over copies of a layer's K, V and Q
            // (hostattention.h).
            hostPeak = std::max(hostPeak, hostAttentionBytes(hostAttentionShape(model, kv, refused.kqBytes),
                                                             ub, context.nOutputs));
        } else if (refused.kq) {
            // The KQ product and its soft_max run on the CPU (measured: llama 4 blocks, -fa off
            // -c 4096: "Vulkan_Host compute buffer size = 282.01 MiB", 256 of it KQ).
            hostRefused = std::max(hostRefused, refused.kqBytes);
        }
        if (refused.kq || (runsOffloaded && hostAttentionOnCpu && cachesOnHost.allAttention)) {
            block.attentionBytes -= std::min(block.attentionBytes, kq);
            if (refused.kq) {
                // A cache whose KQ the GPU accepts keeps its layers' attention there (measured:
                // gpt-oss -fa off, the 768-cell window's 96 MiB KQ on the device, "Vulkan0 compute
                // buffer size = 138.01 MiB", the full cache's 512 MiB on the host): that block's
                // attention as if the accepted caches were the only ones.
                KvPlan accepted = kv;
                std::erase_if(accepted.caches, [&](const KvCacheEstimate& cache) {
                    const std::uint64_t heads = cache.swa ? widths.swaCacheHeads : widths.fullCacheHeads;
                    return !gpu.limits.allowsTensor(std::uint64_t{cache.cells} * ub * heads * 4);
                });
                if (!accepted.caches.empty()) {
                    block.attentionBytes =
                        std::max(block.attentionBytes, blockComputeBytes(model, widths, settings, context,
                                                                         accepted, {gpu.backend, copies, 0})
                                                           .attentionBytes);
                }
            }
        }
        if (refused.kq) {
            // The soft_max that reads a refused cache's mask runs on the CPU, so the scheduler
            // copies no mask of that cache to the device; the V row indices (the V store's
            // set_rows) still come over. Measured with ggml-alloc's plan of llama -fa off:
            // 66.01 MiB = the FFN peak + 2 MiB of V indices, no 8 MiB mask.
            block.maskBytes -= std::min(block.maskBytes, refusedMaskBytes(model, widths, context, kv, gpu));
        }
        if (refused.experts && biasedExperts(model)) {
            // The bias adds (ggml_add_id) stay on the device with their bias tensors, so the
            // scheduler copies the gate and up products back and runs the GLU there: three
            // n_used x n_ff blocks on top of the block's rows; only the GLU goes back to the CPU
            // for the down product, whose n_used outputs share the host buffer with it. The
            // caches block 0 does not read have no mask copy on the device yet at its peak
            // (input copies enter at the first split that reads them, ggml-backend.cpp
            // ggml_backend_sched_split_graph). Read from ggml-alloc's plan of gpt-oss, 8 blocks:
            // "Vulkan0 compute buffer size = 91.01 MiB", "Vulkan_Host ... = 61.28 MiB".
            const std::uint64_t used = model.expertUsedCount;
            const std::uint64_t expertRows = used * expertFeedForwardLength(model);
            block.feedForwardBytes = ub * 4 * (5ull * model.embeddingLength + 3 * expertRows);
            if (context.flashAttention && !kv.layerInSwaCache.empty()) {
                for (const auto& cache : kv.caches) {
                    if (cache.swa != kv.layerInSwaCache.front()) {
                        block.maskBytes -=
                            std::min<std::uint64_t>(block.maskBytes, std::uint64_t{cache.cells} * ub * 2);
                    }
                }
            }
            const std::uint64_t hostExperts = ub * 4 * (expertRows + used * model.embeddingLength);
            hostRefused = std::max(hostRefused, hostExperts - std::min(hostExperts, 2 * embeddingRow));
        } else if (refused.experts) {
            // The expert matmuls run on the CPU; their n_used outputs come back to be weighted and
            // summed on the device, over the 5 embedding rows of the block (measured: qwen3moe
            // 2 blocks, "Vulkan0 compute buffer size = 52.01 MiB" at n_ubatch 512, 104.03 at 1024).
            // Blocks without experts (DeepSeek's leading dense block) keep their FFN on the device
            // (deepseek2 V2-Lite: 84.13 MiB = the dense block's gate, up and GLU on 4 rows). Not
            // measured for hybrids: Jamba's dense blocks peak lower than that (116.00 MiB).
            block.feedForwardBytes =
                std::max<std::uint64_t>(ub * 4 *
                                            (5ull * model.embeddingLength +
                                             std::uint64_t{model.expertUsedCount} * model.embeddingLength),
                                        hybrid ? 0 : ub * 4 * widths.denseFeedForward);
            hostRefused = std::max(hostRefused, expertActivationBytes(model, context, embeddingRow));
        }
        std::uint64_t bytes = totalOf(block);
        // The token embeddings arrive as the host's rows (measured: the device buffer is the CPU
        // backend's figure less one n_embd x n_ubatch x 4 B row on 17 fully offloaded shapes).
        bytes -= std::min(bytes, embeddingRow);
        if (!runsOffloaded) {
            const std::int64_t adjust =
                splitInputAdjustmentBytes(block, model, settings, context, layers, device);
            bytes = adjust < 0 ? bytes - std::min<std::uint64_t>(bytes, static_cast<std::uint64_t>(-adjust))
                               : bytes + static_cast<std::uint64_t>(adjust);
        }
        const std::uint64_t weight = runsOffloaded ? largestOffloadedWeight(model, gpu, layers) : 0;
        const std::optional<OffloadedAttentionShape> offloaded =
            runsOffloaded && generationOfBuild(settings.llamaBuild) == LlamaGeneration::Current
                ? offloadedAttentionShape(model, kv, layers,
                                          {context.flashAttention, refused.experts, gpu.limits})
                : std::nullopt;
        const std::optional<std::uint64_t> offloadedRecurrent =
            runsOffloaded && generationOfBuild(settings.llamaBuild) == LlamaGeneration::Current &&
                    gpus.size() == 1
                ? offloadedRecurrentBytes(model, kv, layers, gpu, context, refused)
                : std::nullopt;
        const std::optional<OffloadedMla> offloadedLatent =
            runsOffloaded && generationOfBuild(settings.llamaBuild) == LlamaGeneration::Current
                ? offloadedMla(model, kv, layers, context.flashAttention, refused.experts)
                : std::nullopt;
        if (offloaded) {
            // The host blocks' copies decide the peak (offloadedattention.h); the GPU's own blocks,
            // with a partial -ngl, hold what a fully offloaded run does.
            bytes = std::max(bytes, offloadedAttentionComputeBytes(*offloaded, ub));
        } else if (offloadedLatent) {
            bytes =
                std::max(bytes, offloadedMlaBytes(*offloadedLatent, ub)); // the same for MLA (offloadedmla.h)
        } else if (offloadedRecurrent) {
            bytes = std::max(*offloadedRecurrent, block.outputBytes); // the logits come after the blocks
        } else if (generationOfBuild(settings.llamaBuild) != LlamaGeneration::Current) {
            // Older builds (backendcompute.h); the weight copy lands inside the blocks.
            bytes = olderGpuBlockBytes(generationOfBuild(settings.llamaBuild), context.flashAttention, block,
                                       embeddingRow, maskElements(context, kv),
                                       ub * 4 * widths.widestKvRowValues, weight);
        } else if (runsOffloaded) {
            // One host weight at a time lands on top, less the three embedding rows the inputs left
            // free (measured: llama 4 blocks -ngl 0, 32 MiB ffn weights: 88.00 MiB = 68.01 + 20).
            bytes += weight > 3 * embeddingRow ? weight - 3 * embeddingRow : 0;
        }
        if (mambaOneOnVulkan && model.architecture == "mamba" && !hostHasBlocks && gpus.size() == 1) {
            // The scan's copies change the whole plan (mambaondevice.h); the logits come after it.
            bytes = std::max(mambaOneDeviceComputeBytes(widths.recurrentBlock,
                                                        static_cast<std::uint32_t>(model.layers.size()),
                                                        context.nUbatch, context.nSeqMax, context.nOutputs),
                             block.outputBytes);
        }
        if (!hostHasBlocks && gpus.size() == 1 &&
            generationOfBuild(settings.llamaBuild) == LlamaGeneration::Current) {
            if (const auto whole = wholeModelReplayBytes(model, kv, settings, context, gpu, refused)) {
                bytes = std::max(*whole, block.outputBytes); // the logits come after the blocks
            }
        }
        out.deviceBytes[i] = bytes;
    }
    (void)weights;
    out.hostBytes = std::max(out.hostBytes + hostRefused, hostPeak);
    const PipelineCopyBytes pipeline =
        pipelineCopyBytes(model, widths.recurrentBlock, context, kv, layers, gpus.size(), copies);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        out.deviceBytes[i] += out.deviceBytes[i] > 0 && !replayedSplit[i] ? pipeline.deviceBytes[i] : 0;
    }
    out.hostBytes += pipeline.hostBytes;
    return out;
}

} // namespace llamafit
