// The sizing engine for one estimate; see computeengine.h.
#include "core/sizing/computeengine.h"

#include "core/sizing/allocator/graphallocator.h"
#include "core/sizing/computeplancache.h"
#include "core/sizing/computeplancompiler.h"
#include "core/sizing/graph/llmgraph.h"
#include "core/sizing/graph/modelgraph.h"
#include "core/sizing/recurrentstatesize.h"
#include "core/sizing/scheduler/cpubackend.h"
#include "core/sizing/scheduler/cudabackend.h"
#include "core/sizing/scheduler/graphsplit.h"
#include "core/sizing/scheduler/metalbackend.h"
#include "core/sizing/scheduler/rpcbackend.h"
#include "core/sizing/scheduler/vulkanbackend.h"
#include "core/sizing/weightplacement.h"

#include <algorithm>
#include <map>
#include <memory>

namespace llamafit {
namespace {

// The Vulkan device's properties the backend table reads: the limits the estimate knows, the rest
// as the table's defaults. A limit the estimate does not know is no limit, as for the weights'
// placement (DeviceLimits: nullopt = none): no op is refused for its size, the buffers keep
// ggml-vulkan's 1 GiB suballocation block.
scheduler::VulkanDevice vulkanDeviceOf(const GpuDevice& gpu) {
    constexpr std::uint64_t kNoLimit = UINT64_MAX / 4;
    scheduler::VulkanDevice device;
    device.name = gpu.name;
    device.maxStorageBufferRange = gpu.limits.maxStorageBufferRangeBytes.value_or(kNoLimit);
    if (gpu.limits.maxAllocationBytes) {
        device.maxMemoryAllocationSize = *gpu.limits.maxAllocationBytes;
    } else {
        device.maxMemoryAllocationSize = kNoLimit;
        device.maxBufferSize = kNoLimit;
    }
    return device;
}

// The CUDA or HIP device the backend table reads: the estimate's name for it and its index among
// the devices of its backend. The estimate knows no compute capability: the table's default
// architecture (Ada for CUDA, RDNA3 for ROCm), which only picks a flash attention kernel.
scheduler::CudaDevice cudaDeviceOf(const GpuDevice& gpu, int index, std::uint32_t llamaBuild) {
    scheduler::CudaDevice device;
    device.index = index;
    device.name = gpu.name;
    device.hip = gpu.backend == Backend::Rocm;
    device.llamaBuild = llamaBuild;
    if (device.hip) {
        device.computeCapability = scheduler::cudacc::kRdna3;
    }
    return device;
}

// llama-context.cpp: the backends in device order (llama.cpp's: the RPC servers first, then the
// local GPUs; the estimate's GPU list already is in that order, rpcdevices.h checkRpcDevices),
// then the CPU, whose compute buffer takes the first device's host buffer type: Vulkan's and
// CUDA's pinned one; none for an RPC or a Metal device (ggml-rpc.cpp's and ggml-metal's devices
// have no get_host_buffer_type), so plain CPU memory. nullopt where a device has no table.
std::optional<std::vector<scheduler::SchedulerBackend>> backendsFor(const std::vector<GpuDevice>& gpus,
                                                                    std::uint32_t llamaBuild) {
    std::vector<scheduler::SchedulerBackend> backends;
    std::map<Backend, int> indexOfBackend;
    std::optional<scheduler::BufferType> hostBufferType;
    for (const GpuDevice& gpu : gpus) {
        const int index = indexOfBackend[gpu.backend]++;
        std::optional<scheduler::BufferType> host;
        if (gpu.backend == Backend::Vulkan) {
            backends.push_back(scheduler::vulkanBackend(vulkanDeviceOf(gpu)));
            host = scheduler::vulkanHostBufferType(vulkanDeviceOf(gpu));
        } else if (gpu.backend == Backend::Cuda || gpu.backend == Backend::Rocm) {
            backends.push_back(scheduler::cudaBackend(cudaDeviceOf(gpu, index, llamaBuild)));
            host = scheduler::cudaHostBufferType(cudaDeviceOf(gpu, index, llamaBuild));
        } else if (gpu.backend == Backend::Metal) {
            scheduler::MetalDevice device;
            device.index = index;
            device.name = gpu.name;
            device.llamaBuild = llamaBuild;
            backends.push_back(scheduler::metalBackend(device));
        } else if (gpu.backend == Backend::Rpc) {
            // A ggml-rpc-server's buffer type reports its backend's alignment and max size; the
            // estimate knows neither, and takes ggml-cpu's (rpcbackend.h).
            backends.push_back(scheduler::rpcBackend({gpu.name}));
        } else {
            return std::nullopt;
        }
        if (&gpu == &gpus.front()) {
            hostBufferType = host;
        }
    }
    backends.push_back(hostBufferType ? scheduler::cpuBackend(*hostBufferType) : scheduler::cpuBackend());
    return backends;
}

// ggml_backend_buffer_is_host: the CPU's own and the pinned host types; not a GPU's buffer, and
// not ggml-cpu's repacked extra type.
graph::Buffer weightBuffer(const TensorBuffer& buffer) {
    const bool host = buffer.device == kHostDevice && buffer.bufferType != "CPU_REPACK";
    return {buffer.bufferType, graph::BufferUsage::Weights, host};
}

// llama-adapter.cpp llama_adapter_lora_init_impl: each "<weight>.lora_a" / ".lora_b" pair of the
// adapters llama-context.cpp set_adapters_lora keeps (a non-zero scale), in the buffer type of
// the weight it adapts, ggml-cpu's extra (repacked) type falling back to the CPU's own. An
// experts' pair is [n, rank, n_expert] like its weight (build_lora_mm_id multiplies it per expert).
std::vector<graph::LoraWeight> loraWeightsFor(const ModelInfo& model, const ServerSettings& settings,
                                              const std::vector<LoraAdapterInfo>& adapters,
                                              const std::vector<graph::Buffer>& weightBuffers) {
    std::vector<graph::LoraWeight> out;
    std::map<std::string_view, std::size_t> weightIndex;
    for (std::size_t i = 0; i < model.tensors.size(); ++i) {
        weightIndex.emplace(model.tensors[i].name, i);
    }
    const auto loraTensor = [&](const TensorSummary& tensor, const TensorSummary& adapted) {
        const auto values = static_cast<std::int64_t>(tensor.rowValues);
        const auto rows = static_cast<std::int64_t>(tensor.rows());
        graph::LoraTensor lora{tensor.name, tensor.type, {values, rows, 1, 1}};
        if (adapted.expert && model.expertCount > 0 && rows % model.expertCount == 0) {
            lora.ne = {values, rows / model.expertCount, model.expertCount, 1};
        }
        return lora;
    };
    for (std::size_t n = 0; n < adapters.size() && n < settings.loraAdapters.size(); ++n) {
        if (settings.loraAdapters[n].scale == 0.0) {
            continue;
        }
        for (const TensorSummary& a : adapters[n].tensors) {
            if (!a.name.ends_with(".lora_a")) {
                continue;
            }
            const std::string base = a.name.substr(0, a.name.size() - 7);
            const auto b = std::find_if(adapters[n].tensors.begin(), adapters[n].tensors.end(),
                                        [&](const TensorSummary& t) { return t.name == base + ".lora_b"; });
            const auto weight = weightIndex.find(base);
            if (b == adapters[n].tensors.end() || weight == weightIndex.end() ||
                weight->second >= weightBuffers.size()) {
                continue; // llama.cpp refuses such an adapter before any graph
            }
            const TensorSummary& adapted = model.tensors[weight->second];
            graph::Buffer buffer = weightBuffers[weight->second];
            if (buffer.bufferType == "CPU_REPACK") {
                buffer = {"CPU", graph::BufferUsage::Weights, true};
            }
            out.push_back({weight->second, loraTensor(a, adapted), loraTensor(*b, adapted), buffer});
        }
    }
    return out;
}

} // namespace

std::optional<graph::GraphParams> graphParamsFor(const ModelInfo& model, const ServerSettings& settings,
                                                 const ResolvedContext& context, const KvPlan& kv,
                                                 const std::vector<GpuDevice>& gpus,
                                                 const LayerPlacement& layers,
                                                 const std::vector<LoraAdapterInfo>& adapters) {
    const Result<TensorPlacements> weights = placeEachWeight(model, settings, gpus, layers);
    if (!weights.ok()) {
        return std::nullopt;
    }
    const int cpu = static_cast<int>(gpus.size());
    graph::GraphParams params;
    params.llamaBuild = settings.llamaBuild;
    for (const KvCacheEstimate& cache : kv.caches) {
        (cache.swa ? params.kvSwaCells : params.kvCells) = cache.cells;
        params.kvStreams = cache.streams;
    }
    params.flashAttention = context.flashAttention;
    params.transposedValueCache = !context.flashAttention && context.valueCacheTransposed;
    params.cacheTypeK = settings.cacheTypeK;
    params.cacheTypeV = settings.cacheTypeV;
    for (const TensorBuffer& buffer : weights->tensors) {
        params.weightBuffers.push_back(weightBuffer(buffer));
    }
    if (weights->tiedOutput) {
        params.tiedOutputBuffer = weightBuffer(*weights->tiedOutput);
    }
    for (const TensorBuffer& buffer : weights->ropeFactors) {
        params.ropeFactorBuffers.push_back(weightBuffer(buffer));
    }
    // llama-kv-cache.cpp: a layer's K/V live on its device, in plain CPU memory for a host layer
    // or with -nkvo.
    params.offloadKqv = settings.kvOffload;
    params.cpuBackend = cpu;
    for (std::size_t il = 0; il < model.layers.size(); ++il) {
        const int device = il < layers.layerDevice.size() ? layers.layerDevice[il] : kHostDevice;
        params.kvBuffers.push_back(
            device == kHostDevice || !settings.kvOffload
                ? graph::Buffer{"CPU", graph::BufferUsage::Any, true}
                : graph::Buffer{gpus[static_cast<std::size_t>(device)].name, graph::BufferUsage::Any, false});
        params.layerBackends.push_back(device == kHostDevice ? cpu : device);
    }
    // llama-context.cpp graph_get_cb's "full_offload": model.n_gpu_layers() > n_layer, the -ngl
    // asked for (auto and all count every layer and the output) whatever devices there are.
    params.fullOffload =
        settings.gpuLayers.value_or(GpuLayers::automatic()).requestedLayers(model.trunkLayerCount()) >
        model.trunkLayerCount();
    // llama-model.cpp create_memory: the recurrent state (llama-memory-recurrent.cpp) is offloaded
    // as the KV cache is (cparams.offload_kqv, each layer on its device), f32 rows of
    // recurrentstatesize.h's geometry.
    if (model.hasRecurrentLayers()) {
        const RsPlan rs = sizeRecurrentState(model, context);
        params.rsCells = rs.rs.cells;
        params.rsRows = rs.rs.cells * (1 + rs.rs.rsSeq);
        params.rsBuffers = params.kvBuffers;
    }
    params.loraWeights = loraWeightsFor(model, settings, adapters, params.weightBuffers);

    return params;
}

// llama-context.cpp (llama_context::llama_context): pipeline parallelism, and with it
// GGML_SCHED_MAX_COPIES (4) copies of every split input, when there is more than one device,
// every layer and the output are offloaded (model.n_gpu_layers() > n_layer), the split is by
// layer (the only mode modelled), the KV cache is offloaded, no tensor override is set (-ot,
// --cpu-moe and -ncmoe all add one), and every non-CPU device reports async compute and events
// (the get_props of ggml-rpc.cpp, ggml-vulkan.cpp, ggml-metal.cpp and ggml-cuda.cu all do, CUDA's
// unless built with GGML_CUDA_NO_PEER_COPY).
int schedulerCopies(const ServerSettings& settings, const std::vector<GpuDevice>& gpus, bool fullOffload) {
    constexpr int kMaxCopies = 4; // ggml-backend.h GGML_SCHED_MAX_COPIES
    const bool overrides = !settings.tensorOverrides.empty() || settings.cpuMoe || settings.cpuMoeLayers > 0;
    return gpus.size() > 1 && fullOffload && settings.kvOffload && !overrides ? kMaxCopies : 1;
}

std::string engineCoverageGap(const ModelInfo& model, const ServerSettings& settings,
                              const std::vector<GpuDevice>& gpus,
                              const std::vector<LoraAdapterInfo>& adapters) {
    if (!graph::hasGraphBuilder(model)) {
        return "no graph for " + model.architecture;
    }
    for (const GpuDevice& gpu : gpus) {
        if (gpu.backend == Backend::Cpu || gpu.backend == Backend::Other) {
            return "no backend table for " + gpu.name;
        }
    }
    // The adapters' pairs come from their files: without them the graph's LoRA branches are unknown.
    if (adapters.size() != settings.loraAdapters.size()) {
        return "the LoRA adapters' files were not read";
    }
    return "";
}

namespace {

std::optional<EngineSetup> engineSetup(const ModelInfo& model, const ServerSettings& settings,
                                       const ResolvedContext& context, const KvPlan& kv,
                                       const std::vector<GpuDevice>& gpus, const LayerPlacement& layers,
                                       const std::vector<LoraAdapterInfo>& adapters) {
    if (!engineCoverageGap(model, settings, gpus, adapters).empty()) {
        return std::nullopt;
    }
    std::optional<std::vector<scheduler::SchedulerBackend>> backends = backendsFor(gpus, settings.llamaBuild);
    if (!backends) {
        return std::nullopt;
    }
    std::optional<graph::GraphParams> params =
        graphParamsFor(model, settings, context, kv, gpus, layers, adapters);
    if (!params) {
        return std::nullopt;
    }
    EngineSetup setup{std::move(*backends), std::move(*params), {}};
    setup.options.copies = schedulerCopies(settings, gpus, setup.params.fullOffload);
    return setup;
}

std::vector<graph::ReserveShape> reservesFor(const ResolvedContext& context, const ServerSettings& settings) {
    std::vector<graph::ReserveShape> reserves =
        graph::reserveShapes(context.nUbatch, context.nSeqMax, context.nOutputs);
    if (settings.fitMeasurement) {
        // common/fit.cpp measures a context created with no_alloc. llama_context then sizes the
        // prompt graph alone (llama-context.cpp sched_reserve: graph_reserve with split_only and
        // ggml_backend_sched_reserve_size, whose ggml_gallocr_reserve_n_size resets every chunk
        // first, ggml-alloc.c) and only splits the token graph after it; the sizes it keeps are
        // what llama_get_memory_breakdown reports as compute.
        reserves.resize(1);
    }
    return reserves;
}

GpuComputeBuffers computeBuffersOf(const std::vector<std::uint64_t>& reserved, std::size_t gpuCount) {
    GpuComputeBuffers out;
    out.deviceBytes.assign(reserved.begin(), reserved.begin() + static_cast<std::ptrdiff_t>(gpuCount));
    out.hostBytes = reserved.back();
    out.hostRunsBlocks = true;
    return out;
}

} // namespace

Result<GpuComputeBuffers>
engineComputeBuffers(const ModelInfo& model, const ServerSettings& settings, const ResolvedContext& context,
                     const KvPlan& kv, const std::vector<GpuDevice>& gpus, const LayerPlacement& layers,
                     const std::vector<LoraAdapterInfo>& adapters, ComputePlanCache* plans) {
    const auto answer = [&](const PlannedCompute& planned) -> Result<GpuComputeBuffers> {
        if (planned.refusal) {
            return *planned.refusal;
        }
        return computeBuffersOf(planned.bytes, gpus.size());
    };
    const std::uint32_t cells = planCells(kv.caches);
    const ComputePlanQuery query{
        ComputePlanQuery::Kind::ComputeBuffers, settings, context, kv.caches, gpus, layers, adapters};
    if (plans != nullptr) {
        if (const std::optional<PlannedCompute> planned = plans->find(query, cells)) {
            return answer(*planned);
        }
    }
    const std::optional<EngineSetup> setup =
        engineSetup(model, settings, context, kv, gpus, layers, adapters);
    if (!setup) {
        const std::string gap = engineCoverageGap(model, settings, gpus, adapters);
        return makeError("sizing.no-graph", gap.empty() ? "the engine could not build this graph" : gap);
    }
    std::vector<scheduler::BufferType> bufferTypes;
    for (const scheduler::SchedulerBackend& backend : setup->backends) {
        bufferTypes.push_back(backend.computeBufferType);
    }
    const std::vector<graph::ReserveShape> reserves = reservesFor(context, settings);
    if (plans != nullptr) {
        plans->add(query,
                   compileComputeBuffers(model, *setup, reserves, settings.fitMeasurement, bufferTypes));
        if (const std::optional<PlannedCompute> planned = plans->find(query, cells)) {
            return answer(*planned);
        }
        return makeError("sizing.no-graph", "the plan compiled for these cells was dropped");
    }
    const auto scheduled =
        scheduleReserves(model, *setup, reserves, settings.fitMeasurement, setup->params.kvCells);
    if (!scheduled) {
        return scheduled.error();
    }
    // ggml-alloc only grows a buffer: each keeps the largest reserve's size.
    std::vector<std::uint64_t> reserved(setup->backends.size(), 0);
    for (const scheduler::ScheduledGraph& reserve : *scheduled) {
        const std::vector<std::uint64_t> bytes = allocator::planComputeBuffers(reserve.plan, bufferTypes);
        for (std::size_t b = 0; b < bytes.size(); ++b) {
            reserved[b] = std::max(reserved[b], bytes[b]);
        }
    }
    return computeBuffersOf(reserved, gpus.size());
}

std::optional<bool> engineKeepsFlashAttention(const ModelInfo& model, const ServerSettings& settings,
                                              const ResolvedContext& context,
                                              const std::vector<GpuDevice>& gpus,
                                              const LayerPlacement& layers,
                                              const std::vector<LoraAdapterInfo>& adapters,
                                              ComputePlanCache* plans) {
    ResolvedContext probe = context;
    probe.flashAttention = true;
    const KvPlan kv = sizeKvCaches(model, settings, probe);
    const std::uint32_t cells = planCells(kv.caches);
    const ComputePlanQuery query{
        ComputePlanQuery::Kind::FlashAttentionProbe, settings, probe, kv.caches, gpus, layers, adapters};
    if (plans != nullptr) {
        if (const std::optional<PlannedCompute> planned = plans->find(query, cells)) {
            return planned->covered ? std::optional<bool>(planned->keepsFlashAttention) : std::nullopt;
        }
    }
    const std::optional<EngineSetup> setup = engineSetup(model, settings, probe, kv, gpus, layers, adapters);
    if (!setup) {
        return std::nullopt;
    }
    // resolve_fused_ops reserves one token per sequence.
    const graph::ReserveShape reserve =
        graph::reserveShapes(context.nUbatch, context.nSeqMax, context.nOutputs).back();
    const std::shared_ptr<const CompiledPlan> plan =
        compileFlashAttentionProbe(model, *setup, reserve, plans != nullptr);
    if (plans != nullptr) {
        plans->add(query, plan);
    }
    return plan->covered ? std::optional<bool>(plan->keepsFlashAttention) : std::nullopt;
}

} // namespace llamafit
