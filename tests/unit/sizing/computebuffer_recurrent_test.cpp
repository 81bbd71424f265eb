// The compute buffer of recurrent and hybrid models (the sizing engine's graph builders,
// core/sizing/graph/models) against llama-server 0.7.0's own "CPU compute buffer size" lines:
// the realistic shapes of tests/data/shapes read through the model interpreter, and the same
// shapes with other dimensions (n_embd, d_inner, d_state, groups, heads, LoRA ranks, n_ff) as
// they were measured (-lv 4 --no-warmup -fit off -nr -t 2, CPU backend, FA auto).
#include "core/flags/serverargs.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/computebuffer.h"
#include "core/sizing/estimator.h"
#include "tests/support/modelfiles.h"
#include "tests/unit/sizing/estimatequery.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <string>
#include <vector>

namespace llamafit {
namespace {

// Edits a shape's spec before it is interpreted: keys, tensor shapes, block count, vocabulary.
class ShapeEdit {
  public:
    explicit ShapeEdit(ModelSpec& spec) : m_spec(spec) {
        m_arch = spec.file.getString("general.architecture").value_or("");
    }
    ShapeEdit& key(const std::string& suffix, std::uint64_t value) {
        for (auto& [name, v] : m_spec.file.metadata) {
            if (name == m_arch + "." + suffix) {
                v = GgufValue::fromUint(value);
            }
        }
        return *this;
    }
    // A per-layer u32 array: every element equal to `from` becomes `to`.
    ShapeEdit& perLayer(const std::string& suffix, std::uint64_t from, std::uint64_t to) {
        const std::string name = m_arch + "." + suffix;
        const auto values = m_spec.file.getIntArray(name);
        GgufArray array(GgufValueType::Uint32);
        for (const std::int64_t value : values.value_or(std::vector<std::int64_t>{})) {
            array.appendUint(static_cast<std::uint64_t>(value) == from ? to
                                                                       : static_cast<std::uint64_t>(value));
        }
        for (auto& [key, v] : m_spec.file.metadata) {
            if (key == name) {
                v = GgufValue::fromArray(array);
            }
        }
        return *this;
    }
    // Every tensor named `name` (whole name) or "blk.N.<name>".
    ShapeEdit& tensor(const std::string& name, std::initializer_list<std::uint64_t> shape) {
        for (auto& t : m_spec.file.tensors) {
            const bool block =
                t.name.rfind("blk.", 0) == 0 && t.name.size() > name.size() &&
                t.name.compare(t.name.size() - name.size() - 1, std::string::npos, "." + name) == 0;
            if (t.name != name && !block) {
                continue;
            }
            t.shape = {1, 1, 1, 1};
            std::size_t i = 0;
            for (const std::uint64_t n : shape) {
                t.shape[i++] = n;
            }
            t.dimensionCount = static_cast<std::uint32_t>(shape.size());
            t.bytes = ggmlRowBytes(t.type, t.shape[0]) * t.shape[1] * t.shape[2] * t.shape[3];
        }
        return *this;
    }
    ShapeEdit& blocks(std::uint32_t count) {
        key("block_count", count);
        std::erase_if(m_spec.file.tensors, [&](const GgufTensorInfo& t) {
            return t.name.rfind("blk.", 0) == 0 && std::stoul(t.name.substr(4)) >= count;
        });
        return *this;
    }
    ShapeEdit& vocabulary(std::uint32_t tokens, std::uint64_t embd) {
        m_spec.vocabularySize = tokens;
        return tensor("token_embd.weight", {embd, tokens}).tensor("output.weight", {embd, tokens});
    }

