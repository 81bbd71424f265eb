#include "tests/support/vulkancases.h"

#include "core/common/units.h"
#include "tests/support/modelfiles.h"

#include <algorithm>
#include <filesystem>
#include <functional>

namespace llamafit::test {
namespace {

// How each shape is cut for lavapipe. Blocks are cut only where the weights that can live on
// the device (tensors of at most 128 MiB) would come near its 2 GiB; a cut keeps every kind of
// layer the architecture has (the first full-attention block of qwen35/qwen35moe/qwen3next at 3,
// nemotron_h's attention block at 5, gemma2/cohere2/gpt-oss's global blocks). deepseek2 keeps
// its 27 blocks: llama.cpp reads it as V2-Lite only at 26 or 27 (src/llama-model.cpp), and its
// experts (187 MiB each) stay on the CPU anyway.
struct ShapePlan {
    const char* stem;
    ShapeCut cut;
};

const std::vector<ShapePlan>& shapePlans() {
    static const std::vector<ShapePlan> plans = {
        {"cohere2", {4, std::nullopt}},
        {"command-r", {4, 32000}},
        {"deepseek2-mla", {}},
        {"dots1", {}},
        {"ernie4_5", {}},
        {"ernie4_5-moe", {}},
        {"falcon-h1", {}},
        {"gemma", {}},
        {"gemma2", {8, std::nullopt}},
        {"glm4moe", {}},
        {"gemma3", {}},
        {"glm4", {4, 32000}},
        {"gpt-oss", {8, std::nullopt}},
        {"granite", {}},
        {"granitehybrid", {}},
        {"granitemoe", {}},
        {"hunyuan-moe", {}},
        {"internlm2", {}},
        {"jamba", {6, std::nullopt}},
        {"lfm2", {}},
        {"lfm2moe", {5, std::nullopt}},
        {"llama", {4, std::nullopt}},
        {"llama", {4, 32000}},
        {"mistral3", {}},
        {"mamba", {}},
        {"minimax-m2", {}},
        {"mamba2", {}},
        {"phi3", {}},
        {"nemotron_h", {6, std::nullopt}},
        {"nemotron_h_moe", {}},
        {"olmo2", {4, 32000}},
        {"olmoe", {}},
        {"qwen2", {}},
        {"qwen2moe", {2, 32000}},
        {"seed_oss", {2, 32000}},
        {"smollm3", {}},
        {"qwen3", {}},
        {"qwen35", {4, std::nullopt}},
        {"qwen35moe", {8, std::nullopt}},
        {"qwen3moe", {8, std::nullopt}},
        {"qwen3next", {8, std::nullopt}},
        {"qwen3vl", {}},
        {"qwen3vlmoe", {}},
        {"rwkv6", {8, std::nullopt}},
        {"rwkv7", {}},
    };
    return plans;
}

// "llama" cut to 4 blocks and 32000 tokens -> "llama_l4_v32000".
std::string cutName(const std::string& stem, const ShapeCut& cut) {
    std::string name = testNamePart(stem);
    if (cut.blockCount) {
        name += "_l" + std::to_string(*cut.blockCount);
    }
    if (cut.vocabularySize) {
        name += "_v" + std::to_string(*cut.vocabularySize);
    }
    return name;
}

// Shapes that get every variant: a dense model with a big and one with a small output matrix,
// a sliding-window model, a gated-delta-net hybrid MoE, a Mamba-2 hybrid and an MLA MoE.
bool isDeepShape(const IntegrationShape& shape) {
    return shape.name == "llama_l4" || shape.name == "llama_l4_v32000" || shape.name == "gemma3" ||
           shape.name == "qwen35moe_l8" || shape.name == "nemotron_h_l6" || shape.name == "deepseek2_mla";
}

struct VulkanMatrixVariant {
    std::string name;
    std::function<void(ServerSettings&, std::uint32_t blocks)> apply;
    enum class Scope { AllShapes, DeepShapes, SlidingWindow } scope = Scope::AllShapes;
};

// -ngl "part": the output layer and the last half of the blocks less one (-ngl counts the
// output layer first, llama.cpp src/llama-model.cpp).
GpuLayers partOf(std::uint32_t blocks) {
    return GpuLayers::count(std::max<std::uint32_t>(1, blocks / 2));
}

// From "-c 4096 -ngl all, -np auto, -fa auto, -ub 512", one or two dimensions changed at a time.
std::vector<VulkanMatrixVariant> vulkanMatrixVariants() {
    using T = GgmlType;
    using S = VulkanMatrixVariant::Scope;
    const auto np1 = [](ServerSettings& s) { s.parallelSlots = 1; };
    return {
        {"ngl_all", [](ServerSettings&, std::uint32_t) {}},
        {"ngl_all_np1_faoff",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.flashAttention = FlashAttention::Off;
         }},
        {"ngl_all_np1_faon",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.flashAttention = FlashAttention::On;
         }},
        {"ngl_all_np4", [](ServerSettings& s, std::uint32_t) { s.parallelSlots = 4; }},
        {"ngl_part_np1",
         [=](ServerSettings& s, std::uint32_t blocks) {
             np1(s);
             s.gpuLayers = partOf(blocks);
         }},
        {"ngl0_np1",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.gpuLayers = GpuLayers::count(0);
         }},
        {"ngl_all_np1_q8_0",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.cacheTypeK = s.cacheTypeV = T::Q8_0;
         }},
        {"ngl_all_np1_ub1024",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.ubatchTokens = 1024;
         }},
        {"ngl_all_c16384_np4_faoff",
         [](ServerSettings& s, std::uint32_t) {
             s.contextTokens = 16384;
             s.parallelSlots = 4;
             s.flashAttention = FlashAttention::Off;
         }},
        {"ngl_all_np1_swafull",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.swaFull = true;
         },
         S::SlidingWindow},
        {"ngl_all_np4_swafull",
         [](ServerSettings& s, std::uint32_t) {
             s.parallelSlots = 4;
             s.swaFull = true;
         },
         S::SlidingWindow},
        {"ngl_all_np1_q4_0",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.cacheTypeK = s.cacheTypeV = T::Q4_0;
         },
         S::DeepShapes},
        {"ngl_all_np1_faoff_kq8_0",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.flashAttention = FlashAttention::Off;
             s.cacheTypeK = T::Q8_0;
         },
         S::DeepShapes},
        {"ngl_all_np1_kq8_0_vq4_0",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.cacheTypeK = T::Q8_0;
             s.cacheTypeV = T::Q4_0;
         },
         S::DeepShapes},
        {"ngl_part_np1_faoff",
         [=](ServerSettings& s, std::uint32_t blocks) {
             np1(s);
             s.flashAttention = FlashAttention::Off;
             s.gpuLayers = partOf(blocks);
         },
         S::DeepShapes},
        {"ngl_part_ub1024",
         [](ServerSettings& s, std::uint32_t blocks) {
             s.ubatchTokens = 1024;
             s.gpuLayers = partOf(blocks);
         },
         S::DeepShapes},
        {"ngl0_np1_faoff",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.flashAttention = FlashAttention::Off;
             s.gpuLayers = GpuLayers::count(0);
         },
         S::DeepShapes},
        {"ngl0_np4",
         [](ServerSettings& s, std::uint32_t) {
             s.parallelSlots = 4;
             s.gpuLayers = GpuLayers::count(0);
         },
         S::DeepShapes},
        {"ngl_all_c16384_np1_ub1024",
         [=](ServerSettings& s, std::uint32_t) {
             np1(s);
             s.contextTokens = 16384;
             s.ubatchTokens = 1024;
         },
         S::DeepShapes},
    };
}

