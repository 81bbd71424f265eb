// Tensor -> buffer type. Each branch cites the llama.cpp code it restates. Buffers are keyed by
// (device, host buffer kind) while tensors are summed and named only at the end, so a tensor
// costs a few comparisons and no string work.
#include "core/sizing/weightplacement.h"

#include "core/model/tensorroles.h"
#include "core/sizing/tensorpattern.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace llamafit {
namespace {

// A user -ot pattern and the device its buffer type names.
struct PatternOverride {
    std::regex pattern; // std::regex, ECMAScript, as llama.cpp uses
    int device = kHostDevice;
};

Result<std::vector<PatternOverride>> compilePatterns(const ServerSettings& settings,
                                                     const std::vector<GpuDevice>& gpus) {
    std::vector<PatternOverride> compiled;
    for (const auto& item : settings.tensorOverrides) {
        PatternOverride out;
        if (item.bufferType != "CPU") {
            const auto it = std::find_if(gpus.begin(), gpus.end(),
                                         [&](const GpuDevice& gpu) { return gpu.name == item.bufferType; });
            if (it == gpus.end()) {
                return makeError("settings.bad-value",
                                 "-ot " + item.pattern + "=" + item.bufferType + ": unknown buffer type " +
                                     item.bufferType,
                                 {Setting::TensorOverrides});
            }
            out.device = static_cast<int>(it - gpus.begin());
        }
        auto pattern = compileTensorPattern(item.pattern);
        if (!pattern) {
            return pattern.error();
        }
        out.pattern = std::move(*pattern);
        compiled.push_back(std::move(out));
    }
    return compiled;
}

// The host buffer types a weight can get (meaningful on the host only): ggml's plain CPU type,
// the CPU_REPACK extra type, or the first GPU's pinned host type.
enum class HostBuffer : std::uint8_t { Cpu, Repack, Pinned };

// A buffer before the mmap renaming; a GPU has one buffer type, named after the GPU.
struct Placement {
    int device = kHostDevice;
    HostBuffer host = HostBuffer::Cpu;
    bool operator==(const Placement&) const = default;
};

class Placer {
  public:
    // Copies the few settings it reads: the per-tensor loop then reads them from one place.
    Placer(const ModelInfo& model, const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
           const LayerPlacement& layers, std::vector<PatternOverride> patterns)
        : m_gpus(gpus), m_layers(layers), m_patterns(std::move(patterns)), m_ssmStateSize(model.ssmStateSize),
          m_pinned(pinnedHostBufferType(gpus)), m_pinnedOwner(pinnedOwner(gpus)),
          m_mapped(weightsMapped(settings, gpus)), m_repack(settings.repack), m_cpuMoe(settings.cpuMoe),
          m_cpuMoeLayers(settings.cpuMoeLayers), m_anyGpuHasLimits(anyGpuHasLimits()) {}

    bool hasPatterns() const { return !m_patterns.empty(); }
    // What classes must hold for these settings (the rest of a lazily built class is unused).
    // With a pinned host type only the weights its GPU refuses can reach CPU_REPACK.
    bool readsRepack() const { return m_repack && (!m_pinned || anyGpuHasLimits()); }
    bool readsExperts() const { return m_cpuMoe || m_cpuMoeLayers > 0; }

    // role is passed separately so the duplicated tied output can be placed as an output tensor;
    // probeBytes is weightProbeBytes (weightclass.h), what a GPU's limits are held against.
    Placement place(const WeightClass& weight, const std::string& name, TensorRole role,
                    std::uint64_t probeBytes) const {
        if (!m_patterns.empty()) {
            if (const auto placement = placeByPattern(weight, name, role, probeBytes)) {
                return *placement;
            }
        }
        return placeByRules(weight, role, probeBytes);
    }

