// Picks the builder of a model's architecture; see modelgraph.h.
#include "core/sizing/graph/modelgraph.h"

#include "core/sizing/graph/models/modelbuilders.h"

#include <array>
#include <stdexcept>
#include <string_view>

namespace llamafit::graph {
namespace {

using Builder = TensorId (*)(LlmGraph&);

// The llama family has no experts, no recurrent and no sliding-window layers.
bool denseAttentionOnly(const ModelInfo& model) {
    return !model.isMoe() && !model.hasRecurrentLayers() && !model.hasSlidingWindowLayers();
}

// qwen3moe's builder: routed experts with no shared expert, no recurrent or sliding-window layers.
bool routedExpertsOnly(const ModelInfo& model) {
    return model.isMoe() && model.sharedExpertFeedForwardLength == 0 && !model.hasRecurrentLayers() &&
           !model.hasSlidingWindowLayers();
}

struct ArchitectureBuilder {
    std::string_view architecture;
    Builder build;
    bool (*covers)(const ModelInfo&); // the variants of the architecture the builder knows
};

// general.architecture -> the builder mirroring its src/models/<arch>.cpp. One line per
// architecture: adding one is its builder file and a line here.
constexpr std::array kBuilders = {
    ArchitectureBuilder{"llama", buildLlamaGraph, denseAttentionOnly},
    ArchitectureBuilder{"qwen2", buildLlamaGraph, denseAttentionOnly},
    ArchitectureBuilder{"qwen3", buildLlamaGraph, denseAttentionOnly},
    ArchitectureBuilder{"mistral3", buildLlamaGraph, denseAttentionOnly},
    ArchitectureBuilder{"seed_oss", buildLlamaGraph, denseAttentionOnly},
    ArchitectureBuilder{"smollm3", buildLlamaGraph, denseAttentionOnly},
    ArchitectureBuilder{"ernie4_5", buildLlamaGraph, denseAttentionOnly},
    ArchitectureBuilder{"internlm2", buildLlamaGraph, denseAttentionOnly},
    ArchitectureBuilder{"qwen2vl", buildQwenVlGraph, denseAttentionOnly},
    ArchitectureBuilder{"qwen3vl", buildQwenVlGraph, denseAttentionOnly},
    ArchitectureBuilder{"phi3", buildPhi3Graph, denseAttentionOnly},
    ArchitectureBuilder{"glm4", buildGlm4Graph, denseAttentionOnly},
    ArchitectureBuilder{"olmo2", buildOlmo2Graph, denseAttentionWithSlidingWindows},
    ArchitectureBuilder{"qwen3moe", buildQwen3MoeGraph, routedExpertsOnly},
    ArchitectureBuilder{"qwen3vlmoe", buildQwen3VlMoeGraph, routedExpertsOnly},
    ArchitectureBuilder{"qwen2moe", buildQwen2MoeGraph, routedAndSharedExperts},
    ArchitectureBuilder{"granite", buildGraniteGraph, graniteLayers},
    ArchitectureBuilder{"granitemoe", buildGraniteGraph, graniteLayers},
    ArchitectureBuilder{"gpt-oss", buildGptOssGraph, slidingWindowExperts},
    ArchitectureBuilder{"deepseek2", buildDeepseek2Graph, latentAttentionExperts},
    ArchitectureBuilder{"glm4moe", buildGlm4MoeGraph, routedExpertsWithDenseLead},
    ArchitectureBuilder{"ernie4_5-moe", buildErnie45MoeGraph, routedAndSharedExperts},
    ArchitectureBuilder{"dots1", buildDots1Graph, denseLeadExpertsWithFileGating},
    ArchitectureBuilder{"minimax-m2", buildMinimaxM2Graph, routedExpertsWithFileGating},
    ArchitectureBuilder{"olmoe", buildOlmoeGraph, routedExpertsOnly},
    ArchitectureBuilder{"hunyuan-moe", buildHunyuanMoeGraph, routedAndSharedExperts},
    ArchitectureBuilder{"gemma", buildGemmaGraph, denseAttentionOnly},
    ArchitectureBuilder{"gemma2", buildGemma2Graph, slidingWindowDense},
    ArchitectureBuilder{"gemma3", buildGemma3Graph, slidingWindowDense},
    ArchitectureBuilder{"cohere2", buildCohere2Graph, slidingWindowDense},
    ArchitectureBuilder{"command-r", buildCommandRGraph, denseAttentionOnly},
    ArchitectureBuilder{"mamba", buildMambaGraph, recurrentOnly},
    ArchitectureBuilder{"mamba2", buildMambaGraph, recurrentOnly},
    ArchitectureBuilder{"granitehybrid", buildGraniteHybridGraph, denseRecurrentHybrid},
    ArchitectureBuilder{"falcon-h1", buildFalconH1Graph, parallelRecurrentHybrid},
    ArchitectureBuilder{"nemotron_h", buildNemotronHGraph, denseRecurrentStack},
    ArchitectureBuilder{"nemotron_h_moe", buildNemotronHGraph, recurrentMoeStack},
    ArchitectureBuilder{"jamba", buildJambaGraph, [](const ModelInfo& m) { return m.hasRecurrentLayers(); }},
    ArchitectureBuilder{"lfm2", buildLfm2Graph, denseShortConvHybrid},
    ArchitectureBuilder{"lfm2moe", buildLfm2Graph, shortConvHybridExperts},
    ArchitectureBuilder{"qwen3next", buildQwen3NextGraph, deltaNetHybrid},
    ArchitectureBuilder{"qwen35", buildQwen35Graph, deltaNetHybrid},
    ArchitectureBuilder{"qwen35moe", buildQwen35Graph, deltaNetHybrid},
    ArchitectureBuilder{"rwkv6", buildRwkv6Graph, rwkvRecurrentOnly},
    ArchitectureBuilder{"rwkv7", buildRwkv7Graph, rwkvRecurrentOnly},
};

Builder builderFor(const ModelInfo& model) {
    for (const ArchitectureBuilder& entry : kBuilders) {
        if (entry.architecture == model.architecture && entry.covers(model)) {
            return entry.build;
        }
    }
    return nullptr;
}

} // namespace

bool hasGraphBuilder(const ModelInfo& model) {
    return builderFor(model) != nullptr;
}

Result<ComputeGraph> buildModelGraph(const ModelInfo& model, const GraphParams& params) {
    if (!hasGraphBuilder(model)) {
        return makeError("sizing.no-graph", "no graph for " + model.architecture);
    }
    if (params.weightBuffers.size() != model.tensors.size() ||
        params.kvBuffers.size() < model.trunkLayerCount()) {
        return makeError("sizing.no-graph", "graph parameters do not cover the model's tensors and layers");
    }
    LlmGraph graph(model, params);
    try {
        builderFor(model)(graph);
    } catch (const std::out_of_range&) {
        // A weight the architecture's graph needs is missing (ComputeGraph's checked access).
        return makeError("sizing.no-graph",
                         "the model lacks a tensor its " + model.architecture + " graph needs");
    }
    return graph.builder().take();
}

} // namespace llamafit::graph