  private:
    ModelSpec& m_spec;
    std::string m_arch;
};

using Edit = std::function<void(ShapeEdit&)>;

ModelInfo shapeModel(const std::string& shape, const Edit& edit = {}) {
    auto spec = test::loadShape(shape);
    EXPECT_TRUE(spec.ok()) << shape;
    if (!spec.ok()) {
        return {};
    }
    if (edit) {
        ShapeEdit editor(spec.value());
        edit(editor);
    }
    spec.value().file.rebuildIndex();
    auto file = test::ggufFileForSpec(spec.value());
    EXPECT_TRUE(file.ok()) << shape;
    auto model = file.ok() ? interpretModel(file.value()) : Result<ModelInfo>(file.error());
    EXPECT_TRUE(model.ok()) << shape << ": " << (model.ok() ? "" : model.error().message);
    return model.ok() ? model.value() : ModelInfo{};
}

struct Vector {
    std::vector<std::string> flags; // llama-server flags
    double loggedMiB;
};

// Within 1 %: the engine reproduces the plans to the byte, the rest is the log's two decimals.
void expectVectors(const ModelInfo& model, const std::string& name, const std::vector<Vector>& vectors,
                   double tolerance = 0.01) {
    for (const auto& v : vectors) {
        auto parsed = parseServerArgs(v.flags);
        ASSERT_TRUE(parsed.ok()) << name;
        auto estimate = estimateMemory(model, parsed.value().settings);
        ASSERT_TRUE(estimate.ok()) << name << ": " << estimate.error().message;
        const double predicted = test::mib(estimate.value().totals.computeBytes);
        std::string flags;
        for (const auto& f : v.flags) {
            flags += " " + f;
        }
        EXPECT_LE(std::abs(predicted - v.loggedMiB) / v.loggedMiB, tolerance)
            << name << flags << ": predicted " << predicted << " MiB, logged " << v.loggedMiB;
        std::cout << "  " << name << " |" << flags << " | logged " << v.loggedMiB << " | predicted "
                  << predicted << "\n";
    }
}

std::vector<std::string> args(std::initializer_list<const char*> list) {
    return {list.begin(), list.end()};
}

TEST(ComputeBufferRecurrent, MambaShapes) {
    expectVectors(shapeModel("mamba"), "mamba",
                  {{args({"-c", "4096", "-np", "1"}), 22.62},
                   {args({"-c", "4096"}), 22.95},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 5.74},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 4.36},
                   {args({"-c", "4096", "-np", "3", "-ub", "100", "-kvu"}), 4.82},
                   {args({"-c", "8192", "-np", "1", "-ub", "2048"}), 90.14}});
    expectVectors(shapeModel("mamba2"), "mamba2",
                  {{args({"-c", "4096", "-np", "1"}), 24.83},
                   {args({"-c", "4096"}), 27.14},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 6.78},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 14.42},
                   {args({"-c", "4096", "-np", "2", "-ub", "256", "-kvu"}), 13.57},
                   // the second block peaks higher in the holes the first one leaves
                   {args({"-c", "4096", "-np", "1", "-ub", "1024"}), 48.90},
                   {args({"-c", "8192", "-np", "1", "-ub", "2048"}), 97.01}});
}

TEST(ComputeBufferRecurrent, MambaWithOtherDimensions) {
    // mamba2 with Nemotron-H-8B's SSM (d_inner 8192, 8 groups, state 128, 128 heads), 2 blocks.
    const ModelInfo wide = shapeModel("mamba2", [](ShapeEdit& e) {
        e.blocks(2)
            .key("embedding_length", 4096)
            .key("ssm.inner_size", 8192)
            .key("ssm.group_count", 8)
            .key("ssm.time_step_rank", 128)
            .vocabulary(50288, 4096)
            .tensor("attn_norm.weight", {4096})
            .tensor("ssm_in.weight", {4096, 18560})
            .tensor("ssm_conv1d.weight", {4, 10240})
            .tensor("ssm_conv1d.bias", {10240})
            .tensor("ssm_dt.bias", {128})
            .tensor("ssm_a", {1, 128})
            .tensor("ssm_d", {1, 128})
            .tensor("ssm_norm.weight", {1024, 8})
            .tensor("ssm_out.weight", {8192, 4096})
            .tensor("output_norm.weight", {4096});
    });
    expectVectors(wide, "mamba2 e4096 inner 8192",
                  {{args({"-c", "4096", "-np", "1", "-ub", "64", "-kvu"}), 20.65},
                   {args({"-c", "4096", "-np", "1", "-ub", "256", "-kvu"}), 70.25},
                   {args({"-c", "4096", "-np", "1", "-kvu"}), 132.38},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 77.47},
                   {args({"-c", "4096", "-np", "8", "-kvu"}), 193.20}});
    // Mamba-1 with Falcon-Mamba-7B's dims (4096, d_inner 8192, state 16, dt rank 256), 2 blocks.
    const ModelInfo mamba7b = shapeModel("mamba", [](ShapeEdit& e) {
        e.blocks(2)
            .key("embedding_length", 4096)
            .key("ssm.inner_size", 8192)
            .key("ssm.time_step_rank", 256)
            .vocabulary(50280, 4096)
            .tensor("attn_norm.weight", {4096})
            .tensor("ssm_in.weight", {4096, 16384})
            .tensor("ssm_conv1d.weight", {4, 8192})
            .tensor("ssm_conv1d.bias", {8192})
            .tensor("ssm_x.weight", {8192, 288})
            .tensor("ssm_dt.weight", {256, 8192})
            .tensor("ssm_dt.bias", {8192})
            .tensor("ssm_a", {16, 8192})
            .tensor("ssm_d", {8192})
            .tensor("ssm_out.weight", {8192, 4096})
            .tensor("output_norm.weight", {4096});
    });
    expectVectors(mamba7b, "mamba e4096 inner 8192",
                  {{args({"-c", "4096", "-np", "1", "-kvu"}), 120.60},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 23.25},
                   {args({"-c", "4096", "-np", "2", "-ub", "256", "-kvu"}), 61.19}});
}