    // Without -ot patterns the name plays no part: what the groups of a prepared model use.
    Placement placeByRules(const WeightClass& weight, TensorRole role, std::uint64_t probeBytes) const {
        // common/arg.cpp appends -cmoe / -ncmoe to the override list after the -ot patterns;
        // every one of them keeps the tensor on the CPU.
        if ((m_cpuMoe && weight.experts) || (weight.expertsBlock && *weight.expertsBlock < m_cpuMoeLayers)) {
            return hostPlacement(weight, role, probeBytes);
        }
        const int device = deviceFor(weight, role);
        if (device == kHostDevice) {
            return hostPlacement(weight, role, probeBytes);
        }
        // llama-model.cpp select_weight_buft: the first buffer type of the layer's list whose device
        // supports an op on the weight (weight_buft_supported); ggml-vulkan refuses tensors over its
        // limits, so the weight falls through to the CPU types at the end of the list -- the pinned
        // host type belongs to the same refusing device, so CPU_REPACK or CPU (no log line says so).
        if (!gpuAllows(device, probeBytes) || !gpuRunsSsmScan(device, weight) ||
            !gpuTakesWkv6First(device, weight)) {
            return fallbackPlacement(weight, role);
        }
        return Placement{device};
    }

    bool anyGpuHasLimits() const {
        return std::any_of(m_gpus.begin(), m_gpus.end(), [](const GpuDevice& gpu) {
            return gpu.limits.largestOpTensorBytes().has_value();
        });
    }

    // Whether some GPU could refuse a tensor of this size: groups holding one must be placed
    // tensor by tensor.
    bool anyGpuRefuses(std::uint64_t probeBytes) const {
        return m_anyGpuHasLimits && std::any_of(m_gpus.begin(), m_gpus.end(), [&](const GpuDevice& gpu) {
                   return !gpu.limits.allowsTensor(probeBytes);
               });
    }

    // The name the log prints: a plain CPU buffer over the mapped file is "CPU_Mapped".
    std::string_view logName(const Placement& placement) const {
        std::string_view raw = "CPU";
        if (placement.device != kHostDevice) {
            raw = m_gpus[static_cast<std::size_t>(placement.device)].name;
        } else if (placement.host == HostBuffer::Repack) {
            raw = "CPU_REPACK";
        } else if (placement.host == HostBuffer::Pinned) {
            raw = *m_pinned;
        }
        return raw == "CPU" && m_mapped ? "CPU_Mapped" : raw;
    }

  private:
    // llama-model-loader.cpp: the first matching override wins (std::regex_search).
    std::optional<Placement> placeByPattern(const WeightClass& weight, const std::string& name,
                                            TensorRole role, std::uint64_t probeBytes) const {
        for (const auto& item : m_patterns) {
            if (std::regex_search(name, item.pattern)) {
                // An override to CPU picks among the CPU buffer types.
                return item.device == kHostDevice ? hostPlacement(weight, role, probeBytes)
                                                  : Placement{item.device};
            }
        }
        return std::nullopt;
    }

    int deviceFor(const WeightClass& weight, TensorRole role) const {
        switch (role) {
        case TensorRole::TokenEmbedding:
            return kHostDevice; // llama-model.cpp: dev_input is always the CPU
        case TensorRole::Output:
            return m_layers.outputDevice;
        case TensorRole::Layer:
            if (weight.layer >= 0 && static_cast<std::size_t>(weight.layer) < m_layers.layerDevice.size()) {
                return m_layers.layerDevice[static_cast<std::size_t>(weight.layer)];
            }
            return kHostDevice;
        case TensorRole::Other:
            break;
        }
        return kHostDevice;
    }

    Placement hostPlacement(const WeightClass& weight, TensorRole role, std::uint64_t probeBytes) const {
        // llama-model.cpp make_cpu_buft_list order: ACCEL, the first GPU's pinned host buffer,
        // the CPU extra buffers (CPU_REPACK), CPU. The pinned buffer takes everything its device
        // allows, so with a CUDA/Vulkan/ROCm GPU nothing is repacked.
        if (m_pinned && gpuAllows(*m_pinnedOwner, probeBytes) && gpuRunsSsmScan(*m_pinnedOwner, weight) &&
            gpuTakesWkv6First(*m_pinnedOwner, weight)) {
            // llama-model-loader.cpp: "avoid using a host buffer when using mmap".
            return {kHostDevice, m_mapped ? HostBuffer::Cpu : HostBuffer::Pinned};
        }
        return fallbackPlacement(weight, role);
    }

