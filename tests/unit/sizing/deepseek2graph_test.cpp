// The deepseek2 graph builder (core/sizing/graph/models/deepseek2.cpp) beyond its recorded plans,
// which hold DeepSeek-V2-Lite (tests/data/shapes/deepseek2-mla.json: softmax routing, no weight
// normalisation, expert_weights_scale 1, Q from attn_q): the routing keys a GGUF carries reach
// build_moe_ffn, the low-rank Q of the full-size models builds, and the variants the builder does
// not build (DeepSeek-V3's selection bias and expert groups) keep the closed forms.
#include "core/model/modelinterpreter.h"
#include "core/model/modelspec.h"
#include "core/sizing/graph/modelgraph.h"
#include "tests/support/modelfiles.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace llamafit {
namespace {

constexpr std::string_view kScaleKey =
    R"({"key": "deepseek2.expert_weights_scale", "type": "f32", "value": 1.0})";
constexpr std::string_view kRouterTensor =
    R"({"name": "blk.{i}.ffn_gate_inp.weight", "type": "f32", "shape": [2048, 64], "layers": {"from": 1}})";
constexpr std::string_view kQueryTensor =
    R"({"name": "blk.{i}.attn_q.weight", "type": "q8_0", "shape": [2048, 3072]})";

void replaceOnce(std::string& text, std::string_view from, const std::string& to) {
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
}

// The V2-Lite shape with `edits` (from, to) applied to its JSON text, interpreted as a file.
ModelInfo liteShape(const std::vector<std::pair<std::string_view, std::string>>& edits) {
    std::ifstream in(test::shapesDirectory() + "/deepseek2-mla.json");
    std::stringstream text;
    text << in.rdbuf();
    std::string json = text.str();
    for (const auto& [from, to] : edits) {
        replaceOnce(json, from, to);
    }
    const auto spec = parseModelSpec(json);
    EXPECT_TRUE(spec.ok()) << spec.error().message;
    const auto file = test::ggufFileForSpec(*spec);
    EXPECT_TRUE(file.ok()) << file.error().message;
    const auto model = interpretModel(*file);
    EXPECT_TRUE(model.ok()) << model.error().message;
    return *model;
}

// A token graph on the CPU alone, flash attention off.
graph::GraphParams cpuTokenGraph(const ModelInfo& model) {
    graph::GraphParams params;
    params.reserve = {1, 1, 1};
    params.kvCells = 256;
    params.flashAttention = false;
    params.weightBuffers.assign(model.tensors.size(), {"CPU", graph::BufferUsage::Weights, true});
    params.kvBuffers.assign(model.layers.size(), {"CPU", graph::BufferUsage::Any, true});
    params.layerBackends.assign(model.layers.size(), 0);
    return params;
}

std::size_t countNodes(const graph::ComputeGraph& g, graph::GgmlOp op) {
    std::size_t count = 0;
    for (const graph::TensorId id : g.nodes) {
        count += g[id].op == op ? 1 : 0;
    }
    return count;
}

TEST(Deepseek2GraphTest, TheRoutingKeysReachTheExperts) {
    const ModelInfo lite = liteShape({});
    ASSERT_TRUE(graph::hasGraphBuilder(lite));
    const auto plain = graph::buildModelGraph(lite, cpuTokenGraph(lite));
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    // 27 layers, the first dense: a weight scale of 1 adds no SCALE, softmax routing a SOFT_MAX per
    // MoE layer beside each layer's attention.
    EXPECT_EQ(countNodes(*plain, graph::GgmlOp::Scale), 0u);
    EXPECT_EQ(countNodes(*plain, graph::GgmlOp::Div), 0u);
    EXPECT_EQ(countNodes(*plain, graph::GgmlOp::SoftMax), 27u + 26u);

    // DeepSeek-V2's routed_scaling_factor 16, a normalised sigmoid routing.
    const ModelInfo routed =
        liteShape({{kScaleKey, R"({"key": "deepseek2.expert_weights_scale", "type": "f32", "value": 16.0},
                        {"key": "deepseek2.expert_weights_norm", "type": "bool", "value": true},
                        {"key": "deepseek2.expert_gating_func", "type": "u32", "value": 2})"}});
    EXPECT_EQ(routed.expertWeightsScale, 16.0f);
    EXPECT_TRUE(routed.expertWeightsNorm);
    EXPECT_EQ(routed.expertGatingFunc, 2u);
    ASSERT_TRUE(graph::hasGraphBuilder(routed));
    const auto built = graph::buildModelGraph(routed, cpuTokenGraph(routed));
    ASSERT_TRUE(built.ok()) << built.error().message;
    EXPECT_EQ(countNodes(*built, graph::GgmlOp::Scale), 26u);
    EXPECT_EQ(countNodes(*built, graph::GgmlOp::Div), 26u);
    EXPECT_EQ(countNodes(*built, graph::GgmlOp::SoftMax), 27u);
}

TEST(Deepseek2GraphTest, BuildsTheLowRankQuery) {
    // The full-size models: Q through attn_q_a, its RMS norm and attn_q_b (q_lora_rank 1536).
    const ModelInfo model = liteShape(
        {{kQueryTensor, R"({"name": "blk.{i}.attn_q_a.weight", "type": "q8_0", "shape": [2048, 1536]},
                           {"name": "blk.{i}.attn_q_a_norm.weight", "type": "f32", "shape": [1536]},
                           {"name": "blk.{i}.attn_q_b.weight", "type": "q8_0", "shape": [1536, 3072]})"}});
    const ModelInfo lite = liteShape({});
    ASSERT_TRUE(graph::hasGraphBuilder(model));
    const auto lowRank = graph::buildModelGraph(model, cpuTokenGraph(model));
    ASSERT_TRUE(lowRank.ok()) << lowRank.error().message;
    const auto plain = graph::buildModelGraph(lite, cpuTokenGraph(lite));
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(countNodes(*lowRank, graph::GgmlOp::RmsNorm), countNodes(*plain, graph::GgmlOp::RmsNorm) + 27u);
    EXPECT_EQ(countNodes(*lowRank, graph::GgmlOp::MulMat), countNodes(*plain, graph::GgmlOp::MulMat) + 27u);
}

TEST(Deepseek2GraphTest, TemperatureTuningScalesTheQueries) {
    // attention.temperature_scale (mistral-large): one attn_scale input multiplies every layer's Q.
    const ModelInfo tuned = liteShape(
        {{kScaleKey,
          std::string(kScaleKey) +
              R"(, {"key": "deepseek2.attention.temperature_scale", "type": "f32", "value": 0.1})"}});
    const ModelInfo lite = liteShape({});
    const auto scaled = graph::buildModelGraph(tuned, cpuTokenGraph(tuned));
    ASSERT_TRUE(scaled.ok()) << scaled.error().message;
    const auto plain = graph::buildModelGraph(lite, cpuTokenGraph(lite));
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(countNodes(*scaled, graph::GgmlOp::Mul), countNodes(*plain, graph::GgmlOp::Mul) + 27u);
    EXPECT_EQ(scaled->leafs.size(), plain->leafs.size() + 1);
}

TEST(Deepseek2GraphTest, VariantsItDoesNotBuildKeepTheClosedForms) {
    // DeepSeek-V3's expert groups; the sqrt(softplus) gating. (Its selection bias, blk.N.exp_probs_b,
    // is built: tests/data/plans/*_deepseek2_mla_sigmoid_bias_*.)
    EXPECT_FALSE(graph::hasGraphBuilder(liteShape(
        {{kScaleKey, std::string(kScaleKey) +
                         R"(, {"key": "deepseek2.expert_group_count", "type": "u32", "value": 8})"}})));
    EXPECT_FALSE(graph::hasGraphBuilder(liteShape(
        {{kScaleKey, std::string(kScaleKey) +
                         R"(, {"key": "deepseek2.expert_gating_func", "type": "u32", "value": 4})"}})));
}

} // namespace
} // namespace llamafit