TEST(ComputeBufferRecurrent, HybridShapes) {
    expectVectors(shapeModel("jamba"), "jamba", // the peak is the MoE FFN (n_ff from ffn_up_exps)
                  {{args({"-c", "4096", "-np", "1"}), 212.02},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 53.00},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 26.50},
                   {args({"-c", "4096", "-np", "3", "-ub", "100", "-kvu"}), 42.24}});
    expectVectors(shapeModel("falcon-h1"), "falcon-h1",
                  {{args({"-c", "4096", "-np", "1"}), 31.34},
                   {args({"-c", "4096"}), 33.65},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 8.41},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 15.48},
                   {args({"-c", "4096", "-np", "1", "-ub", "1024"}), 61.15}});
    expectVectors(shapeModel("granitehybrid"), "granitehybrid",
                  {{args({"-c", "4096", "-np", "1"}), 28.88},
                   {args({"-c", "4096"}), 31.19},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 7.80},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 14.93},
                   {args({"-c", "4096", "-np", "2", "-ub", "256", "-kvu"}), 15.60}});
    expectVectors(shapeModel("nemotron_h"), "nemotron_h",
                  {{args({"-c", "4096", "-np", "1"}), 136.38},
                   {args({"-c", "4096"}), 152.73},
                   {args({"-c", "32768", "-ub", "128"}), 69.54},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 77.97},
                   {args({"-c", "4096", "-np", "2", "-ub", "256", "-kvu"}), 76.37}});
}

TEST(ComputeBufferRecurrent, HybridSecondBlockAfterAnFfn) {
    // At n_ubatch >= 768 a hybrid's second recurrent block, placed in the holes of the FFN block
    // before it, peaks higher than its first (by up to 2 %): the engine builds every block.
    expectVectors(shapeModel("nemotron_h"), "nemotron_h",
                  {{args({"-c", "8192", "-np", "1", "-ub", "768"}), 214.63},
                   {args({"-c", "4096", "-np", "1", "-ub", "1024"}), 276.77}});
    expectVectors(shapeModel("granitehybrid"), "granitehybrid",
                  {{args({"-c", "4096", "-np", "1", "-ub", "1024"}), 57.01}});
}

TEST(ComputeBufferRecurrent, FalconH1AttentionWiderThanTheEmbedding) {
    // 16 heads x 128 = 2048 > n_embd 1024: the attention output waits beside the SSM.
    const ModelInfo model = shapeModel("falcon-h1", [](ShapeEdit& e) {
        e.blocks(3)
            .key("attention.head_count", 16)
            .key("attention.head_count_kv", 4)
            .key("attention.key_length", 128)
            .key("attention.value_length", 128)
            .key("rope.dimension_count", 128)
            .key("ssm.inner_size", 2048)
            .key("ssm.time_step_rank", 32)
            .tensor("ssm_in.weight", {1024, 4384})
            .tensor("ssm_conv1d.weight", {4, 2304})
            .tensor("ssm_conv1d.bias", {2304})
            .tensor("ssm_dt.bias", {32})
            .tensor("ssm_a", {1, 32})
            .tensor("ssm_d", {1, 32})
            .tensor("ssm_norm.weight", {2048, 1})
            .tensor("ssm_out.weight", {2048, 1024})
            .tensor("attn_q.weight", {1024, 2048})
            .tensor("attn_k.weight", {1024, 512})
            .tensor("attn_v.weight", {1024, 512})
            .tensor("attn_output.weight", {2048, 1024});
    });
    expectVectors(model, "falcon-h1 16 heads x 128",
                  {{args({"-c", "4096", "-np", "1"}), 40.61},
                   {args({"-c", "4096"}), 43.69},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 10.92},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 20.16}});
}