    // The CPU's own buffer types, after the pinned one: CPU_REPACK when the CPU backend repacks
    // the weight, else CPU.
    Placement fallbackPlacement(const WeightClass& weight, TensorRole role) const {
        if (m_repack && role != TensorRole::TokenEmbedding && weight.repacks) {
            return {kHostDevice, HostBuffer::Repack};
        }
        return {kHostDevice, HostBuffer::Cpu};
    }

    // ggml-vulkan.cpp ggml_vk_op_get_pipeline: SSM_SCAN has kernels for d_state 128 and 256 only
    // (Mamba-2 shapes), so a Mamba-1 ssm_a (d_state 16) stays on the host. Measured on lavapipe:
    // mamba (24 x [16, 1536] f32) and jamba keep 2.25 / 2.00 MiB of ssm_a in CPU_Mapped.
    bool gpuRunsSsmScan(int device, const WeightClass& weight) const {
        return !weight.ssmScan || m_gpus[static_cast<std::size_t>(device)].backend != Backend::Vulkan ||
               m_ssmStateSize == 128 || m_ssmStateSize == 256;
    }

    // llama-model.cpp weight_buft_supported tries time_mix_first in an RWKV_WKV6 op of made-up
    // sizes (123 heads of 123), which ggml-vulkan's supports_op turns down, so the tensor stays on
    // the host. Measured on lavapipe: rwkv6 keeps 8 x [64, 32] f32 (0.06 MiB) in CPU_Mapped at
    // -ngl all, and the reserved graph reads them from the CPU.
    bool gpuTakesWkv6First(int device, const WeightClass& weight) const {
        return !weight.wkv6First || m_gpus[static_cast<std::size_t>(device)].backend != Backend::Vulkan;
    }

    bool gpuAllows(int device, std::uint64_t probeBytes) const {
        return m_gpus[static_cast<std::size_t>(device)].limits.allowsTensor(probeBytes);
    }

    // The GPU whose host buffer type is the pinned one (layerplacement.h pinnedHostBufferType).
    static std::optional<int> pinnedOwner(const std::vector<GpuDevice>& gpus) {
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            const Backend backend = gpus[i].backend;
            if (backend == Backend::Cuda || backend == Backend::Rocm || backend == Backend::Vulkan) {
                return static_cast<int>(i);
            }
        }
        return std::nullopt;
    }

    const std::vector<GpuDevice>& m_gpus;
    const LayerPlacement& m_layers;
    std::vector<PatternOverride> m_patterns;
    std::uint32_t m_ssmStateSize = 0;
    std::optional<std::string> m_pinned;
    std::optional<int> m_pinnedOwner;
    bool m_mapped = true;
    bool m_repack = true;
    bool m_cpuMoe = false;
    std::uint32_t m_cpuMoeLayers = 0;
    bool m_anyGpuHasLimits; // else no GPU refuses a tensor for its size
};

SizeRuleId ruleFor(int device, std::string_view bufferType) {
    if (device != kHostDevice) {
        return SizeRuleId::OffloadedWeights;
    }
    if (bufferType == "CPU_Mapped") {
        return SizeRuleId::MappedHostWeights;
    }
    if (bufferType == "CPU_REPACK") {
        return SizeRuleId::RepackedHostWeights;
    }
    if (bufferType == "CPU") {
        return SizeRuleId::CopiedHostWeights;
    }
    return SizeRuleId::PinnedHostWeights;
}

// llama-model-loader.cpp create_tensor: a tied output is token_embd again (TENSOR_DUPLICATED),
// placed by the output layer's rules; when that lands in the buffer type token_embd already
// uses, the existing tensor is reused and there is no copy (nullopt).
std::optional<Placement> tiedOutputCopy(const Placer& placer, const ModelInfo& model,
                                        const TensorSummary& tokenEmbedding, const WeightClass& weight) {
    const Placement input =
        placer.place(weight, tokenEmbedding.name, TensorRole::TokenEmbedding, tokenEmbedding.bytes);
    const Placement output = placer.place(weight, tokenEmbedding.name, TensorRole::Output,
                                          weightProbeBytes(tokenEmbedding, TensorRole::Output, model));
    if (input == output) {
        return std::nullopt;
    }
    return output;
}

