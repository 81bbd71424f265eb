// The graph builders against the graphs the real llama-server built (tests/data/plans): for every
// plan of an architecture with a builder (CPU, and lavapipe as Vulkan0), the model is read from
// its shape, the settings from the plan's argv, the graph parameters come from the estimate's own
// computeengine.h, and the built graph must equal the server's node by node (op, type, shape,
// sources, leaf and node order); the scheduler and allocator ports then give the same compute
// buffers. No server runs here.
#include "core/flags/serverargs.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/allocator/graphallocator.h"
#include "core/sizing/computeengine.h"
#include "core/sizing/estimator.h"
#include "core/sizing/graph/modelgraph.h"
#include "core/sizing/kvcachesize.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/rpcdevices.h"
#include "core/sizing/scheduler/graphsplit.h"
#include "tests/support/integrationcases.h"
#include "tests/support/modelfiles.h"
#include "tests/support/vulkancases.h"
#include "tests/unit/sizing/planbackends.h"
#include "tests/unit/sizing/plandump.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace llamafit {
namespace {

namespace fs = std::filesystem;

struct PlanCase {
    std::string folder;
    test::IntegrationShape shape;
    std::vector<std::string> args;
};

// "argv: llama-server -m $SCRATCH/llama_l4.gguf ..." -> the shape (llama, cut to 4 blocks) and the flags.
std::optional<PlanCase> readPlanCase(const fs::path& folder) {
    std::ifstream in(folder / "argv.txt");
    std::string line;
    if (!std::getline(in, line)) {
        return std::nullopt;
    }
    std::istringstream words(line.substr(line.find("llama-server") + std::string("llama-server").size()));
    PlanCase out;
    out.folder = folder.string();
    for (std::string word; words >> word;) {
        out.args.push_back(word);
    }
    std::smatch match;
    static const std::regex modelPattern(R"(\$SCRATCH/([a-z0-9_]+?)(_l([0-9]+))?(_v([0-9]+))?\.gguf)");
    if (!std::regex_search(line, match, modelPattern)) {
        return std::nullopt;
    }
    std::string stem = match[1];
    out.shape.name = stem;
    out.shape.specPath = std::string(LLAMAFIT_SHAPES_DIR) + "/" + stem + ".json";
    // A variant of a shape (tests/data/shapes/variants: not in the matrices) keeps its name.
    if (const std::string variant = std::string(LLAMAFIT_SHAPES_DIR) + "/variants/" + stem + ".json";
        !fs::exists(out.shape.specPath) && fs::exists(variant)) {
        out.shape.specPath = variant;
    }
    // An architecture named with a hyphen (gpt-oss, ernie4_5-moe) has a file stem with an
    // underscore in its place: its last one, or every one.
    if (const std::size_t last = stem.rfind('_');
        !fs::exists(out.shape.specPath) && last != std::string::npos) {
        std::string hyphenated = stem;
        hyphenated[last] = '-';
        out.shape.specPath = std::string(LLAMAFIT_SHAPES_DIR) + "/" + hyphenated + ".json";
    }
    if (!fs::exists(out.shape.specPath)) {
        std::replace(stem.begin(), stem.end(), '_', '-');
        out.shape.specPath = std::string(LLAMAFIT_SHAPES_DIR) + "/" + stem + ".json";
    }
    if (match[3].matched) {
        out.shape.cut.blockCount = static_cast<std::uint32_t>(std::stoul(match[3]));
    }
    if (match[5].matched) {
        out.shape.cut.vocabularySize = static_cast<std::uint32_t>(std::stoul(match[5]));
    }
    return out;
}

Result<ModelInfo> shapeModel(const test::IntegrationShape& shape) {
    const auto spec = test::loadIntegrationShape(shape);
    if (!spec) {
        return spec.error();
    }
    const auto file = test::ggufFileForSpec(*spec);
    if (!file) {
        return file.error();
    }
    return interpretModel(*file);
}

// Every plan folder with the argv it was recorded with (a directory listing: no model is read here).
std::vector<std::string> planFolders() {
    std::vector<std::string> cases;
    for (const fs::directory_entry& entry : fs::directory_iterator(LLAMAFIT_PLANS_DIR)) {
        if (entry.is_directory() && fs::exists(entry.path() / "argv.txt")) {
            cases.push_back(entry.path().filename().string());
        }
    }
    std::sort(cases.begin(), cases.end());
    return cases;
}

// A tensor's place in its graph: "L3", "N17", or "T40" for one in neither list.
std::string placeOf(const graph::ComputeGraph& g, graph::TensorId id) {
    for (std::size_t i = 0; i < g.leafs.size(); ++i) {
        if (g.leafs[i] == id) {
            return "L" + std::to_string(i);
        }
    }
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        if (g.nodes[i] == id) {
            return "N" + std::to_string(i);
        }
    }
    return "T?";
}