TEST(ComputeBufferRecurrent, Rwkv7) {
    expectVectors(shapeModel("rwkv7"), "rwkv7",
                  {{args({"-c", "4096", "-np", "1"}), 30.20},
                   {args({"-c", "4096"}), 30.76},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 7.69},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 6.75},
                   {args({"-c", "4096", "-np", "3", "-ub", "100", "-kvu"}), 7.10},
                   {args({"-c", "4096", "-np", "1", "-ub", "1024"}), 60.20}});
    // RWKV7-1.5B-like: 2048, LoRA ranks 96/96/64/256, 3 blocks.
    const ModelInfo wide = shapeModel("rwkv7", [](ShapeEdit& e) {
        e.blocks(3).key("embedding_length", 2048).key("feed_forward_length", 8192).vocabulary(65536, 2048);
        for (const char* name :
             {"token_embd_norm.weight", "token_embd_norm.bias", "attn_norm.weight", "attn_norm.bias",
              "attn_norm_2.weight", "attn_norm_2.bias", "time_mix_w0.weight", "time_mix_a0.weight",
              "time_mix_v0.weight", "time_mix_k_k.weight", "time_mix_k_a.weight", "time_mix_r_k.weight",
              "time_mix_ln.weight", "time_mix_ln.bias", "output_norm.weight", "output_norm.bias"}) {
            e.tensor(name, {2048});
        }
        e.tensor("time_mix_w1.weight", {2048, 96})
            .tensor("time_mix_w2.weight", {96, 2048})
            .tensor("time_mix_a1.weight", {2048, 96})
            .tensor("time_mix_a2.weight", {96, 2048})
            .tensor("time_mix_v1.weight", {2048, 64})
            .tensor("time_mix_v2.weight", {64, 2048})
            .tensor("time_mix_g1.weight", {2048, 256})
            .tensor("time_mix_g2.weight", {256, 2048})
            .tensor("time_mix_lerp_fused.weight", {2048, 1, 1, 6})
            .tensor("time_mix_key.weight", {2048, 2048})
            .tensor("time_mix_value.weight", {2048, 2048})
            .tensor("time_mix_receptance.weight", {2048, 2048})
            .tensor("time_mix_output.weight", {2048, 2048})
            .tensor("channel_mix_lerp_k.weight", {2048, 1, 1})
            .tensor("channel_mix_key.weight", {2048, 8192})
            .tensor("channel_mix_value.weight", {8192, 2048});
    });
    expectVectors(wide, "rwkv7 e2048",
                  {{args({"-c", "4096", "-np", "1"}), 80.51},
                   {args({"-c", "4096"}), 82.01},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 20.50},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 18.00}});
}

TEST(ComputeBufferRecurrent, GatedDeltaNet) {
    expectVectors(shapeModel("qwen3next"), "qwen3next",
                  {{args({"-c", "4096", "-np", "1"}), 96.11},
                   {args({"-c", "4096"}), 104.02},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 26.00},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 47.00},
                   {args({"-c", "4096", "-np", "2", "-ub", "256", "-kvu"}), 52.01},
                   {args({"-c", "4096", "-np", "1", "-ub", "1024"}), 192.13}});
    expectVectors(shapeModel("qwen35moe"), "qwen35moe",
                  {{args({"-c", "32768", "-ub", "128"}), 39.38},
                   {args({"-c", "4096", "-ub", "128"}), 32.38},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 41.50},
                   {args({"-c", "4096", "-np", "2", "-ub", "256", "-kvu"}), 40.01},
                   {args({"-c", "4096", "-np", "8", "-kvu"}), 96.77},
                   {args({"-c", "4096", "-np", "1", "-ub", "1024"}), 160.05}});
    // Qwen3.5-122B-like delta net: 64 value heads, d_inner 8192, 4 blocks.
    const ModelInfo wide = shapeModel("qwen35moe", [](ShapeEdit& e) {
        e.blocks(4)
            .key("ssm.inner_size", 8192)
            .key("ssm.time_step_rank", 64)
            .tensor("attn_qkv.weight", {2048, 12288})
            .tensor("attn_gate.weight", {2048, 8192})
            .tensor("ssm_conv1d.weight", {4, 12288})
            .tensor("ssm_dt.bias", {64})
            .tensor("ssm_a", {64})
            .tensor("ssm_beta.weight", {2048, 64})
            .tensor("ssm_alpha.weight", {2048, 64})
            .tensor("ssm_out.weight", {8192, 2048});
    });
    expectVectors(wide, "qwen35moe inner 8192",
                  {{args({"-c", "4096", "-np", "1"}), 80.02},
                   {args({"-c", "4096"}), 128.59},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 32.15},
                   {args({"-c", "4096", "-np", "8", "-ub", "64", "-kvu"}), 77.25}});
}

