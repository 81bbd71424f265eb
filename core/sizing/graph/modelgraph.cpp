// Picks the builder of a model's architecture; see modelgraph.h.
#include "core/sizing/graph/modelgraph.h"

#include "core/sizing/graph/models/modelbuilders.h"

#include <array>
#include <string_view>

namespace llamafit::graph {
namespace {

using Builder = TensorId (*)(LlmGraph&);

struct ArchitectureBuilder {
    std::string_view architecture;
    Builder build;
};

// general.architecture -> the builder mirroring its src/models/<arch>.cpp.
constexpr std::array kBuilders = {
    ArchitectureBuilder{"llama", buildLlamaGraph},
    ArchitectureBuilder{"qwen2", buildLlamaGraph},
    ArchitectureBuilder{"qwen3", buildLlamaGraph},
};

Builder builderFor(const ModelInfo& model) {
    for (const ArchitectureBuilder& entry : kBuilders) {
        if (entry.architecture == model.architecture) {
            return entry.build;
        }
    }
    return nullptr;
}

} // namespace

bool hasGraphBuilder(const ModelInfo& model) {
    // Experts and recurrent or sliding-window layers are not in these builders yet.
    return builderFor(model) != nullptr && !model.isMoe() && !model.hasRecurrentLayers() &&
           !model.hasSlidingWindowLayers();
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
    builderFor(model)(graph);
    return graph.builder().take();
}

} // namespace llamafit::graph
