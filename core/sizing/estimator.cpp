// estimateMemory(): puts the sizers together per device, in the order llama-server logs them
// (model buffers, output, KV, RS, compute). Each sizer cites its llama.cpp source.
#include "core/sizing/estimator.h"

#include "core/common/units.h"
#include "core/sizing/backendcompute.h"
#include "core/sizing/computebuffer.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/overhead.h"
#include "core/sizing/recurrentstatesize.h"
#include "core/sizing/weightplacement.h"

#include <algorithm>
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
                const LayerPlacement& layers, const WeightPlan& weights, const KvPlan& kv) {
    const ResolvedContext& ctx = est.context;
    const bool hostRunsBlocks =
        gpus.empty() || std::any_of(layers.layerDevice.begin(), layers.layerDevice.end(),
                                    [](int device) { return device == kHostDevice; });
    // llama-context.cpp: pipeline parallelism when several GPUs hold every layer (-sm layer, KV
    // offloaded, no tensor overrides); the scheduler then keeps GGML_SCHED_MAX_COPIES = 4 copies
    // of the graph inputs, the masks among them.
    const bool overrides = !settings.tensorOverrides.empty() || settings.cpuMoe || settings.cpuMoeLayers > 0;
    const bool pipeline = gpus.size() > 1 && !hostRunsBlocks && layers.outputDevice != kHostDevice &&
                          settings.kvOffload && !overrides;
    const SizeRule rule{.id = SizeRuleId::ComputeGraph};
    for (int device = 0; device < static_cast<int>(gpus.size()); ++device) {
        const GpuDevice& gpu = gpus[static_cast<std::size_t>(device)];
        const bool runsBlocks = std::find(layers.layerDevice.begin(), layers.layerDevice.end(), device) !=
                                layers.layerDevice.end();
        // Op offload lands on the first GPU, the scheduler's highest-priority backend.
        const std::uint64_t opOffload = device == 0 ? weights.largestHostBlockWeightBytes : 0;
        std::uint64_t bytes = 0;
        if (runsBlocks || (opOffload > 0 && ctx.nUbatch >= 32)) {
            bytes = blockComputeBytes(model, widths, settings, ctx, kv,
                                      {gpu.backend, pipeline ? 4u : 1u, opOffload})
                        .totalBytes;
        } else if (layers.outputDevice == device) {
            bytes = outputOnlyComputeBytes(model, ctx);
        }
        if (bytes > 0) {
            addBuffer(est, device, gpu.name, Component::Compute, bytes, rule);
        }
    }
    // The CPU backend's compute buffer lives in the first GPU's pinned host memory when there is one.
    const std::string hostName = pinnedHostBufferType(gpus).value_or("CPU");
    // With GPUs the CPU backend's buffer holds the graph inputs (ggml-backend.cpp assigns inputs to
    // the last backend, the CPU): the KQ masks (f16 or f32 by generation, backendcompute.h) and two
    // n_embd x n_ubatch f32 tensors (the token-embedding rows and the embeddings input). Blocks left
    // on the CPU run their weighted ops on the GPU at a batch of 32 or more (op offload).
    std::uint64_t hostInputs = 2 * inputOnlyComputeBytes(model, ctx);
    for (const auto& cache : kv.caches) {
        hostInputs += std::uint64_t{cache.cells} * ctx.nUbatch *
                      hostMaskElementBytes(settings.graphReserve, ctx.flashAttention);
    }
    const std::uint64_t hostBytes =
        hostRunsBlocks && (gpus.empty() || ctx.nUbatch < 32)
            ? blockComputeBytes(model, widths, settings, ctx, kv, {Backend::Cpu, 1, 0}).totalBytes
            : hostInputs;
    addBuffer(est, kHostDevice, hostName, Component::Compute, hostBytes,
              hostRunsBlocks ? rule : SizeRule{.id = SizeRuleId::TokenEmbeddingLookup});
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
    if (settings.flashAttention == FlashAttention::Auto) {
        est.notes.push_back(
            ggmlTypeTraits(settings.cacheTypeV).quantized
                ? "flash attention enabled: the quantized V cache requires it"
                : "-fa auto: flash attention enabled (the CPU and the common GPU backends support it)");
    }
    if (!gpus.empty() && !settings.gpuLayers) {
        est.notes.push_back("-ngl auto: every layer on the GPUs; llama-server's --fit may offload fewer");
    }
}