bool vulkanMatrixVariantApplies(const VulkanMatrixVariant& variant, const IntegrationShape& shape) {
    switch (variant.scope) {
    case VulkanMatrixVariant::Scope::AllShapes:
        return true;
    case VulkanMatrixVariant::Scope::DeepShapes:
        return isDeepShape(shape);
    case VulkanMatrixVariant::Scope::SlidingWindow:
        return shape.swa;
    }
    return false;
}

std::uint32_t blockCountOf(const IntegrationShape& shape) {
    const auto spec = loadIntegrationShape(shape);
    if (!spec) {
        return 1;
    }
    const std::string architecture = spec->file.getString("general.architecture").value_or("");
    return static_cast<std::uint32_t>(spec->file.getUint(architecture + ".block_count").value_or(1));
}

} // namespace

GpuDevice lavapipeDevice() {
    GpuDevice device;
    device.name = "Vulkan0";
    device.memoryBytes = 2048 * kMiB;
    device.backend = Backend::Vulkan;
    // vulkaninfo on lavapipe: what makes llama.cpp keep big weights and ops off it.
    device.limits.maxStorageBufferRangeBytes = kLavapipeMaxStorageBufferRangeBytes;
    device.limits.maxAllocationBytes = kLavapipeMaxMemoryAllocationBytes;
    return device;
}