std::string describe(const graph::ComputeGraph& g, graph::TensorId id) {
    const graph::Tensor& t = g[id];
    std::ostringstream out;
    out << graph::ggmlOpName(t.op) << " " << ggmlTypeName(t.type) << " [" << t.ne[0] << "," << t.ne[1] << ","
        << t.ne[2] << "," << t.ne[3] << "] nb[" << t.nb[0] << "," << t.nb[1] << "," << t.nb[2] << ","
        << t.nb[3] << "] flags " << (t.flags & (graph::kFlagInput | graph::kFlagOutput)) << " src";
    for (const graph::TensorId source : t.sources) {
        if (source != graph::kNoTensor) {
            out << " " << (source == id ? "self" : placeOf(g, source));
        }
    }
    if (t.isView()) {
        out << " view " << placeOf(g, t.viewSource) << "+" << t.viewOffset;
    }
    if (t.buffer != graph::kNoBuffer) {
        const graph::Buffer& buffer = g.buffers[t.buffer];
        out << " in " << buffer.bufferType << (buffer.host ? " (host)" : "")
            << (buffer.usage == graph::BufferUsage::Weights ? " weights" : "");
    }
    if (t.pinnedBackend >= 0) {
        out << " pinned to " << t.pinnedBackend;
    }
    return out.str();
}

// The first place the two graphs differ, or "" when they are the same graph.
std::string firstDifference(const graph::ComputeGraph& built, const graph::ComputeGraph& real) {
    const auto compare = [&](const std::vector<graph::TensorId>& ours,
                             const std::vector<graph::TensorId>& theirs, const char* kind) -> std::string {
        for (std::size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) {
            const std::string a = describe(built, ours[i]);
            const std::string b = describe(real, theirs[i]);
            if (a != b) {
                return std::string(kind) + " " + std::to_string(i) + ": built " + built[ours[i]].name + " " +
                       a + "\n                 real  " + real[theirs[i]].name + " " + b;
            }
        }
        if (ours.size() != theirs.size()) {
            return std::string(kind) + "s: built " + std::to_string(ours.size()) + ", real " +
                   std::to_string(theirs.size());
        }
        return "";
    };
    std::string difference = compare(built.nodes, real.nodes, "node");
    return difference.empty() ? compare(built.leafs, real.leafs, "leaf") : difference;
}

