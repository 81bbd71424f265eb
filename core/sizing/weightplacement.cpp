// Tensor -> buffer type. Each branch cites the llama.cpp code it restates.
#include "core/sizing/weightplacement.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <string_view>

namespace llamafit {

// common/common.h LLM_FFN_EXPS_REGEX "\\.ffn_(up|down|gate|gate_up)_(ch|)exps": --cpu-moe keeps
// every routed-expert tensor on the CPU, --n-cpu-moe N those of blocks 0..N-1 ("blk\\.i" + the
// same, llm_ffn_exps_block_regex). Matched by hand with regex_search's meaning: the solvers run
// thousands of estimates, and -ncmoe 60 would otherwise be 60 std::regex searches per tensor.
bool matchesExpertsPattern(std::string_view name, std::optional<std::uint32_t> block) {
    static constexpr std::string_view kKinds[] = {"up_", "down_", "gate_", "gate_up_"};
    for (std::size_t at = name.find(".ffn_"); at != std::string_view::npos; at = name.find(".ffn_", at + 1)) {
        if (block) {
            const std::string prefix = "blk." + std::to_string(*block);
            if (at < prefix.size() || name.substr(at - prefix.size(), prefix.size()) != prefix) {
                continue;
            }
        }
        const std::string_view rest = name.substr(at + 5);
        for (std::string_view kind : kKinds) {
            if (rest.substr(0, kind.size()) == kind) {
                const std::string_view tail = rest.substr(kind.size());
                if (tail.substr(0, 4) == "exps" || tail.substr(0, 6) == "chexps") {
                    return true;
                }
            }
        }
    }
    return false;
}

namespace {

struct CompiledOverride {
    std::optional<std::regex> pattern;         // a user -ot pattern; absent: --cpu-moe / --n-cpu-moe
    std::optional<std::uint32_t> expertsBlock; // --n-cpu-moe: only this block
    int device = kHostDevice;

    bool matches(const std::string& name) const {
        return pattern ? std::regex_search(name, *pattern) : matchesExpertsPattern(name, expertsBlock);
    }
};

Result<std::vector<CompiledOverride>> compileOverrides(const ServerSettings& settings,
                                                       const std::vector<GpuDevice>& gpus) {
    std::vector<CompiledOverride> compiled;
    for (const auto& item : settings.tensorOverrides) {
        CompiledOverride out;
        if (item.bufferType != "CPU") {
            const auto it = std::find_if(gpus.begin(), gpus.end(),
                                         [&](const GpuDevice& gpu) { return gpu.name == item.bufferType; });
            if (it == gpus.end()) {
                return makeError("settings.bad-value", "-ot " + item.pattern + "=" + item.bufferType +
                                                           ": unknown buffer type " + item.bufferType);
            }
            out.device = static_cast<int>(it - gpus.begin());
        }
        try {
            out.pattern = std::regex(item.pattern); // std::regex, ECMAScript, as llama.cpp uses
        } catch (const std::regex_error& e) {
            return makeError("settings.bad-value",
                             "-ot pattern " + item.pattern + " is not a valid regex: " + e.what());
        }
        compiled.push_back(std::move(out));
    }
    // common/arg.cpp appends -cmoe / -ncmoe to the same override list as -ot; the first
    // matching pattern wins (llama-model-loader.cpp breaks on the first regex_search hit).
    if (settings.cpuMoe) {
        compiled.push_back({std::nullopt, std::nullopt, kHostDevice});
    }
    for (std::uint32_t i = 0; i < settings.cpuMoeLayers; ++i) {
        compiled.push_back({std::nullopt, i, kHostDevice});
    }
    return compiled;
}

// A buffer type identity before the mmap renaming: "CPU" is ggml's plain CPU buffer type.
struct Placement {
    int device = kHostDevice;
    std::string buft;
};

class Placer {
  public:
    Placer(const ServerSettings& settings, const std::vector<GpuDevice>& gpus, const LayerPlacement& layers,
           std::vector<CompiledOverride> overrides)
        : m_settings(settings), m_gpus(gpus), m_layers(layers), m_overrides(std::move(overrides)),
          m_pinned(pinnedHostBufferType(gpus)), m_mapped(weightsMapped(settings, gpus)) {}

    // role is passed separately so the duplicated tied output can be placed as an output tensor.
    Placement place(const TensorSummary& tensor, TensorRole role) const {
        for (const auto& item : m_overrides) {
            if (item.matches(tensor.name)) {
                if (item.device == kHostDevice) {
                    // llama-model-loader.cpp: an override to CPU picks among the CPU buffer types.
                    return hostPlacement(tensor, role);
                }
                return {item.device, m_gpus[static_cast<std::size_t>(item.device)].name};
            }
        }
        const int device = deviceFor(tensor, role);
        if (device != kHostDevice) {
            return {device, m_gpus[static_cast<std::size_t>(device)].name};
        }
        return hostPlacement(tensor, role);
    }

    // The name the log prints: a plain CPU buffer over the mapped file is "CPU_Mapped".
    std::string logName(const Placement& placement) const {
        return placement.buft == "CPU" && m_mapped ? "CPU_Mapped" : placement.buft;
    }

  private:
    int deviceFor(const TensorSummary& tensor, TensorRole role) const {
        switch (role) {
        case TensorRole::TokenEmbedding:
            return kHostDevice; // llama-model.cpp: dev_input is always the CPU
        case TensorRole::Output:
            return m_layers.outputDevice;
        case TensorRole::Layer:
            if (tensor.layer >= 0 && static_cast<std::size_t>(tensor.layer) < m_layers.layerDevice.size()) {
                return m_layers.layerDevice[static_cast<std::size_t>(tensor.layer)];
            }
            return kHostDevice;
        case TensorRole::Other:
            break;
        }
        return kHostDevice;
    }

