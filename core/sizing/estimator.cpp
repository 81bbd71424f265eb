// estimateMemory(): puts the sizers together per device, in the order llama-server logs them
// (model buffers, output, KV, RS, compute). Each sizer cites its llama.cpp source.
#include "core/sizing/estimator.h"

#include "core/sizing/flashattentionprobe.h"

#include "core/common/units.h"
#include "core/sizing/computebuffer.h"
#include "core/sizing/computeengine.h"
#include "core/sizing/draftmodel.h"
#include "core/sizing/gpucompute.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/lorabuffers.h"
#include "core/sizing/mtpcontext.h"
#include "core/sizing/overhead.h"
#include "core/sizing/placementcache.h"
#include "core/sizing/preparedmodels.h"
#include "core/sizing/projectorbuffers.h"
#include "core/sizing/recurrentstatesize.h"
#include "core/sizing/rpcdevices.h"
#include "core/sizing/tensorsplit.h"
#include "core/sizing/weightplacement.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

namespace llamafit {
namespace {

std::size_t slot(int device) {
    return static_cast<std::size_t>(device + 1);
} // host is devices[0]

void addBuffer(MemoryEstimate& est, int device, std::string bufferType, Component component,
               std::uint64_t bytes, SizeRule rule) {
    DeviceEstimate& target = est.devices[slot(device)];
    target.bytes.add(component, bytes);
    target.buffers.push_back({std::move(bufferType), component, bytes, std::move(rule)});
}

std::string deviceBufferName(int device, const std::vector<GpuDevice>& gpus) {
    return device == kHostDevice ? std::string("CPU") : gpus[static_cast<std::size_t>(device)].name;
}

std::string hostBufferOf(const GpuDevice& gpu) {
    switch (gpu.backend) {
    case Backend::Cuda:
        return "CUDA_Host";
    case Backend::Rocm:
        return "ROCm_Host";
    case Backend::Vulkan:
        return "Vulkan_Host";
    default:
        return "CPU";
    }
}

void addCaches(MemoryEstimate& est, const ModelInfo& model, const ServerSettings& settings,
               const std::vector<GpuDevice>& gpus, const LayerPlacement& layers, const KvPlan& kv,
               const RsPlan& rs) {
    // llama-kv-cache.cpp / llama-memory-recurrent.cpp: each layer's tensors go to dev_layer(il)
    // with offload (the default); -nkvo puts them all in the CPU buffer. One buffer per device
    // and cache, so iSWA models log two KV lines per device.
    for (const auto& cache : kv.caches) {
        for (int device = kHostDevice; device < static_cast<int>(gpus.size()); ++device) {
            std::uint64_t bytes = 0;
            for (std::size_t il = 0; il < model.layers.size(); ++il) {
                const int owner = settings.kvOffload ? layers.layerDevice[il] : kHostDevice;
                if (owner == device && kv.layerBytes[il] > 0 && kv.layerInSwaCache[il] == cache.swa) {
                    bytes += kv.layerBytes[il];
                }
            }
            if (bytes > 0) {
                addBuffer(est, device, deviceBufferName(device, gpus), Component::Kv, bytes,
                          SizeRule{.id = SizeRuleId::KvCache,
                                   .swa = cache.swa,
                                   .cells = cache.cells,
                                   .streams = cache.streams,
                                   .typeK = cache.typeK,
                                   .typeV = cache.typeV});
            }
        }
    }
    for (int device = kHostDevice; device < static_cast<int>(gpus.size()); ++device) {
        std::uint64_t bytes = 0;
        for (std::size_t il = 0; il < model.layers.size(); ++il) {
            const int owner = settings.kvOffload ? layers.layerDevice[il] : kHostDevice;
            bytes += owner == device ? rs.layerBytes[il] : 0;
        }
        if (bytes > 0) {
            addBuffer(est, device, deviceBufferName(device, gpus), Component::Rs, bytes,
                      SizeRule{.id = SizeRuleId::RecurrentState, .cells = rs.rs.cells});
        }
    }
}

void addCompute(MemoryEstimate& est, const ModelInfo& model, const ComputeWidths& widths,
                const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
                const LayerPlacement& layers, const KvPlan& kv, const std::vector<LoraAdapterInfo>& adapters,
                ComputePlanCache* plans) {
    const SizeRule rule{.id = SizeRuleId::ComputeGraph};
    // llama.cpp's own graph, scheduler and allocator where the engine covers the case
    // (computeengine.h); the closed forms below elsewhere.
    const Result<GpuComputeBuffers> engine =
        engineComputeBuffers(model, settings, est.context, kv, gpus, layers, adapters, plans);
    if (engine.ok()) {
        est.computeApproximation.clear();
        for (std::size_t device = 0; device < gpus.size(); ++device) {
            if (engine->deviceBytes[device] > 0) {
                addBuffer(est, static_cast<int>(device), gpus[device].name, Component::Compute,
                          engine->deviceBytes[device], rule);
            }
        }
        addBuffer(est, kHostDevice, gpus.empty() ? std::string("CPU") : hostBufferOf(gpus.front()),
                  Component::Compute, engine->hostBytes, rule);
        return;
    }
    est.computeApproximation = engine.error().message;
    if (engine.error().code == "sizing.unschedulable") {
        est.serverAborts = engine.error().message;
        est.computeApproximation = "llama-server aborts at these settings";
        // A cache tensor itself over the device's limit aborts on its leaf ("(NONE)"); a copy into
        // the cache ("(CPY)") aborts because what it copies from, a tensor of the ubatch (a
        // recurrent layer's conv input), is over the limit.
        const bool ubatchTensor = est.serverAborts.ends_with("(CPY)");
        est.notes.push_back(
            "llama-server aborts at these settings: " + est.serverAborts + " (ggml-backend.cpp; " +
            (ubatchTensor ? "lower -ub: the ubatch's tensor that is copied into the cache is over "
                            "the device's buffer limit"
                          : "lower -c, quantize the cache with -ctk/-ctv, or keep it in host "
                            "memory with -nkvo") +
            "); the compute buffers shown are the closed form's");
    }
    if (gpus.empty()) {
        addBuffer(
            est, kHostDevice, "CPU", Component::Compute,
            blockComputeBytes(model, widths, settings, est.context, kv, {Backend::Cpu, 1, 0}).totalBytes,
            rule);
        return;
    }
    const GpuComputeBuffers buffers =
        gpuComputeBuffers(model, widths, settings, est.context, kv, gpus, layers);
    for (std::size_t device = 0; device < gpus.size(); ++device) {
        if (buffers.deviceBytes[device] > 0) {
            addBuffer(est, static_cast<int>(device), gpus[device].name, Component::Compute,
                      buffers.deviceBytes[device], rule);
        }
    }
    // llama-context.cpp: the CPU backend's compute buffer uses the host buffer type of the first
    // device only ("use the host buffer of the first device"); with RPC servers first (no host
    // buffer type) it stays plain CPU memory even next to a CUDA or Vulkan GPU.
    addBuffer(est, kHostDevice, hostBufferOf(gpus.front()), Component::Compute, buffers.hostBytes,
              buffers.hostRunsBlocks ? rule : SizeRule{.id = SizeRuleId::TokenEmbeddingLookup});
}

// The MTP draft context's buffers (mtpcontext.h), on the device of the NextN block's layer.
void addMtpContext(MemoryEstimate& est, const ModelInfo& model, const ServerSettings& settings,
                   const std::vector<GpuDevice>& gpus, const LayerPlacement& layers) {
    const MtpContextBuffers mtp = sizeMtpContext(model, settings, est.context);
    const int device = settings.kvOffload ? layers.layerDevice[model.trunkLayerCount()] : kHostDevice;
    const auto add = [&](int where, std::string bufferType, Component component, std::uint64_t bytes,
                         SizeRule rule) {
        addBuffer(est, where, std::move(bufferType), component, bytes, std::move(rule));
        est.devices[slot(where)].buffers.back().owner = BufferOwner::MtpDraft;
    };
    add(kHostDevice,
        layers.outputDevice == kHostDevice
            ? "CPU"
            : hostBufferOf(gpus[static_cast<std::size_t>(layers.outputDevice)]),
        Component::Output, mtp.outputBytes, SizeRule{.id = SizeRuleId::Logits});
    add(device, deviceBufferName(device, gpus), Component::Kv, mtp.kvBytes,
        SizeRule{.id = SizeRuleId::KvCache,
                 .cells = mtp.kv.cells,
                 .streams = mtp.kv.streams,
                 .typeK = mtp.kv.typeK,
                 .typeV = mtp.kv.typeV});
    add(device, deviceBufferName(device, gpus), Component::Compute, mtp.computeBytes,
        SizeRule{.id = SizeRuleId::ComputeGraph});
    est.mtp = MtpContextEstimate{mtp.context, mtp.kv};
    if (!gpus.empty()) {
        est.notes.push_back("the MTP draft context's buffers are placed on the NextN block's device; "
                            "measured on the CPU backend only");
    }
}

std::string mibText(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", toMiB(bytes));
    return text;
}

// The weights a GPU's limits keep in host memory: llama.cpp says nothing about them in its log.
void addLimitNotes(MemoryEstimate& est, const ModelInfo& model, const std::vector<GpuDevice>& gpus,
                   const LayerPlacement& layers) {
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        const std::optional<std::uint64_t> limit = gpus[i].limits.largestOpTensorBytes();
        if (!limit) {
            continue;
        }
        const int device = static_cast<int>(i);
        std::uint64_t bytes = 0;
        std::size_t count = 0;
        for (const auto& tensor : model.tensors) {
            const bool layerHere = tensor.role == TensorRole::Layer && tensor.layer >= 0 &&
                                   static_cast<std::size_t>(tensor.layer) < layers.layerDevice.size() &&
                                   layers.layerDevice[static_cast<std::size_t>(tensor.layer)] == device;
            const bool outputHere = (tensor.role == TensorRole::Output ||
                                     (model.tiedOutput && tensor.role == TensorRole::TokenEmbedding)) &&
                                    layers.outputDevice == device;
            if ((layerHere || outputHere) && tensor.bytes > *limit) {
                bytes += tensor.bytes;
                ++count;
            }
        }
        if (count > 0) {
            est.notes.push_back(std::to_string(count) + " weight tensor(s), " + mibText(bytes) +
                                " MiB, over " + gpus[i].name + "'s " + mibText(*limit) +
                                " MiB buffer limit stay in host memory and their ops run on the CPU "
                                "(ggml-vulkan refuses them; llama-server logs nothing about it)");
        }
    }
}

void addNotes(MemoryEstimate& est, const ModelInfo& model, const ServerSettings& settings,
              const std::vector<GpuDevice>& gpus) {
    if (!settings.contextTokens) {
        est.notes.push_back(
            "-c not set: sized at the training context (" + std::to_string(model.trainingContext) +
            " tokens); llama-server's --fit (on by default) may shrink it to fit free memory");
    }
    if (!settings.parallelSlots) {
        est.notes.push_back("-np auto: 4 slots sharing one unified KV cache (llama-server default)");
    }
    if (settings.flashAttention == FlashAttention::Auto && !est.context.flashAttention) {
        est.notes.push_back("-fa auto: flash attention disabled, as llama-server's probe decides for this "
                            "layer split (its last host layer attends, and the scheduler puts that attention "
                            "on the GPU)");
    } else if (settings.flashAttention == FlashAttention::Auto) {
        est.notes.push_back(
            ggmlTypeTraits(settings.cacheTypeV).quantized
                ? "flash attention enabled: the quantized V cache requires it"
                : "-fa auto: flash attention enabled (the CPU and the common GPU backends support it)");
    }
    for (std::string& note : speculativeNotes(settings.speculative)) {
        est.notes.push_back(std::move(note));
    }
    if (!gpus.empty() && !settings.gpuLayers) {
        est.notes.push_back("-ngl auto: every layer on the GPUs; llama-server's --fit may offload fewer");
    }
    const std::size_t ignored = ignoredSplitEntries(settings.tensorSplit, gpus.size());
    if (!gpus.empty() && ignored > 0) {
        est.notes.push_back("-ts gives " + std::to_string(settings.tensorSplit.size()) + " shares for " +
                            std::to_string(gpus.size()) + " device(s): llama.cpp uses the first " +
                            std::to_string(gpus.size()) + " and ignores the last " + std::to_string(ignored));
    }
}

// The LoRA adapters' weights (lorabuffers.h), as model buffers of their own.
void addLoraAdapters(MemoryEstimate& est, const std::vector<LoraAdapterInfo>* adapters,
                     const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
                     const LayerPlacement& layers) {
    if (adapters == nullptr || adapters->size() != settings.loraAdapters.size()) {
        if (!settings.loraAdapters.empty()) {
            est.notes.push_back("the LoRA adapters' files were not read: their weights are not estimated");
        }
        return;
    }
    for (LoraBuffer& buffer : loraBuffers(*adapters, settings, gpus, layers)) {
        const SizeRuleId rule = buffer.device != kHostDevice ? SizeRuleId::OffloadedWeights
                                : buffer.bufferType == "CPU" ? SizeRuleId::CopiedHostWeights
                                                             : SizeRuleId::MappedHostWeights;
        addBuffer(est, buffer.device, std::move(buffer.bufferType), Component::Model, buffer.bytes,
                  SizeRule{.id = rule});
        est.devices[slot(buffer.device)].buffers.back().owner = BufferOwner::LoraAdapter;
    }
}

Result<MemoryEstimate> estimate(const ModelInfo& model, const WeightGroups* groups,
                                const ComputeWidths* widths, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus,
                                const CompanionModels* companions = nullptr,
                                ComputePlanCache* plans = nullptr, PlacementCache* placements = nullptr);

// The draft model of -md (draftmodel.h): a whole second estimate, its model and context buffers
// added to the main one's devices with owner DraftModel (the devices' overhead counted once).
Result<bool> addDraftModel(MemoryEstimate& est, const CompanionModels* companions,
                           const ServerSettings& settings, const std::vector<GpuDevice>& gpus) {
    if (!loadsDraftModel(settings)) {
        return true;
    }
    if (companions == nullptr || !companions->draftModel) {
        est.notes.push_back(
            "the draft model's file was not read: its weights, KV and compute are not estimated");
        return true;
    }
    // From the process's prepared draft model (preparedmodels.h): a sweep or a slider drag with -md
    // estimates the same draft on every step.
    Result<MemoryEstimate> draft =
        estimateMemory(*preparedModelFor(*companions->draftModel, {}), draftContextSettings(settings), gpus);
    if (!draft) {
        Error error = draft.error();
        error.message = "draft model: " + error.message;
        return error;
    }
    for (std::size_t device = 0; device < draft->devices.size(); ++device) {
        for (BufferEstimate& buffer : draft->devices[device].buffers) {
            addBuffer(est, static_cast<int>(device) - 1, std::move(buffer.bufferType), buffer.component,
                      buffer.bytes, std::move(buffer.rule));
            est.devices[device].buffers.back().owner = BufferOwner::DraftModel;
        }
    }
    est.draft = DraftContextEstimate{draft->context, draft->kvCaches, draft->rs, draft->gpuLayers};
    if (!gpus.empty()) {
        est.notes.push_back("the draft model is placed with -ngld on the main model's devices; "
                            "measured on the CPU backend only");
    }
    return true;
}

// The --mmproj projector's weights and warm-up compute (projectorbuffers.h), when its file was read.
Result<MemoryEstimate> addProjector(MemoryEstimate est, const ModelInfo& model,
                                    const CompanionModels* companions, const ServerSettings& settings,
                                    const std::vector<GpuDevice>& gpus) {
    if (settings.projector.path.empty()) {
        return est;
    }
    if (companions == nullptr || !companions->projector) {
        est.notes.push_back(
            "the vision projector's file was not read: its weights and compute are not estimated");
        return est;
    }
    return withProjector(std::move(est), model, *companions->projector, settings, gpus);
}

// Which device runs each layer and which buffer holds each weight: from the prepared model's
// cache where it holds these settings (placementcache.h), else placed here. `groups` null: place
// the weights tensor by tensor.
Result<std::shared_ptr<const ModelPlacement>>
placeModel(const ModelInfo& model, const ModelInfo& loaded, const WeightGroups* groups,
           const ServerSettings& settings, const std::vector<GpuDevice>& gpus, PlacementCache* placements) {
    if (placements != nullptr) {
        if (std::shared_ptr<const ModelPlacement> known = placements->find(settings, gpus)) {
            return known;
        }
    }
    auto layers = placeLayers(model, settings, gpus);
    if (!layers.ok()) {
        return layers.error();
    }
    auto weights = groups != nullptr ? placeWeights(model, *groups, settings, gpus, layers.value())
                                     : placeWeights(loaded, settings, gpus, layers.value());
    if (!weights.ok()) {
        return weights.error();
    }
    auto placed = std::make_shared<const ModelPlacement>(
        ModelPlacement{std::move(layers.value()), std::move(weights.value())});
    if (placements != nullptr) {
        placements->add(settings, gpus, placed);
    }
    return placed;
}

// The estimate proper. `groups` null: place the weights tensor by tensor (a single estimate
// would spend more on grouping them); `widths` null: work them out here.
// `plans` and `placements`: the prepared model's caches (computeplancache.h, placementcache.h),
// or none.
Result<MemoryEstimate> estimate(const ModelInfo& model, const WeightGroups* groups,
                                const ComputeWidths* widths, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus, const CompanionModels* companions,
                                ComputePlanCache* plans, PlacementCache* placements) {
    const std::vector<LoraAdapterInfo>* adapters =
        companions != nullptr ? &companions->loraAdapters : nullptr;
    const std::vector<LoraAdapterInfo> noAdapters;
    const std::vector<LoraAdapterInfo>& readAdapters = adapters != nullptr ? *adapters : noAdapters;
    if (auto valid = validateSettings(model, settings); !valid.ok()) {
        return valid.error();
    }
    auto context = resolveContext(model, settings);
    if (!context.ok()) {
        return context.error();
    }
    if (model.layers.size() != model.blockCount) {
        return makeError("settings.bad-value", "model has " + std::to_string(model.layers.size()) +
                                                   " layer entries for " + std::to_string(model.blockCount) +
                                                   " blocks");
    }
    if (auto rpc = checkRpcDevices(settings, gpus); !rpc.ok()) {
        return rpc.error();
    }
    if (auto mtp = checkMtpModel(model, settings); !mtp.ok()) {
        return mtp.error();
    }
    for (std::size_t i = 0; adapters != nullptr && i < adapters->size(); ++i) {
        if (auto fits = checkLoraAdapter(model, (*adapters)[i]); !fits.ok()) {
            return fits.error();
        }
    }
    // Without draft-mtp the loader skips the NextN blocks' tensors (mtpcontext.h).
    std::optional<ModelInfo> trunkOnly;
    if (skipsNextnTensors(model, settings)) {
        trunkOnly.emplace(withoutNextnTensors(model));
        groups = nullptr; // the prepared groups hold the NextN tensors
    }
    const ModelInfo& loaded = trunkOnly ? *trunkOnly : model;
    const auto placed = placeModel(model, loaded, groups, settings, gpus, placements);
    if (!placed.ok()) {
        return placed.error();
    }
    const LayerPlacement& layers = (*placed)->layers;
    std::optional<ComputeWidths> ownWidths;
    if (widths == nullptr) {
        widths = &ownWidths.emplace(computeWidths(model));
    }

    MemoryEstimate est;
    est.context = context.value();
    // -fa auto: llama.cpp's probe replayed by the engine where it covers the case, the measured
    // rules of flashattentionprobe.h elsewhere. A quantized V forces flash attention on before any
    // probe (contextresolver.cpp), so nothing turns it off then.
    if (settings.flashAttention == FlashAttention::Auto && est.context.flashAttention &&
        !ggmlTypeTraits(settings.cacheTypeV).quantized) {
        const std::optional<bool> probed =
            engineKeepsFlashAttention(model, settings, est.context, gpus, layers, readAdapters, plans);
        est.context.flashAttention =
            probed ? *probed : flashAttentionAfterProbe(model, settings, layers, est.context.flashAttention);
    }
    est.gpuLayers = layers.gpuLayers;
    est.devices.reserve(gpus.size() + 1);
    est.devices.push_back({"CPU", true, {}, {}});
    for (const auto& gpu : gpus) {
        est.devices.push_back({gpu.name, false, {}, {}});
    }
    // A device holds a few buffers: model, output, KV (two with SWA), RS, compute.
    for (DeviceEstimate& device : est.devices) {
        device.buffers.reserve(8);
    }

    for (const WeightBuffer& buffer : (*placed)->weights.buffers) {
        addBuffer(est, buffer.device, buffer.bufferType, Component::Model, buffer.bytes, buffer.rule);
    }

    addLoraAdapters(est, adapters, settings, gpus, layers);

    // llama-context.cpp output_reserve: n_vocab f32 logits for one output per sequence
    // (n_outputs_max_per_seq = 1), in the output device's host buffer type when it has one
    // (CUDA_Host, Vulkan_Host), else plain CPU memory. Measured: 0.49 MiB for a 128256-token
    // vocabulary with -np 1 in llama-server and in llama-fit-params (n_outputs_max 2048) alike.
    const std::uint64_t outputBytes = std::uint64_t{model.vocabularySize} * est.context.nSeqMax * 4;
    const std::string outputBuffer = layers.outputDevice == kHostDevice
                                         ? "CPU"
                                         : hostBufferOf(gpus[static_cast<std::size_t>(layers.outputDevice)]);
    addBuffer(est, kHostDevice, outputBuffer, Component::Output, outputBytes,
              SizeRule{.id = SizeRuleId::Logits});

    const KvPlan kv = sizeKvCaches(model, settings, est.context);
    const RsPlan rs = sizeRecurrentState(model, est.context);
    est.kvCaches = kv.caches;
    est.rs = rs.rs;
    addCaches(est, model, settings, gpus, layers, kv, rs);
    addCompute(est, model, *widths, settings, gpus, layers, kv, readAdapters, plans);
    if (buildsMtpContext(settings)) {
        addMtpContext(est, model, settings, gpus, layers);
    }
    if (auto draft = addDraftModel(est, companions, settings, gpus); !draft.ok()) {
        return draft.error();
    }

    for (std::size_t i = 0; i < gpus.size(); ++i) {
        est.devices[i + 1].bytes.overheadBytes = overheadBytes(gpus[i]);
    }
    for (const auto& device : est.devices) {
        est.totals += device.bytes;
    }
    addNotes(est, model, settings, gpus);
    addLimitNotes(est, model, gpus, layers);
    return addProjector(std::move(est), model, companions, settings, gpus);
}

} // namespace

Result<MemoryEstimate> estimateMemory(const ModelInfo& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus) {
    return estimateMemory(model, settings, gpus, CompanionModels{});
}

Result<MemoryEstimate> estimateMemory(const ModelInfo& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus, const CompanionModels& companions) {
    return estimateMemory(*preparedModelFor(model, companions), settings, gpus);
}

Result<MemoryEstimate> estimateMemoryUnprepared(const ModelInfo& model, const ServerSettings& settings,
                                                const std::vector<GpuDevice>& gpus,
                                                const CompanionModels& companions) {
    return estimate(model, nullptr, nullptr, settings, gpus, &companions);
}

Result<MemoryEstimate> estimateMemory(const SizingModel& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus) {
    return estimate(model.model(), &model.weightGroups(), &model.computeWidths(), settings, gpus,
                    &model.companions(), &model.planCache(), &model.placementCache());
}

} // namespace llamafit
