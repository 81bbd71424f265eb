// LoRA adapters in the engine's graph (llmgraph.h LlmGraph::project, computeengine.h
// graphParamsFor): llama.cpp's build_lora_mm adds, per adapted weight and adapter,
// mul_mat(lora_b, mul_mat(lora_a, x)), a scale and an add; nothing else changes. Built from the
// llama shape cut to two blocks and the LoRA shapes of tests/data/shapes/lora, in memory.
#include "core/flags/serverargs.h"
#include "core/model/loraadapter.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/computeengine.h"
#include "core/sizing/estimator.h"
#include "core/sizing/graph/modelgraph.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "tests/support/modelfiles.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace llamafit {
namespace {

constexpr std::uint32_t kLoraBlocks = 2;

// Llama-3.2-1B's shape cut to kLoraBlocks blocks (testmodels.h interpretedShape: a failure fails
// the test and gives a model without tensors).
ModelInfo loraBaseModel() {
    return test::interpretedShape("llama.json", kLoraBlocks);
}

Result<LoraAdapterInfo> loraShape(const std::string& stem) {
    const auto spec = test::loadModelSpecFile(std::string(LLAMAFIT_SHAPES_DIR) + "/lora/" + stem + ".json");
    if (!spec) {
        return spec.error();
    }
    const auto file = test::ggufFileForSpec(*spec);
    if (!file) {
        return file.error();
    }
    return interpretLoraAdapter(*file, stem + ".gguf");
}

// The prompt graph of `argv` over the llama shape with `adapters`.
Result<graph::ComputeGraph> loraPromptGraph(const ModelInfo& model, const std::vector<std::string>& argv,
                                            const std::vector<LoraAdapterInfo>& adapters) {
    const Result<ParsedServerArgs> parsed = parseServerArgs(argv);
    if (!parsed) {
        return parsed.error();
    }
    const Result<ResolvedContext> context = resolveContext(model, parsed->settings);
    if (!context) {
        return context.error();
    }
    const KvPlan kv = sizeKvCaches(model, parsed->settings, *context);
    const Result<LayerPlacement> layers = placeLayers(model, parsed->settings, {});
    if (!layers) {
        return layers.error();
    }
    std::optional<graph::GraphParams> params =
        graphParamsFor(model, parsed->settings, *context, kv, {}, *layers, adapters);
    if (!params) {
        return makeError("test.no-params", "graphParamsFor gave none");
    }
    params->reserve = graph::reserveShapes(context->nUbatch, context->nSeqMax, context->nOutputs).front();
    return graph::buildModelGraph(model, *params);
}

std::map<graph::GgmlOp, std::size_t> opCounts(const graph::ComputeGraph& built) {
    std::map<graph::GgmlOp, std::size_t> counts;
    for (const graph::TensorId id : built.nodes) {
        ++counts[built[id].op];
    }
    return counts;
}

TEST(LoraGraphTest, EachAdaptedWeightGainsTwoProductsAScaleAndAnAdd) {
    const ModelInfo model = loraBaseModel();
    ASSERT_FALSE(model.tensors.empty());
    const Result<LoraAdapterInfo> adapter = loraShape("llama-lora-r64-all");
    ASSERT_TRUE(adapter.ok()) << adapter.error().message;
    const std::vector<std::string> argv{"-c", "4096", "-np", "1", "--lora", "llama-lora-r64-all.gguf"};
    const Result<graph::ComputeGraph> plain = loraPromptGraph(model, {"-c", "4096", "-np", "1"}, {});
    const Result<graph::ComputeGraph> adapted = loraPromptGraph(model, argv, {*adapter});
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    ASSERT_TRUE(adapted.ok()) << adapted.error().message;

    // r64-all adapts q, k, v, output, gate, up and down of every block; the cut keeps two.
    const std::size_t pairs = 7 * kLoraBlocks;
    std::map<graph::GgmlOp, std::size_t> plainOps = opCounts(*plain);
    std::map<graph::GgmlOp, std::size_t> adaptedOps = opCounts(*adapted);
    EXPECT_EQ(adaptedOps[graph::GgmlOp::MulMat], plainOps[graph::GgmlOp::MulMat] + 2 * pairs);
    EXPECT_EQ(adaptedOps[graph::GgmlOp::Scale], plainOps[graph::GgmlOp::Scale] + pairs);
    EXPECT_EQ(adaptedOps[graph::GgmlOp::Add], plainOps[graph::GgmlOp::Add] + pairs);
    EXPECT_EQ(adapted->nodes.size(), plain->nodes.size() + 4 * pairs);

    // The adapter's tensors are weights in the buffer of the weight they adapt (the host's here).
    std::size_t loraLeafs = 0;
    for (const graph::TensorId id : adapted->leafs) {
        const graph::Tensor& leaf = (*adapted)[id];
        if (leaf.name.ends_with(".lora_a") || leaf.name.ends_with(".lora_b")) {
            ++loraLeafs;
            const graph::Buffer* buffer = adapted->bufferOf(id);
            ASSERT_NE(buffer, nullptr) << leaf.name;
            EXPECT_EQ(buffer->usage, graph::BufferUsage::Weights) << leaf.name;
        }
    }
    EXPECT_EQ(loraLeafs, 2 * pairs);
}

TEST(LoraGraphTest, AZeroScaleAdapterLeavesTheGraphAsWithout) {
    // llama-context.cpp set_adapters_lora keeps only the adapters of a non-zero scale.
    const ModelInfo model = loraBaseModel();
    ASSERT_FALSE(model.tensors.empty());
    const Result<LoraAdapterInfo> adapter = loraShape("llama-lora-r16");
    ASSERT_TRUE(adapter.ok()) << adapter.error().message;
    const Result<graph::ComputeGraph> plain = loraPromptGraph(model, {"-c", "4096", "-np", "1"}, {});
    const Result<graph::ComputeGraph> zero = loraPromptGraph(
        model, {"-c", "4096", "-np", "1", "--lora-scaled", "llama-lora-r16.gguf:0"}, {*adapter});
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    ASSERT_TRUE(zero.ok()) << zero.error().message;
    ASSERT_EQ(zero->nodes.size(), plain->nodes.size());
    for (std::size_t n = 0; n < plain->nodes.size(); ++n) {
        EXPECT_EQ((*zero)[zero->nodes[n]].op, (*plain)[plain->nodes[n]].op) << "node " << n;
    }
}

TEST(LoraGraphTest, TheEngineSizesEstimatesWithAdapters) {
    const ModelInfo model = loraBaseModel();
    ASSERT_FALSE(model.tensors.empty());
    const Result<LoraAdapterInfo> adapter = loraShape("llama-lora-r16");
    ASSERT_TRUE(adapter.ok()) << adapter.error().message;
    const Result<ParsedServerArgs> parsed =
        parseServerArgs({"-c", "4096", "-np", "1", "--lora", "llama-lora-r16.gguf"});
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(engineCoverageGap(model, parsed->settings, {}, {*adapter}), "");
    // Without the files the LoRA branches are unknown: the closed form, saying why.
    EXPECT_NE(engineCoverageGap(model, parsed->settings, {}), "");
    CompanionModels companions;
    companions.loraAdapters = {*adapter};
    const Result<MemoryEstimate> estimate = estimateMemory(model, parsed->settings, {}, companions);
    ASSERT_TRUE(estimate.ok()) << estimate.error().message;
    EXPECT_EQ(estimate->computeApproximation, "");
}

} // namespace
} // namespace llamafit