// One plan: built, scheduled and allocated, each step against the server's. `built` is set when
// its architecture has a builder (the others keep the closed forms and are only counted).
void checkPlan(const std::string& plan, bool& built) {
    built = false;
    const fs::path folder = fs::path(LLAMAFIT_PLANS_DIR) / plan;
    const std::optional<PlanCase> planCase = readPlanCase(folder);
    ASSERT_TRUE(planCase.has_value());
    const Result<ModelInfo> model = shapeModel(planCase->shape);
    ASSERT_TRUE(model.ok()) << model.error().message;
    if (!graph::hasGraphBuilder(*model)) {
        return;
    }
    built = true;
    const Result<ParsedServerArgs> parsed = parseServerArgs(planCase->args);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const ServerSettings& settings = parsed->settings;
    const Result<ResolvedContext> context = resolveContext(*model, settings);
    ASSERT_TRUE(context.ok()) << context.error().message;
    const KvPlan kv = sizeKvCaches(*model, settings, *context);
    // A Vulkan plan ran on lavapipe, the estimate's Vulkan0.
    std::vector<GpuDevice> gpus;
    if (plan.rfind("vulkan_lavapipe_", 0) == 0) {
        gpus.push_back(test::lavapipeDevice());
    }
    // An RPC plan ran against ggml-rpc-server -d CPU on loopback (record-plans.sh): one device per
    // --rpc endpoint, first, with equal free memory (the host's), then lavapipe where the case
    // kept it visible (rpc1vk), as tests/support/rpccases.cpp describes them to the estimate.
    if (plan.rfind("rpc_", 0) == 0) {
        constexpr std::uint64_t kHostFreeBytes = 24ull << 30;
        for (const std::string& endpoint : settings.rpcServers) {
            gpus.push_back(rpcDevice(endpoint, kHostFreeBytes));
        }
        if (plan.find("_rpc1vk_") != std::string::npos) {
            gpus.push_back(test::lavapipeDevice());
        }
    }
    const Result<LayerPlacement> layers = placeLayers(*model, settings, gpus);
    ASSERT_TRUE(layers.ok());
    // -fa auto as the estimate resolves it (estimator.cpp): llama.cpp's probe, replayed, may turn
    // flash attention off after the KV cache was made with it.
    ResolvedContext resolved = *context;
    if (settings.flashAttention == FlashAttention::Auto && resolved.flashAttention &&
        !ggmlTypeTraits(settings.cacheTypeV).quantized) {
        resolved.flashAttention =
            engineKeepsFlashAttention(*model, settings, resolved, gpus, *layers).value_or(true);
    }
    std::optional<graph::GraphParams> params = graphParamsFor(*model, settings, resolved, kv, gpus, *layers);
    ASSERT_TRUE(params.has_value());

    scheduler::SchedulerOptions options;
    options.copies = schedulerCopies(settings, gpus, params->fullOffload);
    EXPECT_EQ(options.copies, test::planCopies(folder.string())) << "the scheduler's copies";

    const std::vector<graph::ReserveShape> reserves =
        graph::reserveShapes(context->nUbatch, context->nSeqMax, context->nOutputs);
    std::vector<std::uint64_t> reserved;
    for (std::size_t r = 0; r < reserves.size(); ++r) {
        SCOPED_TRACE("reserve " + std::to_string(r));
        const Result<test::PlanDump> real = test::readPlanDump((folder / std::to_string(r)).string());
        ASSERT_TRUE(real.ok()) << real.error().message;
        params->reserve = reserves[r];
        const Result<graph::ComputeGraph> built = graph::buildModelGraph(*model, *params);
        ASSERT_TRUE(built.ok()) << built.error().message;
        const std::string difference = firstDifference(*built, real->graph);
        EXPECT_EQ(difference, "");

        const Result<std::vector<scheduler::SchedulerBackend>> backends = test::planBackends(*real);
        ASSERT_TRUE(backends.ok()) << backends.error().message;
        const Result<scheduler::ScheduledGraph> scheduled = scheduler::splitGraph(*built, *backends, options);
        ASSERT_TRUE(scheduled.ok()) << scheduled.error().message;
        std::vector<scheduler::BufferType> types;
        for (const scheduler::SchedulerBackend& backend : *backends) {
            types.push_back(backend.computeBufferType);
        }
        const std::vector<std::uint64_t> bytes = allocator::planComputeBuffers(scheduled->plan, types);
        reserved.resize(bytes.size(), 0);
        for (std::size_t b = 0; b < bytes.size(); ++b) {
            reserved[b] = std::max(reserved[b], bytes[b]);
            EXPECT_EQ(reserved[b], real->expectedBufferBytes.at(b))
                << real->backends[b].name << " compute buffer";
        }
    }
}

// One test over every plan, each failure named: ctest runs each gtest case in a process of its own,
// and reading every plan's model to list the cases cost every process of this binary a second
// (far more under Wine).
TEST(ModelGraphTest, BuildsTheServersGraphAndItsComputeBuffer) {
    std::size_t builtCount = 0;
    std::vector<std::string> withoutBuilder;
    const std::vector<std::string> plans = planFolders();
    for (const std::string& plan : plans) {
        SCOPED_TRACE(plan);
        bool built = false;
        checkPlan(plan, built);
        if (built) {
            ++builtCount;
        } else {
            withoutBuilder.push_back(plan);
        }
    }
    std::string rest;
    for (const std::string& plan : withoutBuilder) {
        rest += " " + plan;
    }
    std::printf(
        "[ plans    ] %zu of %zu plans built node by node; no builder for their architecture yet:%s\n",
        builtCount, plans.size(), rest.c_str());
    EXPECT_GT(builtCount, 0u);
}