TEST(ComputeBufferRecurrent, SlotsChangeTheRecurrentPeak) {
    // One state per slot: mamba logs 22.62 MiB with -np 1 and 22.95 with -np auto (4 slots).
    const ModelInfo model = shapeModel("mamba");
    ServerSettings one;
    one.contextTokens = 4096;
    one.parallelSlots = 1;
    ServerSettings four = one;
    four.parallelSlots.reset();
    const auto a = estimateMemory(model, one);
    const auto b = estimateMemory(model, four);
    ASSERT_TRUE(a.ok() && b.ok());
    // 3 more slots x (d_state + d_conv - 1) x d_inner floats: the scan's final states and the
    // convolution's per-slot tail.
    EXPECT_EQ(b.value().totals.computeBytes - a.value().totals.computeBytes, 3ull * (16 + 3) * 1536 * 4);
}

TEST(ComputeBufferRecurrent, UngatedFeedForwardKeepsOnlyUpLive) {
    // nemotron_h with a small SSM so its squared-ReLU MLP is the peak: 5 n_embd + n_ff.
    auto shrink = [](std::uint64_t ff) {
        return [ff](ShapeEdit& e) {
            e.key("ssm.inner_size", 256)
                .key("ssm.state_size", 16)
                .key("ssm.group_count", 1)
                .key("ssm.time_step_rank", 8)
                .perLayer("feed_forward_length", 21504, ff)
                .vocabulary(32000, 4096)
                .tensor("ssm_in.weight", {4096, 552})
                .tensor("ssm_conv1d.weight", {4, 288})
                .tensor("ssm_conv1d.bias", {288})
                .tensor("ssm_dt.bias", {8})
                .tensor("ssm_a", {1, 8})
                .tensor("ssm_d", {1, 8})
                .tensor("ssm_norm.weight", {256, 1})
                .tensor("ssm_out.weight", {256, 4096})
                .tensor("ffn_up.weight", {4096, ff})
                .tensor("ffn_down.weight", {ff, 4096});
        };
    };
    expectVectors(shapeModel("nemotron_h", shrink(21504)), "nemotron_h MLP 21504",
                  {{args({"-c", "4096", "-np", "1"}), 86.02}});
    expectVectors(shapeModel("nemotron_h", shrink(12288)), "nemotron_h MLP 12288",
                  {{args({"-c", "4096", "-np", "1"}), 68.02}});
    expectVectors(shapeModel("nemotron_h", shrink(6144)), "nemotron_h MLP 6144",
                  {{args({"-c", "4096", "-np", "1"}), 56.02}});
}

TEST(ComputeBufferRecurrent, ParallelAttentionAndFeedForward) {
    // cohere2.cpp: the attention output waits for the FFN (5 n_embd + 3 n_ff + n_embd).
    expectVectors(shapeModel("cohere2"), "cohere2",
                  {{args({"-c", "4096"}), 140.03},
                   {args({"-c", "4096", "-np", "1", "-ub", "128"}), 35.01},
                   {args({"-c", "32768", "-np", "4"}), 144.53}});
}

TEST(ComputeBufferRecurrent, QuantizedKeysAddTheRotationInput) {
    // llama-kv-cache.cpp build_input_k_rot: a head_dim x head_dim f32 input per cache (128 here),
    // and 64 x 64 for a quantized V.
    expectVectors(shapeModel("qwen3"), "qwen3",
                  {{args({"-c", "4096", "-np", "1", "-ctk", "q8_0"}), 32.08},
                   {args({"-c", "4096", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"}), 32.10}});
    const ModelInfo model = shapeModel("qwen3");
    auto compute = [&](GgmlType k, GgmlType v) {
        ServerSettings s;
        s.contextTokens = 4096;
        s.parallelSlots = 1;
        s.cacheTypeK = k;
        s.cacheTypeV = v;
        return estimateMemory(model, s).value().totals.computeBytes;
    };
    EXPECT_EQ(compute(GgmlType::Q8_0, GgmlType::F16) - compute(GgmlType::F16, GgmlType::F16), 128u * 128 * 4);
    EXPECT_EQ(compute(GgmlType::Q8_0, GgmlType::Q8_0) - compute(GgmlType::Q8_0, GgmlType::F16), 64u * 64 * 4);
}

} // namespace
} // namespace llamafit