    Placement hostPlacement(const TensorSummary& tensor, TensorRole role) const {
        // llama-model.cpp make_cpu_buft_list order: ACCEL, the first GPU's pinned host buffer,
        // the CPU extra buffers (CPU_REPACK), CPU. The pinned buffer takes everything it is
        // offered, so with a CUDA/Vulkan/ROCm GPU nothing is repacked.
        if (m_pinned) {
            // llama-model-loader.cpp: "avoid using a host buffer when using mmap".
            return {kHostDevice, m_mapped ? std::string("CPU") : *m_pinned};
        }
        if (m_settings.repack && role != TensorRole::TokenEmbedding && cpuRepacks(tensor)) {
            return {kHostDevice, "CPU_REPACK"};
        }
        return {kHostDevice, "CPU"};
    }

    const ServerSettings& m_settings;
    const std::vector<GpuDevice>& m_gpus;
    const LayerPlacement& m_layers;
    std::vector<CompiledOverride> m_overrides;
    std::optional<std::string> m_pinned;
    bool m_mapped = true;
};

std::string ruleFor(int device, const std::string& bufferType) {
    if (device != kHostDevice) {
        return "blocks (and the output layer) offloaded by -ngl/-ts/-ot; llama.cpp src/llama-model.cpp "
               "load_tensors";
    }
    if (bufferType == "CPU_Mapped") {
        return "host weights mapped from the GGUF file (page cache, resident once touched); "
               "token embeddings always stay on the CPU; src/llama-model-loader.cpp";
    }
    if (bufferType == "CPU_REPACK") {
        return "Q4_0/Q4_K/IQ4_NL/MXFP4 matmul weights repacked for the AVX2 kernels: real RAM even with mmap "
               "(-nr turns it off); ggml/src/ggml-cpu/repack.cpp";
    }
    if (bufferType == "CPU") {
        return "host weights copied into RAM (-lm none); src/llama-model-loader.cpp";
    }
    return "host weights copied into the first GPU's pinned host buffer (-lm none); src/llama-model.cpp "
           "make_cpu_buft_list";
}

void addTo(WeightPlan& plan, int device, const std::string& bufferType, std::uint64_t bytes) {
    for (auto& buffer : plan.buffers) {
        if (buffer.device == device && buffer.bufferType == bufferType) {
            buffer.bytes += bytes;
            return;
        }
    }
    plan.buffers.push_back({device, bufferType, bytes, ruleFor(device, bufferType)});
}

} // namespace

bool cpuRepacks(const TensorSummary& tensor) {
    // ggml/src/ggml-cpu/repack.cpp ggml_repack_get_optimal_repack_type on an AVX2 (haswell)
    // CPU: Q4_0, Q4_K, IQ4_NL and MXFP4 with ne[1] % 8 == 0 (Q2_K needs AVX-512, Q5_K/Q6_K/
    // Q8_0 only have ARM/RISC-V kernels; measured: Q8_0 stays in CPU_Mapped). Only weights
    // of MUL_MAT / MUL_MAT_ID qualify, so token embeddings (GET_ROWS) never do.
    switch (tensor.type) {
    case GgmlType::Q4_0:
    case GgmlType::Q4_K:
    case GgmlType::IQ4_NL:
    case GgmlType::MXFP4:
        break;
    default:
        return false;
    }
    if (tensor.rowValues == 0) {
        return false;
    }
    const std::uint64_t rowBytes = ggmlRowBytes(tensor.type, tensor.rowValues);
    const std::uint64_t rows = rowBytes == 0 ? 0 : tensor.bytes / rowBytes;
    return rows > 0 && rows % 8 == 0;
}

Result<WeightPlan> placeWeights(const ModelInfo& model, const ServerSettings& settings,
                                const std::vector<GpuDevice>& gpus, const LayerPlacement& layers) {
    auto overrides = compileOverrides(settings, gpus);
    if (!overrides.ok()) {
        return overrides.error();
    }
    const Placer placer(settings, gpus, layers, std::move(overrides.value()));
    WeightPlan plan;
    const TensorSummary* tokenEmbedding = nullptr;
    for (const auto& tensor : model.tensors) {
        const Placement placement = placer.place(tensor, tensor.role);
        addTo(plan, placement.device, placer.logName(placement), tensor.bytes);
        if (tensor.name == "token_embd.weight") {
            tokenEmbedding = &tensor;
        }
        if (!gpus.empty() && placement.device == kHostDevice && tensor.role == TensorRole::Layer) {
            plan.largestHostBlockWeightBytes = std::max(plan.largestHostBlockWeightBytes, tensor.bytes);
        }
    }
    if (model.tiedOutput && tokenEmbedding != nullptr) {
        // llama-model-loader.cpp create_tensor: the output is token_embd again (TENSOR_DUPLICATED),
        // placed by the output layer's rules; when that lands in the buffer type token_embd
        // already uses, the existing tensor is reused and nothing is added.
        const Placement input = placer.place(*tokenEmbedding, TensorRole::TokenEmbedding);
        const Placement output = placer.place(*tokenEmbedding, TensorRole::Output);
        if (input.device != output.device || input.buft != output.buft) {
            const std::string name = placer.logName(output);
            addTo(plan, output.device, name, tokenEmbedding->bytes);
            for (auto& buffer : plan.buffers) {
                if (buffer.device == output.device && buffer.bufferType == name) {
                    buffer.rule += "; includes the tied output, a second copy of token_embd";
                }
            }
        }
    }
    return plan;
}

} // namespace llamafit
