#include "tests/support/integrationcases.h"

#include "core/common/units.h"
#include "tests/support/modelfiles.h"
#include "tests/support/shapegeometry.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

namespace llamafit::test {
namespace {

bool hasSlidingWindow(const GgufFile& file) {
    const auto arch = file.getString("general.architecture");
    return arch && file.getUint(*arch + ".attention.sliding_window").value_or(0) > 0;
}

struct CpuMatrixVariant {
    std::string name;
    std::function<void(ServerSettings&)> apply;
    enum class Scope { AllShapes, DeepShapes, SlidingWindow, SmallWeights } scope = Scope::AllShapes;
};

// Architectures that get every variant; the others get the core set. A dense model, a
// gated-delta-net hybrid MoE, a Mamba-2 hybrid, two sliding-window models and an MLA model
// cover every sizing rule the variants exercise; the whole matrix (about 220 cases) runs
// in about five minutes on two cores.
bool isDeepArchitecture(const std::string& architecture) {
    return architecture == "llama" || architecture == "qwen35moe" || architecture == "gemma3" ||
           architecture == "deepseek2" || architecture == "gpt-oss" || architecture == "nemotron_h";
}

// One dimension (or two that interact) changed at a time from "-c 4096, -np auto", so a
// mismatch points at one rule; a full cross product would not fit the time budget.
// Every case runs with -nr (no repack) except "repack": repacking copies the weights into
// real memory, which the large shapes cannot afford on a small CI machine.
std::vector<CpuMatrixVariant> cpuMatrixVariants() {
    using T = GgmlType;
    using S = CpuMatrixVariant::Scope;
    return {
        {"c4096", [](ServerSettings&) {}},
        {"c32768_np4",
         [](ServerSettings& s) {
             s.contextTokens = 32768;
             s.parallelSlots = 4;
         }},
        {"c4096_np1_q8_0",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.cacheTypeK = s.cacheTypeV = T::Q8_0;
         }},
        {"c4096_np1_faoff",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.flashAttention = FlashAttention::Off;
         }},
        {"c4096_np1_ub128",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.ubatchTokens = 128;
         }},
        {"c4096_np1_swafull",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.swaFull = true;
         },
         S::SlidingWindow},
        {"c32768", [](ServerSettings& s) { s.contextTokens = 32768; }, S::DeepShapes},
        {"c4096_np1", [](ServerSettings& s) { s.parallelSlots = 1; }, S::DeepShapes},
        {"c4096_np4_kvu",
         [](ServerSettings& s) {
             s.parallelSlots = 4;
             s.kvUnified = true;
         },
         S::DeepShapes},
        {"c4096_nokvu", [](ServerSettings& s) { s.kvUnified = false; }, S::DeepShapes},
        {"c4096_np1_q4_0",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.cacheTypeK = s.cacheTypeV = T::Q4_0;
         },
         S::DeepShapes},
        {"c4096_np1_kq8_0",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.cacheTypeK = T::Q8_0;
         },
         S::DeepShapes},
        {"c32768_q8_0",
         [](ServerSettings& s) {
             s.contextTokens = 32768;
             s.cacheTypeK = s.cacheTypeV = T::Q8_0;
         },
         S::DeepShapes},
        {"c4096_np1_faon",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.flashAttention = FlashAttention::On;
         },
         S::DeepShapes},
        {"c4096_np1_faoff_kq4_0",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.flashAttention = FlashAttention::Off;
             s.cacheTypeK = T::Q4_0;
         },
         S::DeepShapes},
        // llama-server refuses this (quantized V needs FA): the estimate must refuse it too.
        {"c4096_np1_faoff_vq8_0",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.flashAttention = FlashAttention::Off;
             s.cacheTypeV = T::Q8_0;
         },
         S::DeepShapes},
        {"c32768_np1_faoff",
         [](ServerSettings& s) {
             s.contextTokens = 32768;
             s.parallelSlots = 1;
             s.flashAttention = FlashAttention::Off;
         },
         S::DeepShapes},
        {"c32768_ub128",
         [](ServerSettings& s) {
             s.contextTokens = 32768;
             s.ubatchTokens = 128;
         },
         S::DeepShapes},
        {"c4096_np1_ngl0",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.gpuLayers = GpuLayers::count(0);
         },
         S::DeepShapes},
        {"c32768_np4_swafull",
         [](ServerSettings& s) {
             s.contextTokens = 32768;
             s.parallelSlots = 4;
             s.swaFull = true;
         },
         S::SlidingWindow},
        {"c4096_np1_repack",
         [](ServerSettings& s) {
             s.parallelSlots = 1;
             s.repack = true;
         },
         S::SmallWeights},
    };
}

