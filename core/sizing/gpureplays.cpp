#include "core/sizing/gpureplays.h"

#include "core/sizing/attentionsplit.h"
#include "core/sizing/deltanetondevice.h"
#include "core/sizing/gemmaondevice.h"
#include "core/sizing/jambaondevice.h"
#include "core/sizing/mambaondevice.h"
#include "core/sizing/normedattentionondevice.h"
#include "core/sizing/offloadedattention.h"
#include "core/sizing/offloadeddeltanet.h"
#include "core/sizing/offloadedfalcon.h"
#include "core/sizing/offloadedlfm2.h"
#include "core/sizing/offloadedmamba.h"
#include "core/sizing/offloadedmambaone.h"
#include "core/sizing/offloadedrwkv7.h"
#include "core/sizing/parallelblockondevice.h"
#include "core/sizing/parallelmambaondevice.h"
#include "core/sizing/reservetokens.h"
#include "core/sizing/rwkvondevice.h"

namespace llamafit {

// A recurrent model with host blocks whose ops one GPU runs: host and GPU blocks in one replay
// (offloadedmamba.h, offloadedmambaone.h, offloadedfalcon.h, offloadeddeltanet.h, jambaondevice.h,
// offloadedlfm2.h, offloadedrwkv7.h), or nullopt for another model. Mamba-1's scan stays on the CPU on Vulkan
// only.
std::optional<std::uint64_t> offloadedRecurrentBytes(const ModelInfo& model, const KvPlan& kv,
                                                     const LayerPlacement& layers, const GpuDevice& gpu,
                                                     const ResolvedContext& context,
                                                     const Refusals& refused) {
    if (const auto deltaNet =
            offloadedDeltaNet(model, kv, layers, context.flashAttention, refused.experts, refused.kq)) {
        return offloadedDeltaNetBytes(*deltaNet, context.nUbatch, context.nSeqMax, context.nOutputs);
    }
    if (const auto two = offloadedMambaTwo(model, kv, layers)) {
        return offloadedMambaTwoBytes(*two, context.nUbatch, context.nSeqMax, context.nOutputs);
    }
    if (gpu.backend == Backend::Vulkan) {
        if (const auto lfm2 = offloadedLfm2(model, kv, layers, context.flashAttention)) {
            return offloadedLfm2Bytes(*lfm2, context.nUbatch, context.nSeqMax, context.nOutputs);
        }
        if (const auto rwkv7 = offloadedRwkv7(model, layers)) {
            return offloadedRwkv7Bytes(*rwkv7, context.nUbatch, context.nSeqMax);
        }
    }
    if (context.flashAttention) {
        if (const auto falcon = offloadedFalcon(model, kv, layers)) {
            return offloadedFalconBytes(*falcon, context.nUbatch, context.nSeqMax, context.nOutputs);
        }
    }
    if (gpu.backend == Backend::Vulkan) {
        const std::optional<std::size_t> hostBlocks = leadingHostBlocks(layers, model.trunkLayerCount());
        if (const auto jamba = hostBlocks ? jambaStack(model, kv, context.flashAttention, refused.experts,
                                                       refused.kq, *hostBlocks)
                                          : std::nullopt) { // jambaondevice.h
            return jambaDeviceBytes(*jamba, context.nUbatch, context.nSeqMax, context.nOutputs);
        }
        if (const auto one = offloadedMambaOne(model, layers)) {
            return offloadedMambaOneBytes(*one, context.nUbatch, context.nSeqMax, context.nOutputs);
        }
    }
    return std::nullopt;
}

// One GPU holding every block: the replays of the graphs whose plan the closed form misses. In
// one whole-model split ggml-vulkan reorders the nodes, and refused experts come back from the CPU
// each block, so holes the closed form cannot see decide the peak. The first replay that knows
// the model's graph, or nullopt.
std::optional<std::uint64_t> wholeModelReplayBytes(const ModelInfo& model, const KvPlan& kv,
                                                   const ServerSettings& settings,
                                                   const ResolvedContext& context, const GpuDevice& gpu,
                                                   const Refusals& refused) {
    const std::uint64_t ub = reserveTokens(context);
    if (gpu.backend == Backend::Vulkan && (context.flashAttention || refused.kq)) {
        // Cohere 2 with flash attention, or with KQ on the CPU.
        if (const auto parallel = parallelBlockShape(model, kv, settings, !context.flashAttention)) {
            return parallelBlockDeviceBytes(*parallel, ub, context.nOutputs); // parallelblockondevice.h
        }
    }
    if (gpu.backend == Backend::Vulkan && !context.flashAttention && !refused.kq) {
        if (const auto gemma = gemmaShape(model, kv, settings, context.flashAttention)) { // gemmaondevice.h
            return gemmaDeviceBytes(*gemma, ub, context.nOutputs);
        }
    }
    if (gpu.backend == Backend::Vulkan && (context.flashAttention || !refused.kq)) {
        if (const auto falcon =
                parallelMambaShape(model, kv, context.flashAttention)) { // parallelmambaondevice.h
            return parallelMambaDeviceBytes(*falcon, context.nUbatch, context.nSeqMax, context.nOutputs);
        }
    }
    if (gpu.backend == Backend::Vulkan && context.flashAttention) {
        if (const auto normed = normedAttentionShape(model, kv, settings)) { // normedattentionondevice.h
            return normedAttentionDeviceBytes(*normed, ub, context.nOutputs);
        }
    }
    if (gpu.backend == Backend::Vulkan) {
        if (const auto stack =
                mambaTwoStack(model, kv, context.flashAttention, refused.kq)) { // mambaondevice.h
            return mambaTwoStackDeviceBytes(*stack, context.nUbatch, context.nSeqMax, context.nOutputs);
        }
        if (const auto jamba = jambaStack(model, kv, context.flashAttention, refused.experts,
                                          refused.kq)) { // jambaondevice.h
            return jambaDeviceBytes(*jamba, context.nUbatch, context.nSeqMax, context.nOutputs);
        }
        if (const RecurrentBlockShape rwkv = recurrentBlockShape(model);
            model.architecture == "rwkv7" && rwkv.kind == RecurrentBlockKind::Rwkv7) { // rwkvondevice.h
            return rwkv7DeviceComputeBytes(rwkv, model.trunkLayerCount(), context.nUbatch, context.nSeqMax,
                                           context.nOutputs);
        }
        if (const auto rwkv6 = rwkv6Shape(model)) { // rwkvondevice.h
            return rwkv6DeviceComputeBytes(*rwkv6, context.nUbatch, context.nSeqMax, context.nOutputs);
        }
    }
    if (refused.experts && !refused.kq) {
        if (const auto deltaNet = deltaNetOnDeviceShape(model)) { // deltanetondevice.h
            const std::uint64_t cells = kv.caches.empty() ? 0 : kv.caches.front().cells;
            return deltaNetOnDeviceComputeBytes(
                *deltaNet, context.nUbatch, context.nSeqMax, cells, context.flashAttention,
                quantizedKeyAttention(model, *deltaNet, settings, context.flashAttention, gpu.backend));
        }
    }
    return std::nullopt;
}

std::optional<std::uint64_t> splitReplayBytes(const ModelInfo& model, const KvPlan& kv,
                                              const ServerSettings& settings, const ResolvedContext& context,
                                              const LayerPlacement& layers, int device, Backend backend,
                                              std::uint32_t copies) {
    const std::vector<int>& owner = layers.layerDevice;
    const auto first = std::find(owner.begin(), owner.end(), device);
    // Host blocks run on the CPU before the devices' (ggml-rpc has no op offload).
    const auto hostEnd =
        std::find_if(owner.begin(), owner.end(), [](int holder) { return holder != kHostDevice; });
    if (generationOfBuild(settings.llamaBuild) != LlamaGeneration::Current || !settings.kvOffload ||
        first == owner.end() || std::find(hostEnd, owner.end(), kHostDevice) != owner.end()) {
        return std::nullopt;
    }
    const auto end = std::find_if(first, owner.end(), [&](int holder) { return holder != device; });
    const bool lastBlocks = end == owner.end();
    if (std::find(end, owner.end(), device) != owner.end() || lastBlocks != (layers.outputDevice == device)) {
        return std::nullopt; // blocks in two runs, or the logits away from the last block
    }
    const auto shape = attentionSplitShape(model, kv, settings, context.flashAttention);
    if (!shape || owner.size() != model.layers.size()) {
        return std::nullopt;
    }
    const std::uint64_t tokens = reserveTokens(context);
    // With every block on a device (full offload) the server pins each block's first norm to its
    // device; with host blocks, and in fit's measurements, nothing does (attentionsplit.h).
    const bool pinned = tokens < 32 || (hostEnd == owner.begin() && !settings.fitMeasurement);
    AttentionSplit split;
    split.firstBlock = static_cast<std::uint32_t>(first - owner.begin());
    split.endBlock = static_cast<std::uint32_t>(end - owner.begin());
    split.start = first == owner.begin()        ? SplitStart::GraphStart
                  : *(first - 1) == kHostDevice ? SplitStart::AfterHost
                  : pinned                      ? SplitStart::AfterDevice
                                                : SplitStart::NormHandedOver;
    split.outputHere = lastBlocks;
    split.copies = copies;
    split.handsNormOn = !lastBlocks && !pinned;
    split.projectionsTogether = backend == Backend::Vulkan;
    // llama-fit-params asks for n_batch output rows; a reserve holds at most its tokens' rows.
    return attentionSplitDeviceBytes(*shape, split, tokens,
                                     std::min<std::uint64_t>(context.nOutputs, tokens));
}

} // namespace llamafit