// Sums bytes per buffer in first-use order; names them once at the end.
class PlanBuilder {
  public:
    PlanBuilder(const Placer& placer, bool withGpus) : m_placer(placer), m_withGpus(withGpus) {}

    void add(const Placement& placement, TensorRole role, std::uint64_t bytes,
             std::uint64_t largestTensorBytes) {
        slotFor(placement).bytes += bytes;
        if (m_withGpus && placement.device == kHostDevice && role == TensorRole::Layer) {
            m_largestHostBlockWeightBytes = std::max(m_largestHostBlockWeightBytes, largestTensorBytes);
        }
    }

    // The tied output's copy of token_embd, where it has one (tiedOutputCopy).
    void addTiedOutput(const ModelInfo& model, const TensorSummary& tokenEmbedding,
                       const WeightClass& weight) {
        if (const std::optional<Placement> output = tiedOutputCopy(m_placer, model, tokenEmbedding, weight)) {
            Slot& slot = slotFor(*output);
            slot.bytes += tokenEmbedding.bytes;
            slot.tiedOutput = true;
        }
    }

    WeightPlan finish() const {
        WeightPlan plan;
        plan.largestHostBlockWeightBytes = m_largestHostBlockWeightBytes;
        plan.buffers.reserve(m_slots.size());
        for (const Slot& slot : m_slots) {
            const std::string_view name = m_placer.logName(slot.placement);
            SizeRule rule{.id = ruleFor(slot.placement.device, name), .tiedOutput = slot.tiedOutput};
            plan.buffers.push_back({slot.placement.device, std::string(name), slot.bytes, std::move(rule)});
        }
        return plan;
    }

  private:
    struct Slot {
        Placement placement;
        std::uint64_t bytes = 0;
        bool tiedOutput = false;
    };

    Slot& slotFor(const Placement& placement) {
        for (Slot& slot : m_slots) {
            if (slot.placement == placement) {
                return slot;
            }
        }
        return m_slots.emplace_back(Slot{placement});
    }

    const Placer& m_placer;
    bool m_withGpus = false;
    std::vector<Slot> m_slots;
    std::uint64_t m_largestHostBlockWeightBytes = 0;
};

// A tensor's class with only what these settings read (cpuRepacks divides, the expert patterns
// scan the name), for the per-tensor path.
WeightClass classifyFor(const TensorSummary& tensor, bool readRepack, bool readExperts) {
    WeightClass out;
    out.role = tensor.role;
    out.layer = tensor.layer;
    out.repacks = readRepack && cpuRepackType(tensor.type) && cpuRepacks(tensor);
    out.ssmScan = isSsmScanWeight(tensor);
    out.wkv6First = isWkv6FirstWeight(tensor);
    if (readExperts) {
        out.experts = matchesExpertsPattern(tensor.name, std::nullopt);
        out.expertsBlock = out.experts ? firstExpertsBlock(tensor.name) : std::nullopt;
    }
    return out;
}

WeightPlan placeEachTensor(const ModelInfo& model, const Placer& placer, bool withGpus) {
    PlanBuilder builder(placer, withGpus);
    const TensorSummary* tokenEmbedding = nullptr;
    const bool readRepack = placer.readsRepack();
    const bool readExperts = placer.readsExperts();
    const bool patterns = placer.hasPatterns();
    for (const auto& tensor : model.tensors) {
        const WeightClass weight = classifyFor(tensor, readRepack, readExperts);
        // Most estimates have no -ot: keep the regex machinery out of this loop then.
        const std::uint64_t probeBytes = weightProbeBytes(tensor, tensor.role, model);
        const Placement placement = patterns ? placer.place(weight, tensor.name, tensor.role, probeBytes)
                                             : placer.placeByRules(weight, tensor.role, probeBytes);
        builder.add(placement, tensor.role, tensor.bytes, tensor.bytes);
        if (tensor.name == kTokenEmbeddingName) {
            tokenEmbedding = &tensor;
        }
    }
    if (model.tiedOutput && tokenEmbedding != nullptr) {
        builder.addTiedOutput(model, *tokenEmbedding, classifyWeight(*tokenEmbedding));
    }
    return builder.finish();
}

} // namespace