bool cpuMatrixVariantApplies(const CpuMatrixVariant& variant, const IntegrationShape& shape) {
    switch (variant.scope) {
    case CpuMatrixVariant::Scope::AllShapes:
        return true;
    case CpuMatrixVariant::Scope::DeepShapes:
        return isDeepArchitecture(shape.architecture);
    case CpuMatrixVariant::Scope::SlidingWindow:
        return shape.swa;
    case CpuMatrixVariant::Scope::SmallWeights:
        return shape.smallWeights;
    }
    return false;
}

} // namespace

void PrintTo(const IntegrationCase& testCase, std::ostream* out) {
    *out << testCase.name();
}

std::string testNamePart(const std::string& text) {
    std::string result;
    for (const char c : text) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        result += alnum ? c : '_';
    }
    return result;
}

std::vector<IntegrationShape> integrationShapes() {
    std::vector<IntegrationShape> shapes;
    for (const std::string& path : shapeFiles()) {
        IntegrationShape shape;
        shape.name = testNamePart(std::filesystem::path(path).stem().string());
        shape.specPath = path;
        // A spec that does not parse still gets its cases: they fail with the parse error.
        if (const auto spec = loadModelSpecFile(path)) {
            shape.architecture = spec->file.getString("general.architecture").value_or("");
            shape.swa = hasSlidingWindow(spec->file);
            shape.smallWeights = spec->file.tensorBytes() < 3 * kGiB;
        }
        shapes.push_back(std::move(shape));
    }
    return shapes;
}

std::vector<IntegrationCase> integrationCases() {
    std::vector<IntegrationCase> cases;
    for (const IntegrationShape& shape : integrationShapes()) {
        for (const CpuMatrixVariant& variant : cpuMatrixVariants()) {
            if (!cpuMatrixVariantApplies(variant, shape)) {
                continue;
            }
            ServerSettings settings;
            settings.contextTokens = 4096;
            settings.repack = false;
            variant.apply(settings);
            cases.push_back({shape, variant.name, settings, {}});
        }
    }
    return cases;
}

Result<ModelSpec> loadIntegrationShape(const IntegrationShape& shape) {
    auto spec = loadModelSpecFile(shape.specPath);
    if (spec && !shape.geometry.empty()) {
        spec = reshapeToGeometry(*spec, shape.geometry);
    }
    if (!spec || shape.cut.empty()) {
        return spec;
    }
    return cutShape(*spec, shape.cut);
}

std::string materializeShape(const IntegrationShape& shape, const std::string& directory,
                             std::string& error) {
    static std::map<std::string, std::string> written;
    if (const auto it = written.find(shape.name); it != written.end()) {
        return it->second;
    }
    const std::string path = directory + "/" + shape.name + ".gguf";
    const auto spec = loadIntegrationShape(shape);
    if (!spec) {
        error = spec.error().code + ": " + spec.error().message;
        return {};
    }
    const auto file = writeSpecAsGguf(*spec, path);
    if (!file) {
        error = file.error().code + ": " + file.error().message;
        return {};
    }
    written[shape.name] = path;
    return path;
}

} // namespace llamafit::test