// The estimate proper. `groups` null: place the weights tensor by tensor (a single estimate
// would spend more on grouping them); `widths` null: work them out here.
Result<MemoryEstimate> estimate(const ModelInfo& model, const WeightGroups* groups,
                                const ComputeWidths* widths, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus) {
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
    auto layers = placeLayers(model, settings, gpus);
    if (!layers.ok()) {
        return layers.error();
    }
    auto weights = groups != nullptr ? placeWeights(model, *groups, settings, gpus, layers.value())
                                     : placeWeights(model, settings, gpus, layers.value());
    if (!weights.ok()) {
        return weights.error();
    }
    std::optional<ComputeWidths> ownWidths;
    if (widths == nullptr) {
        widths = &ownWidths.emplace(computeWidths(model));
    }

    MemoryEstimate est;
    est.context = context.value();
    est.gpuLayers = layers->gpuLayers;
    est.devices.reserve(gpus.size() + 1);
    est.devices.push_back({"CPU", true, {}, {}});
    for (const auto& gpu : gpus) {
        est.devices.push_back({gpu.name, false, {}, {}});
    }

    for (auto& buffer : weights->buffers) {
        addBuffer(est, buffer.device, std::move(buffer.bufferType), Component::Model, buffer.bytes,
                  std::move(buffer.rule));
    }

    // llama-context.cpp output_reserve: n_vocab * max(n_seq_max, n_outputs) f32 logits, in the output
    // device's host buffer type when it has one (CUDA_Host, Vulkan_Host), else plain CPU memory.
    // A build that reserves a row per ubatch token in the graph still allocates n_seq_max rows here.
    const std::uint32_t outputRows = settings.graphReserve == GraphReserve::BeforeJune2026
                                         ? est.context.nSeqMax
                                         : std::max(est.context.nSeqMax, est.context.nOutputs);
    const std::uint64_t outputBytes = std::uint64_t{model.vocabularySize} * outputRows * 4;
    const std::string outputBuffer = layers->outputDevice == kHostDevice
                                         ? "CPU"
                                         : hostBufferOf(gpus[static_cast<std::size_t>(layers->outputDevice)]);
    addBuffer(est, kHostDevice, outputBuffer, Component::Output, outputBytes,
              SizeRule{.id = SizeRuleId::Logits});

    const KvPlan kv = sizeKvCaches(model, settings, est.context);
    const RsPlan rs = sizeRecurrentState(model, est.context);
    est.kvCaches = kv.caches;
    est.rs = rs.rs;
    addCaches(est, model, settings, gpus, layers.value(), kv, rs);
    addCompute(est, model, *widths, settings, gpus, layers.value(), weights.value(), kv);

    for (std::size_t i = 0; i < gpus.size(); ++i) {
        est.devices[i + 1].bytes.overheadBytes = overheadBytes(gpus[i]);
    }
    for (const auto& device : est.devices) {
        est.totals += device.bytes;
    }
    addNotes(est, model, settings, gpus);
    return est;
}

} // namespace

Result<MemoryEstimate> estimateMemory(const ModelInfo& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus) {
    return estimate(model, nullptr, nullptr, settings, gpus);
}

Result<MemoryEstimate> estimateMemory(const SizingModel& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus) {
    return estimate(model.model(), &model.weightGroups(), &model.computeWidths(), settings, gpus);
}

} // namespace llamafit