// The RWKV graphs past what their plans (four and eight blocks) show: RWKV-6 halves the residual
// after every rescale_every_n_layers (6) layers, RWKV-7 mixes the first layer's value into every
// later layer but not into the first (whose time_mix_v0/v1/v2 llama.cpp loads "actually not
// used"), and each layer has one WKV node of ggml's shape, every token's output then each of the
// two sequences' states.
TEST(ModelGraphTest, BuildsTheRwkvLayersAsLlamaCppDoes) {
    struct RwkvCase {
        std::string stem;
        graph::GgmlOp wkv;
    };
    constexpr std::uint32_t kBlocks = 12;
    for (const RwkvCase& rwkv :
         {RwkvCase{"rwkv6", graph::GgmlOp::RwkvWkv6}, RwkvCase{"rwkv7", graph::GgmlOp::RwkvWkv7}}) {
        SCOPED_TRACE(rwkv.stem);
        test::IntegrationShape shape;
        shape.name = rwkv.stem;
        shape.specPath = std::string(LLAMAFIT_SHAPES_DIR) + "/" + rwkv.stem + ".json";
        shape.cut.blockCount = kBlocks;
        const Result<ModelInfo> model = shapeModel(shape);
        ASSERT_TRUE(model.ok()) << model.error().message;
        ASSERT_TRUE(graph::hasGraphBuilder(*model));
        const Result<ParsedServerArgs> parsed = parseServerArgs({"-c", "4096", "-np", "2"});
        ASSERT_TRUE(parsed.ok()) << parsed.error().message;
        const Result<ResolvedContext> context = resolveContext(*model, parsed->settings);
        ASSERT_TRUE(context.ok()) << context.error().message;
        const KvPlan kv = sizeKvCaches(*model, parsed->settings, *context);
        const Result<LayerPlacement> layers = placeLayers(*model, parsed->settings, {});
        ASSERT_TRUE(layers.ok());
        std::optional<graph::GraphParams> params =
            graphParamsFor(*model, parsed->settings, *context, kv, {}, *layers);
        ASSERT_TRUE(params.has_value());
        params->reserve = graph::reserveShapes(context->nUbatch, context->nSeqMax, context->nOutputs).front();
        ASSERT_EQ(params->reserve.sequences, 2u);
        const Result<graph::ComputeGraph> built = graph::buildModelGraph(*model, *params);
        ASSERT_TRUE(built.ok()) << built.error().message;

        const std::int64_t embd = model->embeddingLength;
        const auto headSize = static_cast<std::int64_t>(model->layers[0].recurrentStateWidth) / embd;
        std::size_t wkvNodes = 0;
        std::size_t rescales = 0;
        for (const graph::TensorId id : built->nodes) {
            const graph::Tensor& node = (*built)[id];
            if (node.op == rwkv.wkv) {
                ++wkvNodes;
                const std::array<std::int64_t, 4> expected{embd, params->reserve.tokens + headSize * 2, 1, 1};
                EXPECT_EQ(node.ne, expected);
            }
            // The state clears are in-place scales (views of the state); a rescale is a tensor.
            rescales += node.op == graph::GgmlOp::Scale && !node.isView() ? 1 : 0;
        }
        EXPECT_EQ(wkvNodes, kBlocks);
        if (rwkv.wkv == graph::GgmlOp::RwkvWkv6) {
            EXPECT_EQ(rescales, kBlocks / 6); // rwkv6.rescale_every_n_layers = 6
            continue;
        }
        const auto isLeaf = [&](const std::string& name) {
            return std::any_of(built->leafs.begin(), built->leafs.end(),
                               [&](graph::TensorId id) { return (*built)[id].name == name; });
        };
        EXPECT_FALSE(isLeaf("blk.0.time_mix_v0.weight"));
        for (std::uint32_t il = 1; il < kBlocks; ++il) {
            EXPECT_TRUE(isLeaf("blk." + std::to_string(il) + ".time_mix_v0.weight")) << "layer " << il;
        }
    }
}

} // namespace
} // namespace llamafit