Result<WeightPlan> placeWeights(const ModelInfo& model, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus, const LayerPlacement& layers) {
    auto patterns = compilePatterns(settings, gpus);
    if (!patterns.ok()) {
        return patterns.error();
    }
    const Placer placer(model, settings, gpus, layers, std::move(patterns.value()));
    return placeEachTensor(model, placer, !gpus.empty());
}

Result<TensorPlacements> placeEachWeight(const ModelInfo& model, const ServerSettings& settings,
                                         const std::vector<GpuDevice>& gpus, const LayerPlacement& layers) {
    auto patterns = compilePatterns(settings, gpus);
    if (!patterns.ok()) {
        return patterns.error();
    }
    const Placer placer(model, settings, gpus, layers, std::move(patterns.value()));
    const auto bufferOf = [&](const Placement& placement) {
        return TensorBuffer{placement.device, std::string(placer.logName(placement))};
    };
    TensorPlacements out;
    out.tensors.reserve(model.tensors.size());
    const TensorSummary* tokenEmbedding = nullptr;
    for (const auto& tensor : model.tensors) {
        const WeightClass weight = classifyFor(tensor, placer.readsRepack(), placer.readsExperts());
        out.tensors.push_back(bufferOf(
            placer.place(weight, tensor.name, tensor.role, weightProbeBytes(tensor, tensor.role, model))));
        if (tensor.name == kTokenEmbeddingName) {
            tokenEmbedding = &tensor;
        }
    }
    if (model.tiedOutput && tokenEmbedding != nullptr) {
        if (const std::optional<Placement> output =
                tiedOutputCopy(placer, model, *tokenEmbedding, classifyWeight(*tokenEmbedding))) {
            out.tiedOutput = bufferOf(*output);
        }
    }
    // Each layer's copy of the RoPE factors is placed as a weight of that layer (create_tensor in
    // the layer loop picks the layer's buffer type list).
    const auto factors = std::find_first_of(
        model.tensors.begin(), model.tensors.end(), kRopeFactorsNames.begin(), kRopeFactorsNames.end(),
        [](const TensorSummary& tensor, std::string_view name) { return tensor.name == name; });
    if (factors != model.tensors.end()) {
        WeightClass weight = classifyFor(*factors, placer.readsRepack(), placer.readsExperts());
        for (std::uint32_t il = 0; il < model.trunkLayerCount(); ++il) {
            weight.layer = static_cast<int>(il);
            out.ropeFactors.push_back(
                bufferOf(placer.place(weight, factors->name, TensorRole::Layer, factors->bytes)));
        }
    }
    return out;
}

Result<WeightPlan> placeWeights(const ModelInfo& model, const WeightGroups& groups,
                                const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
                                const LayerPlacement& layers) {
    auto patterns = compilePatterns(settings, gpus);
    if (!patterns.ok()) {
        return patterns.error();
    }
    const Placer placer(model, settings, gpus, layers, std::move(patterns.value()));
    if (placer.hasPatterns()) {
        return placeEachTensor(model, placer, !gpus.empty()); // -ot patterns read every name
    }
    // A group holding a tensor some GPU refuses may split between buffers.
    if (std::any_of(groups.groups.begin(), groups.groups.end(), [&](const WeightGroup& group) {
            return placer.anyGpuRefuses(group.largestProbeBytes);
        })) {
        return placeEachTensor(model, placer, !gpus.empty());
    }
    PlanBuilder builder(placer, !gpus.empty());
    for (const auto& group : groups.groups) {
        const Placement placement =
            placer.placeByRules(group.weightClass, group.weightClass.role, group.largestProbeBytes);
        builder.add(placement, group.weightClass.role, group.bytes, group.largestTensorBytes);
    }
    if (model.tiedOutput && groups.tokenEmbedding) {
        const TensorSummary& tokenEmbedding = model.tensors[*groups.tokenEmbedding];
        builder.addTiedOutput(model, tokenEmbedding, classifyWeight(tokenEmbedding));
    }
    return builder.finish();
}

} // namespace llamafit