std::vector<IntegrationShape> vulkanShapes() {
    std::vector<IntegrationShape> shapes;
    for (const ShapePlan& plan : shapePlans()) {
        IntegrationShape shape;
        shape.name = cutName(plan.stem, plan.cut);
        shape.specPath =
            (std::filesystem::path(shapesDirectory()) / (std::string(plan.stem) + ".json")).string();
        shape.cut = plan.cut;
        // A spec that does not parse or cut still gets its cases: they fail with the error.
        if (const auto spec = loadIntegrationShape(shape)) {
            const std::string architecture = spec->file.getString("general.architecture").value_or("");
            shape.architecture = architecture;
            shape.swa = spec->file.getUint(architecture + ".attention.sliding_window").value_or(0) > 0;
            shape.smallWeights = spec->file.tensorBytes() < 3 * kGiB;
        }
        shapes.push_back(std::move(shape));
    }
    return shapes;
}

std::vector<IntegrationCase> vulkanIntegrationCases() {
    std::vector<IntegrationCase> cases;
    for (const IntegrationShape& shape : vulkanShapes()) {
        const std::uint32_t blocks = blockCountOf(shape);
        for (const VulkanMatrixVariant& variant : vulkanMatrixVariants()) {
            if (!vulkanMatrixVariantApplies(variant, shape)) {
                continue;
            }
            ServerSettings settings;
            settings.contextTokens = 4096;
            settings.gpuLayers = GpuLayers::all();
            settings.repack = false; // the CPU matrix's reason: repacking copies weights into real memory
            variant.apply(settings, blocks);
            cases.push_back({shape, variant.name, settings, {lavapipeDevice()}});
        }
    }
    return cases;
}

std::vector<IntegrationCase> vulkanLiveCases() {
    std::vector<std::string> allShapeVariants;
    for (const VulkanMatrixVariant& variant : vulkanMatrixVariants()) {
        if (variant.scope == VulkanMatrixVariant::Scope::AllShapes) {
            allShapeVariants.push_back(variant.name);
        }
    }
    const std::size_t count = allShapeVariants.size();
    const std::vector<IntegrationShape> shapes = vulkanShapes();
    std::vector<IntegrationCase> live;
    for (const IntegrationCase& matrixCase : vulkanIntegrationCases()) {
        const auto shape = std::find_if(shapes.begin(), shapes.end(), [&](const IntegrationShape& s) {
            return s.name == matrixCase.shape.name;
        });
        const std::size_t index = static_cast<std::size_t>(shape - shapes.begin());
        const std::string& first = allShapeVariants[index % count];
        const std::string& second = allShapeVariants[(index + count / 2) % count];
        if (matrixCase.settingsName == first || matrixCase.settingsName == second) {
            live.push_back(matrixCase);
        }
    }
    return live;
}

} // namespace llamafit::test
